#!/usr/bin/env python3
"""Checks that a name layer declares every name of an API list written from
that API's documentation (shmem15_names.txt, nvshmem_api.txt).  A C file
takes the address of each host function (and links it against libgshmem),
tests each macro with #ifdef, uses each type and initializer; with nvcc, a
CUDA file takes the address of each device function in a kernel and of the
CUDA-only host ones.  Names marked absent must NOT be declared, so that the
list is corrected when they come.  A missing name fails the test, named.

usage: check_names.py LIST HEADERS WORKDIR LIBGSHMEM INCLUDE NVCC CC...
  HEADERS  comma-separated, included in order
  NVCC     nvcc's path, or "none": the kernels' names are not checked

LIST, one entry a line ('#' starts a comment):
  set NAME: WORD ...          a table of the API (TYPENAME or SIZE)
  KIND NAME [@SET ...]        a name; TYPENAME (or SIZE) in it stands for
                              each entry of each set named
  absent KIND NAME [@SET ...] in the API, not in gshmem (README says why)
  init TYPE NAME              an initializer: TYPE v = NAME;
KIND: function (host), hd (host and kernels), device (kernels only),
cudahost (host, with CUDA's types: CUDA only), macro, type."""
import os
import re
import shutil
import subprocess
import sys

KINDS = ("function", "hd", "device", "cudahost", "macro", "type", "init")


def read(path):
    sets, present, absent = {}, [], []
    for lineno, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
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
            if words and words[0] in ("device", "cudahost"):  # checked in C only
                sys.exit(f"{path}:{lineno}: an absent name must be one C sees: {line!r}")
        if words[0] == "init" and len(words) == 3:
            target.append(("init", words[2], words[1]))
            continue
        kind, name, refs = words[0], words[1], [w[1:] for w in words[2:]]
        if kind not in KINDS or any(r not in sets for r in refs):
            sys.exit(f"{path}:{lineno}: cannot read {line!r}")
        if not refs:
            target.append((kind, name, None))
        for r in refs:
            for entry in sets[r]:
                target.append((kind, name.replace("TYPENAME", entry).replace("SIZE", entry), None))
    return present, absent


def host_lines(entries, cuda):
    body = []
    for i, (kind, name, typ) in enumerate(entries):
        if kind == "macro" and not cuda:  # C's: the C11 generic forms are C only
            body.append(f"#ifndef {name}\n#error \"not defined: {name}\"\n#endif")
        elif kind == "type":
            body.append(f"    names_used((const {name} *)0);")
        elif kind == "init":
            body.append(f"    {{ {typ} v_{i} = {name}; names_used(&v_{i}); }}")
        elif kind in ("function", "hd") or (kind == "cudahost" and cuda):
            body.append(f"    names_taken = (void (*)(void)){name};")
    return body


def source(headers, entries, cuda):
    out = [f"#include <{h}>" for h in headers]
    out += ["void (*volatile names_taken)(void);", "void names_used(const void *p);",
            "void names_used(const void *p) { (void)p; }"]
    out += ["int main(void)", "{"] + host_lines(entries, cuda) + ["    return 0;", "}"]
    if cuda:
        out += ["__global__ void device_names(void)", "{"]
        out += [f"    (void)&{n};" for k, n, _ in entries if k in ("hd", "device")]
        out += ["}"]
    return "\n".join(out) + "\n"


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def missing(output):
    q, e = "[\u2018'`]", "[\u2019'`]"  # GCC quotes as the locale says
    pat = (rf"not defined: (\w+)|{q}(\w+){e} undeclared|identifier \"(\w+)\" is undefined|"
           rf"undefined reference to {q}(\w+){e}|unknown type name {q}(\w+){e}")
    return sorted({next(g for g in m if g) for m in re.findall(pat, output)})


def main():
    if len(sys.argv) < 8:
        sys.exit(__doc__)
    path, headers, workdir, lib, include, nvcc = sys.argv[1:7]
    cc = sys.argv[7:]
    headers = headers.split(",")
    present, absent = read(path)
    os.makedirs(workdir, exist_ok=True)
    inc = ["-I" + include, "-I" + os.path.join(include, "gshmem", "compat")]
    libdir = os.path.dirname(os.path.abspath(lib))
    tag = os.path.splitext(os.path.basename(path))[0]
    failed, checked = False, ["C"]

    src = os.path.join(workdir, f"{tag}.c")
    with open(src, "w") as f:
        f.write(source(headers, present, False))
    r = run([*cc, "-std=c11", "-Wall", "-Werror", *inc, src, "-o", src[:-2],
             "-L" + libdir, "-lgshmem"])
    if r.returncode != 0:
        failed = True
        names = missing(r.stdout + r.stderr)
        print(f"C: not declared: {' '.join(names)}" if names else r.stderr[-4000:])

    nvcc = shutil.which(nvcc) or nvcc  # a bare name: on PATH
    if nvcc != "none" and os.access(nvcc, os.X_OK):
        checked.append("CUDA host code and kernels")
        src = os.path.join(workdir, f"{tag}.cu")
        with open(src, "w") as f:
            f.write(source(headers, present, True))
        r = run([nvcc, "-arch=compute_90", "-Werror", "all-warnings", *inc, "-c", src,
                 "-o", src[:-3] + ".o"])
        if r.returncode != 0:
            failed = True
            names = missing(r.stdout + r.stderr)
            print(f"CUDA: not declared: {' '.join(names)}" if names else r.stderr[-4000:])
    elif any(k in ("device", "cudahost") for k, _, _ in present):
        print("no nvcc: the kernels' names are not checked")

    for entry in absent:
        src = os.path.join(workdir, f"{tag}_absent.c")
        with open(src, "w") as f:
            f.write(source(headers, [entry], False))
        if run([*cc, "-std=c11", "-Wall", "-Werror", *inc, "-fsyntax-only", src]).returncode == 0:
            failed = True
            print(f"listed as absent but declared: {entry[1]} (move it out of the absent list)")
    print(f"{os.path.basename(path)}: {len(present)} names checked ({', '.join(checked)}), "
          f"{len(absent)} known absent{': a name is missing' if failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
