#!/usr/bin/env python3
"""Runs each bad-input case of `negative` under gshmrun and asserts the exact
message (a regular expression, pointers abstracted), the exit status, and
that the other PEs neither hang nor report a lost peer.

usage: check_negative.py GSHMRUN NEGATIVE [CASE...]
       check_negative.py GSHMRUN DEVICE_API --device [CASE...]
       check_negative.py GSHMRUN GPU_PARTITIONED --gpu-partitioned [CASE...]
       check_negative.py GSHMRUN PROXY_CPU --proxy [CASE...]
       check_negative.py GSHMRUN SPMD_PARTITIONED --partitioned [CASE...]"""
import os
import re
import subprocess
import sys
import time

gshmrun, prog = sys.argv[1], sys.argv[2]
P = r"0x[0-9a-f]+"  # a pointer
# the device-state version and size of gshmem_device.cuh as `negative` was built
# (the other programs' modes name none)
V, B = 0, 0
if not sys.argv[3:4] or not sys.argv[3].startswith("--"):
    V, B = (int(w) for w in subprocess.run([prog, "device-state"], capture_output=True, text=True,
                                           check=True).stdout.split())
H = r"gshmem pe 0 \(\S+:\d+\) error (rma|heap|sync|coll): "  # the origin's prefix

# case: (expected regex, job exit status, extra environment)
ABORT = 255
cases = {
    "put-pe-range": (H + r"gshmem_int_put: pe 2 is out of range: there are 2 PEs \(0 to 1\)$", ABORT, {}),
    "put-pe-negative": (H + r"gshmem_putmem: pe -1 is out of range: there are 2 PEs \(0 to 1\)$", ABORT, {}),
    "put-not-heap": (H + rf"gshmem_int_put: dest {P} is neither in the symmetric heap \[{P}, {P}\) nor in "
                     r"the program's static data$", ABORT, {}),
    "get-not-heap": (H + rf"gshmem_getmem: source {P} is neither in the symmetric heap \[{P}, {P}\) nor "
                     r"in the program's static data$", ABORT, {}),
    "put-static-disabled": (H + rf"gshmem_long_p: dest {P} is not in the symmetric heap \[{P}, {P}\), and "
                            r"the program's static data is not symmetric: GSHMEM_SYMMETRIC_DATA is 0$",
                            ABORT, {"GSHMEM_SYMMETRIC_DATA": "0"}),
    "on-stream-static": (H + rf"gshmemx_putmem_on_stream: dest {P} is in the program's static data, which "
                         r"only host calls reach: this call needs memory from the symmetric heap$",
                         ABORT, {"GSHMEM_HEAP": "device"}),
    "put-static-crosses-end": (H + rf"gshmem_putmem: dest range \[{P}, \+1099511627776\) crosses the end "
                               rf"of the program's static data at {P}$", ABORT, {}),
    "put-crosses-end": (H + rf"gshmem_putmem: dest range \[{P}, \+16\) crosses the end of the symmetric heap at {P}$",
                        ABORT, {"GSHMEM_SYMMETRIC_SIZE": "2m"}),
    "put-null-dest": (H + r"gshmem_putmem: dest is NULL with 8 bytes to transfer$", ABORT, {}),
    "put-null-source": (H + r"gshmem_putmem: source is NULL with 8 bytes to transfer$", ABORT, {}),
    "atomic-misaligned": (H + rf"gshmem_int_atomic_add: dest {P} is not aligned to 4 bytes$", ABORT, {}),
    "signal-misaligned": (H + rf"gshmemx_signal_op: sig_addr {P} is not aligned to 8 bytes$", ABORT, {}),
    "bad-sig-op": (H + r"gshmem_putmem_signal: sig_op 7 is neither GSHMEM_SIGNAL_SET nor GSHMEM_SIGNAL_ADD$", ABORT, {}),
    "bad-cmp": (H + r"gshmem_int_wait_until: cmp 99 is not one of GSHMEM_CMP_EQ..GSHMEM_CMP_GE$", ABORT, {}),
    "iput-bad-stride": (H + r"gshmem_int_iput: stride 0 is not positive$", ABORT, {}),
    "clear-lock-not-held": (H + rf"gshmem_clear_lock: the lock at {P} is not held$", ABORT, {}),
    "set-lock-twice": (H + rf"gshmem_set_lock: this PE already holds the lock at {P}$", ABORT, {}),
    "ctx-quiet-invalid": (H + r"gshmem_ctx_quiet: the context is GSHMEM_CTX_INVALID$", ABORT, {}),
    "ctx-put-invalid": (H + r"shmem_ctx_int_put: the context is GSHMEM_CTX_INVALID$", ABORT, {}),
    "wait-not-heap": (H + rf"gshmem_int_wait_until: ivars {P} is neither in the symmetric heap \[{P}, {P}\) "
                      r"nor in the program's static data$", ABORT, {}),
    "timeout": (H + rf"gshmem_long_wait_until timed out after 1 s \(GSHMEM_TIMEOUT\): waiting for {P} "
                r"\(heap offset {OFF}, element 0 of 1\) to be EQ 1; it holds 0$", ABORT, {"GSHMEM_TIMEOUT": "1"}),
    "on-stream-host-heap": (H + r"gshmemx_putmem_on_stream: needs the symmetric heap in GPU memory "
                            r"\(GSHMEM_HEAP=device or auto on a machine with a GPU\)$", ABORT,
                            {"GSHMEM_HEAP": "host"}),
    # registration: the call fails, the job goes on
    "register-overlap": (H + rf"gshmemx_buffer_register\({P}, 64\): overlaps the range \[{P}, \+4096\) "
                         r"registered before$", 0, {}),
    "register-heap": (H + rf"gshmemx_buffer_register\({P}, 16\): the range overlaps the symmetric heap, "
                      r"which needs no registration$", 0, {}),
    "register-empty": (H + r"gshmemx_buffer_register\(\(nil\), 0\): empty range$", 0, {}),
    "unregister-unknown": (H + rf"gshmemx_buffer_unregister\({P}\): no range was registered at that "
                           r"address$", 0, {}),
    "before-init": (r"^gshmem \(\S+:\d+\) error rma: gshmem_putmem called before gshmem_init$", ABORT, {}),
    # collective heap calls: the call fails, the job goes on
    "malloc-asymmetric": (r"gshmem pe [01] \(\S+:\d+\) error heap: gshmem_malloc: asymmetric call: "
                          r"pe 0 called gshmem_malloc\(64\); pe 1 called gshmem_malloc\(128\)$", 0, {}),
    "align-not-power-of-two": (r"error heap: gshmem_align\(3, 10\): the alignment must be a power of two$", 0, {}),
    "free-not-heap": (H + rf"gshmem_free\({P}\): not an address in the symmetric heap \[{P}, {P}\)$", 0, {}),
    "free-interior": (rf"error heap: gshmem_free\({P}\): the pointer is 8 bytes into the block at {P} "
                      r"\(1024 bytes\); pass the pointer the allocation returned$", 0, {}),
    "split-mismatch": (H + r"gshmem_team_split_strided: pe 1 \(index 1 in the parent team\) called it "
                       r"with start 1, stride 1, size 1, this pe with 0, 1, 1: every PE of the parent "
                       r"team must pass the same$", 0, {}),
    "split-null-team": (H + r"gshmem_team_split_strided: pe 1 \(index 1 in the parent team\) "
                        r"passed a NULL new_team: the split fails on every PE of the parent "
                        r"team$", 0, {}),
    "split-2d-null-team": (H + r"gshmem_team_split_2d: pe 1 \(index 1 in the parent team\) passed "
                           r"a NULL yaxis_team: the split fails on every PE of the parent team$",
                           0, {}),
    "too-many-teams": (H + r"gshmem_team_split_strided: no team slot is free on every PE of the "
                       r"new team \(GSHMEM_MAX_TEAMS is 5\); destroy a team first$", 0,
                       {"GSHMEM_MAX_TEAMS": "5"}),
    "coll-team-invalid": (H + r"gshmem_int_sum_reduce: the team is GSHMEM_TEAM_INVALID$", ABORT, {}),
    # a unit built against another gshmem_device.cuh: gshmem_init fails on every PE
    "unit-other-version": (r"gshmem pe [01] \(\S+:\d+\) error core: gshmem_init: a translation unit "
                           r"of this program was built with gshmem_device.cuh of device-state "
                           rf"version {V + 1} \({B} bytes\); this libgshmem has version {V} "
                           rf"\({B} bytes\): rebuild it against the installed headers$", ABORT, {}),
    "units-other-version": (r"gshmem pe [01] \(\S+:\d+\) error core: gshmem_init: 2 translation "
                            r"units of this program were built with gshmem_device.cuh of another "
                            rf"device-state version \(the first: version {V + 1}, {B} bytes\); "
                            rf"this libgshmem has version {V} \({B} bytes\): rebuild them against "
                            r"the installed headers$", ABORT, {}),
    "unit-other-version-after-init": (r"gshmem pe 0 \(\S+:\d+\) error core: a library loaded after "
                                      r"gshmem_init: a translation unit of this program was built "
                                      rf"with gshmem_device.cuh of device-state version {V - 1} "
                                      rf"\({B} bytes\); this libgshmem has version {V} \({B} "
                                      r"bytes\): rebuild it against the installed headers$", ABORT, {}),
    # a setting out of range: gshmem_init fails on every PE (whichever exits first ends the job)
    "push-teams-range": (H + r"GSHMEM_COLL_PUSH_TEAMS is 9: it must be from 0 to 8$", ABORT,
                         {"GSHMEM_COLL_PUSH_TEAMS": "9"}),
    # a collective whose members pass different arguments (GSHMEM_DEBUG_CHECKS)
    "coll-root-mismatch": (H + r"gshmem_int_broadcast: pe 1 \(the next member of the team\) passed "
                           r"root 1, this pe 0: every member must pass the same "
                           r"\(GSHMEM_DEBUG_CHECKS\)$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "coll-count-mismatch": (H + r"gshmem_int_sum_reduce: pe 1 \(the next member of the team\) "
                            r"passed bytes per member 36, this pe 32: every member must pass the "
                            r"same \(GSHMEM_DEBUG_CHECKS\)$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "coll-kind-mismatch": (H + r"gshmem_int_sum_reduce: pe 1 \(the next member of the team\) "
                           r"passed the collective max reduce of 4-byte signed integers, this pe "
                           r"sum reduce of 4-byte signed integers: every member must pass the "
                           r"same \(GSHMEM_DEBUG_CHECKS\)$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "coll-type-mismatch": (H + r"gshmem_int_sum_reduce: pe 1 \(the next member of the team\) "
                           r"passed the collective sum reduce of 4-byte floats, this pe sum "
                           r"reduce of 4-byte signed integers: every member must pass the same "
                           r"\(GSHMEM_DEBUG_CHECKS\)$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "coll-overlap": (H + rf"gshmem_int_alltoall: dest \[{P}, \+16\) overlaps source \[{P}, \+16\); "
                     r"this collective has no in-place form$", ABORT, {}),
    # collect: every PE sees the other's block land on source, after the sizes
    "coll-collect-overlap": (r"gshmem pe [01] \(\S+:\d+\) error rma: gshmem_long_collect: dest "
                             rf"\[{P}, \+128\) overlaps source \[{P}, \+64\); this collective "
                             r"has no in-place form$", ABORT, {}),
    "coll-collect-overlap-simple": (r"gshmem pe [01] \(\S+:\d+\) error rma: gshmem_long_collect: "
                                    rf"dest \[{P}, \+128\) overlaps source \[{P}, \+64\); this "
                                    r"collective has no in-place form$", ABORT,
                                    {"GSHMEM_COLL_ALGO": "simple"}),
    "coll-dest-not-heap": (H + rf"gshmem_int_sum_reduce: dest {P} is neither in the symmetric heap "
                           rf"\[{P}, {P}\) nor in the program's static data$", ABORT, {}),
    "coll-pipe-dest-not-heap": (H + rf"gshmem_fcollectmem: dest {P} is neither in the symmetric heap "
                                rf"\[{P}, {P}\) nor in the program's static data$", ABORT,
                                {"GSHMEM_COLL_ALGO": "ring"}),
    "coll-overlap-strided": (H + rf"gshmem_alltoallsmem: dest \[{P}, \+15\) overlaps source "
                             rf"\[{P}, \+15\); this collective has no in-place form$", ABORT, {}),
    "coll-team-unknown": (H + r"gshmem_fcollectmem: 12345 is not a team \(GSHMEM_MAX_TEAMS is 64\)$",
                          ABORT, {}),
    "coll-bad-root": (H + r"gshmem_int_broadcast: PE_root 2 is not in the team \(2 PEs\)$", ABORT, {}),
    "coll-negative-root": (H + r"gshmem_int_broadcast: PE_root -1 is not in the team \(2 PEs\)$",
                           ABORT, {}),
    # a team this pe no longer has, or never had: the call ends the job
    "coll-team-destroyed": (H + r"gshmem_int_sum_reduce: team \d+ does not exist on this pe "
                            r"\(destroyed, or this pe is not in it\)$", ABORT, {}),
    "coll-not-member": (H + r"gshmem_int_broadcast: team \d+ does not exist on this pe "
                        r"\(destroyed, or this pe is not in it\)$", ABORT, {}),
    "team-destroy-predefined": (H + r"gshmem_team_destroy: team 0 is predefined and cannot be "
                                r"destroyed$", 0, {}),
    "coll-bad-stride": (H + r"gshmem_alltoallsmem: strides dst 0 and sst 1 must be positive$", ABORT, {}),
    # the stream forms: checked at the call, before anything is enqueued
    "coll-on-stream-host-heap": (H + r"gshmemx_int_sum_reduce_on_stream: needs the symmetric heap in "
                                 r"GPU memory \(GSHMEM_HEAP=device or auto on a machine with a "
                                 r"GPU\)$", ABORT, {"GSHMEM_HEAP": "host"}),
    "coll-on-stream-team-invalid": (H + r"gshmemx_int_sum_reduce_on_stream: the team is "
                                    r"GSHMEM_TEAM_INVALID$", ABORT, {"GSHMEM_HEAP": "device"}),
    "coll-on-stream-overlap": (H + rf"gshmemx_int_alltoall_on_stream: dest \[{P}, \+16\) overlaps "
                               rf"source \[{P}, \+16\); this collective has no in-place form$", ABORT,
                               {"GSHMEM_HEAP": "device"}),
    "coll-on-stream-not-heap": (H + rf"gshmemx_int_sum_reduce_on_stream: dest {P} is not in the "
                                rf"symmetric heap \[{P}, {P}\)$", ABORT, {"GSHMEM_HEAP": "device"}),
    "coll-on-stream-bad-root": (H + r"gshmemx_int_broadcast_on_stream: PE_root 2 is not in the team "
                                r"\(2 PEs\)$", ABORT, {"GSHMEM_HEAP": "device"}),
    "coll-on-stream-count-mismatch": (H + r"gshmemx_int_sum_reduce_on_stream: pe 1 \(the next member "
                                      r"of the team\) passed bytes per member 36, this pe 32: every "
                                      r"member must pass the same \(GSHMEM_DEBUG_CHECKS\)$", ABORT,
                                      {"GSHMEM_DEBUG_CHECKS": "1", "GSHMEM_HEAP": "device"}),
    # the active-set collectives (shmem.h's deprecated forms)
    "as-past-last": (H + r"gshmemx_barrier_active_set: the active set \(PE_start 1, logPE_stride 1, "
                     r"PE_size 2\) reaches pe 3, past the last PE \(there are 2 PEs, 0 to 1\)$",
                     ABORT, {}),
    "as-size-zero": (H + r"gshmem_int_sum_to_all: PE_size 0 is not positive: an active set has "
                     r"at least one PE$", ABORT, {}),
    "as-not-member": (H + r"gshmem_broadcast64: this pe is not in the active set \(PE_start 1, "
                      r"logPE_stride 0, PE_size 1\): only its PEs may call$", ABORT, {}),
    "as-bad-root": (H + r"gshmem_broadcast32: PE_root 2 is not in the active set \(2 PEs\)$",
                    ABORT, {}),
    "as-psync-uninit": (H + r"gshmemx_barrier_active_set: pSync\[0\] holds 7, not GSHMEM_SYNC_VALUE "
                        r"\(0\): initialise every element of pSync on every PE before the first "
                        r"call, and use it for one active set at a time$", ABORT, {}),
    "as-timeout": (H +
                   rf"gshmem_long_sum_to_all timed out after 1 s \(GSHMEM_TIMEOUT\): waiting for "
                   rf"{P} \(offset \d+ of the program's static data, element 0 of 1\) to be GE 1; "
                   r"it holds 0$", ABORT, {"GSHMEM_TIMEOUT": "1"}),
    "free-twice": (rf"error heap: gshmem_free\({P}\): no block is allocated there \(already freed, "
                   r"or never allocated\)$", 0, {}),
}

# Device-side bad input (`device_api CASE`): pe 0's kernel fails, its watch
# thread ends the job with the message.
D = r"gshmem pe 0 \(\S+:\d+\) error core: "
K = r" in a kernel \(block 0,0,0 thread 0,0,0\) failed: "
# a host reduction's kernel (flag packets; pushed) waiting for pe 1, which never joins
W = (D + r"gshmem_int_sum_reduce \(on the GPU, as its stream form\) in a kernel \(block \d+,0,0 "
     rf"thread \d+,0,0\) failed: waited past GSHMEM_TIMEOUT \(2 s\) at {P} \(pe 1's to write\) "
     r"for cmp ")
G = (D + r"gshmemx_int_sum_reduce_on_stream in a kernel \(block \d+,0,0 thread \d+,0,0\) failed: "
     r"team \d+ was destroyed after the call was put on its stream \(a CUDA graph that holds it "
     r"replayed after gshmem_team_destroy\?\)$")
device_cases = {
    "dev-pe-range": (D + "gshmem_int_p" + K + r"pe 7 is not in \[0, 2\)$", ABORT,
                     {"GSHMEM_DEBUG_CHECKS": "1"}),
    # every thread of two blocks an SM fails at once; the first's message
    # still ends the job
    "dev-pe-range-many": (D + r"gshmem_int_p in a kernel \(block \d+,0,0 thread \d+,0,0\) failed: "
                          r"pe 7 is not in \[0, 2\)$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "dev-not-heap": (D + "gshmem_int_p" + K + rf"address {P} \(4 bytes\) is not in the symmetric "
                     rf"heap \[{P}, {P}\)$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "dev-misaligned": (D + "gshmem_int_atomic_add" + K + rf"address {P} is not aligned to the "
                       r"atomic's 4 bytes$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "dev-timeout": (D + "gshmem_int_wait_until" + K + rf"waited past GSHMEM_TIMEOUT \(2 s\) at {P} "
                    r"for cmp 0 value 12345; it holds 0$", ABORT, {"GSHMEM_TIMEOUT": "2"}),
    "dev-proxy-timeout": (D + "gshmem_int_wait_until" + K + rf"waited past GSHMEM_TIMEOUT \(2 s\) "
                          rf"at {P} for cmp 0 value 12345; it holds 0 \(with the proxy in use, one "
                          r"cause is a kernel outside the device API's units launched for the first "
                          r"time meanwhile: CUDA's lazy loading then stalls the proxy; "
                          r"CUDA_MODULE_LOADING=EAGER rules that out\)$", ABORT,
                          {"GSHMEM_TIMEOUT": "2", "GSHMEM_DISABLE_P2P": "1"}),
    "dev-coll-overlap": (D + "gshmem_int_fcollect" + K + r"dest \[0x[0-9a-f]+, \+32\) overlaps source "
                         r"\[0x[0-9a-f]+, \+16\); in place, source must be this member's block of "
                         r"dest \(GSHMEM_DEBUG_CHECKS\)$", ABORT, {"GSHMEM_DEBUG_CHECKS": "1"}),
    "dev-coll-mismatch": (D + "gshmemx_int_sum_reduce_block" + K + r"pe 1 \(the next member of "
                          r"the team\) passed bytes per member 36, this pe 32: every member must "
                          r"pass the same \(GSHMEM_DEBUG_CHECKS\)$", ABORT,
                          {"GSHMEM_DEBUG_CHECKS": "1"}),
    # (where it can run: two GPUs with P2P)
    "host-coll-timeout": (W + r"\d+ value \d+; it holds \d+$", ABORT, {"GSHMEM_TIMEOUT": "2"}),
    "host-coll-push-timeout": (W + r"5 value \d+; it holds 0$", ABORT, {"GSHMEM_TIMEOUT": "2"}),
    # a captured stream reduction on a split team (flag packets; pushed),
    # replayed after the team was destroyed and its slot split again
    "graph-team-destroyed": (G, ABORT, {"GSHMEM_COLL_ALGO": "ll", "GSHMEM_DEBUG_CHECKS": "1"}),
    "graph-team-destroyed-push": (G, ABORT, {"GSHMEM_COLL_ALGO": "push", "GSHMEM_DEBUG_CHECKS": "1"}),
    "on-stream-proxy-pageable": (r"gshmem pe 0 \(\S+:\d+\) error rma: gshmemx_putmem_on_stream: pe 1 is "
                                 r"reached through the proxy, and the source of a stream-ordered "
                                 r"operation through it must be GPU memory or pinned host memory "
                                 rf"\({P} is neither\)$", ABORT, {"GSHMEM_DISABLE_P2P": "1"}),
}

# The proxy's own failures (`proxy_cpu CASE`, host heap, tcp).
proxy_cases = {
    "proxy-unread-answer": (r"gshmem pe 0 \(\S+:\d+\) error proxy: request \d+'s answer cannot "
                            r"be given: request \d+ \(the same slot a lap before\) was answered and "
                            r"its answer is still unread after GSHMEM_TIMEOUT \(2 s\)$", ABORT,
                            {"GSHMEM_TIMEOUT": "2", "GSHMEM_DISABLE_P2P": "1", "GSHMEM_HEAP": "host"}),
    "proxy-strided-pitch": (r"gshmem pe 0 \(\S+:\d+\) error proxy: a strided get request for pe 1 "
                            r"of 3 elements of 4 bytes at pitches 2 and 4: the pitches must be at "
                            r"least an element$", ABORT,
                            {"GSHMEM_DISABLE_P2P": "1", "GSHMEM_HEAP": "host"}),
}

# Partitioned transfers' misuse (`spmd_partitioned misuse CASE`, host
# heap): pe 0 sends and pe 1 receives, unless the case says otherwise.
# {off:NAME} is the heap offset the program printed for its buffer NAME.
PT = r"gshmem pe 0 \(\S+:\d+\) error part: "
PT1 = r"gshmem pe 1 \(\S+:\d+\) error part: "
PR = r"gshmem pe 0 \(\S+:\d+\) error rma: "
TO = {"GSHMEM_TIMEOUT": "1"}


def mismatch(recv_parts, recv_dest):
    """The sender's message (from whichever call matched) or the receiver's."""
    return (rf"(?:{PT}gshmemx_\w+: the pair's request 1 does not match: pe 0 \(sender\) has 4 "
            r"partitions of 64 bytes into heap offset {off:buf}, pe 1 \(receiver\) has "
            rf"{recv_parts} partitions of 64 bytes into heap offset {{off:{recv_dest}}}$|"
            rf"{PT1}gshmemx_pwait: the pair's request 1 does not match: pe 0 \(sender\) refused "
            r"this receive \(its gshmemx_psend_init differs in partitions, bytes, dest or flag "
            r"packets\)$)")


partitioned_cases = {
    "self-pe": (PT + r"gshmemx_psend_init: pe 0 is this PE: a partitioned pair needs two PEs$",
                ABORT, {}),
    "pe-range": (PR + r"gshmemx_psend_init: pe 2 is out of range: there are 2 PEs \(0 to 1\)$",
                 ABORT, {}),
    "zero-partitions": (PT + r"gshmemx_precv_init: partitions is 0: it must be at least 1$", ABORT, {}),
    "null-req": (PT + r"gshmemx_psend_init: req is NULL$", ABORT, {}),
    "null-start": (PT + r"gshmemx_pstart: the request is NULL$", ABORT, {}),
    "shape-mismatch": (mismatch(8, "buf"), ABORT, {}),
    "dest-mismatch": (mismatch(4, "buf2"), ABORT, {}),
    "ready-out-of-range": (PT + r"gshmemx_pready: partition 5 is out of range: the request has 4 "
                           r"partitions \(0 to 3\)$", ABORT, {}),
    "ready-twice": (PT + r"gshmemx_pready: partition 2 was already marked ready in round 1$",
                    ABORT, {}),
    "wait-unready": (PT + r"gshmemx_pwait: round 1 ends with 2 of 4 partitions not marked ready "
                     r"\(the first: 1\)$", ABORT, {}),
    "ready-no-round": (PT + r"gshmemx_pready: no round is open: call gshmemx_pstart first$", ABORT, {}),
    "ready-after-wait": (PT + r"gshmemx_pready: no round is open: call gshmemx_pstart first$",
                         ABORT, {}),
    "start-twice": (PT + r"gshmemx_pstart: round 1 is still open: call gshmemx_pwait first$",
                    ABORT, {}),
    "free-open": (PT + r"gshmemx_prequest_free: round 1 is still open: call gshmemx_pwait first$",
                  ABORT, {}),
    "ready-on-recv": (PT + r"gshmemx_pready: the request is a receive: only the sender marks "
                      r"partitions ready$", ABORT, {}),
    "arrived-on-send": (PT + r"gshmemx_parrived: the request is a send: only the receiver tests "
                        r"arrival$", ABORT, {}),
    "range-reversed": (PT + r"gshmemx_pready_range: partitions 3\.\.1 are not a range within "
                       r"0\.\.3$", ABORT, {}),
    "list-duplicate": (PT + r"gshmemx_pready_list: partition 2 is listed twice$", ABORT, {}),
    # (a ready call does not wait for the receiver: the sender's gshmemx_pwait times out)
    "timeout-no-recv": (PT + r"gshmemx_p(?:ready|wait) timed out after 1 s \(GSHMEM_TIMEOUT\): "
                        r"pe 1 has not made receive request 1 of the pair \(gshmemx_precv_init "
                        r"with pe 0\)$", ABORT, TO),
    "timeout-no-start": (PT + r"gshmemx_p(?:ready|wait) timed out after 1 s \(GSHMEM_TIMEOUT\): "
                         r"pe 1 has not started round 1 of the pair's request 1 "
                         r"\(gshmemx_pstart\)$", ABORT, TO),
    "timeout-missing": (PT1 + r"gshmemx_pwait timed out after 1 s \(GSHMEM_TIMEOUT\): round 1 of the "
                        r"pair's request 1 from pe 0 is missing 4 of 4 partitions \(the first: 0\)$",
                        ABORT, TO),
    # a receive freed at once after its init; one freed while its post
    # waited for room in the pair's ring of 8 (its post goes out marked freed)
    "recv-freed-unmatched": (PT + r"gshmemx_p(?:ready|wait): pe 1 freed its receive request 1 "
                             r"before it matched this send$", ABORT, {"GSHMEM_TIMEOUT": "5"}),
    "recv-freed-unposted": (PT + r"gshmemx_pready: pe 1 freed its receive request 9 before it "
                            r"matched this send$", ABORT, {}),
    # the same, seen by a receiver polling parrived
    "arrived-send-freed": (PT1 + r"gshmemx_parrived: pe 0 freed its send request 1 before it "
                           r"matched this receive$", ABORT, {"GSHMEM_TIMEOUT": "5"}),
    # a send freed before the receive was made
    "send-freed-unmatched": (PT1 + r"gshmemx_pwait: pe 0 freed its send request 1 before it "
                             r"matched this receive$", ABORT, {"GSHMEM_TIMEOUT": "5"}),
    # a setting out of range: gshmem_init fails on every PE
    "flags-range": (r"gshmem pe [01] \(\S+:\d+\) error part: GSHMEM_PARTITION_FLAGS is 0: it must "
                    r"be from 1 to 16777216$", ABORT, {"GSHMEM_PARTITION_FLAGS": "0"}),
    # the init fails with GSHMEM_ERR_NO_MEMORY and the job goes on (the
    # program checks the status, then that the next request matches)
    "flags-exhausted": (PT + r"gshmemx_precv_init: the pool of partition flags has no 9 free words "
                        r"in a row \(GSHMEM_PARTITION_FLAGS is 8\): free requests or raise it$", 0,
                        {"GSHMEM_PARTITION_FLAGS": "8"}),
}
# The PE whose failure ends the job, where it is not pe 0 (a pattern).
partitioned_ends = {"timeout-missing": "1", "send-freed-unmatched": "1",
                    "arrived-send-freed": "1", "shape-mismatch": "[01]", "dest-mismatch": "[01]"}

# Kernels' bad input to partitioned calls (`gpu_partitioned misuse CASE`):
# pe 0's kernel fails, its watch thread ends the job with the message.
gpu_partitioned_cases = {
    "dev-ready-twice": (D + "gshmemx_pready_list" + K + r"partition 2 was already marked ready "
                        r"in round 1$", ABORT, {}),
    "dev-ready-range": (D + "gshmemx_pready" + K + r"partition 96 is out of range: the request "
                        r"has 96 partitions \(0 to 95\)$", ABORT, {}),
    "dev-wait-unmarked": (D + "gshmemx_pwait_on_stream" + K + r"round 1 ends with 2 of 96 "
                          r"partitions not marked ready \(the first: 94\)$", ABORT, {}),
    "dev-arrived-on-send": (D + "gshmemx_parrived" + K + r"the request is a send: only the "
                            r"receiver tests arrival$", ABORT, {}),
    "dev-start-open": (D + "gshmemx_pstart_on_stream" + K + r"round 1 is still open: call "
                       r"gshmemx_pwait first$", ABORT, {}),
    "dev-list-null": (D + "gshmemx_pready_list_warp" + r" in a kernel \(block 0,0,0 thread "
                      r"\d+,0,0\) failed: n is 2 with list NULL$", ABORT, {}),
    "dev-range-reversed": (D + "gshmemx_pready_range_block" + r" in a kernel \(block 0,0,0 thread "
                           r"\d+,0,0\) failed: partitions 3\.\.1 are not a range within 0\.\.95$",
                           ABORT, {}),
    "dev-ready-again": (D + "gshmemx_pready_block" + r" in a kernel \(block 0,0,0 thread "
                        r"\d+,0,0\) failed: partition 1 was already marked ready in round 1$",
                        ABORT, {}),
    "dev-ready-after-host": (D + "gshmemx_pready" + K + r"partition 2 was already marked ready "
                             r"in round 1$", ABORT, {}),
    # a kernel marks partition 2, then the host does (a round is marked from one side only)
    "host-ready-after-kernel": (PT + r"gshmemx_pready: partition 2 was already marked ready in "
                                r"round 1$", ABORT, {}),
}

failed = skipped = 0
only = sys.argv[3:]
args = []  # before the case's name
ends = {}
if only[:1] == ["--device"]:
    cases, only = device_cases, only[1:]
elif only[:1] == ["--proxy"]:
    cases, only = proxy_cases, only[1:]
elif only[:1] == ["--gpu-partitioned"]:
    cases, only, args = gpu_partitioned_cases, only[1:], ["misuse"]
elif only[:1] == ["--partitioned"]:
    cases, only, args, ends = partitioned_cases, only[1:], ["misuse"], partitioned_ends
# Cases that need a GPU heap run only when named (the GPU suite names them).
gpu_only = {"on-stream-static", "coll-on-stream-team-invalid", "coll-on-stream-overlap",
            "coll-on-stream-not-heap", "coll-on-stream-bad-root", "coll-on-stream-count-mismatch"}
# Cases whose failure comes on every PE (before or in gshmem_init, or in a
# collective all see fail): whichever exits first ends the job, so gshmrun
# may name any of them.
any_pe_ends = {"before-init", "push-teams-range", "flags-range", "unit-other-version",
               "units-other-version", "coll-collect-overlap", "coll-collect-overlap-simple"}
for name, (pattern, want_status, env) in cases.items():
    if (only and name not in only) or (not only and name in gpu_only):
        continue
    e = dict(os.environ)
    e.update({"GSHMEM_TIMEOUT": "30", **env})
    t0 = time.monotonic()
    r = subprocess.run([gshmrun, "-n", "2", "-t", "60", prog, *args, name], env=e,
                       capture_output=True, text=True)
    took = time.monotonic() - t0
    lines = r.stderr.splitlines()
    if r.returncode == 0 and any(l.endswith(": not applicable") for l in lines):
        print(f"skip {name}: {lines[-1]}")
        skipped += 1
        continue
    problems = []
    if "{OFF}" in pattern: # the heap offset the program found its block at
        said = [m.group(1) for l in lines
                for m in [re.match(r"negative: heap_ptr at heap offset (\d+)$", l)] if m]
        pattern = pattern.replace("{OFF}", said[0] if said else "(none printed)")
    for buf in re.findall(r"\{off:(\w+)\}", pattern): # spmd_partitioned's buffers
        said = [m.group(1) for l in lines
                for m in [re.match(rf"spmd_partitioned: {buf} at heap offset (\d+)$", l)] if m]
        pattern = pattern.replace("{off:%s}" % buf, said[0] if said else "(none printed)")
    if not any(re.search(pattern, line) for line in lines):
        problems.append("message not found: " + pattern)
    if r.returncode != want_status:
        problems.append(f"exit status {r.returncode}, expected {want_status}")
    if any("was lost" in line or "ended while" in line for line in lines):
        problems.append("a PE reported a lost peer")
    end = ends.get(name, "0")
    if want_status == ABORT and not any(re.search(rf"gshmrun: pe {end} ended the job with status 255",
                                                  l) for l in lines) and name not in any_pe_ends:
        problems.append("gshmrun did not say which PE ended the job")
    if took > 20:
        problems.append(f"took {took:.1f} s")
    if problems:
        failed += 1
        print(f"FAIL {name}:")
        for p in problems:
            print("   ", p)
        print("    stderr:\n      " + "\n      ".join(lines))
    else:
        print(f"ok   {name} ({took:.2f} s)")
ran = len(cases) if not only else len(only)
print(f"negative: {ran - failed - skipped} passed, {failed} failed, {skipped} not applicable here")
sys.exit(1 if failed else 0)
