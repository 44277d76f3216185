#!/bin/sh
# The sanitizer builds: gshmem without CUDA (the host heap) built with
# AddressSanitizer + UndefinedBehaviorSanitizer and with ThreadSanitizer,
# each running the tests that can find something in it.  Both with clang:
# its UBSan checks more than gcc's (NULL + 0; it also caught a promoted
# 16-bit product that gcc's did not), and gcc's TSan cannot instrument
# atomic_thread_fence.  Any report fails its test: the options below end
# the reporting process with SIGABRT, which gshmrun turns into the job's
# failure.
#
#   scripts/test-sanitizers.sh [asan] [tsan]     both when none is named
#
# asan: the unit suite (but install, which links unsanitized programs
#   against the library, and the name lists' checks, which read the
#   library's symbols and find the sanitizers' there) and the spmd suite on
#   the host heap under gshmrun and over tcp (mapped, tcp, simulated nodes,
#   the collectives' algorithms, bad input, launch and failure scenarios,
#   several threads per PE), plus a few mpirun jobs for the PMIx bootstrap.
#   Not mpi-comm-init: gshmem there runs inside Open MPI's library, whose
#   own leaks would need suppressing wholesale.
# tsan: what runs threads: the FIFO, bootstrap, fd exchange and atomics unit
#   tests; every tcp run (the transport's progress thread, the proxy thread
#   and its FIFO with CPU producers); several threads per PE in the host API
#   (spmd_threads, GSHMEM_THREAD_MULTIPLE); bad input through the proxy; and
#   the launch scenarios where a PE is killed or goes silent (death watch,
#   tcp heartbeats) or the bootstrap is disturbed.
#
# Build folders: build-test-asan, build-test-tsan (kept between runs).
# Suppressions, each with the reason it is not gshmem's: tests/sanitizers/.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
parts=${*:-asan tsan}
status=0

# Each report also goes to a file under the build's meson-logs/reports/:
# a process expected to fail (bad input, a killed peer) fails with a report
# too, so the files, not exit statuses alone, say whether a run was clean.
common="halt_on_error=1:abort_on_error=1:print_summary=1"
asan_opts="$common:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1"
ubsan_opts="$common:print_stacktrace=1"
tsan_opts="$common:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"

# options DIR: sets the sanitizers' options, reports to DIR/meson-logs/reports
options() {
    reports=$root/$1/meson-logs/reports
    rm -rf "$reports"
    mkdir -p "$reports"
    export ASAN_OPTIONS="$asan_opts:log_path=$reports/report"
    export UBSAN_OPTIONS="$ubsan_opts:log_path=$reports/report"
    export TSAN_OPTIONS="$tsan_opts:log_path=$reports/report"
}

# clean LABEL: fails the run when a report was written, and shows them
clean() {
    if [ -n "$(ls "$reports")" ]; then
        echo "$1: sanitizer reports from $(ls "$reports" | wc -l) processes (in $reports); the first:"
        for f in $(ls "$reports"/* | head -3); do
            echo "--- $f"
            head -60 "$f"
        done
        echo "--- each report's summary:"
        cat "$reports"/* | grep '^SUMMARY' | sort | uniq -c | sort -rn | head -20
        status=1
    fi
}

# names DIR [meson test selection...]: the names of the tests selected
names() {
    names_dir=$1
    shift
    meson test -C "$names_dir" --list "$@" 2>/dev/null | sed -n 's|^.* / ||p'
}

# setup DIR CC OPTIONS...: configures DIR once, then brings it up to date
# (SANITIZER_BUILD_JOBS: ninja's -j, else its default)
setup() {
    setup_dir=$1 compiler=$2
    shift 2
    if [ ! -d "$setup_dir" ] && ! CC=$compiler meson setup "$setup_dir" --werror -Dcuda=disabled \
        -Dcompat_programs=false -Db_lundef=false "$@" >"$root/$setup_dir.log" 2>&1; then
        cat "$root/$setup_dir.log"
        rm -rf "$setup_dir" "$root/$setup_dir.log"
        echo "$setup_dir: meson setup FAILED"
        exit 1
    fi
    rm -f "$root/$setup_dir.log"
    ninja -C "$setup_dir" ${SANITIZER_BUILD_JOBS:+-j "$SANITIZER_BUILD_JOBS"} >/dev/null ||
        { ninja -C "$setup_dir" | tail -30; echo "$setup_dir: build FAILED"; exit 1; }
}

# run LABEL DIR TESTS...: runs the tests two at a time, says how it went
run() {
    label=$1 run_dir=$2
    shift 2
    if [ $# -eq 0 ]; then # meson test with no names would run every test
        echo "$label: FAILED: no tests selected"
        status=1
        return
    fi
    run_start=$(date +%s)
    if meson test -C "$run_dir" --num-processes 2 --print-errorlogs --logbase "$label" "$@" \
        >"$run_dir/meson-logs/$label.out" 2>&1; then
        echo "$label: $# tests pass ($(($(date +%s) - run_start)) s)"
    else
        echo "$label: FAILED ($(($(date +%s) - run_start)) s); the failures:"
        grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' "$run_dir/meson-logs/$label.out" || true
        echo "  logs in $run_dir/meson-logs/$label.txt"
        status=1
    fi
    clean "$label"
}

# A sanitized tcp progress thread, slowed several times and sharing two
# cores with the other runs, can go quiet for the 6 s after which a peer is
# declared lost: the runs whose subject is not that detection wait longer
# (tests/spmd/check_launch.py sets its own, the default).  Under
# ThreadSanitizer a run is several times slower than without, and a
# sanitized report (or TSan's own work) can hold a progress thread for
# seconds: 60 s keeps a slow run from being taken for a lost peer.
export GSHMEM_HEARTBEAT_TIMEOUT=60
# Unit tests' long loops take a sample (tests/unit/test_util.h).
export TEST_SANITIZED=1

coll_few='coll-tcp-3\|coll-ll-gshmrun-3\|coll-ring-tcp-3\|coll-hier-sim-4pes-2nodes'
# The collectives' runs check a quarter of the types each (spmd_coll.c),
# each run its own quarter where the test does not set one.
export SPMD_COLL_PART=1/4

for part in $parts; do
    case $part in
    asan)
        dir=build-test-asan
        start=$(date +%s)
        setup $dir clang -Db_sanitize=address,undefined \
            -Dc_args="-fno-sanitize-recover=all -fno-omit-frame-pointer"
        echo "asan: built in $(($(date +%s) - start)) s"
        options $dir
        # For CI's time, the spmd programs at 2 PEs, mapped and over tcp
        # (the other counts add no code path of their own but the
        # collectives', run at 3 and 4), simulated nodes at 4 PEs, and of the
        # collectives (most of the time under the sanitizers) one run of
        # each algorithm family and peer class at 3 or 4 PEs.
        run asan $dir $(names $dir --suite unit --suite spmd --no-suite mpirun | grep -v mpirun |
            grep -v -- '-[1348]$' | grep -v -- '-[56]pes-' |
            grep -vx 'install\|shmem-names\|nvshmem-names\|nvshmem-names-generated' |
            grep -v '^coll-') $(names $dir --suite spmd | grep -x "$coll_few")
        # PMIx's own leaks are suppressed by a frame the fast unwinder does not reach
        options $dir
        ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" run asan-mpirun $dir \
            $(names $dir --suite spmd | grep -x 'rma-mpirun-2\|coll-mpirun-3\|team-sim-mpirun-.*')
        ;;
    tsan)
        dir=build-test-tsan
        start=$(date +%s)
        setup $dir clang -Db_sanitize=thread -Dc_args=-fno-omit-frame-pointer
        echo "tsan: built in $(($(date +%s) - start)) s"
        options $dir
        # Not the programs whose symmetric objects are globals (the
        # static-data tests, the OpenSHMEM programs of the compat suite):
        # under ThreadSanitizer gshmem leaves the data segment where it is,
        # since the sanitizer's own thread writes its state there (static
        # data is not symmetric then), and such globals, written by the tcp
        # thread for other PEs and ordered through other processes, would
        # need a suppression per variable (ASan runs them).
        run tsan $dir fifo bootstrap fdx amo negative-proxy \
            $(names $dir --suite tcp --suite threads --no-suite compat | grep -v static |
                grep -v -- '-4$' | grep -v '^coll-') \
            $(names $dir --suite tcp | grep -x 'coll-ring-tcp-3')
        start=$(date +%s)
        options $dir
        if GSHMEM_HEAP=host python3 tests/spmd/check_launch.py $dir/tools/gshmrun $dir/tests/lifecycle - \
            pe_killed_in_barrier pe_killed_tcp silent_peer_tcp global_exit intruder_during_init \
            uniqueid_held_by_application uniqueid_rank_never_arrives init_finalize_leaves_nothing \
            >$dir/meson-logs/tsan-launch.txt 2>&1; then
            echo "tsan-launch: $(tail -1 $dir/meson-logs/tsan-launch.txt) ($(($(date +%s) - start)) s)"
        else
            echo "tsan-launch: FAILED ($(($(date +%s) - start)) s):"
            grep -v '^ok' $dir/meson-logs/tsan-launch.txt | head -40
            status=1
        fi
        clean tsan-launch
        ;;
    *)
        echo "usage: $0 [asan] [tsan]" >&2
        exit 2
        ;;
    esac
done
exit $status
