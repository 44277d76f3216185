#!/usr/bin/env python3
"""Launch, failure and shut-down scenarios of `lifecycle`, checked from the
outside: exit statuses, messages, time taken.

usage: check_launch.py GSHMRUN LIFECYCLE [MPIRUN|-] [SCENARIO...]"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

gshmrun, prog = sys.argv[1], sys.argv[2]
mpirun = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
only = sys.argv[4:]
# The heartbeat timeout the scenarios time detection against (the default),
# whatever the caller set (the sanitizer runs lengthen it).
ENV = dict(os.environ, GSHMEM_TIMEOUT="60", GSHMEM_HEARTBEAT_TIMEOUT="6")
if os.geteuid() == 0:
    ENV.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
results = []


def run(args, env=None, timeout=60):
    t0 = time.monotonic()
    r = subprocess.run(args, env=env or ENV, capture_output=True, text=True, timeout=timeout)
    return r, time.monotonic() - t0


def scenario(fn):
    if not only or fn.__name__ in only:
        try:
            problems = fn() or []
        except Exception as e:  # a hang past its limit, mostly
            problems = [f"{type(e).__name__}: {e}"]
        results.append((fn.__name__, problems))
        print(("ok   " if not problems else "FAIL ") + fn.__name__)
        for p in problems:
            print("    " + p.replace("\n", "\n    "))
    return fn


def expect(cond, what, r=None):
    if cond:
        return []
    return [what + ("" if r is None else f"\n  exit {r.returncode}\n  stderr:\n{r.stderr}\n  stdout:\n{r.stdout}")]


@scenario
def pe_killed_in_barrier():
    r, took = run([gshmrun, "-n", "4", prog, "barrier-kill"])
    p = expect(r.returncode == 128 + 9, "gshmrun should exit 137 (pe 2 killed by SIGKILL)", r)
    p += expect(took < 10, f"took {took:.1f} s, more than 10")
    p += expect(re.search(r"gshmrun: pe 2 \(pid \d+\) was killed by signal 9", r.stderr),
                "gshmrun did not name pe 2", r)
    for pe in (0, 1, 3):
        p += expect(re.search(rf"gshmem pe {pe} \(\S+\) error core: pe 2 \(pid \d+ on \S+\) ended "
                              r"while this pe was in gshmem_barrier_all( \(pe \d saw it first\))?; ending this pe",
                              r.stderr),
                    f"pe {pe} did not report the loss of pe 2", r)
    return p


@scenario
def pe_killed_tcp():
    """Every peer reached through the tcp transport: the loss is still named."""
    r, took = run([gshmrun, "-n", "4", prog, "barrier-kill"], env=dict(ENV, GSHMEM_DISABLE_P2P="1"))
    p = expect(r.returncode == 128 + 9, "gshmrun should exit 137 (pe 2 killed by SIGKILL)", r)
    p += expect(took < 10, f"took {took:.1f} s, more than 10")
    for pe in (0, 1, 3):
        p += expect(re.search(rf"gshmem pe {pe} \(\S+\) error core: pe 2 \(pid \d+ on \S+\) (ended|was lost)",
                              r.stderr), f"pe {pe} did not report the loss of pe 2", r)
    return p


@scenario
def silent_peer_tcp():
    """A PE that stops (alive, but silent) is named by every peer within 10 s."""
    r, took = run([gshmrun, "-n", "4", prog, "barrier-stop"],
                  env=dict(ENV, GSHMEM_DISABLE_P2P="1", GSHMEM_TIMEOUT="60"), timeout=60)
    p = expect(r.returncode != 0, "the job did not fail", r)
    for pe in (0, 1, 3):
        # Named through its own heartbeats, through the node's watch (the
        # PEs share a machine: the stopped process is seen stopped), or as
        # following the PE that saw it first (gshmrun ends the stopped PE
        # once one reports it).
        p += expect(re.search(rf"gshmem pe {pe} \(\S+\) error core: pe 2 \(pid \d+ on \S+\) "
                              r"(was lost: its tcp connection was silent for 6 s|was stopped \(not running|"
                              r".*\(pe \d saw it first\))", r.stderr),
                    f"pe {pe} did not name the silent pe 2", r)
    return p + expect(took < 16, f"took {took:.1f} s (detection 6 s, then gshmrun's grace)")


if mpirun:
    @scenario
    def pe_killed_in_barrier_mpirun():
        # MALLOC_PERTURB_ for the PEs only (tests/fault/run_matrix.py says why)
        env = dict(ENV)
        perturb = env.pop("MALLOC_PERTURB_", None)
        keep = ["-x", "MALLOC_PERTURB_=" + perturb] if perturb else []
        r, took = run([mpirun, "--oversubscribe", "--bind-to", "none", "-np", "4"] + keep +
                      [prog, "barrier-kill"], env=env)
        p = expect(r.returncode != 0, "mpirun exited 0", r)
        return p + expect(took < 10, f"took {took:.1f} s, more than 10")


@scenario
def exit_status_propagates():
    r, took = run([gshmrun, "-n", "3", prog, "exit-status"])
    p = expect(r.returncode == 3, "gshmrun should exit 3", r)
    p += expect(re.search(r"gshmrun: pe 1 \(pid \d+\) exited with status 3; the job was ended",
                          r.stderr), "gshmrun did not say which PE failed", r)
    return p + expect(took < 10, f"took {took:.1f} s")


@scenario
def global_exit():
    r, took = run([gshmrun, "-n", "3", prog, "global-exit"])
    p = expect(r.returncode == 5, "gshmrun should exit 5", r)
    p += expect("gshmrun: pe 1 ended the job with status 5" in r.stderr, "no message", r)
    p += expect("lost" not in r.stderr and "ended while" not in r.stderr,
                "PEs reported a loss for a global exit", r)
    return p + expect(took < 5, f"took {took:.1f} s")


@scenario
def sigint_is_forwarded():
    t0 = time.monotonic()
    proc = subprocess.Popen([gshmrun, "-n", "3", prog, "sleep"], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    seen = 0
    while seen < 3 and time.monotonic() - t0 < 30:
        line = proc.stdout.readline()
        seen += "sleeping" in line
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        return ["gshmrun did not end within 10 s of SIGINT"]
    p = expect(seen == 3, f"only {seen} PEs started")
    p += expect(proc.returncode == 130, f"exit status {proc.returncode}, expected 130")
    return p + expect("interrupted by signal 2" in err, "no message: " + err)


@scenario
def job_timeout():
    r, took = run([gshmrun, "-n", "2", "-t", "1", prog, "sleep"])
    p = expect(r.returncode == 124, "gshmrun -t should exit 124", r)
    p += expect("ran past its 1 s timeout" in r.stderr, "no timeout message", r)
    return p + expect(took < 6, f"took {took:.1f} s")


@scenario
def intruder_during_init():
    r, _ = run([gshmrun, "-n", "3", prog, "intrude"])
    p = expect(r.returncode == 0, "the job failed", r)
    p += expect("wrong job secret" in r.stderr, "the intruder was not logged", r)
    return p + expect(r.stdout.count(": ok") == 3, "PEs did not all check out", r)


def uid_job(nranks, start, extra_env=None):
    d = tempfile.mkdtemp()
    env = dict(ENV, **(extra_env or {}))
    procs = [subprocess.Popen([prog, "uid", str(r), str(nranks), os.path.join(d, "uid")], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(start)]
    outs = [p.communicate(timeout=60) for p in procs]
    shutil.rmtree(d)
    return [(p.returncode, o, e) for p, (o, e) in zip(procs, outs)]


@scenario
def uniqueid_held_by_application():
    res = uid_job(3, 3)
    return [f"rank {i}: exit {rc}\n{o}{e}" for i, (rc, o, e) in enumerate(res)
            if rc != 0 or "ok" not in o]


@scenario
def uniqueid_rank_never_arrives():
    t0 = time.monotonic()
    res = uid_job(3, 2, {"GSHMEM_BOOTSTRAP_TIMEOUT": "2"})
    took = time.monotonic() - t0
    p = [f"rank {i}: exit {rc}, expected a failure" for i, (rc, _, _) in enumerate(res) if rc == 0]
    err = "".join(e for _, _, e in res)
    p += expect("pe(s) 2 of 3 never reached the root within 2 s" in err, "rank 2 not named: " + err)
    return p + expect(took < 15, f"took {took:.1f} s")


@scenario
def ipv6_bootstrap():
    if not os.path.exists("/proc/net/if_inet6") or "00000000000000000000000000000001" not in open(
            "/proc/net/if_inet6").read():
        print("    (no IPv6 loopback here: skipped)")
        return []
    r, _ = run([gshmrun, "-n", "3", prog], env=dict(ENV, GSHMEM_BOOTSTRAP_FAMILY="ipv6"))
    return expect(r.returncode == 0 and r.stdout.count(": ok") == 3, "IPv6 job failed", r)


@scenario
def init_finalize_leaves_nothing():
    r, _ = run([gshmrun, "-n", "2", prog, "leaks"], env=dict(ENV, GSHMEM_SYMMETRIC_SIZE="4m"),
               timeout=120)
    return expect(r.returncode == 0 and r.stdout.count("leaks:") == 2, "resources left behind", r)


@scenario
def debug_file_and_unknown_variable():
    d = tempfile.mkdtemp()
    env = dict(ENV, GSHMEM_DEBUG="info", GSHMEM_DEBUG_FILE=os.path.join(d, "log.%h.%p"),
               GSHMEM_SYMETRIC_SIZE="1m")
    r, _ = run([gshmrun, "-n", "2", prog], env=env)
    files = os.listdir(d)
    text = "".join(open(os.path.join(d, f)).read() for f in files)
    shutil.rmtree(d)
    p = expect(r.returncode == 0, "job failed", r)
    p += expect(len(files) == 2, f"expected a log file per PE, found {files}")
    p += expect(re.search(r"gshmem pe 1 \(\S+\) info core: initialised: pe 1 of 2", text),
                "no info line in the log files:\n" + text)
    return p + expect("unknown variable GSHMEM_SYMETRIC_SIZE ignored; did you mean "
                      "GSHMEM_SYMMETRIC_SIZE?" in text, "no warning naming the closest variable")


@scenario
def heap_sizes_must_match():
    r, _ = run([gshmrun, "-n", "2", "sh", "-c", 'if [ "$GSHMEM_LAUNCH_RANK" = 1 ]; then '
                'export GSHMEM_SYMMETRIC_SIZE=8m; fi; exec "$0"', prog],
               env=dict(ENV, GSHMEM_SYMMETRIC_SIZE="4m"))
    p = expect(r.returncode != 0, "a job with mismatched heap sizes started", r)
    return p + expect(re.search(r"error heap: pe 1 has GSHMEM_SYMMETRIC_SIZE 8m and GSHMEM_MAX_HEAP "
                                r"64g, this pe 4m and 64g \(in multiples of 2m\): every PE must "
                                r"use the same", r.stderr), "no message naming the sizes", r)


@scenario
def nvshmem_variables():
    """NVSHMEM's variables are read where gshmem's are unset (a size that
    differs on pe 1 is refused, naming it), gshmem's win where both are set,
    and those with no counterpart draw one warning."""
    env = {k: v for k, v in ENV.items() if k != "GSHMEM_SYMMETRIC_SIZE"}
    env.update(NVSHMEM_SYMMETRIC_SIZE="4m", NVSHMEM_DISABLE_NVLS="1")
    rank1 = ['sh', '-c', 'if [ "$GSHMEM_LAUNCH_RANK" = 1 ]; then '
             'export NVSHMEM_SYMMETRIC_SIZE=8m; fi; exec "$0"', prog]
    r, _ = run([gshmrun, "-n", "2"] + rank1, env=env)
    p = expect(r.returncode != 0 and re.search(r"error heap: pe 1 has GSHMEM_SYMMETRIC_SIZE 8m and "
                                               r"GSHMEM_MAX_HEAP 64g, this pe 4m", r.stderr),
               "NVSHMEM_SYMMETRIC_SIZE was not read", r)
    r, _ = run([gshmrun, "-n", "2"] + rank1, env=dict(env, GSHMEM_SYMMETRIC_SIZE="4m"))
    p += expect(r.returncode == 0, "GSHMEM_SYMMETRIC_SIZE did not take precedence", r)
    warned = r.stderr.count("NVSHMEM_DISABLE_NVLS: NVSHMEM variable with no gshmem counterpart")
    return p + expect(warned == 1, f"{warned} warnings about NVSHMEM_DISABLE_NVLS, want 1", r)


@scenario
def mpi_bootstrap_without_mpi():
    """GSHMEM_BOOTSTRAP=mpi in a program that runs no MPI library ends
    start-up with the reason, on every PE."""
    r, _ = run([gshmrun, "-n", "2", prog], env=dict(ENV, GSHMEM_BOOTSTRAP="mpi"))
    p = expect(r.returncode != 0, "a job started on MPI without an MPI library", r)
    found = len(re.findall(r"error bootstrap: GSHMEM_BOOTSTRAP=mpi: no MPI library in this process "
                           r"\(link the program with it and call MPI_Init before gshmem's init\)",
                           r.stderr))
    return p + expect(found == 2, f"{found} PEs gave the reason, want 2", r)


@scenario
def coll_settings_must_match():
    """A setting the PEs must share, set otherwise on pe 1: every PE ends
    start-up naming the setting and both values."""
    p = []
    for var, theirs, mine in (("GSHMEM_COLL_LL_MAX", "8k", "16384"),
                              ("GSHMEM_MAX_TEAMS", "32", "64"),
                              ("GSHMEM_COLL_ALGO", "ring", "auto")):
        r, _ = run([gshmrun, "-n", "3", "sh", "-c", 'if [ "$GSHMEM_LAUNCH_RANK" = 1 ]; then '
                    f'export {var}={theirs}; fi; exec "$0"', prog], env=ENV)
        p += expect(r.returncode != 0, f"a job with {var} mismatched started", r)
        shown = theirs if theirs != "8k" else "8192"
        others = len(re.findall(rf"error coll: pe 1 has {var} {shown}, this pe {mine}: every PE "
                                r"must use the same", r.stderr))
        own = len(re.findall(rf"error coll: pe 0 has {var} {mine}, this pe {shown}: every PE must "
                             r"use the same", r.stderr))
        p += expect(others == 2 and own == 1, f"{var}: {others} PEs named pe 1's value (want 2), "
                    f"{own} pe 1 named pe 0's (want 1)", r)
    return p


@scenario
def bad_heap_and_transport_settings():
    """Settings that cannot be met end start-up with a message naming them."""
    p = []
    cases = [({"GSHMEM_HEAP": "bogus"},
              r"error heap: GSHMEM_HEAP is 'bogus': expected auto, device or host"),
             ({"GSHMEM_DISABLE_P2P": "1", "GSHMEM_TRANSPORT": "bogus"},
              r"error transport: GSHMEM_TRANSPORT is 'bogus': expected auto, tcp or ibrc"),
             ({"GSHMEM_COLL_ALGO": "fastest"},
              r"error coll: GSHMEM_COLL_ALGO is 'fastest': expected auto, simple, ll, grid, "
              r"push, ring, hier or doubling"),
             ({"GSHMEM_TEST_UNMAPPED": "0-1,"},
              r"error heap: GSHMEM_TEST_UNMAPPED is '0-1,': expected pairs of distinct PEs below "
              r"2, as 0-1,2-3")]
    if "GPUs: none" in subprocess.run([os.path.join(os.path.dirname(gshmrun), "gshmem-info")],
                                      capture_output=True, text=True).stdout:
        cases.append(({"GSHMEM_HEAP": "device"},
                      r"error heap: GSHMEM_HEAP=device, but there is no usable GPU: "))
    for extra, pattern in cases:
        r, _ = run([gshmrun, "-n", "2", prog], env=dict(ENV, **extra))
        p += expect(r.returncode != 0, f"a job started with {extra}", r)
        p += expect(re.search(pattern, r.stderr), f"no message for {extra}", r)
    return p


@scenario
def transport_unavailable():
    if os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband"):
        print("    (this machine has RDMA devices: skipped)")
        return []
    r, _ = run([gshmrun, "-n", "2", prog], env=dict(ENV, GSHMEM_DISABLE_P2P="1",
                                                    GSHMEM_TRANSPORT="ibrc"))
    p = expect(r.returncode != 0, "a job started without its transport", r)
    return p + expect(re.search(r"error transport: (ibrc: no RDMA device could be opened|"
                                r"GSHMEM_TRANSPORT=ibrc: this gshmem was built without libibverbs)",
                                r.stderr) or "ibrc transport up" in r.stderr,
                      "no message about the transport", r)


@scenario
def bad_sim_nodes_settings():
    """GSHMEM_TEST_SIM_NODES (and _CYCLIC) that cannot be met: every PE ends start-up with
    the exact message, no PE reports a lost peer, nothing waits."""
    p = []
    rank1 = 'if [ "$GSHMEM_LAUNCH_RANK" = 1 ]; then export GSHMEM_TEST_SIM_NODES=2; fi; exec "$0"'
    cyclic0 = 'if [ "$GSHMEM_LAUNCH_RANK" = 0 ]; then export GSHMEM_TEST_SIM_CYCLIC=1; fi; exec "$0"'
    B = r"^gshmem pe {pe} \(\S+\) error bootstrap: "
    cases = [("negative", {"GSHMEM_TEST_SIM_NODES": "-1"}, [],
              {pe: B + r"GSHMEM_TEST_SIM_NODES is -1: it must be 0 or more \(0 and 1: no split\)$"
               for pe in (0, 1)}),
             ("more nodes than PEs", {"GSHMEM_TEST_SIM_NODES": "3"}, [],
              {pe: B + r"GSHMEM_TEST_SIM_NODES is 3, more nodes than the 2 PEs on \S+ \(pe 0 "
               r"first\): each simulated node needs a PE$" for pe in (0, 1)}),
             ("different on one PE", {"GSHMEM_TEST_SIM_NODES": "0"}, ["sh", "-c", rank1],
              {0: B + r"pe 1 has GSHMEM_TEST_SIM_NODES 2, this pe 0: every PE must use the same$",
               1: B + r"pe 0 has GSHMEM_TEST_SIM_NODES 0, this pe 2: every PE must use the same$"}),
             ("cyclic on one PE", {"GSHMEM_TEST_SIM_NODES": "2"}, ["sh", "-c", cyclic0],
              {0: B + r"pe 1 has GSHMEM_TEST_SIM_CYCLIC 0, this pe has 1: every PE must use the "
                      r"same$",
               1: B + r"pe 0 has GSHMEM_TEST_SIM_CYCLIC 1, this pe has 0: every PE must use the "
                      r"same$"})]
    if not (os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband")):
        cases.append(("no transport", {"GSHMEM_TEST_SIM_NODES": "2", "GSHMEM_TRANSPORT": "ibrc"},
                      [], {pe: rf"^gshmem pe {pe} \(\S+\) error transport: GSHMEM_TEST_SIM_NODES=2 "
                           r"splits this machine into simulated nodes, which reach each other only "
                           r"through a transport: none came up$" for pe in (0, 1)}))
    for what, extra, wrap, patterns in cases:
        r, took = run([gshmrun, "-n", "2"] + wrap + [prog], env=dict(ENV, **extra))
        lines = r.stderr.splitlines()
        p += expect(r.returncode == 255, f"{what}: exit status {r.returncode}, expected 255", r)
        for pe, pattern in patterns.items():
            pattern = pattern.replace("{pe}", str(pe))
            p += expect(any(re.search(pattern, l) for l in lines), f"{what}: no line {pattern}", r)
        p += expect(not any("was lost" in l or "ended while" in l for l in lines),
                    f"{what}: a PE reported a lost peer", r)
        p += expect(took < 20, f"{what}: took {took:.1f} s")
    return p


failed = sum(1 for _, p in results if p)
print(f"launch: {len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
