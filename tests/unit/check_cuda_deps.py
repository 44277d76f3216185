#!/usr/bin/env python3
"""Checks that ninja rebuilds a .cu object when a header it includes
changes (issue 17, point 8), and a C object likewise for comparison.

In a scratch copy of the source tree (under a folder whose name has a space,
with the build folder beside it, so the depfile names paths with spaces) it
configures a build, builds one CUDA object of libgshmem (the one of
src/device/stream_proxy_kernels.cu, or another if it has moved) and one C
object, reads each object's
header list from `ninja -t deps`, which must name headers of the tree,
appends a comment to a header that the source includes through another
header, and checks that ninja then sees the object out of date and rebuilds
it. The real tree and its build are not touched.

usage: check_cuda_deps.py SOURCE_ROOT MESON NINJA
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CUDA_SOURCE = "src/device/stream_proxy_kernels.cu"
C_SOURCE = "src/device/device_state.c"


def say(text):
    print(text, flush=True)


def run(cmd, cwd, check=True):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if check and p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def copy_tree(src, dst):
    """The files git tracks, and untracked ones it does not ignore; without
    git (a tarball), the whole tree. Build folders (those holding a
    meson-private/) are left out either way."""
    def is_build(path):
        return os.path.isdir(os.path.join(path, "meson-private"))

    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
        names = [n for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = None
    if not names:
        shutil.copytree(src, dst, symlinks=True, ignore=lambda d, entries: [
            e for e in entries if e == ".git" or is_build(os.path.join(d, e))])
        return
    builds = {top for top in {n.split("/", 1)[0] for n in names if "/" in n}
              if is_build(os.path.join(src, top))}
    for name in names:
        s = os.path.join(src, name)
        if name.split("/", 1)[0] in builds or not os.path.isfile(s):
            continue  # a build folder git does not ignore; a file deleted in the work tree
        d = os.path.join(dst, name)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(s, d)


def find_object(ninja, build, source, rule):
    """The object `rule` builds from `source`, by its name in `ninja -t
    targets`; where the source has moved, the first object of libgshmem
    (under src/) that `rule` builds. Returns the object and its source,
    relative to the build folder."""
    stem = source.split("/", 1)[1].replace("/", "_")  # meson's name in the target's .p
    objs = []
    for line in run([ninja, "-t", "targets", "all"], build).splitlines():
        target, _, r = line.rpartition(": ")
        if r.strip() == rule and target.startswith("src/"):
            objs.append(target)
    named = sorted(o for o in objs if o.endswith("/" + stem + ".o"))
    if not named and not objs:
        sys.exit(f"FAIL: no {rule} target under src/ in `ninja -t targets all`")
    if not named:
        say(f"  (no object of {source}: taking another)")
    obj = (named or sorted(objs))[0]
    query = run([ninja, "-t", "query", obj], build).splitlines()
    inputs = query.index(f"  input: {rule}")
    return obj, query[inputs + 1].strip()


def deps_of(ninja, build, obj):
    out = run([ninja, "-t", "deps", obj], build)
    lines = out.splitlines()
    if not lines or "#deps" not in lines[0]:
        sys.exit(f"FAIL: ninja -t deps {obj}:\n{out}")
    return [l.strip() for l in lines[1:] if l.strip()]


def check(kind, ninja, build, srcdir, source, rule):
    obj, source = find_object(ninja, build, source, rule)
    say(f"{kind}: {obj}")
    t0 = time.monotonic()
    run([ninja, obj], build)
    say(f"  built in {time.monotonic() - t0:.1f} s")

    deps = deps_of(ninja, build, obj)
    # paths as ninja records them: relative to the build folder
    ours = [d for d in deps
            if os.path.realpath(os.path.join(build, d)).startswith(os.path.realpath(srcdir) + os.sep)]
    src_abs = os.path.realpath(os.path.join(build, source))
    headers = [d for d in ours if os.path.realpath(os.path.join(build, d)) != src_abs]
    say(f"  ninja -t deps: {len(deps)} files, {len(headers)} headers of the tree: "
          + ", ".join(os.path.relpath(os.path.join(build, h), srcdir) for h in headers))
    if not headers:
        sys.exit(f"FAIL: {obj}: ninja recorded no header of the tree ({len(deps)} deps in all)")

    out = run([ninja, "-n", obj], build)
    if "no work to do" not in out:
        sys.exit(f"FAIL: {obj} is out of date right after it was built:\n{out}")

    # a header the source reaches through another one, not by its own #include
    text = open(src_abs, encoding="utf-8").read()
    direct = {os.path.basename(m) for m in re.findall(r'#\s*include\s*[<"]([^>"]+)[>"]', text)}
    indirect = [h for h in headers if os.path.basename(h) not in direct]
    header = (indirect or headers)[-1]
    header_abs = os.path.join(build, header)
    rel = os.path.relpath(header_abs, srcdir)
    say(f"  editing {rel} ({'included indirectly' if indirect else 'included directly'})")
    before = os.stat(os.path.join(build, obj)).st_mtime_ns
    # a second after the object, so that the edit is newer than it even on
    # a file system that keeps whole seconds (and the rebuilt object newer
    # than the edit: no mtime set into the future)
    time.sleep(max(0.0, before / 1e9 + 1.05 - time.time()))
    with open(header_abs, "a", encoding="utf-8") as f:
        f.write("\n/* check_cuda_deps.py: an edit */\n")

    out = run([ninja, "-n", "-d", "explain", obj], build)
    if obj not in out or "no work to do" in out:
        sys.exit(f"FAIL: {obj} is not rebuilt after {rel} changed:\n{out}")
    why = [l for l in out.splitlines() if l.startswith("ninja explain:") and obj in l]
    say("  " + (why[0] if why else out.splitlines()[-1]))

    run([ninja, obj], build)
    after = os.stat(os.path.join(build, obj)).st_mtime_ns
    if after <= before:
        sys.exit(f"FAIL: {obj} was not rebuilt after {rel} changed")
    out = run([ninja, "-n", obj], build)
    if "no work to do" not in out:
        sys.exit(f"FAIL: {obj} still out of date after its rebuild:\n{out}")
    say(f"  rebuilt after the edit; up to date again")


def main():
    root, meson, ninja = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="gshmem-cuda-deps-")
    try:
        srcdir = os.path.join(tmp, "source tree")
        build = os.path.join(tmp, "build")
        copy_tree(root, srcdir)
        t0 = time.monotonic()
        run([meson, "setup", build, srcdir, "-Dbuildtype=plain", "-Dcuda=enabled",
             "-Dpmix=disabled", "-Dibverbs=disabled", "-Dnuma=disabled",
             "-Dtests_mpirun=disabled", "-Dnvshmem=", "-Dnccl="], tmp)
        say(f"configured {srcdir!r} in {time.monotonic() - t0:.1f} s")
        rules = open(os.path.join(build, "build.ninja"), encoding="utf-8").read()
        m = re.search(r"^rule cuda_COMPILER\n command = (.*)$", rules, re.M)
        say("cuda rule: " + (m.group(1) if m else "(none)"))
        check("CUDA object", ninja, build, srcdir, CUDA_SOURCE, "cuda_COMPILER")
        check("C object", ninja, build, srcdir, C_SOURCE, "c_COMPILER")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    say("PASS: the CUDA and the C object are rebuilt when a header they include changes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
