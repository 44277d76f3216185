#!/usr/bin/env python3
"""bench/run's tables, CSV files, targets and report, from a results file of
random figures (no GPU needed): every value must land in its row and column,
every ratio must be gshmem over NVSHMEM, and each target must be judged
right on both sides of its limit.

    check_bench_report.py path/to/bench/run
"""
import csv
import importlib.machinery
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile


def load(path):
    loader = importlib.machinery.SourceFileLoader("bench_run", path)
    spec = importlib.util.spec_from_loader("bench_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def fail(msg):
    sys.exit("check_bench_report: " + msg)


def main():
    run = sys.argv[1]
    br = load(run)
    rnd = random.Random(int.from_bytes(os.urandom(4), "little"))
    seed_note = "(random figures; rerun to draw others)"

    # the parser: numbers become numbers, a remark after the fields is dropped
    rec = br.parse_result("RESULT bench=latency sys=gshmem op=int_g us=0.875 bytes=4 (over 8 SMs)")
    if rec != {"bench": "latency", "sys": "gshmem", "op": "int_g", "us": 0.875, "bytes": 4}:
        fail("parse_result gave %r" % rec)

    sizes = [8 << k for k in range(0, 26)]
    recs = []
    want = {}  # (csv name, bytes) -> (gshmem, nvshmem, store, ce, nccl)
    for op in ("put", "get"):
        for d in ("uni", "bi"):
            nccl = {n: round(rnd.uniform(0.001, 400), 3) for n in sizes}
            if op == "put":
                recs += [dict(bench="nccl", sys="nccl", op="sendrecv", dir=d, bytes=n, GBps=v)
                         for n, v in nccl.items()]
            for scope in ("thread", "warp", "block"):
                for mode in ("blocking", "nbi"):
                    for n in sizes:
                        g, nv = round(rnd.uniform(0.001, 400), 3), round(rnd.uniform(0.001, 400), 3)
                        st, ce = round(rnd.uniform(0.001, 400), 3), round(rnd.uniform(0.001, 400), 3)
                        key = dict(bench="put_get_bw", op=op, scope=scope, mode=mode, dir=d, blocks=32,
                                   threads=1024, bytes=n)
                        recs.append(dict(key, sys="gshmem", GBps=g, store_GBps=st, ce_GBps=ce))
                        recs.append(dict(key, sys="nvshmem", GBps=nv))
                        want[("%s_%s_%s_%s" % (op, scope, mode, d), n)] = (
                            g, nv, st, ce, nccl[n] if op == "put" else None)
    # the targets, set on purpose on one side of each limit
    p_ok = rnd.random() < 0.5
    bar_ok = rnd.random() < 0.5
    recs += [dict(bench="latency", sys="gshmem", op="int_p_pingpong", bytes=4, us=0.79 if p_ok else 0.81),
             dict(bench="latency", sys="nvshmem", op="int_p_pingpong", bytes=4, us=1.2),
             dict(bench="latency", sys="hw", op="int_p_pingpong", bytes=4, us=0.6),
             dict(bench="sync", sys="gshmem", op="device_barrier_all", us=1.49 if bar_ok else 1.51),
             dict(bench="sync", sys="nvshmem", op="device_barrier_all", us=2.5)]
    for i in range(7):
        for sysname, ms in (("gshmem", 30 + i), ("nvshmem", 600 + i)):
            recs.append(dict(bench="startup", sys=sysname, op="init", ms=float(ms), run=".%d" % i))
            if sysname == "nvshmem":  # the twin prints every rank; the slowest counts
                recs.append(dict(bench="startup", sys=sysname, op="init", ms=float(ms) - 5, run=".%d" % i))

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "results.jsonl")
        with open(src, "w") as f:
            f.write(json.dumps({"meta": {"date": "today", "command": "bench/run", "gpus": ["GPU, 1.0"],
                                         "commit": "abc1234", "missing": ["nccl_sendrecv"]}}) + "\n")
            for r in recs:
                f.write(json.dumps(r) + "\n")
        out = os.path.join(tmp, "out")
        report = os.path.join(tmp, "perf.md")
        p = subprocess.run([sys.executable, run, "--from", src, "--out", out, "--report", report],
                           capture_output=True, text=True)
        if p.returncode != 0:
            fail("bench/run --from failed:\n" + p.stdout + p.stderr)
        for (name, n), vals in want.items():
            with open(os.path.join(out, name + ".csv")) as f:
                rows = {int(r[0]): r for r in csv.reader(f) if r[0].isdigit()}
            row = rows.get(n)
            if row is None:
                fail("%s.csv has no row for %d bytes %s" % (name, n, seed_note))
            got = [float(x) if x else None for x in row[1:-1]]
            exp = [v for v in vals if v is not None]
            if got != exp:
                fail("%s.csv, %d bytes: %r, want %r %s" % (name, n, got, exp, seed_note))
            if abs(float(row[-1]) - vals[0] / vals[1]) > 1e-4:
                fail("%s.csv, %d bytes: ratio %s, want %.4f" % (name, n, row[-1], vals[0] / vals[1]))
        with open(os.path.join(out, "startup.csv")) as f:
            init = [r for r in csv.reader(f) if r[0] == "init"][0]
        if [float(init[1]), float(init[2])] != [33.0, 603.0]:
            fail("startup.csv: init %r, want the medians over runs of the slowest rank, 33 and 603" % init)
        text = p.stdout
        for label, ok in (("int p ping-pong", p_ok), ("device barrier_all", bar_ok)):
            line = [l for l in text.splitlines() if label in l and ("met" in l or "NOT" in l)]
            if not line or line[0].split()[0] != ("met" if ok else "NOT"):
                fail("target %r judged %r, want %s" % (label, line, "met" if ok else "NOT"))
        with open(report) as f:
            md = f.read()
        for must in ("abc1234", "Not built, left out: nccl_sendrecv", "## Targets",
                     "| bytes | gshmem | NVSHMEM | store kernel | copy engine | NCCL send/recv |"):
            if must not in md:
                fail("the report lacks %r" % must)
    run_programs(run)
    print("bench/run renders %d results into %d tables: values, ratios and targets right; runs "
          "programs, keeps going past a failed one and fails at the end" %
          (len(recs), len(set(k[0] for k in want)) + 2))


def run_programs(run):
    """The runner, with stand-ins for gshmrun and the programs: a missing
    baseline is left out, a failing program is reported and makes bench/run
    fail, and the others' results still reach the tables."""
    with tempfile.TemporaryDirectory() as tmp:
        build = os.path.join(tmp, "build")
        os.makedirs(os.path.join(build, "tools"))
        os.makedirs(os.path.join(build, "bench"))

        def script(path, text):
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + text)
            os.chmod(path, 0o755)

        # gshmrun -n 2 PROGRAM ARGS...: runs the program once
        script(os.path.join(build, "tools", "gshmrun"), 'shift 2\nexec "$@"\n')
        script(os.path.join(build, "bench", "put_get_bw"),
               'echo "# gshmem put_get_bw: stand-in"\n'
               'echo "RESULT bench=put_get_bw sys=gshmem op=put scope=block mode=nbi dir=uni blocks=32 '
               'threads=1024 bytes=8 reps=1 us=1.0 GBps=0.125 store_GBps=0.25 ce_GBps=0.5"\n')
        script(os.path.join(build, "bench", "latency"), 'echo "latency: pe 1: wrong data" >&2\nexit 1\n')
        out = os.path.join(tmp, "out")
        p = subprocess.run([sys.executable, run, "--build", build, "--out", out,
                            "--only", "put_get_bw,latency"], capture_output=True, text=True)
        if p.returncode == 0:
            fail("bench/run passed although a program failed:\n" + p.stdout)
        for must in ("latency failed (exit 1)", "latency: pe 1: wrong data",
                     "put_get_bw_nvshmem: not built here, left out"):
            if must not in p.stdout + p.stderr:
                fail("bench/run did not say %r:\n%s%s" % (must, p.stdout, p.stderr))
        with open(os.path.join(out, "put_block_nbi_uni.csv")) as f:
            rows = list(csv.reader(f))
        if rows[1][:2] != ["8", "0.125"]:
            fail("the stand-in's put result did not reach its table: %r" % rows)
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        if "**Failed (their results are not here):** latency (exit 1)" not in md:
            fail("the report does not name the failed program")


if __name__ == "__main__":
    main()
