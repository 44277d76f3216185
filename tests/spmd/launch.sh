#!/bin/sh
# launch.sh LAUNCHER NPES PROGRAM [ARGS...]: runs an SPMD test under gshmrun or
# mpirun with a job-wide time limit, so a hang ends the whole job.
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
    exec mpirun --oversubscribe --bind-to none -np "$np" --timeout "$limit" "$@" ;;
*)
    echo "launch.sh: unknown launcher $launcher" >&2
    exit 2 ;;
esac
