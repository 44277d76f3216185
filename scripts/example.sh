#!/bin/sh
# Quick start 1: build gshmem and run the hello example on 4 PEs with gshmrun
# (the heap is in host memory where there is no GPU).
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
./build/tools/gshmrun -n 4 ./build/examples/hello
