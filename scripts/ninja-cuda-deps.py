#!/usr/bin/env python3
"""Post-configure step (meson.add_postconf_script): makes nvcc write the
dependency file that build.ninja's CUDA compile rule already names.

meson 1.0 (Debian 12's 1.0.1) writes

    rule cuda_COMPILER
     command = nvcc $ARGS -o $out -c $in
     deps = gcc
     depfile = $DEPFILE_UNQUOTED

so ninja looks for $out.d after each CUDA compile, finds none and records no
headers: a .cu object is not rebuilt when a header it includes changes.
Project arguments cannot fix that from meson.build, since they are the same
for every object of a target and cannot name $out, and nvcc's -MD alone
writes foo.cu.d for -o foo.cu.o, not the foo.cu.o.d that ninja reads.  So
this adds `-MD -MF $DEPFILE` to the rule's command (nvcc 10.2 and later
write make-style dependencies of both the host and the device passes, with
spaces escaped, which ninja's deps = gcc reads).

It runs after every configure and every regeneration of build.ninja, and
leaves alone a rule that already asks for dependencies (later meson passes
-MD -MT ... -MF $DEPFILE itself: 1.7.0 does), a build without CUDA and any
backend other than ninja.  meson shows a postconf script's output only when
it fails (and meson 1.0 goes on regardless), so a rule of a form this script
does not know makes it exit 1 with a warning.
"""
import os
import re
import sys

DEP_FLAG = re.compile(r"(^|\s)-(M|MM|MD|MMD|MF)(\s|$)")


def patch(text):
    """Returns (new text, number of rules patched, rules it could not patch)."""
    lines = text.split("\n")
    patched, failed = 0, []
    for start, line in enumerate(lines):
        if not (line.startswith("rule ") and line.split()[1].startswith("cuda_COMPILER")):
            continue
        end = start + 1
        while end < len(lines) and lines[end].startswith(" "):
            end += 1
        body = {l.split("=", 1)[0].strip(): i for i, l in enumerate(lines[start + 1:end], start + 1)
                if "=" in l}
        if "command" not in body:
            continue
        cmd = body["command"]
        if DEP_FLAG.search(lines[cmd]):
            continue  # meson asks nvcc for the depfile itself
        new, n = re.subn(r" -o \$out ", " -MD -MF $DEPFILE -o $out ", lines[cmd], count=1)
        if n != 1 or "depfile" not in body or "deps" not in body or \
           lines[body["deps"]].split("=", 1)[1].strip() != "gcc":
            failed.append(line.split()[1])
            continue
        lines[cmd] = new
        patched += 1
    return "\n".join(lines), patched, failed


def main():
    build_root = os.environ.get("MESON_BUILD_ROOT", sys.argv[1] if len(sys.argv) > 1 else ".")
    path = os.path.join(build_root, "build.ninja")
    if not os.path.exists(path):
        return 0  # another backend
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new, patched, failed = patch(text)
    for rule in failed:
        print(f"WARNING: {path}: rule {rule} does not ask nvcc for a dependency file "
              "and has no form this script knows: .cu objects will not be rebuilt "
              "when their headers change", file=sys.stderr)
    if failed:
        return 1
    if patched:
        tmp = path + ".cuda-deps.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
