#!/bin/sh
# Quick start 2: build gshmem with warnings as errors and run every test
# (unit, spmd under gshmrun and mpirun, tcp; gpu tests skip without a GPU;
# the ibrc transport in a Soft-RoCE VM), check that the build without
# CUDA still builds and passes its basics, and run the sanitizer builds
# (scripts/test-sanitizers.sh).
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
status=0
failed_parts=
# failed PART: the run fails; the last line names each failed part (CI shows
# only the output's end)
failed() { status=1; failed_parts="$failed_parts${failed_parts:+, }$1"; }
# part LABEL COMMAND...: runs a part, its output shown as it comes; when it
# fails, its lines that say FAILED are repeated at the end
fail_lines=$(mktemp)
part() {
    part_label=$1
    shift
    part_log=$(mktemp)
    part_rc=$(mktemp)
    { "$@" 2>&1 && echo 0 >"$part_rc" || echo $? >"$part_rc"; } | tee "$part_log"
    if [ "$(cat "$part_rc")" != 0 ]; then
        failed "$part_label"
        { echo "$part_label:"; grep -E 'FAILED|(FAIL|TIMEOUT|ERROR) +[0-9.]+s' "$part_log" | head -20; } >>"$fail_lines"
    fi
    rm -f "$part_log" "$part_rc"
}
# The Soft-RoCE VM's image (downloads, mostly) is made beside the other parts.
vm_prep_log=$(mktemp)
tests/rdma-vm/run --prepare >"$vm_prep_log" 2>&1 &
vm_prep=$!
# since LABEL START: says how long a part took (CI has a time budget)
since() { echo "$1: $(($(date +%s) - $2)) s"; }
begin=$(date +%s)

# The build without CUDA must keep working (machines without the toolkit):
# gcc's warnings on its code paths, and two runs (the sanitizers' builds,
# also without CUDA, run its tests).
nocuda=build-test-nocuda
start=$(date +%s)
# configure DIR -DOPTION=VALUE...: meson setup, or where DIR was set up
# before (a run on another machine, a GPU since, another meson), again
# with these options; a DIR a killed setup left half made is made anew.
# Its output shown only if it fails.
configure() {
    log=$(mktemp)
    if [ -f "$1/meson-private/coredata.dat" ]; then
        set -- --reconfigure "$@"
    else
        rm -rf "$1"
    fi
    meson setup "$@" >"$log" 2>&1 || { cat "$log"; rm -f "$log"; exit 1; }
    rm -f "$log"
}
configure $nocuda -Dwerror=true -Dcuda=disabled -Dcompat_programs=false
# the library, the tools and the two programs run (the sanitizer builds build the rest)
nocuda_targets="tools/gshmrun tools/gshmem-info tests/spmd_rma"
ninja -C $nocuda $nocuda_targets >/dev/null ||
    { echo "build without CUDA: FAILED to build"; ninja -C $nocuda $nocuda_targets | tail -30; exit 1; }
if meson test -C $nocuda --no-rebuild --print-errorlogs rma-gshmrun-2 rma-tcp-2 >/dev/null; then
    echo "build without CUDA: builds; rma-gshmrun-2 and rma-tcp-2 pass"
else
    echo "build without CUDA: FAILED (see $nocuda/meson-logs/testlog.txt)"
    failed "build without CUDA"
fi
since "build without CUDA" $start

# The decoders of bytes from outside the process under libFuzzer, 10 s
# each (about a minute and a half with the build).
start=$(date +%s)
part fuzz scripts/test-fuzz.sh 10
since fuzz $start

# ASan + UBSan and TSan builds without CUDA, each over the tests it can check.
start=$(date +%s)
part sanitizers ./scripts/test-sanitizers.sh
since sanitizers $start

dir=build-test
# Without a GPU the CUDA code is only checked to compile, never run (the GPU
# tests skip): it is compiled to PTX alone (-Dgpu_arch=compute_90; ptxas took
# half of nvcc's time) and without cicc's optimizer (-Xcicc -O0; a third of
# what was left), for CI's budget.
if nvidia-smi -L >/dev/null 2>&1; then
    configure $dir -Dwerror=true -Dgpu_arch=sm_90 -Dcuda_args=
else
    configure $dir -Dwerror=true -Dgpu_arch=compute_90 "-Dcuda_args=-Xcicc -O0"
fi
start=$(date +%s)
ninja -C $dir
since build $start
start=$(date +%s)
part "meson test" meson test -C $dir --print-errorlogs --num-processes 2
since "meson test" $start
# A failed test's own last lines go to the end too: its full output is far
# above, past what CI shows.
python3 - "$dir/meson-logs/testlog.json" >>"$fail_lines" <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS", "INTERRUPT"):
        print("%s (%s), its output's end:" % (r["name"], r["result"]))
        print("\n".join("    " + l for l in (r.get("stdout") or "").splitlines()[-25:]))
PY

# The ibrc transport under Soft-RoCE in a VM (a few minutes; the guest is
# built once and kept in build-test-rdma-vm/).
vm_log=$(mktemp)
vm_rc=0
start=$(date +%s)
wait $vm_prep || true # a failed preparation shows again, with its reason, in the run
cat "$vm_prep_log"
rm -f "$vm_prep_log"
tests/rdma-vm/run >"$vm_log" 2>&1 || vm_rc=$?
cat "$vm_log"
since rdma-vm $start
case $vm_rc in
0 | 77) ;;
*)
    failed rdma-vm
    { echo "rdma-vm:"; grep -E '^FAIL|FAILED' "$vm_log" | head -20; } >>"$fail_lines"
    ;;
esac
vm_counts=$(grep -o '^rdma-vm: [0-9]* passed, [0-9]* failed' "$vm_log" | tail -1 | tr -dc '0-9 ' | xargs)
rm -f "$vm_log"

python3 - "$dir/meson-logs/testlog.json" "$vm_rc" $vm_counts <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0, "EXPECTEDFAIL": 0, "UNEXPECTEDPASS": 0, "ERROR": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    counts[r] = counts.get(r, 0) + 1
passed = counts["OK"] + counts["EXPECTEDFAIL"]
failed = counts["FAIL"] + counts["TIMEOUT"] + counts["ERROR"] + counts["UNEXPECTEDPASS"]
skipped = counts["SKIP"]
vm_rc, vm = int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
if len(vm) == 2:
    passed, failed = passed + vm[0], failed + vm[1]
elif vm_rc == 77:
    skipped += 1
elif vm_rc != 0:
    failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
since "all of it" $begin
if [ $status -ne 0 ]; then
    cat "$fail_lines"
    echo "FAILED: $failed_parts (each part's output is above, under its name)"
fi
rm -f "$fail_lines"
exit $status
