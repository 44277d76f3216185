#!/usr/bin/env python3
"""Checks that a compat layer declares every name of a public API list:
compiles a reference to each name on the host in C (host and hd names),
and, where nvcc is there, in CUDA host code and in a kernel (device and hd
names).  A name the headers lack is an error naming it.

    check_compat_names.py LIST HEADER[,HEADER...] INCLUDE_DIR [--cc CC] [--nvcc NVCC]

LIST's format is described at its top (tests/compat/nvshmem_api.txt)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def expand(path):
    tables, entries = {}, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if words[0] == "table":
                tables[words[1]] = words[2:]
                continue
            kind, rest = words[0], words[1:]
            if kind not in ("host", "cudahost", "device", "hd", "const", "type", "init") or not rest:
                sys.exit(f"{path}:{n}: cannot read '{line}'")
            m = re.search(r"\{(\w+)\}", rest[-1])
            if m is None:
                entries.append((kind, rest))
                continue
            if m.group(1) not in tables:
                sys.exit(f"{path}:{n}: no table {m.group(1)}")
            for t in tables[m.group(1)]:
                entries.append((kind, rest[:-1] + [rest[-1].replace(m.group(0), t)]))
    return entries


def reference(kind, words, where, cuda):
    """The statement that uses the name; None where it does not belong."""
    name = words[-1]
    if kind == "const":
        return f"    (void)({name});"
    if kind == "type":
        return f"    (void)sizeof({name});"
    if kind == "init":
        return f"    {{ {words[0]} v_ = {name}; refs_sink(&v_); }}"
    if kind == "hd" or kind == where or (kind == "cudahost" and where == "host" and cuda):
        return f"    (void)&{name};"
    return None


def source(entries, headers, cuda):
    lines = [f"#include <{h}>" for h in headers]
    lines.append("void refs_sink(const void *);")
    lines.append("void host_refs(void);")
    lines.append("void host_refs(void)\n{")
    lines += [r for k, w in entries if (r := reference(k, w, "host", cuda))]
    lines.append("}")
    if cuda:
        lines.append("__global__ void device_refs(void)\n{")
        lines += [r for k, w in entries
                  if k in ("device", "hd") and (r := reference(k, w, "device", cuda))]
        lines.append("}")
    return "\n".join(lines) + "\n"


def compile_one(cmd, src, suffix, tmp):
    path = os.path.join(tmp, "refs" + suffix)
    with open(path, "w") as f:
        f.write(src)
    r = subprocess.run(cmd + ["-c", path, "-o", os.path.join(tmp, "refs.o")],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def missing_names(output):
    q, e = "['\u2018]", "['\u2019]"  # GCC quotes as the locale says
    pat = (rf"identifier \"(\w+)\" is undefined|{q}(\w+){e} undeclared|"
           rf"implicit declaration of function {q}(\w+){e}|unknown type name {q}(\w+){e}")
    return sorted({next(g for g in m if g) for m in re.findall(pat, output)})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("list")
    ap.add_argument("headers")
    ap.add_argument("include")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    entries = expand(args.list)
    headers = args.headers.split(",")
    inc = ["-I", args.include, "-I", os.path.join(args.include, "gshmem", "compat")]
    runs = [("C", [args.cc, "-std=c11", "-Wall", "-Werror"] + inc, ".c", False)]
    args.nvcc = shutil.which(args.nvcc) or args.nvcc  # a bare name: on PATH
    if os.access(args.nvcc, os.X_OK):
        runs.append(("CUDA", [args.nvcc, "-arch=sm_90", "-Werror", "all-warnings"] + inc,
                     ".cu", True))
    else:
        print(f"no nvcc at {args.nvcc}: kernels' names not checked")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for what, cmd, suffix, cuda in runs:
            rc, out = compile_one(cmd, source(entries, headers, cuda), suffix, tmp)
            if rc != 0:
                failed = True
                names = missing_names(out)
                if names:
                    print(f"{what}: {len(names)} name(s) not declared: {' '.join(names)}")
                else:
                    print(f"{what}: the references do not compile:\n{out[-3000:]}")
    if failed:
        return 1
    print(f"{len(entries)} names of {os.path.basename(args.list)}: all declared "
          f"({', '.join(r[0] for r in runs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
