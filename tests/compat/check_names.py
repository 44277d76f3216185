#!/usr/bin/env python3
"""Checks that shmem.h declares every OpenSHMEM 1.5 name of a list written
from the specification (shmem15_names.txt): generates a C file that takes
the address of each function, tests each macro with #ifdef and declares a
pointer to each type, then compiles and links it against libgshmem.  Names
marked absent must not be declared (so the list is corrected when they
come).  A missing name fails the test, and is named.
usage: check_names.py NAMES WORKDIR LIBGSHMEM_SO CC... -- CFLAGS..."""
import os
import re
import subprocess
import sys

names_file, workdir, lib = sys.argv[1:4]
libdir = os.path.dirname(os.path.abspath(lib))
rest = sys.argv[4:]
cc, cflags = rest[:rest.index("--")], rest[rest.index("--") + 1:]
sets, present, absent = {}, [], []
for lineno, line in enumerate(open(names_file), 1):
    line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
    if not line:
        continue
    m = re.match(r"set (\w+):(.*)$", line)
    if m:
        sets[m.group(1)] = m.group(2).split()
        continue
    words = line.split()
    target = present
    if words[0] == "absent":
        target, words = absent, words[1:]
    kind, name, refs = words[0], words[1], [w[1:] for w in words[2:]]
    if kind not in ("function", "macro", "type") or any(r not in sets for r in refs):
        sys.exit(f"{names_file}:{lineno}: cannot read {line!r}")
    if not refs:
        target.append((kind, name))
    for r in refs:
        for entry in sets[r]:
            target.append((kind, name.replace("TYPENAME", entry).replace("SIZE", entry)))

os.makedirs(workdir, exist_ok=True)


def build(checks, link, tag):
    src = os.path.join(workdir, f"names_{tag}.c")
    with open(src, "w") as f:
        f.write("#include <shmem.h>\n#include <shmemx.h>\n")
        f.write("void (*volatile names_taken)(void);\n")
        body = []
        for i, (kind, name) in enumerate(checks):
            if kind == "macro":
                f.write(f"#ifndef {name}\n#error \"not defined: {name}\"\n#endif\n")
            elif kind == "type":
                body.append(f"    {{ {name} *t_{i} = 0; (void)t_{i}; }}")
            else:
                body.append(f"    names_taken = (void (*)(void)){name};")
        f.write("int main(void)\n{\n" + "\n".join(body) + "\n    return 0;\n}\n")
    out = os.path.join(workdir, f"names_{tag}")
    cmd = [*cc, "-std=c11", "-Wall", "-Werror", *cflags, src]
    cmd += ["-o", out, "-L" + libdir, "-lgshmem"] if link else ["-fsyntax-only"]
    return subprocess.run(cmd, capture_output=True, text=True)


failed = False
r = build(present, True, "present")
if r.returncode != 0:
    failed = True
    missing = sorted(set(re.findall(r"not defined: (\w+)", r.stderr)) |
                     set(re.findall(r"[‘'`](\w+)[’'`] undeclared", r.stderr)) |
                     set(re.findall(r"undefined reference to [‘'`](\w+)", r.stderr)))
    print(r.stderr[-4000:])
    for n in missing:
        print("missing from shmem.h:", n)
for kind, name in absent:
    r = build([(kind, name)], False, "absent")
    if r.returncode == 0:
        failed = True
        print(f"listed as absent but declared: {name} (move it out of the absent list)")
print(f"{len(present)} OpenSHMEM 1.5 names checked, {len(absent)} known absent")
sys.exit(1 if failed else 0)
