#!/bin/sh
# Quick start 2: build gshmem with warnings as errors and run every test
# (unit, spmd under gshmrun and mpirun, tcp; gpu tests skip without a GPU),
# and check that the build without CUDA still builds and passes its basics.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
status=0

# The build without CUDA must keep working (machines without the toolkit).
nocuda=build-test-nocuda
[ -d $nocuda ] || meson setup $nocuda --werror -Dcuda=disabled >/dev/null
ninja -C $nocuda >/dev/null
if meson test -C $nocuda --num-processes 2 --print-errorlogs --suite unit >/dev/null &&
   meson test -C $nocuda --print-errorlogs rma-gshmrun-2 rma-tcp-2 >/dev/null; then
    echo "build without CUDA: builds; unit tests, rma-gshmrun-2 and rma-tcp-2 pass"
else
    echo "build without CUDA: FAILED (see $nocuda/meson-logs/testlog.txt)"
    status=1
fi

dir=build-test
[ -d $dir ] || meson setup $dir --werror >/dev/null
ninja -C $dir
meson test -C $dir --print-errorlogs --num-processes 2 || status=1
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0, "EXPECTEDFAIL": 0, "UNEXPECTEDPASS": 0, "ERROR": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    counts[r] = counts.get(r, 0) + 1
failed = counts["FAIL"] + counts["TIMEOUT"] + counts["ERROR"] + counts["UNEXPECTEDPASS"]
print(f"tests: {counts['OK'] + counts['EXPECTEDFAIL']} passed, {failed} failed, {counts['SKIP']} skipped")
PY
exit $status
