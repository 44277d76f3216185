#!/bin/sh
# launch.sh LAUNCHER NPES PROGRAM [ARGS...]: runs an SPMD test under gshmrun,
# mpirun (Open MPI) or mpich (MPICH's mpiexec) with a job-wide time limit, so
# a hang ends the whole job.
set -eu
launcher=$1 np=$2
shift 2
limit=${TEST_JOB_TIMEOUT:-240}
case $launcher in
gshmrun)
    exec "$GSHMRUN" -n "$np" -t "$limit" -- "$@" ;;
mpirun)
    if [ "$(id -u)" = 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    # meson test's MALLOC_PERTURB_ goes to the PEs, not to mpirun itself:
    # Open MPI 4.1's mpirun may read freed memory while it ends a job.
    if [ -n "${MALLOC_PERTURB_:-}" ]; then
        set -- -x "MALLOC_PERTURB_=$MALLOC_PERTURB_" "$@"
        unset MALLOC_PERTURB_
    fi
    exec mpirun --oversubscribe --bind-to none -np "$np" --timeout "$limit" "$@" ;;
mpich)
    # MPICH's hydra: its own limit, and timeout's in case hydra hangs itself
    export MPIEXEC_TIMEOUT="$limit"
    exec timeout -k 10 "$((limit + 10))" mpiexec.mpich -n "$np" "$@" ;;
*)
    echo "launch.sh: unknown launcher $launcher" >&2
    exit 2 ;;
esac
