#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus, tests/fuzz/corpus/<harness>/seed-*:
real messages in the layouts of src/ (x86-64, host byte order) and a few
near misses, so that each run starts from inputs a check accepts.  Files
named regress-* are inputs that once found a bug; this script leaves them
alone.  Rerun it when a layout changes.

usage: gen_corpus.py [CORPUS_DIR]"""
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
SECRET = b"fuzz-job-secret!"  # fuzz.h's fuzz_secret
UID_MAGIC = 0x3164697568736731
LINK_MAGIC = 0x676e697268736731
TCP_MAGIC = 0x706374686d687367
FDX_MAGIC = 0x786466686d687367
STATIC_OFF = 1 << 62


def wire_addr(family=4, port=40000, addr=b"\x7f\x00\x00\x01"):
    return struct.pack("<HHI", family, struct.unpack("<H", struct.pack(">H", port))[0], 0) + \
        addr.ljust(16, b"\0")


def root_hello(rank=0, nranks=4, secret=SECRET, family=4):
    return struct.pack("<Q16sii", UID_MAGIC, secret, rank, nranks) + wire_addr(family)


MAX_ROUNDS = 31


def rounds(size):
    return (size - 1).bit_length()


def root_reply(status=0, msg=b"", family=4, size=5, nrounds=None):
    """Prefixed with the byte the harness makes the job's size of."""
    nrounds = rounds(size) if nrounds is None else nrounds
    peers = b"".join(wire_addr(family, 40000 + k) for k in range(min(nrounds, MAX_ROUNDS)))
    peers = peers.ljust(24 * MAX_ROUNDS, b"\0")
    return bytes([size - 1]) + struct.pack("<ii", status, nrounds if status == 0 else 0) + \
        peers + msg.ljust(240, b"\0")[:240]


def link_hello(me, size, rank, round_, secret=SECRET):
    """Prefixed with the bytes the harness makes the size and receiving rank of."""
    return bytes([size - 1, me + 1]) + struct.pack("<Q16sii", LINK_MAGIC, secret, rank, round_)


def frame(kind=1, lost=-1, length=200, rlen=200, size=4):
    return struct.pack("<IiQIH", kind, lost, length, rlen, size - 1)


def uid_blob(family=6):
    addr = b"\0" * 15 + b"\x01" if family == 6 else b"\x7f\x00\x00\x01"
    return (struct.pack("<Q16s", UID_MAGIC, SECRET) + wire_addr(family, 39999, addr)).ljust(128, b"\0")


def tcp_frame(type_, op=0, off=0, length=0, size=0, fetch=0, a=0, b=0, heap=4 << 20,
              static=64 << 10, hello=True):
    f = struct.pack("<IIQQQQQII", type_, op, 7, off, length, a, b, size, fetch)
    f += struct.pack("<QQ", heap, static)
    if hello:
        f += struct.pack("<Q16sii", TCP_MAGIC, SECRET, 3, 0)
    return f


def fdx_msg(pe=1, tag=7, secret=SECRET, magic=FDX_MAGIC):
    return struct.pack("<Q16siiQ", magic, secret, pe, 0, tag)


def env_vars():
    text = open(os.path.join(HERE, "..", "..", "src", "core", "env_table.h")).read()
    text = text[text.index("#define GSHMEMI_ENV_TABLE"):]
    return [(m.group(1), m.group(2)) for m in re.finditer(r"X\((\w+), (\w+),", text)]


def seeds():
    s = {}
    u = s.setdefault("fuzz_uid_msgs", {})
    u["root-hello"] = b"\0" + root_hello()
    u["root-hello-last-rank"] = b"\0" + root_hello(3, 4, family=6)
    u["root-hello-bad-rank"] = b"\0" + root_hello(4, 4)
    u["root-hello-wrong-secret"] = b"\0" + root_hello(secret=b"x" * 16)
    u["root-reply"] = b"\x01" + root_reply()
    u["root-reply-2"] = b"\x01" + root_reply(size=2, family=6)
    u["root-reply-40"] = b"\x01" + root_reply(size=40)
    u["root-reply-wrong-rounds"] = b"\x01" + root_reply(size=4, nrounds=3)
    u["root-reply-gave-up"] = b"\x01" + root_reply(-3, b"pe(s) 2 of 3 never reached the root within 2 s")
    u["root-reply-unknown-status"] = b"\x01" + root_reply(5)
    u["link-hello"] = b"\x02" + link_hello(0, 4, 3, 0)
    u["link-hello-round-2"] = b"\x02" + link_hello(3, 6, 5, 2)
    u["link-hello-wrong-rank"] = b"\x02" + link_hello(2, 6, 5, 2)
    u["link-hello-wrong-round"] = b"\x02" + link_hello(3, 6, 5, 3)
    u["frame-data"] = b"\x03" + frame()
    u["frame-token"] = b"\x03" + frame(length=1, rlen=1)
    u["frame-abort"] = b"\x03" + frame(2, 2, 0)
    u["frame-abort-outside"] = b"\x03" + frame(2, 9, 0)
    u["frame-asymmetric"] = b"\x03" + frame(length=8)

    i = s.setdefault("fuzz_uniqueid", {})
    i["bytes-ipv6"] = b"\x01" + uid_blob(6)
    i["bytes-ipv4"] = b"\x01" + uid_blob(4)
    i["bytes-bad-family"] = b"\x01" + uid_blob(5)
    i["text"] = b"\0" + uid_blob(4).hex().encode()
    i["text-upper"] = b"\0" + uid_blob(6).hex().upper().encode()
    i["text-short"] = b"\0" + uid_blob(4).hex().encode()[:100]

    t = s.setdefault("fuzz_tcp_wire", {})
    t["put"] = tcp_frame(1, length=4096, off=1 << 20)
    t["put-fenced"] = tcp_frame(1, op=1, length=8)
    t["put-static"] = tcp_frame(1, off=STATIC_OFF + 64, length=64)
    t["put-past-heap"] = tcp_frame(1, off=(4 << 20) - 8, length=9)
    t["put-strided"] = tcp_frame(1, op=2, off=256, length=64, size=8, a=24)
    t["put-strided-past-heap"] = tcp_frame(1, op=3, off=(4 << 20) - 160, length=64, size=8, a=24)
    t["get"] = tcp_frame(2, off=0, length=65536)
    t["get-too-long"] = tcp_frame(2, off=0, length=65537)
    t["get-strided"] = tcp_frame(2, op=1, off=512, length=64, size=4, a=12)
    t["get-strided-past-heap"] = tcp_frame(2, op=1, off=(4 << 20) - 180, length=64, size=4, a=12)
    t["amo-fetch-add"] = tcp_frame(3, op=2, off=64, size=8, fetch=1, a=1)
    t["amo-misaligned"] = tcp_frame(3, op=2, off=66, size=4)
    t["signal"] = tcp_frame(4, op=1, off=128, a=1)
    t["ctrl"] = tcp_frame(5, off=10, a=1)
    t["quiet"] = tcp_frame(6)
    t["reply"] = tcp_frame(7, length=16)
    t["bye"] = tcp_frame(8, hello=False)
    t["heartbeat"] = tcp_frame(9)

    f = s.setdefault("fuzz_fdx", {})
    f["msg"] = fdx_msg()
    f["msg-wrong-secret"] = fdx_msg(secret=b"y" * 16)
    f["msg-negative-pe"] = fdx_msg(pe=-1)
    f["msg-long"] = fdx_msg() + b"\0"

    e = s.setdefault("fuzz_env", {})
    examples = {"BOOL": [b"yes", b"0"], "INT": [b"-1", b"12"], "SIZE": [b"4m", b"0x100", b"64KiB"],
                "SECONDS": [b"2.5", b"250ms", b"0"], "STRING": [b"auto", b""]}
    for idx, (name, kind) in enumerate(env_vars()):
        for k, v in enumerate(examples[kind]):
            e[f"gshmem-{name.lower()}-{k}"] = bytes([1, idx]) + v
    nv = {"SYMMETRIC_SIZE": b"1g", "DEBUG": b"VERSION", "BOOTSTRAP": b"PMIX",
          "BOOTSTRAP_IFNAME": b"lo", "DISABLE_P2P": b"1", "IB_TIMEOUT": b"20"}
    for idx, (name, _) in enumerate(env_vars()):
        if name in nv:
            e[f"nvshmem-{name.lower()}"] = bytes([2, idx]) + nv[name]
    e["nvshmem-bootstrap-shmem"] = bytes([2, [n for n, _ in env_vars()].index("BOOTSTRAP")]) + b"SHMEM"
    e["parsers-size"] = b"\0\0" + b"3M"
    e["parsers-seconds"] = b"\0\0" + b"1.5ms"
    e["unknown-gshmem"] = b"\3\0" + b"SYMETRIC_SIZE"
    e["unknown-nvshmem"] = b"\3\1" + b"DISABLE_NVLS"
    e["log"] = b"\4\0" + b"info\0heap,rma"
    e["log-exclude"] = b"\4\0" + b"trace\0^bootstrap"
    return s


for harness, files in seeds().items():
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith("seed-"):
            os.remove(os.path.join(d, f))
    for name, data in files.items():
        with open(os.path.join(d, "seed-" + name), "wb") as fh:
            fh.write(data)
    print(f"{harness}: {len(files)} seeds")
