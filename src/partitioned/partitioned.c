/* The partitioned API on the host: requests, rounds, ready and arrival.
 * A sender's partition moves once the receiver has started the round: put
 * its data, then set the receiver's flag for it to the round (a signal,
 * after the data).  Flags only grow, so rounds need no reset. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "partitioned/partitioned_launch.h"
#include "partitioned/partitioned_priv.h"
#include "rma/rma.h"
#include "sync/wait.h"

static void lock(void) { pthread_mutex_lock(&gshmemi_part_lock); }
static void unlock(void) { pthread_mutex_unlock(&gshmemi_part_lock); }

static void check_pe(const char *call, int pe)
{
    gshmemi_rma_check_pe(call, pe);
    if (pe == gshmemi_rt.my_pe)
        gshmemi_part_fail(call, "pe %d is this PE: a partitioned pair needs two PEs", pe);
}

static size_t check_shape(const char *call, int partitions, size_t bytes)
{
    size_t total;
    if (partitions < 1)
        gshmemi_part_fail(call, "partitions is %d: it must be at least 1", partitions);
    if (__builtin_mul_overflow((size_t)partitions, bytes, &total))
        gshmemi_part_fail(call, "%d partitions of %zu bytes overflow the address space",
                          partitions, bytes);
    return total;
}

static int make(const char *call, struct gshmemi_preq *q, gshmemx_prequest_t *req)
{
    lock();
    int st = gshmemi_part_enqueue(call, q);
    if (st == 0)
        gshmemi_part_progress(call);
    unlock();
    if (st != 0) {
        lock();
        gshmemi_part_delete(q);
        unlock();
        q = NULL;
    }
    *req = q != NULL ? gshmemi_part_handle(q) : NULL;
    return st;
}

/* Partitions of 1-8 bytes between mapped GPU heaps travel as flag packets
 * (data and flag in one store); both sides decide alike, and the
 * receiver's post says which, which its sender checks. */
static int packets(size_t bytes, int mapped)
{
    return gshmemi_heap.on_device && bytes >= 1 && bytes <= 8 && mapped;
}

#define CE_STORES_PARTS 32
/* Blocks of a chunked send's stream wait that take chunks (beside the one
 * that waits): enough to fill the link from where the producer's last
 * ready calls leave their partitions. */
#define PHELP_BLOCKS 32
#define CHUNKS_MIN 16

GSHMEM_API int gshmemx_psend_init(void *dest, const void *source, int partitions,
                                  size_t bytes_per_partition, int pe, gshmemx_prequest_t *req)
{
    const char *call = __func__;
    if (req == NULL)
        gshmemi_part_fail(call, "req is NULL");
    check_pe(call, pe);
    size_t total = check_shape(call, partitions, bytes_per_partition);
    const int mapped = gshmemi_rma_target(call, "dest", dest, GSHMEMI_MAX(total, 1), pe) != NULL;
    gshmemi_rma_check_local(call, "source", source, total);
    struct gshmemi_preq *q = gshmemi_part_new(call, 1, partitions);
    q->d.peer = pe;
    q->d.bytes = bytes_per_partition;
    q->d.dest = dest;
    q->d.source = source;
    q->d.packets = packets(bytes_per_partition, mapped);
    if (!mapped || q->d.packets) /* (the transports' signals keep data before flag) */
        q->staged = NULL;
    /* large partitions to a mapped GPU heap: the copy engines, not the
     * kernel's threads, move what a kernel marks; but not partitions below
     * four times the threshold in a send of CE_STORES_PARTS or more, where
     * the blocks that ready them move many at once and the copy engines'
     * flushes queue (docs/partitioned.md, the copy-engine threshold) */
    const size_t ce_min = gshmemi_env.PARTITION_CE_MIN;
    const int many = partitions >= CE_STORES_PARTS && bytes_per_partition / 4 < ce_min;
    if (q->dev != NULL && mapped && !q->d.packets && ce_min != 0 && bytes_per_partition >= ce_min &&
        !many && gshmemi_gpu_sets_need_no_sm()) { /* (a kernel's pwait may fill the GPU) */
        q->issued = calloc((size_t)partitions, sizeof(uint64_t));
        if (q->issued == NULL)
            gshmemi_part_fail(call, "out of host memory for a request of %d partitions",
                              partitions);
        q->d.ce = 1;
    }
    /* Partitions moved by stores, of CHUNKS_MIN chunks or more: chunks
     * (struct gshmemi_preq_dev's chunk).  Fewer lost to the claims and the
     * wait's blocks more than help gained (docs/partitioned.md); without
     * overlapping launches the wait's blocks start after the producer. */
    const size_t chunk = gshmemi_env.PARTITION_CHUNK;
    if (q->dev != NULL && mapped && !q->d.packets && !q->d.ce && chunk != 0 &&
        gshmemi_gpu_overlap_launches() &&
        bytes_per_partition / CHUNKS_MIN >= chunk && bytes_per_partition / chunk < UINT32_MAX)
        q->d.chunk = chunk;
    return make(call, q, req);
}

GSHMEM_API int gshmemx_precv_init(void *dest, int partitions, size_t bytes_per_partition, int pe,
                                  gshmemx_prequest_t *req)
{
    const char *call = __func__;
    if (req == NULL)
        gshmemi_part_fail(call, "req is NULL");
    check_pe(call, pe);
    size_t total = check_shape(call, partitions, bytes_per_partition);
    (void)gshmemi_rma_target(call, "dest", dest, GSHMEMI_MAX(total, 1), gshmemi_rt.my_pe);
    struct gshmemi_preq *q = gshmemi_part_new(call, 0, partitions);
    q->d.peer = pe;
    q->d.bytes = bytes_per_partition;
    q->d.dest = dest;
    q->d.packets = packets(bytes_per_partition,
                           gshmemi_rma_target(call, "dest", dest, total, pe) != NULL);
    return make(call, q, req);
}

/* The request of a handle: one of this PE's live requests, or the job ends. */
static struct gshmemi_preq *req_of(const char *call, gshmemx_prequest_t req)
{
    if (req == NULL)
        gshmemi_part_fail(call, "the request is NULL");
    lock();
    struct gshmemi_preq *q = gshmemi_part_find(req);
    unlock();
    if (q == NULL)
        gshmemi_part_fail(call, "the request is not one of this PE's live requests (freed, or "
                          "never made)");
    return q;
}

GSHMEM_API int gshmemx_prequest_free(gshmemx_prequest_t *req)
{
    const char *call = __func__;
    if (req == NULL)
        gshmemi_part_fail(call, "req is NULL");
    struct gshmemi_preq *q = req_of(call, *req);
    lock();
    if (q->d.open)
        gshmemi_part_fail(call, "round %" PRIu64 " is still open: call gshmemx_pwait first",
                          q->d.round);
    gshmemi_part_progress(call);
    gshmemi_part_free(call, q);
    unlock();
    *req = NULL;
    return 0;
}

GSHMEM_API void gshmemx_pstart(gshmemx_prequest_t req)
{
    const char *call = __func__;
    struct gshmemi_preq *q = req_of(call, req);
    lock();
    if (q->d.open)
        gshmemi_part_fail(call, "round %" PRIu64 " is still open: call gshmemx_pwait first",
                          q->d.round);
    if (q->n_pending > 0)
        gshmemi_part_fail(call, "%d partitions marked from the host in round %" PRIu64 " never "
                          "moved: a round marked from the host ends with gshmemx_pwait on the host",
                          q->n_pending, q->pending_round);
    if (q->d.round == UINT32_MAX)
        gshmemi_part_fail(call, "the request has run %" PRIu64 " rounds, the most it can",
                          q->d.round);
    q->d.round++;
    q->d.open = 1;
    q->host_started = q->d.round;
    q->d.marks = q->d.queued = q->d.chunks_done = q->d.helped = 0;
    gshmemi_part_push(call, q, &q->d.marks, offsetof(struct gshmemi_preq_dev, helped) +
                                                sizeof(q->d.helped) -
                                                offsetof(struct gshmemi_preq_dev, marks));
    gshmemi_part_push(call, q, &q->d.round,
                      offsetof(struct gshmemi_preq_dev, open) + sizeof(q->d.open) -
                          offsetof(struct gshmemi_preq_dev, round));
    if (!q->d.is_send)
        gshmemi_part_send_start(call, q);
    gshmemi_part_progress(call);
    unlock();
}

/* Waits, moving every pair on, until done(q) holds; past GSHMEM_TIMEOUT,
 * late(q) ends the job saying what is missing. */
static void wait_for(const char *call, struct gshmemi_preq *q,
                     int (*done)(const char *, struct gshmemi_preq *),
                     void (*late)(const char *, struct gshmemi_preq *))
{
    struct gshmemi_backoff backoff = {0};
    uint64_t deadline = 0;
    for (;;) {
        lock();
        gshmemi_part_progress(call);
        int ok = done(call, q);
        unlock();
        if (ok)
            return;
        gshmemi_backoff_wait(&backoff);
        if (backoff.spins < 64)
            continue;
        if (deadline == 0)
            deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
        gshmemi_watch_peers(call);
        if (gshmemi_now_ns() >= deadline) {
            lock();
            late(call, q);
        }
    }
}

/* A wait past GSHMEM_TIMEOUT: logs `call timed out ...: <what>`, ends the job. */
__attribute__((noreturn, format(printf, 2, 3))) static void timed_out(const char *call,
                                                                      const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    GSHMEMI_ERROR(PART, "%s timed out after %g s (GSHMEM_TIMEOUT): %s", call, gshmemi_env.TIMEOUT,
                  what);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
}

/* Send: every partition of the round moved (a send the host moves for
 * kernels counts them: they are never pending before progress takes them). */
static int not_pending(const char *call, struct gshmemi_preq *q)
{
    (void)call;
    return q->d.match == PREQ_PEER_FREED ||
           (q->n_pending == 0 &&
            (!q->d.ce || q->moved >= q->d.round * (uint64_t)q->d.partitions));
}

static void peer_freed(const char *call, struct gshmemi_preq *q)
{
    gshmemi_part_fail(call, "pe %d freed its %s request %" PRIu64 " before it matched this %s",
                      q->d.peer, q->d.is_send ? "receive" : "send", q->d.seq,
                      q->d.is_send ? "send" : "receive");
}

static void not_matched(const char *call, struct gshmemi_preq *q)
{
    if (q->d.is_send)
        timed_out(call, "pe %d has not made receive request %" PRIu64 " of the pair "
                  "(gshmemx_precv_init with pe %d)",
                  q->d.peer, q->d.seq, gshmemi_rt.my_pe);
    /* the sender matches in its partitioned calls and waits */
    timed_out(call, "pe %d has not matched receive request %" PRIu64 " of the pair (its "
              "gshmemx_psend_init with pe %d, then a partitioned call or a wait there)",
              q->d.peer, q->d.seq, gshmemi_rt.my_pe);
}

/* Send: partitions still pending past the deadline. */
static void not_moved(const char *call, struct gshmemi_preq *q)
{
    if (q->d.match == PREQ_UNMATCHED)
        not_matched(call, q);
    timed_out(call, "pe %d has not started round %" PRIu64 " of the pair's request %" PRIu64
              " (gshmemx_pstart)",
              q->d.peer, q->d.round, q->d.seq);
}

/* The checks of a ready call, under the lock: a send with a round open. */
static void check_ready(const char *call, struct gshmemi_preq *q)
{
    if (!q->d.is_send)
        gshmemi_part_fail(call, "the request is a receive: only the sender marks partitions "
                          "ready");
    if (!q->d.open)
        gshmemi_part_fail(call, "no round is open: call gshmemx_pstart first");
}

static void check_partition(const char *call, struct gshmemi_preq *q, int p)
{
    if (p < 0 || p >= q->d.partitions)
        gshmemi_part_fail(call, "partition %d is out of range: the request has %d partitions "
                          "(0 to %d)",
                          p, q->d.partitions, q->d.partitions - 1);
}

/* Marks partitions list[0..n) (or lo..lo+n-1 where list is NULL), checked
 * whole before any is marked, and moves them now where the receiver has
 * started the round; else the next partitioned call on this PE does (a
 * ready call never waits for the receiver, as MPI's Pready does not). */
static void ready(const char *call, struct gshmemi_preq *q, int lo, int n, const int *list)
{
    lock();
    check_ready(call, q);
    if (q->d.match == PREQ_PEER_FREED)
        peer_freed(call, q);
    const uint64_t r = q->d.round;
    if (q->n_pending > 0 && q->pending_round != r)
        gshmemi_part_fail(call, "%d partitions marked from the host in round %" PRIu64 " never "
                          "moved: a round marked from the host ends with gshmemx_pwait on the host",
                          q->n_pending, q->pending_round);
    int first = INT_MAX, last = -1; /* the span the partitions lie in */
    for (int i = 0; i < n; i++) {
        const int p = list != NULL ? list[i] : lo + i;
        check_partition(call, q, p);
        first = p < first ? p : first;
        last = p > last ? p : last;
    }
    /* Kernels mark the GPU's copy alone where the host does not move the
     * partitions: a partition a kernel marked this round (a misuse) is
     * found there. */
    const size_t span = n > 0 ? (size_t)(last - first + 1) * sizeof(uint64_t) : 0;
    if (n > 0 && !q->d.ce)
        gshmemi_part_pull(call, q, &q->d.marked[first], span);
    for (int i = 0; i < n; i++) {
        const int p = list != NULL ? list[i] : lo + i;
        if (q->d.marked[p] == r)
            gshmemi_part_fail(call, "partition %d was already marked ready in round %" PRIu64, p,
                              r);
    }
    for (int i = 0; i < n; i++) {
        const int p = list != NULL ? list[i] : lo + i;
        q->d.marked[p] = r;
        q->pending[q->n_pending++] = p;
        if (q->issued != NULL) /* (taken here, not by progress's look for a kernel's) */
            q->issued[p] = r;
    }
    /* The GPU's copy learns them in one push (a copy the host waits for)
     * of the span they lie in; its other words are the GPU's already. */
    if (n > 0)
        gshmemi_part_push(call, q, &q->d.marked[first], span);
    q->pending_round = r;
    gshmemi_part_flush(call, q);
    gshmemi_part_progress(call);
    unlock();
}

GSHMEM_API void gshmemx_pready(gshmemx_prequest_t req, int partition)
{
    ready(__func__, req_of(__func__, req), partition, 1, NULL);
}

GSHMEM_API void gshmemx_pready_range(gshmemx_prequest_t req, int lo, int hi)
{
    const char *call = __func__;
    struct gshmemi_preq *q = req_of(call, req);
    if (lo < 0 || hi < lo || hi >= q->d.partitions)
        gshmemi_part_fail(call, "partitions %d..%d are not a range within 0..%d", lo, hi,
                          q->d.partitions - 1);
    ready(call, q, lo, hi - lo + 1, NULL);
}

GSHMEM_API void gshmemx_pready_list(gshmemx_prequest_t req, int n, const int *list)
{
    const char *call = __func__;
    struct gshmemi_preq *q = req_of(call, req);
    if (n < 0 || (n > 0 && list == NULL))
        gshmemi_part_fail(call, "n is %d with list %s", n, list == NULL ? "NULL" : "given");
    /* a duplicate would pass the per-partition check (marked once) */
    unsigned char *seen = calloc((size_t)q->d.partitions, 1);
    if (seen == NULL)
        gshmemi_part_fail(call, "out of host memory");
    for (int i = 0; i < n; i++) {
        check_partition(call, q, list[i]);
        if (seen[list[i]]++)
            gshmemi_part_fail(call, "partition %d is listed twice", list[i]);
    }
    free(seen);
    ready(call, q, 0, n, list);
}

/* Receive: matched, its start written, and every flag holds the round:
 * equal to the whole word, uid included (parrived's "reached" compares the
 * uid and then round >=; a flag never runs ahead of its receiver's round,
 * and a larger word may be another request's, in a reused pool word). */
static int all_arrived(const char *call, struct gshmemi_preq *q)
{
    if (q->d.match != PREQ_MATCHED)
        return q->d.match == PREQ_PEER_FREED; /* gshmemx_pwait then says why */
    gshmemi_part_send_start(call, q);
    if (q->d.packets)
        return gshmemi_part_packets_in(call, q, 0, q->d.partitions, 1) == q->d.partitions;
    const struct gshmemi_wait w = {.call = call, .ivars = q->d.flags, .nelems = (size_t)q->d.partitions,
                                   .esize = sizeof(uint64_t), .cmp = GSHMEM_CMP_EQ,
                                   .value = preq_word(q->d.uid, q->d.round),
                                   .access = gshmemi_heap.access};
    return gshmemi_wait_test(&w, GSHMEMI_WAIT_ALL, NULL) == 1;
}

static void not_arrived(const char *call, struct gshmemi_preq *q)
{
    if (q->d.match == PREQ_UNMATCHED)
        not_matched(call, q);
    int missing = 0, first = -1;
    for (int p = 0; p < q->d.partitions; p++)
        if (q->d.packets ? gshmemi_part_packets_in(call, q, p, 1, 0) == 0
                         : !preq_word_reached(gshmemi_part_load(call, &q->d.flags[p]), q->d.uid,
                                              q->d.round)) {
            missing++;
            first = first < 0 ? p : first;
        }
    timed_out(call, "round %" PRIu64 " of the pair's request %" PRIu64 " from pe %d is missing %d "
              "of %d partitions (the first: %d)",
              q->d.round, q->d.seq, q->d.peer, missing, q->d.partitions,
                      first);
}

GSHMEM_API void gshmemx_pwait(gshmemx_prequest_t req)
{
    const char *call = __func__;
    struct gshmemi_preq *q = req_of(call, req);
    lock();
    if (!q->d.open)
        gshmemi_part_fail(call, "no round is open: call gshmemx_pstart first");
    if (q->d.is_send) {
        /* Kernels mark the GPU's copy alone where the host does not move
         * the partitions (a store to host memory cost each ready call its
         * round trip); a round the host marked is in both. */
        if (!q->d.ce)
            gshmemi_part_pull(call, q, q->d.marked, (size_t)q->d.partitions * sizeof(uint64_t));
        int missing = 0, first = -1;
        for (int p = 0; p < q->d.partitions; p++)
            if (q->d.marked[p] != q->d.round) {
                missing++;
                first = first < 0 ? p : first;
            }
        if (missing > 0)
            gshmemi_part_fail(call, "round %" PRIu64 " ends with %d of %d partitions not marked "
                              "ready (the first: %d)",
                              q->d.round, missing, q->d.partitions, first);
    }
    unlock();
    wait_for(call, q, q->d.is_send ? not_pending : all_arrived, q->d.is_send ? not_moved : not_arrived);
    lock();
    if (q->d.match == PREQ_PEER_FREED)
        peer_freed(call, q);
    unlock();
    if (q->d.is_send)
        gshmem_quiet(); /* the source may be reused (partitions a kernel sent through the proxy too) */
    lock();
    q->d.open = 0;
    gshmemi_part_push(call, q, &q->d.open, sizeof(q->d.open));
    gshmemi_part_progress(call);
    unlock();
}

GSHMEM_API int gshmemx_parrived(gshmemx_prequest_t req, int partition)
{
    const char *call = __func__;
    struct gshmemi_preq *q = req_of(call, req);
    if (q->d.is_send)
        gshmemi_part_fail(call, "the request is a send: only the receiver tests arrival");
    lock();
    if (q->d.round == 0)
        gshmemi_part_fail(call, "no round is open: call gshmemx_pstart first");
    check_partition(call, q, partition);
    gshmemi_part_progress(call);
    if (q->d.match == PREQ_PEER_FREED)
        peer_freed(call, q);
    int open = q->d.open;
    unlock();
    if (!open)
        return 1;
    if (q->d.packets)
        return gshmemi_part_packets_in(call, q, partition, 1, 1) == 1;
    return preq_word_reached(gshmemi_part_load(call, &q->d.flags[partition]), q->d.uid, q->d.round);
}

/* The stream forms: the kernels check the round as the device forms do;
 * here, what the host can (the request, the heap). */
static void on_stream(const char *call, gshmemx_prequest_t req, struct CUstream_st *stream,
                      int wait)
{
    const struct gshmemi_preq *q = req_of(call, req);
    gshmemi_rma_need_device_heap(call);
    int err = wait ? gshmemi_launch_pwait(stream, req, q->d.chunk != 0 ? PHELP_BLOCKS : 0)
                   : gshmemi_launch_pstart(stream, req);
    if (err != 0)
        gshmemi_gpu_launch_failed(call, "the partitioned round's kernel", err);
}

GSHMEM_API void gshmemx_pstart_on_stream(gshmemx_prequest_t req, struct CUstream_st *stream)
{
    on_stream(__func__, req, stream, 0);
}

GSHMEM_API void gshmemx_pwait_on_stream(gshmemx_prequest_t req, struct CUstream_st *stream)
{
    on_stream(__func__, req, stream, 1);
}
