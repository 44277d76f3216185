#!/usr/bin/env python3
"""Strangers on a job's listening sockets, from outside: the uid root
(gshmrun's), each PE's ring listener and tcp transport listener while the
job initializes, and the root and each PE's fd-exchange Unix socket while
it runs.  Each socket gets four strangers: garbage, a hello with the right
magic and a wrong secret, a half-open connection that sends nothing, and a
slow one that sends a byte a second.  Init and the job must neither hang
nor fail, and each stranger is logged once (by its port, for TCP; by the
driver's pid, for the Unix sockets), where the socket is ever served.

The job runs with pause_on_listen.so preloaded: a process stops itself
after each listen(), so the strangers are queued before any honest peer,
and this driver resumes it once they are.

usage: check_intrude.py GSHMRUN LIFECYCLE PAUSE_ON_LISTEN_SO [SCENARIO...]"""
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

gshmrun, prog, shim = sys.argv[1:4]
only = sys.argv[4:]
UID_MAGIC = 0x3164697568736731
RING_MAGIC = 0x676e697268736731
FDX_MAGIC = 0x786466686d687367
results = []


def scenario(fn):
    if not only or fn.__name__ in only:
        try:
            problems = fn() or []
        except Exception as e:
            problems = [f"{type(e).__name__}: {e}"]
        results.append((fn.__name__, problems))
        print(("ok   " if not problems else "FAIL ") + fn.__name__)
        for p in problems:
            print("    " + p.replace("\n", "\n    "))
    return fn


# ---- what a process has: state, rank, listening sockets ---------------------

def state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except OSError:
                pass
    return out


def rank_of(pid):
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
    except OSError:
        return None
    for e in env:
        if e.startswith(b"GSHMEM_LAUNCH_RANK="):
            return int(e.split(b"=", 1)[1])
    return None


def socket_inodes(pid):
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(int(link[8:-1]))
    except OSError:
        pass
    return inodes


def listeners(pid):
    """('tcp', port) and ('unix', name) of the sockets pid listens on."""
    mine, found = socket_inodes(pid), set()
    for table in ("tcp", "tcp6"):
        try:
            lines = open(f"/proc/{pid}/net/{table}").read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A" and int(f[9]) in mine:
                found.add(("tcp", int(f[1].split(":")[1], 16)))
    try:
        for line in open(f"/proc/{pid}/net/unix").read().splitlines()[1:]:
            f = line.split()
            if len(f) >= 8 and f[5] == "01" and int(f[6]) in mine and f[7].startswith("@gshmem-"):
                found.add(("unix", f[7][1:]))
    except OSError:
        pass
    return found


# ---- strangers --------------------------------------------------------------

class Strangers:
    def __init__(self):
        self.held, self.threads = [], []
        self.tcp = []  # (port of the stranger, what, where, must be logged)
        self.unix = []  # (what, where, must be logged)

    def _slow(self, s):
        try:
            for i in range(6):
                s.send(bytes([i]))
                time.sleep(1)
        except OSError:
            pass
        s.close()

    def knock_tcp(self, port, where, logged, magic, kinds=("garbage", "wrong-secret", "half-open",
                                                             "slow")):
        for what in kinds:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            self.tcp.append((s.getsockname()[1], what, where, logged))
            if what == "garbage":
                s.sendall(os.urandom(64))
                s.close()
            elif what == "wrong-secret":
                s.sendall((struct.pack("<Q", magic) + os.urandom(16)).ljust(56, b"\0"))
                s.close()
            elif what == "half-open":
                self.held.append(s)
            else:
                t = threading.Thread(target=self._slow, args=(s,), daemon=True)
                t.start()
                self.threads.append(t)

    def knock_unix(self, name, where, logged):
        for what in ("garbage", "wrong-secret", "half-open", "slow"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect("\0" + name)
            self.unix.append((what, where, logged))
            if what == "garbage":
                s.send(os.urandom(10))
                s.close()
            elif what == "wrong-secret":  # with an fd, which must not stay open there
                r, w = os.pipe()
                socket.send_fds(s, [struct.pack("<Q16siiQ", FDX_MAGIC, os.urandom(16), 1, 0, 0)],
                                [r])
                os.close(r)
                os.close(w)
                s.close()
            elif what == "half-open":
                self.held.append(s)
            else:
                t = threading.Thread(target=self._slow, args=(s,), daemon=True)
                t.start()
                self.threads.append(t)

    def close(self):
        for s in self.held:
            s.close()
        for t in self.threads:
            t.join()

    @staticmethod
    def _line(where, port):
        """The line in which the listener `where` logs dropping the stranger
        from `port` (a source port is unique per destination only:
        strangers to two listeners may share one)."""
        m = re.match(r"pe (\d+)'s (ring|tcp) listener", where)
        if m is None and not where.startswith("the root"):
            raise ValueError(f"no log line known for a stranger on {where}")
        frm = rf"dropped a connection from 127\.0\.0\.1:{port}:"
        if m is None:
            return rf"^gshmem \(.*\broot {frm}"
        if m.group(2) == "ring":
            return rf"^gshmem .*\brank {m.group(1)} {frm}"
        return rf"^gshmem pe {m.group(1)} .*\btcp: {frm}"

    def check(self, stderr):
        p = []
        # Strangers whose lines read alike (one listener, a source port the
        # system gave twice: on loopback a closed one is reused at once)
        # are counted together.
        alike = {}
        for port, what, where, logged in self.tcp:
            alike.setdefault(self._line(where, port), []).append((what, where, logged))
        for line, group in alike.items():
            n = len(re.findall(line, stderr, re.M))
            lo, hi = sum(1 for _, _, logged in group if logged), len(group)
            if not lo <= n <= hi:
                names = " and ".join(f"{what} stranger on {where}" for what, where, _ in group)
                p.append(f"{names}: logged {n} times, expected "
                         f"{lo if lo == hi else f'{lo} to {hi}'}")
        n = len(re.findall(rf"dropped a handle connection from pid {os.getpid()}:", stderr))
        lo = sum(1 for _, _, logged in self.unix if logged)
        if not lo <= n <= len(self.unix):
            p.append(f"{n} handle-socket strangers logged, expected {lo} to {len(self.unix)} "
                     f"(one each)")
        return p


def run_job(nprocs, env_extra, knock_while_running, tcp_peers_all, crowd=0, crowd_tcp=0):
    """Runs lifecycle serve under gshmrun, knocking on every socket each
    process listens on as it opens it (on the root, crowd more half-open
    connections; on each tcp listener a PE accepts on, crowd_tcp), and
    (knock_while_running) on the root and the handle sockets once every PE
    serves."""
    env = dict(os.environ, GSHMEM_TIMEOUT="60", GSHMEM_SYMMETRIC_SIZE="4m", GSHMEM_HEAP="host",
               LD_PRELOAD=shim, INTRUDE_PAUSE="1", **env_extra)
    # Under a sanitizer build whose runtime is a shared library, the shim
    # comes before it: harmless, as the shim only wraps listen().
    env["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                 "verify_asan_link_order=0"]))
    st = Strangers()
    t0 = time.monotonic()
    job = subprocess.Popen([gshmrun, "-n", str(nprocs), "-t", "90", prog, "serve", "6"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out_lines, err = [], []
    readers = [threading.Thread(target=lambda: out_lines.extend(iter(job.stdout.readline, "")),
                                daemon=True),
               threading.Thread(target=lambda: err.append(job.stderr.read()), daemon=True)]
    for r in readers:
        r.start()
    seen, kinds = {}, {}  # pid: listeners already knocked on; (pid, n-th tcp) counts
    root_port = None
    problems = []
    while job.poll() is None and time.monotonic() - t0 < 80:
        serving = sum("serving" in l for l in out_lines)
        for pid in [job.pid] + children(job.pid):
            if state(pid) != "T":
                continue
            rank = rank_of(pid) if pid != job.pid else None
            new = listeners(pid) - seen.setdefault(pid, set())
            for kind, what in sorted(new):
                seen[pid].add((kind, what))
                if kind == "unix":
                    # met by a later exchange, where the job has one (mapped peers)
                    st.knock_unix(what, f"pe {rank}'s handle socket", logged=not tcp_peers_all)
                    continue
                n = kinds[pid] = kinds.get(pid, 0) + 1
                if pid == job.pid:
                    root_port = what
                    st.knock_tcp(what, "the root", True, UID_MAGIC)
                    st.knock_tcp(what, "the root", True, UID_MAGIC, ("half-open",) * crowd)
                elif n == 1:
                    st.knock_tcp(what, f"pe {rank}'s ring listener", True, RING_MAGIC)
                else:  # the lower PE of a pair connects: pe 0 serves nobody
                    accepts = rank > 0 and tcp_peers_all
                    st.knock_tcp(what, f"pe {rank}'s tcp listener", accepts, RING_MAGIC)
                    if accepts:
                        st.knock_tcp(what, f"pe {rank}'s tcp listener", True, RING_MAGIC,
                                     ("half-open",) * crowd_tcp)
            os.kill(pid, signal.SIGCONT)
        if knock_while_running and serving == nprocs:
            knock_while_running = False
            if root_port is None:
                problems.append("the root's socket was never seen")
            else:
                st.knock_tcp(root_port, "the root, while the job runs", True, UID_MAGIC)
            for pid in children(job.pid):
                for kind, what in listeners(pid):
                    if kind == "unix":
                        st.knock_unix(what, f"pe {rank_of(pid)}'s handle socket, while the job "
                                      "runs", logged=True)
                    else:
                        problems.append(f"pe {rank_of(pid)} listens on tcp port {what} while "
                                        "the job runs")
        time.sleep(0.002)
    if job.poll() is None:
        job.kill()
        problems.append("the job did not end within 80 s")
    job.wait()
    for r in readers:
        r.join()
    st.close()
    took = time.monotonic() - t0
    stdout, stderr = "".join(out_lines), "".join(err)
    kinds_seen = {w.split(",")[0].split("'s ")[-1] for _, _, w, _ in st.tcp}
    problems += [f"exit {job.returncode}"] if job.returncode != 0 else []
    problems += [] if stdout.count(": ok") == nprocs else [f"PEs did not all check out:\n{stdout}"]
    problems += st.check(stderr)
    if problems:
        problems.append("stderr:\n" + stderr)
    print(f"    {len(st.tcp)} TCP and {len(st.unix)} Unix strangers ({', '.join(sorted(kinds_seen))}); "
          f"{took:.1f} s")
    return problems, kinds_seen, took


@scenario
def strangers_mapped():
    """Node-local PEs: the root, the ring listeners, the handle sockets."""
    p, kinds, _ = run_job(3, {}, True, False)
    for k in ("the root", "ring listener"):
        if k not in kinds:
            p.append(f"no stranger reached {k}")
    return p


@scenario
def strangers_tcp():
    """Every peer through the tcp transport: its listeners too."""
    p, kinds, _ = run_job(3, {"GSHMEM_DISABLE_P2P": "1", "GSHMEM_HEARTBEAT_TIMEOUT": "3"}, False,
                          True)
    if "tcp listener" not in kinds:
        p.append("no stranger reached a tcp listener")
    return p


@scenario
def crowd_at_the_root():
    """40 silent connections on the root before any rank: the root reads
    hellos side by side, so they cost the ranks one hello deadline (2 s),
    not 2 s each.  Read one after another they would take 80 s; the job
    itself takes 15-25 s on a loaded machine."""
    p, _, took = run_job(2, {}, False, False, crowd=40)
    return p + ([] if took < 45 else [f"took {took:.1f} s"])


@scenario
def crowd_at_a_tcp_listener():
    """140 silent connections on each tcp listener before its peers: a PE
    reads hellos side by side, 64 at a time, so they cost it two hello
    deadlines (4 s), not 280 s; the peers that already connected to it wait
    that long for its first frame, past GSHMEM_HEARTBEAT_TIMEOUT=3 (a peer
    not yet heard has GSHMEM_BOOTSTRAP_TIMEOUT)."""
    p, kinds, took = run_job(3, {"GSHMEM_DISABLE_P2P": "1", "GSHMEM_HEARTBEAT_TIMEOUT": "3"},
                             False, True, crowd_tcp=140)
    if "tcp listener" not in kinds:
        p.append("no stranger reached a tcp listener")
    return p + ([] if took < 45 else [f"took {took:.1f} s"])


failed = sum(1 for _, p in results if p)
print(f"intrude: {len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
