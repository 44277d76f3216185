#!/usr/bin/env python3
"""Writes (or with --check, compares) the README's environment section from
`gshmem-info --env=markdown`."""
import subprocess
import sys

args = [a for a in sys.argv[1:] if a != "--check"]
info, readme = args[0], args[1]
table = subprocess.run([info, "--env=markdown"], check=True, capture_output=True,
                       text=True).stdout
text = open(readme).read()
begin, end = "<!-- env:begin -->\n", "<!-- env:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
new = head + begin + table + end + tail
if "--check" in sys.argv:
    if new != text:
        print("README.md's environment section is stale: run "
              "scripts/update-readme.py build/tools/gshmem-info README.md")
        sys.exit(1)
    print("README.md's environment section matches the table")
else:
    open(readme, "w").write(new)
