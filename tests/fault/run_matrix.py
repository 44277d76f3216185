#!/usr/bin/env python3
"""The fault matrix: one PE of a job commits a fault (tests/fault/fault.c)
in one phase of its run, or the launcher itself is killed, and the job must
end as gshmem promises (DESIGN.md section 8):

- every surviving PE exits within 10 s of the fault, each with one message
  naming the lost PE (under gshmrun; under mpirun, which may end the
  survivors itself, every message the PEs give names it and one at least
  is given, by a PE or by mpirun);
- a gshmem_global_exit ends the job with its status and no PE reports a
  loss;
- the launcher exits non-zero, within 15 s of the fault (one exception:
  where every PE ended in time but mpirun stays past 5 s more, spinning or
  its main thread blocked on a lock, the row is a known limit of Open MPI
  4.1's mpirun, which at times spins, or deadlocks with its progress
  thread, in its own finalize; at most one such row a run);
- nothing is left behind: no process of the job, no new /dev/shm entry, no
  abstract socket of gshmem's.

usage: run_matrix.py GSHMRUN FAULT_PROGRAM [MPIRUN|-] [--full] [--gpu] [--ibrc]
                     [--scale N,N...] [--only SUBSTRING...]

By default a subset that covers every fault in every phase once (the PE
count and the victim's place rotating), the tcp transport's two network
faults, mpirun's kill, exit and stop in the barrier and in a heap growth,
and both launchers killed: the CI rows.  --full runs every fault x phase x
PE count (2, 4, 8) x victim (first, middle, last) under gshmrun, then the
mpirun and tcp rows for each.  The table goes to stdout; the exit status is
non-zero when a case failed.  Stopped PEs are found after
GSHMEM_HEARTBEAT_TIMEOUT, set to 3 s here (6 s by default) to keep the run
short.

--ibrc: the network's rows over the ibrc transport (tests/rdma-vm/guest-tests
runs them in the Soft-RoCE guest): kill, stop and exit 0 of a PE in the
barrier, a collective, a wait, a transfer in flight and a heap growth, and
one gshmem_global_exit, every peer reached through ibrc
(GSHMEM_DISABLE_P2P=1), at 3 and 4 PEs, the victim's place rotating.

--scale 16,32,64: a PE killed in the barrier and in a collective (first,
middle and last PE) at each of these PE counts, under gshmrun (bench/scale).

--gpu: the GPU rows, with FAULT_PROGRAM tests/fault/fault_gpu.cu's program
and the symmetric heap in GPU memory: each fault in a device barrier, a
device wait, an on-stream collective and a proxy transfer from a kernel
(GSHMEM_DISABLE_P2P=1), at 2 and 4 PEs (--full: every PE count and victim;
else each fault and phase once), and gshmrun killed; after each case no GPU
memory may stay taken (nvidia-smi), besides the checks above."""
import os
import re
import selectors
import signal
import subprocess
import sys
import time

PHASES = ("init", "malloc", "barrier", "coll", "wait", "transfer")
GPU_PHASES = ("dev-barrier", "dev-wait", "stream-coll", "proxy-put")
# Rows that fail for a reason the README states: run, shown as such, not
# counted as passed or failed (the --full matrix only).
KNOWN = {("mpirun", "init", "stop"):
         "a PE stopped before gshmem_init under mpirun is found only at GSHMEM_BOOTSTRAP_TIMEOUT: "
         "PMIx's first fence has no peers to watch yet (README, When a PE fails)"}
FAULTS = ("kill", "stop", "exit0", "global")
MPIRUN_HUNG = ("every PE ended in time, then mpirun itself hung (Open MPI 4.1: in its "
               "PMIx_server_finalize); ended by the test")
SURVIVOR_LIMIT = 10.0  # s from the fault to each survivor's message
LAUNCHER_LIMIT = 15.0  # s from the fault to the launcher's exit
CASE_LIMIT = 45.0      # s a case may run in all (a hang)
HEARTBEAT = "3"

args = [a for i, a in enumerate(sys.argv[1:], 1)
        if not a.startswith("--") and sys.argv[i - 1] != "--scale"]
gshmrun, prog = os.path.abspath(args[0]), os.path.abspath(args[1])
mpirun = args[2] if len(args) > 2 and args[2] != "-" else None
full = "--full" in sys.argv
gpu = "--gpu" in sys.argv
ibrc = "--ibrc" in sys.argv
only = sys.argv[sys.argv.index("--only") + 1:] if "--only" in sys.argv else []
scale = ([int(x) for x in sys.argv[sys.argv.index("--scale") + 1].split(",")]
         if "--scale" in sys.argv else [])
if scale:  # many PEs a core: starting and ending them takes longer
    CASE_LIMIT = 120.0

ENV = dict(os.environ, GSHMEM_HEAP="host", GSHMEM_SYMMETRIC_SIZE="4m", GSHMEM_TIMEOUT="60",
           GSHMEM_HEARTBEAT_TIMEOUT=HEARTBEAT, GSHMEM_BOOTSTRAP_TIMEOUT="60")
for k in ("GSHMEM_DISABLE_P2P", "GSHMEM_TRANSPORT", "GSHMEM_TEST_SIM_NODES"):
    ENV.pop(k, None)
if gpu:
    ENV.update(GSHMEM_HEAP="device", GSHMEM_SYMMETRIC_SIZE="64m")
if os.geteuid() == 0:
    ENV.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def victim_of(np_, where):
    return {"first": 0, "middle": np_ // 2, "last": np_ - 1}[where]


def cases():
    """(launcher, transport, np, phase, fault, where) rows."""
    rows = []
    if scale:
        return [("gshmrun", "mapped", np_, phase, "kill", where)
                for np_ in scale for phase in ("barrier", "coll") for where in ("first", "middle", "last")]
    if gpu:
        k = 0
        for phase in GPU_PHASES:
            peers = "tcp" if phase == "proxy-put" else "mapped"
            for fault in FAULTS:
                if full:
                    rows += [("gshmrun", peers, np_, phase, fault, where)
                             for np_ in (2, 4) for where in ("first", "middle", "last")]
                else:
                    rows.append(("gshmrun", peers, (2, 4)[k % 2], phase, fault,
                                 ("first", "middle", "last")[k % 3]))
                k += 1
        rows.append(("gshmrun", "mapped", 2, "dev-barrier", "launcher", "-"))
        return rows
    if ibrc:
        k = 0
        for phase in ("barrier", "coll", "wait", "transfer", "malloc"):
            for fault in ("kill", "stop", "exit0"):
                rows.append(("gshmrun", "ibrc", (3, 4)[k % 2], phase, fault,
                             ("first", "middle", "last")[k % 3]))
                k += 1
        rows.append(("gshmrun", "ibrc", 3, "coll", "global", "middle"))
        return rows
    if full:
        for phase in PHASES:
            for fault in FAULTS:
                for np_ in (2, 4, 8):
                    for where in ("first", "middle", "last"):
                        rows.append(("gshmrun", "mapped", np_, phase, fault, where))
        for fault in ("kill", "stop", "exit0"):
            for phase in ("barrier", "coll", "transfer"):
                rows.append(("gshmrun", "tcp", 3, phase, fault, "middle"))
        if mpirun:
            for phase in PHASES:
                for fault in FAULTS:
                    rows.append(("mpirun", "mapped", 4, phase, fault, "middle"))
    else:
        k = 0
        for phase in PHASES:
            for fault in FAULTS:
                rows.append(("gshmrun", "mapped", (2, 4, 8)[k % 3], phase, fault,
                             ("first", "middle", "last")[(k // 3) % 3]))
                k += 1
        rows += [("gshmrun", "tcp", 3, "transfer", "kill", "middle"),
                 ("gshmrun", "tcp", 3, "transfer", "stop", "last")]
        if mpirun:
            for phase in ("barrier", "malloc"):
                for fault in ("kill", "exit0", "stop"):
                    rows.append(("mpirun", "mapped", 4, phase, fault, "middle"))
    rows.append(("gshmrun", "mapped", 3, "barrier", "launcher", "-"))
    if mpirun:
        rows.append(("mpirun", "mapped", 3, "barrier", "launcher", "-"))
    return rows


# ---- what a job leaves behind ----------------------------------------------

def job_processes():
    """pids of processes running the fault program."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if argv0 == prog:
            pids.append(int(d))
    return pids


def shm_entries():
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


def gshmem_sockets():
    """gshmem's abstract sockets: {name: inode}."""
    try:
        with open("/proc/net/unix") as f:
            return {l.split()[-1]: l.split()[6] for l in f if "@gshmem-" in l}
    except OSError:
        return {}


def socket_owners(inodes):
    """The argv[0] of each process holding one of these socket inodes."""
    owners = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            fds = os.listdir("/proc/%s/fd" % d)
            held = {os.readlink("/proc/%s/fd/%s" % (d, fd)) for fd in fds}
            if any("socket:[%s]" % i in held for i in inodes):
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    owners.add(f.read().split(b"\0")[0].decode(errors="replace"))
        except OSError:
            continue
    return owners


def new_sockets(before):
    """gshmem sockets that appeared since `before` and are held by a process
    of this job's program (other jobs may run beside this one)."""
    now = gshmem_sockets()
    fresh = {n: i for n, i in now.items() if n not in before}
    return sorted(fresh) if fresh and prog in socket_owners(set(fresh.values())) else []


def gpu_memory_used():
    """MiB of memory in use on each GPU (nvidia-smi), [] without GPUs."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30).stdout
        return [int(x) for x in out.split()]
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return []


GPU_SLACK_MIB = 64  # the driver's own use moves a little between readings


def leftovers(shm_before, socks_before, gpu_before):
    deadline = time.monotonic() + 3
    while True:
        procs, shm, socks = job_processes(), shm_entries() - shm_before, new_sockets(socks_before)
        gpu_now = gpu_memory_used() if gpu_before else []
        gpu_kept = [b - a for a, b in zip(gpu_before, gpu_now) if b - a > GPU_SLACK_MIB]
        if not (procs or shm or socks or gpu_kept) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    found = []
    if gpu_kept:
        found.append("GPU memory still taken: %s MiB more than before the case" % gpu_kept)
    if procs:
        found.append("processes %s still running" % procs)
        for pid in procs:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if shm:
        found.append("/dev/shm entries %s" % sorted(shm))
    if socks:
        found.append("abstract sockets %s" % socks)
    return found


# ---- one case -----------------------------------------------------------------

def stuck(pid):
    """Whether, in two samples 0.2 s apart, a thread of pid is running (R),
    a launcher busy in a loop, or its main thread waits on a futex (a lock
    or condition: Open MPI 4.1's mpirun has been seen deadlocked so in its
    PMIx_server_finalize, its progress thread waiting on a lock), not one
    waiting for I/O or a child.  (Any wait on a lock counts: asked only
    once every PE has been gone 5 s and the launcher's limit has passed.)"""
    def sample():
        try:
            running = any(open("/proc/%d/task/%s/stat" % (pid, t)).read().rsplit(")", 1)[1].split()[0]
                          == "R" for t in os.listdir("/proc/%d/task" % pid))
            with open("/proc/%d/wchan" % pid) as f:
                return running or "futex" in f.read()
        except OSError:
            return False
    first = sample()
    time.sleep(0.2)
    return first and sample()


def launch_cmd(launcher, np_, argv, env):
    if launcher == "gshmrun":
        return [gshmrun, "-n", str(np_)] + argv
    # meson test's MALLOC_PERTURB_ goes to the PEs only: Open MPI 4.1's
    # mpirun, ending a job a PE left, sometimes reads memory it has freed,
    # and with the perturbation it then crashes or spins in its finalize
    # with every PE gone.
    perturb = env.pop("MALLOC_PERTURB_", None)
    keep = ["-x", "MALLOC_PERTURB_=" + perturb] if perturb else []
    return [mpirun, "--oversubscribe", "--bind-to", "none", "-np", str(np_)] + keep + argv


def run_case(launcher, transport, np_, phase, fault, where):
    victim = victim_of(np_, where) if fault != "launcher" else 0
    env = dict(ENV)
    if transport in ("tcp", "ibrc"):
        env["GSHMEM_DISABLE_P2P"] = "1"
    if transport == "ibrc":
        env["GSHMEM_TRANSPORT"] = "ibrc"
    shm_before, socks_before = shm_entries(), gshmem_sockets()
    gpu_before = gpu_memory_used() if gpu else []
    argv = [prog, phase, "none" if fault == "launcher" else fault, str(victim)]
    t0 = time.monotonic()
    p = subprocess.Popen(launch_cmd(launcher, np_, argv, env), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    sel.register(p.stderr, selectors.EVENT_READ)
    lines, bufs, t_fault, ups, killed_launcher = [], {}, None, 0, False
    t_pes_gone, launcher_hung = None, False
    open_streams = 2
    while open_streams:
        now = time.monotonic()
        if now - t0 > CASE_LIMIT:
            break
        if launcher == "mpirun" and t_fault is not None and fault != "launcher":
            # Open MPI 4.1's mpirun at times crashes, spins or deadlocks in
            # its own finalize (PMIx_server_finalize) once every PE has
            # ended: told apart from PEs that do not end, and ended here.
            if t_pes_gone is None and not job_processes():
                t_pes_gone = now
            if (t_pes_gone is not None and now - t_fault > LAUNCHER_LIMIT and
                    now - t_pes_gone > 5 and p.poll() is None and stuck(p.pid)):
                launcher_hung = True
                os.killpg(p.pid, signal.SIGKILL)
                break
        if fault == "launcher" and not killed_launcher and ups >= np_:
            time.sleep(0.5)  # every PE is in its phase
            p.send_signal(signal.SIGKILL)
            killed_launcher, t_fault = True, time.monotonic()
        for key, _ in sel.select(timeout=0.2):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            text = bufs.get(key.fd, b"") + chunk
            *done, bufs[key.fd] = text.split(b"\n")
            for raw in done:
                line = raw.decode(errors="replace")
                t = time.monotonic()
                lines.append((t, line))
                if re.match(r"fault: pe \d+ commits ", line) and t_fault is None:
                    t_fault = t
                if re.match(r"fault: pe \d+ of \d+ up", line):
                    ups += 1
        if killed_launcher and p.poll() is not None and now - t_fault > 5:
            break  # the launcher is gone; its children's pipes may stay open a while
    hung = time.monotonic() - t0 > CASE_LIMIT
    if hung:
        os.killpg(p.pid, signal.SIGKILL)
    try:
        rc = p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        rc = None
    t_end = time.monotonic()
    p.stdout.close()
    p.stderr.close()
    problems = []
    if hung:
        problems.append("still running after %.0f s: ended by the test" % CASE_LIMIT)
    if t_fault is None:
        problems.append("the fault never happened")
        t_fault = t_end
    if launcher_hung:  # the PEs' part is judged as of their end
        t_end = t_pes_gone
    problems += judge(launcher, np_, phase, fault, victim, rc, lines, t_fault, t_end)
    problems += leftovers(shm_before, socks_before, gpu_before)
    return problems, t_end - t_fault, rc, lines, launcher_hung


def judge(launcher, np_, phase, fault, victim, rc, lines, t_fault, t_end):
    problems = []
    errors = [(t, l) for t, l in lines if re.match(r"gshmem (pe \d+ )?\(\S+\) error ", l)]
    if fault == "launcher":
        return []  # killed: its status is the test's; what matters is what is left
    if rc is None or rc == 0:
        problems.append("the launcher exited %s, want non-zero" % rc)
    if t_end - t_fault > LAUNCHER_LIMIT:
        problems.append("the launcher ended %.1f s after the fault (limit %.0f)" % (t_end - t_fault,
                                                                                   LAUNCHER_LIMIT))
    if fault == "global":
        if launcher == "gshmrun" and rc != 7:
            problems.append("gshmrun exited %s, want the global exit's 7" % rc)
        if errors:
            problems.append("PEs reported errors for a global exit: %s" % errors[0][1])
        return problems
    named = re.compile(r"\bpe %d\b" % victim)
    for t, l in errors:
        if not named.search(l):
            problems.append("a message that does not name pe %d: %s" % (victim, l))
        elif t - t_fault > SURVIVOR_LIMIT:
            problems.append("%.1f s after the fault (limit %.0f): %s" % (t - t_fault, SURVIVOR_LIMIT, l))
    if launcher == "mpirun":
        if not errors and not any(re.search(r"rank %d\b" % victim, l) for _, l in lines):
            problems.append("nothing named pe %d" % victim)
        return problems
    survivors = [pe for pe in range(np_) if pe != victim]
    if phase == "init":  # not PEs yet: the bootstrap's messages
        if len(errors) != len(survivors):
            problems.append("%d messages from the %d waiting processes, want one each" %
                            (len(errors), len(survivors)))
        return problems
    for pe in survivors:
        mine = [l for _, l in errors if l.startswith("gshmem pe %d " % pe)]
        if len(mine) != 1:
            problems.append("pe %d gave %d messages, want 1%s" % (pe, len(mine),
                                                                (": " + mine[0]) if mine else ""))
    return problems


def main():
    if gpu and not gpu_memory_used():
        print("fault matrix (GPU): no GPU: skipped")
        return 77
    rows = [r for r in cases() if not only or any(o in " ".join(map(str, r)) for o in only)]
    print("fault matrix%s: %d cases (%s)" % (" (GPU)" if gpu else " (ibrc)" if ibrc else "", len(rows),
                                          "full" if full else "subset"))
    print("%-8s %-6s %3s %-11s %-8s %-6s  %-4s %6s  %s" % ("launcher", "peers", "np", "phase", "fault",
                                                       "victim", "rc", "ended", "result"))
    failed = known = launcher_hangs = 0
    t_all = time.monotonic()
    for row in rows:
        launcher, transport, np_, phase, fault, where = row
        problems, took, rc, lines, launcher_hung = run_case(*row)
        vic = "-" if fault == "launcher" else "pe %d" % victim_of(np_, where)
        why_known = KNOWN.get((launcher, phase, fault)) if problems else None
        if launcher_hung:
            launcher_hangs += 1
            if problems:
                problems.append("and mpirun itself hung after every PE had ended: ended by the test")
            elif launcher_hangs > 1:
                problems = ["mpirun hung after every PE had ended, again in this run: more than "
                            "Open MPI's rare hang"]
            else:
                problems, why_known = ["mpirun"], MPIRUN_HUNG
        print("%-8s %-6s %3d %-11s %-8s %-6s  %-4s %5.1fs  %s" % (
            launcher, transport, np_, phase, fault, vic, rc, took,
            "ok" if not problems else "known limit: " + why_known if why_known else "FAIL"))
        if why_known:
            known += 1
            continue
        for prob in problems:
            print("    " + prob)
        if problems:
            failed += 1
            for _, l in lines[-12:]:
                print("      | " + l)
        sys.stdout.flush()
    print("fault matrix: %d passed, %d failed, %d known limits (%.0f s)" % (
        len(rows) - failed - known, failed, known, time.monotonic() - t_all))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
