#!/bin/sh
# Builds the libFuzzer harnesses of tests/fuzz (clang, AddressSanitizer and
# UBSan, no CUDA) in their own build directory and runs each over its
# corpus for a fixed time: first every corpus file once (the regressions,
# regress-*, among them), then new inputs until the time is up.  Fails on
# any crash, leak, sanitizer report, timeout (an input slower than 10 s)
# or out-of-memory.  A failing input is kept under build-fuzz/artifacts/:
# add it to tests/fuzz/corpus/<harness>/ as regress-<what> once fixed.
#
# usage: scripts/test-fuzz.sh [SECONDS_PER_HARNESS]   (default 15)
set -eu
cd "$(dirname "$0")/.."
secs=${1:-15}
dir=build-fuzz
harnesses="uid_msgs uniqueid tcp_wire fdx env"
t0=$(date +%s)

if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: clang is not installed (scripts/install-deps.sh installs it)"
    exit 1
fi
if [ ! -d $dir ] && ! CC=clang meson setup $dir -Dfuzz=true -Dcuda=disabled >/tmp/fuzz-setup.$$ 2>&1; then
    cat /tmp/fuzz-setup.$$
    rm -rf $dir /tmp/fuzz-setup.$$
    echo "fuzz: meson setup failed"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi
rm -f /tmp/fuzz-setup.$$
targets=""
for h in $harnesses; do targets="$targets tests/fuzz/fuzz_$h"; done
if ! ninja -C $dir -j2 $targets >$dir/build.log 2>&1; then
    tail -40 $dir/build.log
    echo "fuzz: the harnesses did not build"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi
built=$(date +%s)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p $dir/artifacts
# fuzz_one HARNESS: runs it, its log in $work/HARNESS.log, its verdict in
# $work/HARNESS.rc
fuzz_one() {
    mkdir "$work/$1"
    # New inputs go to the scratch directory; the tree's corpus is read only.
    # stderr of the code under test is closed (-close_fd_mask=2: its log
    # lines), libFuzzer's and the sanitizers' reports still reach the log.
    if $dir/tests/fuzz/fuzz_$1 "$work/$1" tests/fuzz/corpus/fuzz_$1 \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -close_fd_mask=2 \
        -artifact_prefix="$dir/artifacts/fuzz_$1-" -print_final_stats=1 \
        >"$work/$1.log" 2>&1; then
        echo 0 >"$work/$1.rc"
    else
        echo 1 >"$work/$1.rc"
    fi
}
# Two harnesses at a time (each is one process: two cores, half the time).
set -- $harnesses
while [ $# -gt 0 ]; do
    fuzz_one "$1" &
    [ $# -gt 1 ] && fuzz_one "$2" &
    wait
    shift
    [ $# -gt 0 ] && shift
done
passed=0
failed=0
for h in $harnesses; do
    if [ "$(cat "$work/$h.rc")" = 0 ]; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$h.log")
        echo "fuzz_$h: ok ($runs inputs in $secs s)"
        passed=$((passed + 1))
    else
        echo "fuzz_$h: FAILED"
        grep -v '^#[0-9]' "$work/$h.log" | tail -40
        failed=$((failed + 1))
    fi
done
end=$(date +%s)
echo "fuzz: build $((built - t0)) s, runs $((end - built)) s"
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
