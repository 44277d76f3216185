#!/bin/sh
# Quick start 2: build gshmem with warnings as errors and run every test
# (unit, spmd under gshmrun and mpirun; gpu tests skip without a GPU).
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
dir=build-test
[ -d $dir ] || meson setup $dir --werror >/dev/null
ninja -C $dir
status=0
meson test -C $dir --print-errorlogs --num-processes 2 || status=$?
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
