#!/bin/sh
# run_on_gpu.sh NPES PROGRAM [ARGS...]: runs an SPMD test with the symmetric
# heap in GPU memory under gshmrun.
# run_on_gpu.sh --raw COMMAND [ARGS...]: runs COMMAND so, as it is.
# Exit 77 (skipped) where there is no GPU.
set -eu
if "$TEST_GSHMEM_INFO" | grep -q "^GPUs: none"; then
    echo "no usable GPU: skipped"
    exit 77
fi
export GSHMEM_HEAP=device
if [ "$1" = --raw ]; then
    shift
    exec "$@"
fi
exec "$(dirname "$0")/../spmd/launch.sh" gshmrun "$@"
