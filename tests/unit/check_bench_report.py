#!/usr/bin/env python3
"""bench/run's tables, CSV files, targets and report, from a results file of
random figures (no GPU needed): every value must land in its row and column,
every ratio must be gshmem over NVSHMEM (collectives: over the best of
NVSHMEM, NVSHMEM own and NCCL), and each target must be judged right on both
sides of its limit.

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
    # a share with nothing to share (nan) is left out
    rec = br.parse_result("RESULT bench=partitioned sys=gshmem parts=8 api_overlap=0.5 api_floor_overlap=nan")
    if rec != {"bench": "partitioned", "sys": "gshmem", "parts": 8, "api_overlap": 0.5}:
        fail("parse_result kept a nan: %r" % rec)

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

    coll_recs, coll_want, coll_ok = coll_results(rnd, sizes, want)
    recs += coll_recs
    proxy_recs, proxy_want, proxy_ok = proxy_results(rnd)
    recs += proxy_recs

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
        check_coll_csv(out, coll_want, seed_note)
        for name, rows in proxy_want.items():
            with open(os.path.join(out, name + ".csv")) as f:
                got = {r[0]: r for r in csv.reader(f)}
            for x, vals in rows.items():
                row = got.get(str(x))
                if row is None or [float(v) for v in row[1:1 + len(vals)]] != vals:
                    fail("%s.csv, %s: %r, want %r %s" % (name, x, row, vals, seed_note))
                if abs(float(row[-1]) - vals[0] / vals[1]) > 1e-4:
                    fail("%s.csv, %s: ratio %s, want %.4f %s" % (name, x, row[-1], vals[0] / vals[1], seed_note))
        with open(os.path.join(out, "startup.csv")) as f:
            init = [r for r in csv.reader(f) if r[0] == "init"][0]
        if [float(init[1]), float(init[2])] != [33.0, 603.0]:
            fail("startup.csv: init %r, want the medians over runs of the slowest rank, 33 and 603" % init)
        text = p.stdout
        for label, ok in [("int p ping-pong", p_ok), ("device barrier_all", bar_ok)] + coll_ok + proxy_ok:
            line = [l for l in text.splitlines() if label in l and ("met" in l or "NOT" in l)]
            if not line or line[0].split()[0] != ("met" if ok else "NOT"):
                fail("target %r judged %r, want %s" % (label, line, "met" if ok else "NOT"))
        with open(report) as f:
            md = f.read()
        for must in ("abc1234", "Not built, left out: nccl_sendrecv", "## Targets of the device-API issue",
                     "## Targets of the collectives issue (18)",
                     "| bytes | gshmem | NVSHMEM | store kernel | copy engine | NCCL send/recv |",
                     "| bytes | gshmem us | NVSHMEM us | NVSHMEM own us | NCCL us | gshmem busbw | NVSHMEM busbw "
                     "| NVSHMEM own busbw | NCCL busbw | store kernel | gshmem/best other (us) |"):
            if must not in md:
                fail("the report lacks %r" % must)
    run_programs(run)
    run_coll_programs(run)
    check_proxy_targets(run)
    run_proxy_programs(run)
    print("bench/run renders %d results into %d tables: values, ratios and targets right; runs "
          "programs, keeps going past a failed one and fails at the end; runs the collectives at the PE "
          "count asked, NVSHMEM's twice; the proxy's programs with P2P off, socket_to_gpu alone" %
          (len(recs), len(set(k[0] for k in want)) + 2 + len(coll_want) + len(proxy_want)))


def proxy_results(rnd):
    """fifo_rtt floor's lines from 3 processes, tcp_bw's puts and
    socket_to_gpu's from 5 alternating runs and tcp_bw's other ops from one,
    with the tables' rows they must give (fifo_round_trip by process:
    round trip, floor, above; tcp_put by bytes: the medians of gshmem's
    puts and of the ring and copy; tcp_iput, tcp_get and tcp_iget by
    bytes: gshmem, socket) and the two targets set on one side of their
    limits."""
    recs, fifo_rows, tcp_rows = [], {}, {}
    get_rows = {"tcp_iput": {}, "tcp_get": {}, "tcp_iget": {}}
    fifo_ok, tcp_ok = rnd.random() < 0.5, rnd.random() < 0.5
    for i in range(3):
        floor = round(rnd.uniform(2.0, 3.0), 3)
        above = round(rnd.uniform(0.0, 0.25), 3) if fifo_ok or i != 1 else round(rnd.uniform(0.26, 0.5), 3)
        rtt = round(floor + above, 3)
        recs.append(dict(op="fifo_rtt_floor", sys="gshmem", run=".%d" % i, rounds=7, rtt_median_us=rtt,
                         floor_median_us=floor, above_median_us=above, above_min_us=above, above_max_us=above,
                         fresh_floor_median_us=round(rnd.uniform(2.0, 3.0), 3),
                         fresh_above_median_us=round(rnd.uniform(-0.5, 0.5), 3)))
        fifo_rows[i + 1] = [rtt, floor, above]
    for n in (65536, 262144, 1048576, 4194304):
        put = [round(rnd.uniform(3.0, 6.0), 3) for _ in range(5)]
        ring = [round(rnd.uniform(3.0, 6.0), 3) for _ in range(5)]
        if n == 262144:  # medians on purpose on one side of 90%
            ring = [round(sorted(put)[2] / (0.95 if tcp_ok else 0.85) + d, 3) for d in (-0.2, -0.1, 0, 0.1, 0.2)]
        for i in range(5):
            recs.append(dict(op="tcp_put", sys="gshmem", run=".%d" % i, bytes=n, GBps=put[i],
                             socket_GBps=round(rnd.uniform(3.0, 8.0), 3)))
            recs.append(dict(op="socket_to_gpu", sys="hw", run=".%d" % i, bytes=n, ring_copy_GBps=ring[i],
                             bare_GBps=round(rnd.uniform(3.0, 8.0), 3)))
        tcp_rows[n] = [sorted(put)[2], sorted(ring)[2]]
        for op, rows in get_rows.items():
            got, stream = round(rnd.uniform(0.5, 3.0), 3), round(rnd.uniform(2.0, 6.0), 3)
            recs.append(dict(op=op, sys="gshmem", run=".more", bytes=n, GBps=got, socket_GBps=stream,
                             run_ratio=round(got / stream, 3)))
            rows[n] = [got, stream]
    return recs, dict(get_rows, fifo_round_trip=fifo_rows, tcp_put=tcp_rows), [("FIFO round trip", fifo_ok),
                                                                       ("tcp putmem at 256 KiB", tcp_ok)]


COLL_SYS = ("gshmem", "nvshmem", "nvshmem-own", "nccl")


def coll_results(rnd, sizes, want):
    """Random collective figures for every system, with the store-kernel
    floor taken from put_get_bw's put/block/nbi both ways; the targets set
    on one side of their limits.  Returns the records, what each CSV row
    must hold, and (target label, met) pairs."""
    recs, rows = [], {}
    ops = [("allreduce", "float"), ("allreduce", "bfloat16"), ("allgather", "float"),
           ("reducescatter", "float"), ("broadcast", "float"), ("alltoall", "float")]
    a4k_ok, block_ok, a2a_ok = rnd.random() < 0.5, rnd.random() < 0.5, rnd.random() < 0.5
    slow = rnd.choice(sizes)  # where alltoall loses when a2a_ok is false
    for op, dtype in ops + [("allreduce_block", "float")]:
        table = {}
        for n in [4] + sizes if op != "allreduce_block" else [8, 256, 4096, 65536]:
            us = {s: round(rnd.uniform(1, 1000), 3) for s in COLL_SYS if op != "allreduce_block" or s != "nccl"}
            if (op, dtype, n) == ("allreduce", "float", 4096):
                us["gshmem"] = 4.99 if a4k_ok else 5.01
            if (op, n) == ("allreduce_block", 4096):
                us["gshmem"] = 2.99 if block_ok else 3.01
            if op == "alltoall":
                best = min(v for s, v in us.items() if s != "gshmem")
                us["gshmem"] = round(best * (1.1 if n == slow and not a2a_ok else 0.9), 3)
            bw = {s: round(rnd.uniform(0.001, 400), 3) for s in us}
            for s in us:
                recs.append(dict(bench="coll", sys=s, op=op, dtype=dtype, bytes=n, pes=2, iters=100, us=us[s],
                                 algbw=bw[s], busbw=bw[s]))
            floor = want.get(("put_block_nbi_bi", n), (None,) * 3)[2] if op != "allreduce_block" else None
            others = [v for s, v in us.items() if s != "gshmem"]
            # gshmem on a split team (float, on stream): a column after the
            # floor, in no ratio, even where it beats every system
            split = []
            if dtype == "float" and op != "allreduce_block":
                split = [round(rnd.uniform(0.5, 1000), 3)]
                recs.append(dict(bench="coll", sys="gshmem-split", op=op, dtype=dtype, bytes=n, pes=2,
                                 iters=100, us=split[0], algbw=1.0, busbw=1.0, team="split", run=".split"))
            table[n] = ([us.get(s) for s in COLL_SYS] + [bw.get(s) for s in COLL_SYS] + [floor] + split,
                        us["gshmem"] / min(others))
        rows["coll_%s_%s" % (op, dtype)] = table
    team = {}
    for stride, size in ((1, 2), (2, 1)):
        for what in ("split_strided", "destroy"):
            vals = {s: round(rnd.uniform(1, 5000), 3) for s in COLL_SYS[:3]}
            for s, v in vals.items():
                recs.append(dict(bench="coll", sys=s, op="team_" + what, stride=stride, size=size, pes=2, us=v))
            team["%s stride %d (%d of 2 PEs)" % (what, stride, size)] = ([vals[s] for s in COLL_SYS[:3]],
                                                                          vals["gshmem"] / min(list(vals.values())[1:]))
    rows["coll_team"] = team
    return recs, rows, [("allreduce float, 4 KiB", a4k_ok), ("sum_reduce_block float 4 KiB", block_ok),
                        ("alltoall float on stream, every size", a2a_ok)]


def check_coll_csv(out, coll_want, seed_note):
    for name, table in coll_want.items():
        with open(os.path.join(out, name + ".csv")) as f:
            rows = {r[0]: r for r in csv.reader(f)}
        for x, (vals, ratio) in table.items():
            row = rows.get(str(x))
            if row is None:
                fail("%s.csv has no row %r %s" % (name, x, seed_note))
            got = [float(v) if v else None for v in row[1:-1]]
            if got != vals:
                fail("%s.csv, %s: %r, want %r %s" % (name, x, got, vals, seed_note))
            if abs(float(row[-1]) - ratio) > 1e-4:
                fail("%s.csv, %s: ratio %s, want %.4f (gshmem over the best other) %s" %
                     (name, x, row[-1], ratio, seed_note))


def script(path, text):
    """A shell script at path, executable."""
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text)
    os.chmod(path, 0o755)


def standin_build(tmp, gshmrun):
    """A build folder in tmp for bench/run: tools/gshmrun a script of the
    text given, bench/ for the stand-ins."""
    build = os.path.join(tmp, "build")
    os.makedirs(os.path.join(build, "bench"))
    os.makedirs(os.path.join(build, "tools"))
    script(os.path.join(build, "tools", "gshmrun"), gshmrun)
    return build


def run_programs(run):
    """The runner, with stand-ins for gshmrun and the programs: a missing
    baseline is left out, a failing program is reported and makes bench/run
    fail, and the others' results still reach the tables."""
    with tempfile.TemporaryDirectory() as tmp:
        # gshmrun -n 2 PROGRAM ARGS...: runs the program once
        build = standin_build(tmp, 'shift 2\nexec "$@"\n')
        script(os.path.join(build, "bench", "put_get_bw"),
               'echo "# gshmem put_get_bw: stand-in"\n'
               'echo "RESULT bench=put_get_bw sys=gshmem op=put scope=block mode=nbi dir=uni blocks=32 '
               'threads=1024 bytes=8 reps=3 us=0.192 GBps=0.13 store_GBps=0.25 ce_GBps=0.5"\n')
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
        # (GB/s from bytes x reps / us, not the line's GBps: that has three decimals)
        if rows[1][:2] != ["8", "0.125"]:
            fail("the stand-in's put result did not reach its table: %r" % rows)
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        if "**Failed (their results are not here):** latency (exit 1)" not in md:
            fail("the report does not name the failed program")


def run_coll_programs(run):
    """The collectives: run at --coll-pes PEs with --coll-max passed on,
    coll again on a split team (its lines relabelled gshmem-split),
    coll_nvshmem twice (the second with NVSHMEM_DISABLE_NCCL=1, its lines
    relabelled nvshmem-own, failing one check), a missing nccl_coll left
    out."""
    with tempfile.TemporaryDirectory() as tmp:
        # gshmrun -n N PROGRAM ARGS...: the stand-ins print N and their arguments
        build = standin_build(tmp, 'export STANDIN_NPES=$2\nshift 2\nexec "$@"\n')
        for name, sysname, us in (("coll", "gshmem", 3.5), ("coll_nvshmem", "nvshmem", 7.0)):
            script(os.path.join(build, "bench", name),
                   'echo "RESULT bench=coll sys=%s op=allreduce dtype=float bytes=8 pes=$STANDIN_NPES iters=100 '
                   'us=%s algbw=0.002 busbw=0.003 nccl_off=${NVSHMEM_DISABLE_NCCL:-unset} args=$1,$2"\n'
                   % (sysname, us))
        # NVSHMEM's own kernels get a point wrong: a baseline's fault, so its
        # checked point stays, the report names the fault and the run passes
        with open(os.path.join(build, "bench", "coll_nvshmem"), "a") as f:
            f.write('[ -n "${NVSHMEM_DISABLE_NCCL:-}" ] || exit 0\n'
                    'echo "coll (nvshmem-own): pe 1: WRONG reducescatter float, 64 bytes: 3 of 8 elements '
                    'wrong" >&2\nexit 3\n')
        out = os.path.join(tmp, "out")
        p = subprocess.run([sys.executable, run, "--build", build, "--out", out, "--only", "coll", "--coll-pes",
                            "3", "--coll-max", "65536"], capture_output=True, text=True)
        if p.returncode != 0:
            fail("bench/run --only coll failed:\n" + p.stdout + p.stderr)
        if "nccl_coll: not built here, left out" not in p.stdout:
            fail("bench/run did not say nccl_coll is missing:\n" + p.stdout)
        with open(os.path.join(out, "results.jsonl")) as f:
            recs = [json.loads(l) for l in f if l.strip()][1:]
        got = sorted((r["sys"], r["pes"], r["nccl_off"], r["args"], r.get("run", "")) for r in recs)
        want = [("gshmem", 3, "unset", "--max,65536", ""), ("gshmem-split", 3, "unset", "--max,65536", ".split"),
                ("nvshmem", 3, "unset", "--max,65536", ""), ("nvshmem-own", 3, 1, "--max,65536", ".own")]
        if got != want:
            fail("the collectives ran as %r, want %r" % (got, want))
        with open(os.path.join(out, "coll_allreduce_float.csv")) as f:
            rows = list(csv.reader(f))
        if (rows[1][:5] != ["8", "3.5", "7.0", "7.0", ""] or rows[1][-1] != "0.5000" or
                rows[0][-2] != "gshmem split us (us)" or rows[1][-2] != "3.5"):
            fail("coll_allreduce_float.csv: %r" % rows)
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        fault = ("**Baselines that failed (the points they measured and checked are shown; a point with a "
                 "wrong answer is left out):** coll_nvshmem.own (exit 3: reducescatter float, 64 bytes: 3 of 8 "
                 "elements wrong)")
        if fault not in md:
            fail("the report does not name the baseline's fault:\n" + md[:1500])


def check_proxy_targets(run):
    """The proxy's two targets on both sides of their limits every time,
    judged by medians: outliers pull each case's means the other way."""
    br = load(run)

    def judged(recs, label):
        got = [ok for lbl, _, ok in br.targets(recs) if lbl.startswith(label)]
        if len(got) != 1:
            fail("targets() gave %d lines starting %r" % (len(got), label))
        return got[0]

    for above, ok in (([0.1, 0.25, 0.2], True), ([0.1, 0.26, 0.2], False), ([0.1, 0.2], False)):
        recs = [dict(op="fifo_rtt_floor", run=".%d" % i, rtt_median_us=3.0, floor_median_us=3.0 - a,
                     above_median_us=a) for i, a in enumerate(above)]
        if judged(recs, "FIFO round trip") != ok:
            fail("the FIFO target with %r us above, in %d processes: want %s" % (above, len(above), ok))
    for share, ok in ((0.91, True), (0.89, False)):
        # medians 5.0 and 5.0 / share; the means on the limit's other side
        put = [1.0, 2.0, 5.0, 5.1, 5.2] if ok else [4.8, 4.9, 5.0, 9.0, 10.0]
        ring = [5.0 / share * f for f in ((0.98, 0.99, 1.0, 3.0, 4.0) if ok else (0.2, 0.5, 1.0, 1.01, 1.02))]
        recs = ([dict(op="tcp_put", bytes=br.PROXY_TCP_TARGET, GBps=v) for v in put] +
                [dict(op="socket_to_gpu", bytes=br.PROXY_TCP_TARGET, ring_copy_GBps=v) for v in ring])
        if judged(recs, "tcp putmem at") != ok:
            fail("the tcp target at a share of medians %.2f: want %s" % (share, ok))


def run_proxy_programs(run):
    """--only proxy: fifo_rtt and tcp_bw under gshmrun with
    GSHMEM_DISABLE_P2P=1, socket_to_gpu alone (not under gshmrun), each
    the number of times bench/run says, tcp_bw's other ops once."""
    br = load(run)
    with tempfile.TemporaryDirectory() as tmp:
        build = standin_build(tmp, 'export STANDIN_GSHMRUN=$2\nshift 2\nexec "$@"\n')
        how = 'pes=${STANDIN_GSHMRUN:-none} p2p_off=${GSHMEM_DISABLE_P2P:-unset} args=$1,$2'
        script(os.path.join(build, "bench", "fifo_rtt"),
               'echo "RESULT op=fifo_rtt_floor rounds=7 rtt_median_us=3.0 floor_median_us=2.8 '
               'above_median_us=0.2 %s"\n' % how)
        script(os.path.join(build, "bench", "tcp_bw"),  # a line an op asked for
               'for op in $(echo "$2" | tr , " "); do\n'
               '    echo "RESULT op=tcp_$op bytes=262144 GBps=5.0 socket_GBps=6.0 %s"\n'
               'done\n' % how)
        script(os.path.join(build, "bench", "socket_to_gpu"),
               'echo "RESULT op=socket_to_gpu bytes=262144 ring_copy_GBps=5.2 bare_GBps=6.1 %s"\n' % how)
        out = os.path.join(tmp, "out")
        env = {k: v for k, v in os.environ.items() if k != "GSHMEM_DISABLE_P2P"}
        p = subprocess.run([sys.executable, run, "--build", build, "--out", out, "--only", "proxy"],
                           capture_output=True, text=True, env=env)
        if p.returncode != 0:
            fail("bench/run --only proxy failed:\n" + p.stdout + p.stderr)
        with open(os.path.join(out, "results.jsonl")) as f:
            recs = [json.loads(l) for l in f if l.strip()][1:]
        got = [(r["op"], r["pes"], r["p2p_off"], r["args"]) for r in recs]  # in the order they ran
        want = ([("fifo_rtt_floor", 2, 1, "20000,floor")] * br.PROXY_FIFO_RUNS +
                [("tcp_put", 2, 1, "4194304,put"), ("socket_to_gpu", "none", "unset", "1,")] *
                br.PROXY_TCP_RUNS + [(op, 2, 1, "4194304,iput,get,iget")
                                     for op in ("tcp_iput", "tcp_get", "tcp_iget")])
        if got != want:
            fail("the proxy's programs ran as %r, want %r" % (got, want))
        if "met  tcp putmem at 256 KiB" not in p.stdout or "met  FIFO round trip" not in p.stdout:
            fail("bench/run --only proxy did not judge its targets:\n" + p.stdout)
        for name in ("tcp_iput", "tcp_get", "tcp_iget"):
            if not os.path.exists(os.path.join(out, name + ".csv")):
                fail("bench/run --only proxy made no %s table" % name)


if __name__ == "__main__":
    main()
