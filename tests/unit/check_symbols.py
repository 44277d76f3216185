#!/usr/bin/env python3
"""Compares the symbols libgshmem exports with the list the type tables
promise (printed by symbols_expected), both ways: a promised symbol that is
missing, or an exported gshmem symbol nobody promised, fails."""
import subprocess
import sys

lib, expected_prog = sys.argv[1], sys.argv[2]
expected = subprocess.run([expected_prog], check=True, capture_output=True,
                          text=True).stdout.split()
dups = {s for s in expected if expected.count(s) > 1}
nm = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                    capture_output=True, text=True).stdout
exported = {line.split()[-1] for line in nm.splitlines() if line.strip()}
exported_api = {s for s in exported if s.startswith(("gshmem_", "gshmemx_", "gshmemi_"))}
others = sorted(s for s in exported if not s.startswith(("gshmem_", "gshmemx_", "gshmemi_"))
                and not s.startswith("_"))
missing = sorted(set(expected) - exported)
extra = sorted(exported_api - set(expected))
for s in missing:
    print("missing export:", s)
for s in extra:
    print("exported but not in the tables:", s)
for s in sorted(dups):
    print("listed twice:", s)
for s in others:
    print("exported symbol without the gshmem prefix:", s)
print(f"{len(expected)} expected, {len(exported_api)} exported")
sys.exit(1 if missing or extra or dups or others else 0)
