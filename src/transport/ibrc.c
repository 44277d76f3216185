/*
 * ibrc transport: libibverbs reliable-connected queue pairs, one per peer
 * whose heap is not mapped, plus one to this PE itself: atomics done by the
 * NIC are atomic only among themselves, so while ibrc carries atomics, the
 * ones aimed at this PE go through the NIC too.
 *
 * The heap is registered chunk by chunk, at open and at every growth
 * (collective, so every PE learns every rkey): host memory as it is, GPU
 * memory as a dma-buf (ibv_reg_dmabuf_mr) or, failing that, through the
 * peer-memory kernel module (ibv_reg_mr of the GPU address).  Data whose
 * local side lies in the heap moves straight from or into it; other local
 * memory goes through one registered staging buffer (GPU memory outside
 * the heap is copied there by the GPU).  Every operation is completed
 * before it returns, so quiet has nothing left to wait for.  IB atomics are
 * 8-byte fetch-add and compare-swap; the other atomics, and 4-byte ones,
 * are compare-swap loops on the aligned 8-byte word.  A failed completion
 * is reported with the operation, the peer and the verbs status.
 *
 * One-sided operations never tell a PE that a peer has stopped, so each PE
 * has a heartbeat thread: every second it writes a growing count into each
 * peer's beat word (RDMA WRITE, inline, mostly unsignaled), and a peer
 * whose own word has not moved for GSHMEM_HEARTBEAT_TIMEOUT is lost.  A PE
 * that closes writes "goodbye" there first.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/amo.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/ctrl.h"
#include "heap/heap.h"
#include "heap/static_data.h"
#include "transport/nic.h"
#include "transport/transport.h"

#if GSHMEM_HAVE_IBVERBS
#include <infiniband/verbs.h>

#define STAGING (1u << 20)
#define MAX_MESSAGE ((size_t)1 << 30) /* one work request moves at most this */
#define MAX_CHUNKS 256
#define WR_OP 1             /* + i: the i-th work request of post_list_wait's list */
#define WR_LIST 32           /* work requests posted before one wait */
#define SQ_DEPTH 128         /* a send queue: a list, and heartbeats posted behind it */
_Static_assert(WR_LIST <= SQ_DEPTH / 2, "room for heartbeats behind a list");
#define WR_BEAT (1ull << 32) /* + pe: a heartbeat to pe */
#define WR_BYE (2ull << 32)  /* + pe: the goodbye to pe */
#define BEAT_BYE UINT64_MAX

struct peer_info { /* what each PE publishes about itself */
    uint32_t lid;
    uint32_t pad;
    uint8_t gid[16];
    uint64_t heap_base;
    uint64_t ctrl_base;
    uint32_t ctrl_rkey;
    uint32_t psn;
    uint64_t beats_base; /* this PE's beat words, one per PE */
    uint32_t beats_rkey;
    uint32_t pad2;
    uint64_t static_base; /* the program's static data (heap/static_data.h) */
};

/* A registered range of symmetric offsets: of the heap, or of the static
 * data from GSHMEMI_STATIC_OFF. */
struct chunk {
    uint64_t off;
    size_t size;
    struct ibv_mr *mr;
    uint32_t *rkeys; /* by PE */
};

struct ibrc {
    struct gshmemi_transport base;
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp **qps; /* by PE, NULL where none */
    int port;
    int gid_index;
    enum ibv_mtu mtu;
    struct gshmemi_staging staging;
    struct ibv_mr *staging_mr;
    struct ibv_mr *ctrl_mr;
    struct peer_info *info; /* by PE */
    struct chunk chunks[MAX_CHUNKS];
    int n_chunks;
    pthread_mutex_t lock; /* one operation at a time: staging, CQ */
    /* heartbeats */
    volatile uint64_t *beats; /* written by peers: beats[pe] */
    struct ibv_mr *beats_mr;
    uint64_t *last_seen, *seen_at; /* by PE: the beat word and when it last moved */
    pthread_t beat_thread;
    int beat_up;
    volatile int closing;
    struct gshmemi_heap_listener heap_listener; /* registers each growth */
};

static const char *op_name(enum ibv_wr_opcode op)
{
    switch (op) {
    case IBV_WR_RDMA_WRITE: return "RDMA WRITE";
    case IBV_WR_RDMA_READ: return "RDMA READ";
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return "ATOMIC FETCH_ADD";
    case IBV_WR_ATOMIC_CMP_AND_SWP: return "ATOMIC CMP_SWP";
    default: return "verbs operation";
    }
}

/* The chunk holding symmetric offset off, and the bytes left in it (the
 * callers' checks keep off inside the heap or the static data). */
static struct chunk *chunk_at(struct ibrc *ib, uint64_t off, size_t *left)
{
    for (int i = 0; i < ib->n_chunks; i++)
        if (off >= ib->chunks[i].off && off < ib->chunks[i].off + ib->chunks[i].size) {
            *left = ib->chunks[i].off + ib->chunks[i].size - off;
            return &ib->chunks[i];
        }
    GSHMEMI_ERROR(TRANSPORT, "ibrc: symmetric offset %#llx is in no registered chunk",
                  (unsigned long long)off);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "ibrc");
}

/* pe's virtual address of symmetric offset off. */
static uint64_t remote_addr(const struct ibrc *ib, int pe, uint64_t off)
{
    if (off >= GSHMEMI_STATIC_OFF)
        return ib->info[pe].static_base + (off - GSHMEMI_STATIC_OFF);
    return ib->info[pe].heap_base + off;
}

/* A heartbeat's completion (signaled ones, and any that failed). */
static void beat_done(struct ibrc *ib, const struct ibv_wc *wc)
{
    if (wc->status != IBV_WC_SUCCESS && !ib->closing) {
        char how[160];
        snprintf(how, sizeof(how), "was lost: a heartbeat (RDMA WRITE) to it failed: %s",
                 ibv_wc_status_str(wc->status));
        gshmemi_end_for_lost_pe((int)(wc->wr_id & 0xffffffffu), how);
    }
}

/* Posts the n work requests of wr (of op) as one list, only the last
 * signaled, and waits for its completion: on a reliable connection those
 * before it are complete then (a failed one completes, with its error,
 * before it). */
static void post_list_wait(struct ibrc *ib, const char *call, int pe, enum ibv_wr_opcode op,
                           struct ibv_send_wr *wr, size_t n_wr)
{
    struct ibv_send_wr *bad;
    struct ibv_wc wc;
    uint64_t deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
    int n;

    for (size_t i = 0; i < n_wr; i++) {
        wr[i].wr_id = WR_OP + i;
        wr[i].send_flags = i + 1 == n_wr ? IBV_SEND_SIGNALED : 0;
        wr[i].next = i + 1 == n_wr ? NULL : &wr[i + 1];
    }
    if ((errno = ibv_post_send(ib->qps[pe], wr, &bad)) != 0) {
        GSHMEMI_ERROR(TRANSPORT, "%s: ibv_post_send of %s to pe %d failed: %s", call, op_name(op), pe,
                      strerror(errno));
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
    }
    while ((n = ibv_poll_cq(ib->cq, 1, &wc)) == 0 || (n == 1 && wc.wr_id >= WR_BEAT)) {
        if (n == 1)
            beat_done(ib, &wc); /* the heartbeat thread's, met on the way */
        if (gshmemi_now_ns() > deadline) {
            GSHMEMI_ERROR(TRANSPORT, "%s: %s to pe %d did not complete within %g s (GSHMEM_TIMEOUT)",
                          call, op_name(op), pe, gshmemi_env.TIMEOUT);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
        }
    }
    if (n < 0 || wc.status != IBV_WC_SUCCESS) {
        char how[160];
        const size_t i = n < 0 || wc.wr_id - WR_OP >= n_wr ? n_wr - 1 : (size_t)(wc.wr_id - WR_OP);
        snprintf(how, sizeof(how), "was lost: %s of %u bytes at its heap offset failed: %s",
                 op_name(op), (unsigned)wr[i].sg_list->length,
                 n < 0 ? "ibv_poll_cq failed" : ibv_wc_status_str(wc.status));
        gshmemi_end_for_lost_pe(pe, how);
    }
}

/* Posts one work request and waits for its completion. */
static void post_wait(struct ibrc *ib, const char *call, int pe, enum ibv_wr_opcode op,
                      void *local, uint32_t lkey, size_t len, uint64_t remote, uint32_t rkey,
                      uint64_t a, uint64_t b)
{
    struct ibv_sge sge = {.addr = (uintptr_t)local, .length = (uint32_t)len, .lkey = lkey};
    struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = op};

    if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
        wr.wr.atomic.remote_addr = remote;
        wr.wr.atomic.rkey = rkey;
        wr.wr.atomic.compare_add = a;
        wr.wr.atomic.swap = b;
    } else {
        wr.wr.rdma.remote_addr = remote;
        wr.wr.rdma.rkey = rkey;
    }
    post_list_wait(ib, call, pe, op, &wr, 1);
}

/* Where the local side of a transfer of up to *len bytes at p is: in this
 * PE's registered heap (its lkey; *len cut to the chunk), or, returning 0,
 * elsewhere (the staging buffer; *len cut to it). */
static int local_key(struct ibrc *ib, const void *p, size_t *len, uint32_t *lkey)
{
    if (gshmemi_heap_contains(p) || gshmemi_static_contains(p, 1)) {
        size_t left = 0;
        struct chunk *c = chunk_at(ib, gshmemi_sym_off(p), &left);
        *len = GSHMEMI_MIN(GSHMEMI_MIN(*len, left), MAX_MESSAGE);
        *lkey = c->mr->lkey;
        return 1;
    }
    *len = GSHMEMI_MIN(*len, (size_t)STAGING);
    *lkey = ib->staging_mr->lkey;
    return 0;
}

static struct ibrc *ibrc_of(struct gshmemi_transport *t) { return (struct ibrc *)t; }

static int ibrc_put(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                    const void *src, size_t n)
{
    struct ibrc *ib = ibrc_of(t);
    pthread_mutex_lock(&ib->lock);
    for (size_t done = 0; done < n;) {
        size_t len; /* what is left in the chunk, then of the transfer */
        struct chunk *c = chunk_at(ib, off + done, &len);
        const char *from = (const char *)src + done;
        uint32_t lkey;
        len = GSHMEMI_MIN(len, n - done);
        if (!local_key(ib, from, &len, &lkey)) {
            gshmemi_gpu_copy_local(call, ib->staging.base, from, len);
            from = ib->staging.base;
        }
        post_wait(ib, call, pe, IBV_WR_RDMA_WRITE, (void *)from, lkey, len,
                  remote_addr(ib, pe, off + done), c->rkeys[pe], 0, 0);
        done += len;
    }
    pthread_mutex_unlock(&ib->lock);
    return 0;
}

/* g elements of esize bytes between the staging buffer, packed, and pe's
 * heap at off, off + pitch, ...: a write or read (op) each, two where one
 * crosses between two registrations, WR_LIST to a wait instead of a round
 * trip each; all complete on return. */
static void post_elements(struct ibrc *ib, const char *call, int pe, enum ibv_wr_opcode op,
                          uint64_t off, size_t pitch, size_t esize, size_t g)
{
    struct ibv_sge sge[WR_LIST];
    struct ibv_send_wr wr[WR_LIST];
    size_t n = 0;
    for (size_t i = 0; i < g; i++) {
        for (size_t part = 0; part < esize;) {
            const uint64_t at = off + i * pitch + part;
            size_t left;
            struct chunk *c = chunk_at(ib, at, &left);
            const size_t len = GSHMEMI_MIN(left, esize - part);
            sge[n] = (struct ibv_sge){.addr = (uintptr_t)(ib->staging.base + i * esize + part),
                                      .length = (uint32_t)len, .lkey = ib->staging_mr->lkey};
            wr[n] = (struct ibv_send_wr){.sg_list = &sge[n], .num_sge = 1, .opcode = op};
            wr[n].wr.rdma.remote_addr = remote_addr(ib, pe, at);
            wr[n].wr.rdma.rkey = c->rkeys[pe];
            part += len;
            if (++n == WR_LIST) {
                post_list_wait(ib, call, pe, op, wr, n);
                n = 0;
            }
        }
    }
    if (n > 0)
        post_list_wait(ib, call, pe, op, wr, n);
}

/* Elements apart at the target: packed into the staging buffer, then
 * written (post_elements). */
static int ibrc_put_strided(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                            size_t dpitch, const void *src, size_t spitch, size_t esize,
                            size_t count)
{
    struct ibrc *ib = ibrc_of(t);
    /* (elements so large cost little a round trip each; below, at least
     * WR_LIST of them fill the staging buffer) */
    if (dpitch == esize || esize > STAGING / WR_LIST)
        return gshmemi_transport_put_packed(t, call, pe, off, dpitch, src, spitch, esize, count);
    pthread_mutex_lock(&ib->lock);
    for (size_t done = 0; done < count;) {
        const size_t g = GSHMEMI_MIN(count - done, STAGING / esize);
        gshmemi_transport_gather(call, ib->staging.base, (const char *)src + done * spitch, spitch,
                                 esize, g);
        post_elements(ib, call, pe, IBV_WR_RDMA_WRITE, off + done * dpitch, dpitch, esize, g);
        done += g;
    }
    pthread_mutex_unlock(&ib->lock);
    return 0;
}

static int ibrc_get(struct gshmemi_transport *t, const char *call, int pe, uint64_t off, void *dst,
                    size_t n)
{
    struct ibrc *ib = ibrc_of(t);
    int into_heap = 0;
    pthread_mutex_lock(&ib->lock);
    for (size_t done = 0; done < n;) {
        size_t len; /* what is left in the chunk, then of the transfer */
        struct chunk *c = chunk_at(ib, off + done, &len);
        char *to = (char *)dst + done;
        uint32_t lkey;
        len = GSHMEMI_MIN(len, n - done);
        const int direct = local_key(ib, to, &len, &lkey);
        post_wait(ib, call, pe, IBV_WR_RDMA_READ, direct ? to : ib->staging.base, lkey, len,
                  remote_addr(ib, pe, off + done), c->rkeys[pe], 0, 0);
        if (direct)
            into_heap = 1;
        else
            gshmemi_gpu_copy_local(call, to, ib->staging.base, len);
        done += len;
    }
    pthread_mutex_unlock(&ib->lock);
    if (into_heap) /* the NIC wrote heap memory: visible before the get returns */
        gshmemi_heap.access->nic_written(call);
    return 0;
}

/* Elements at most this many bytes apart are read as their span, a read
 * per registration it crosses, not a read each: a NIC moves a few KiB in
 * the time it takes to handle one more small read. */
#define DENSE_PITCH 1024

/* Elements apart at pe: read into the staging buffer (their span where
 * they lie close, else each, packed: post_elements), then spread from
 * there. */
static int ibrc_get_strided(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                            size_t spitch, void *dst, size_t dpitch, size_t esize, size_t count)
{
    struct ibrc *ib = ibrc_of(t);
    if (spitch == esize || esize > STAGING / WR_LIST)
        return gshmemi_transport_get_packed(t, call, pe, off, spitch, dst, dpitch, esize, count);
    const int dense = spitch <= DENSE_PITCH;
    /* elements a staging buffer holds: as a span ((g - 1) * spitch + esize), or packed */
    const size_t per = dense ? (STAGING - esize) / spitch + 1 : STAGING / esize;
    pthread_mutex_lock(&ib->lock);
    for (size_t done = 0; done < count;) {
        const size_t g = GSHMEMI_MIN(count - done, per);
        const uint64_t at = off + done * spitch;
        if (dense)
            post_elements(ib, call, pe, IBV_WR_RDMA_READ, at, 0, (g - 1) * spitch + esize, 1);
        else
            post_elements(ib, call, pe, IBV_WR_RDMA_READ, at, spitch, esize, g);
        gshmemi_transport_scatter(call, (char *)dst + done * dpitch, dpitch, ib->staging.base,
                                  dense ? spitch : esize, esize, g);
        done += g;
    }
    pthread_mutex_unlock(&ib->lock);
    return 0;
}

/* One NIC atomic on the 8-byte word at remote/rkey; the old value. */
static uint64_t nic_atomic(struct ibrc *ib, const char *call, int pe, enum ibv_wr_opcode op, uint64_t remote,
                           uint32_t rkey, uint64_t a, uint64_t b)
{
    uint64_t *result = (uint64_t *)(ib->staging.base + STAGING - 8);
    post_wait(ib, call, pe, op, result, ib->staging_mr->lkey, 8, remote, rkey, a, b);
    return *(volatile uint64_t *)result;
}

/* The old value of pe's word at off. */
static uint64_t apply_atomic(struct ibrc *ib, const char *call, int pe, uint64_t off, int op,
                             size_t size, uint64_t a, uint64_t b)
{
    size_t left = 0;
    struct chunk *c = chunk_at(ib, off & ~7ull, &left);
    const uint64_t word = remote_addr(ib, pe, off & ~7ull);
    uint64_t old;

    pthread_mutex_lock(&ib->lock);
    if (size == 8 && op == GSHMEMI_AMO_ADD) {
        old = nic_atomic(ib, call, pe, IBV_WR_ATOMIC_FETCH_AND_ADD, word, c->rkeys[pe], a, 0);
    } else if (size == 8 && op == GSHMEMI_AMO_FETCH) {
        old = nic_atomic(ib, call, pe, IBV_WR_ATOMIC_FETCH_AND_ADD, word, c->rkeys[pe], 0, 0);
    } else if (size == 8 && op == GSHMEMI_AMO_CSWAP) {
        old = nic_atomic(ib, call, pe, IBV_WR_ATOMIC_CMP_AND_SWP, word, c->rkeys[pe], a, b);
    } else {
        /* A compare-swap loop on the aligned 8-byte word (a 4-byte value is
         * one half of it: the other half is put back as it was). */
        const unsigned shift = size == 4 ? (unsigned)(off & 4) * 8 : 0;
        const uint64_t mask = size == 4 ? 0xffffffffull << shift : ~0ull;
        uint64_t cur = nic_atomic(ib, call, pe, IBV_WR_ATOMIC_FETCH_AND_ADD, word, c->rkeys[pe], 0, 0);
        for (;;) {
            uint64_t part = (cur & mask) >> shift;
            uint64_t next = gshmemi_amo_next(op, part, a, b, size);
            uint64_t want = (cur & ~mask) | (next << shift);
            if (op == GSHMEMI_AMO_FETCH || want == cur) {
                old = part;
                break;
            }
            uint64_t seen = nic_atomic(ib, call, pe, IBV_WR_ATOMIC_CMP_AND_SWP, word, c->rkeys[pe],
                                       cur, want);
            if (seen == cur) {
                old = part;
                break;
            }
            cur = seen;
        }
        pthread_mutex_unlock(&ib->lock);
        return old;
    }
    pthread_mutex_unlock(&ib->lock);
    return old;
}

static int ibrc_atomic(struct gshmemi_transport *t, const char *call, int pe, uint64_t off, int op,
                       size_t size, uint64_t a, uint64_t b, uint64_t *old)
{
    const uint64_t v = apply_atomic(ibrc_of(t), call, pe, off, op, size, a, b);
    if (old != NULL)
        *old = v;
    return 0;
}

static int ibrc_signal(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                       uint64_t value, int op)
{
    /* After the puts to pe: each completed before this was posted. */
    (void)apply_atomic(ibrc_of(t), call, pe, off, op == 0 ? GSHMEMI_AMO_SET : GSHMEMI_AMO_ADD, 8,
                       value, 0);
    return 0;
}

static int ibrc_ctrl_add(struct gshmemi_transport *t, const char *call, int pe, size_t word,
                         uint64_t value)
{
    struct ibrc *ib = ibrc_of(t);
    pthread_mutex_lock(&ib->lock);
    (void)nic_atomic(ib, call, pe, IBV_WR_ATOMIC_FETCH_AND_ADD,
                     ib->info[pe].ctrl_base + word * sizeof(uint64_t), ib->info[pe].ctrl_rkey, value, 0);
    pthread_mutex_unlock(&ib->lock);
    return 0;
}

static int ibrc_quiet(struct gshmemi_transport *t, const char *call)
{
    (void)t, (void)call; /* every operation completed before it returned */
    return 0;
}

#define HEAP_ACCESS                                                                      \
    (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |            \
     IBV_ACCESS_REMOTE_ATOMIC)

/* Registers [addr, addr + len) of this PE's heap with the NIC; NULL, with
 * the reasons logged, where it cannot be. */
static struct ibv_mr *register_heap(struct ibrc *ib, char *addr, size_t len)
{
    char dmabuf_why[200] = "the heap's memory has no dma-buf form";
    struct ibv_mr *mr;

    if (gshmemi_heap.access->host_direct) { /* host memory, as it is */
        if ((mr = ibv_reg_mr(ib->pd, addr, len, HEAP_ACCESS)) == NULL)
            GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot register %zu bytes of the heap: %s", len,
                          strerror(errno));
        return mr;
    }
    /* GPU memory: as a dma-buf where the kernel, driver and NIC allow it */
    if (gshmemi_heap.ops->dmabuf_fd != NULL) {
        int fd = gshmemi_heap.ops->dmabuf_fd(addr, len, dmabuf_why, sizeof(dmabuf_why));
        if (fd >= 0) {
            mr = ibv_reg_dmabuf_mr(ib->pd, 0, len, (uint64_t)(uintptr_t)addr, fd, HEAP_ACCESS);
            int e = errno;
            close(fd); /* the registration holds the buffer */
            if (mr != NULL) {
                GSHMEMI_INFO(TRANSPORT, "ibrc: %zu bytes of the GPU heap registered as dma-buf", len);
                return mr;
            }
            snprintf(dmabuf_why, sizeof(dmabuf_why), "ibv_reg_dmabuf_mr: %s", strerror(e));
        }
    }
    /* else the GPU address itself, which needs the peer-memory module */
    if ((mr = ibv_reg_mr(ib->pd, addr, len, HEAP_ACCESS)) != NULL) {
        GSHMEMI_INFO(TRANSPORT, "ibrc: %zu bytes of the GPU heap registered through the peer-memory "
                     "module (dma-buf: %s)", len, dmabuf_why);
        return mr;
    }
    GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot register %zu bytes of the GPU heap with %s: as dma-buf: "
                  "%s; as a GPU address (needs the nvidia_peermem module): %s; use "
                  "GSHMEM_TRANSPORT=tcp or GSHMEM_HEAP=host", len,
                  ibv_get_device_name(ib->ctx->device), dmabuf_why, strerror(errno));
    return NULL;
}

/* Registers this PE's symmetric bytes [from, to) (offsets) as a new chunk
 * and learns every PE's rkey for it: collective (growth is), and every PE
 * fails if one does. */
static int register_chunk(struct ibrc *ib, uint64_t from, uint64_t to)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    struct chunk *c;
    struct {
        uint32_t rkey, ok;
    } mine = {0, 0}, *all;
    int st;

    if (ib->n_chunks == MAX_CHUNKS) {
        GSHMEMI_ERROR(TRANSPORT, "ibrc: more than %d heap chunks", MAX_CHUNKS);
        return GSHMEM_ERR_NO_MEMORY;
    }
    c = &ib->chunks[ib->n_chunks];
    c->off = from;
    c->size = to - from;
    c->rkeys = calloc((size_t)bs->size, sizeof(uint32_t));
    all = calloc((size_t)bs->size, sizeof(*all));
    if (c->rkeys == NULL || all == NULL)
        c->mr = NULL;
    else if (from < GSHMEMI_STATIC_OFF)
        c->mr = register_heap(ib, gshmemi_heap.my_base + from, to - from);
    else if ((c->mr = ibv_reg_mr(ib->pd, gshmemi_static.base + (from - GSHMEMI_STATIC_OFF),
                                 to - from, HEAP_ACCESS)) == NULL)
        GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot register the program's static data (%llu bytes): "
                      "%s", (unsigned long long)(to - from), strerror(errno));
    if (c->mr != NULL) {
        mine.rkey = c->mr->rkey;
        mine.ok = 1;
    }
    st = all != NULL ? bs->ops->allgather(bs, &mine, all, sizeof(mine)) : GSHMEM_ERR_NO_MEMORY;
    for (int pe = 0; st == 0 && pe < bs->size; pe++) {
        if (!all[pe].ok) {
            if (c->mr != NULL) /* the one that failed said why */
                GSHMEMI_ERROR(TRANSPORT, "ibrc: pe %d could not register its symmetric bytes "
                              "%#llx-%#llx", pe, (unsigned long long)from, (unsigned long long)to);
            st = GSHMEM_ERR_IO;
        }
        c->rkeys[pe] = all[pe].rkey;
    }
    free(all);
    if (st == 0) {
        ib->n_chunks++;
        return 0;
    }
    if (c->mr != NULL)
        ibv_dereg_mr(c->mr);
    c->mr = NULL;
    free(c->rkeys);
    c->rkeys = NULL;
    return st;
}

static int heap_grown(void *arg, size_t old_size, size_t new_size)
{
    return register_chunk(arg, old_size, new_size);
}

static int to_init(struct ibrc *ib, struct ibv_qp *qp)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)ib->port,
                            .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                               IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC};
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int to_rts(struct ibrc *ib, struct ibv_qp *qp, const struct peer_info *peer, uint32_t peer_qpn)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR, .path_mtu = ib->mtu, .dest_qp_num = peer_qpn,
                            .rq_psn = peer->psn, .max_dest_rd_atomic = 16, .min_rnr_timer = 12};
    a.ah_attr.is_global = 1;
    memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
    a.ah_attr.grh.sgid_index = (uint8_t)ib->gid_index;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.dlid = (uint16_t)peer->lid;
    a.ah_attr.port_num = (uint8_t)ib->port;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = (uint8_t)gshmemi_env.IB_TIMEOUT;
    a.retry_cnt = (uint8_t)gshmemi_env.IB_RETRY_CNT;
    a.rnr_retry = 7;
    a.sq_psn = ib->info[gshmemi_rt.my_pe].psn;
    a.max_rd_atomic = 16;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* The GID to use: GSHMEM_IB_GID_INDEX, else the first IPv4-mapped one
 * (RoCE), else 0 (InfiniBand). */
static int pick_gid(struct ibrc *ib)
{
    union ibv_gid gid;
    if (gshmemi_env.IB_GID_INDEX >= 0)
        return (int)gshmemi_env.IB_GID_INDEX;
    for (int i = 0; i < 128 && ibv_query_gid(ib->ctx, (uint8_t)ib->port, i, &gid) == 0; i++) {
        static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(gid.raw, v4, sizeof(v4)) == 0)
            return i;
    }
    return 0;
}

/* Writes value into pe's beat word for this PE: inline, signaled one time
 * in eight so that the send queue is reclaimed. */
static void beat_write(struct ibrc *ib, int pe, uint64_t value, int signaled)
{
    const uint64_t id = (value == BEAT_BYE ? WR_BYE : WR_BEAT) + (uint64_t)pe;
    const int me = gshmemi_rt.my_pe;
    struct ibv_sge sge = {.addr = (uintptr_t)&value, .length = sizeof(value), .lkey = 0};
    struct ibv_send_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1,
                             .opcode = IBV_WR_RDMA_WRITE,
                             .send_flags = IBV_SEND_INLINE | (signaled ? IBV_SEND_SIGNALED : 0)},
                       *bad;
    wr.wr.rdma.remote_addr = ib->info[pe].beats_base + (uint64_t)me * sizeof(uint64_t);
    wr.wr.rdma.rkey = ib->info[pe].beats_rkey;
    if (ibv_post_send(ib->qps[pe], &wr, &bad) != 0 && !ib->closing)
        GSHMEMI_WARN(TRANSPORT, "ibrc: cannot post a heartbeat to pe %d: %s", pe, strerror(errno));
}

static void *beat_main(void *arg)
{
    struct ibrc *ib = arg;
    const int me = gshmemi_rt.my_pe, n = gshmemi_rt.n_pes;
    const uint64_t silence = (uint64_t)(gshmemi_env.HEARTBEAT_TIMEOUT * 1e9);
    uint64_t count = 0, next_beat = 0;

    for (int pe = 0; pe < n; pe++)
        ib->seen_at[pe] = gshmemi_now_ns();
    while (!ib->closing) {
        uint64_t now = gshmemi_now_ns();
        if (now >= next_beat) {
            count++;
            for (int pe = 0; pe < n; pe++)
                if (pe != me && ib->qps[pe] != NULL)
                    beat_write(ib, pe, count, count % 8 == 0);
            next_beat = now + 1000000000ull;
        }
        if (pthread_mutex_trylock(&ib->lock) == 0) { /* reap signaled heartbeats */
            struct ibv_wc wc[16];
            int got = ibv_poll_cq(ib->cq, 16, wc);
            for (int i = 0; i < got; i++)
                beat_done(ib, &wc[i]); /* only heartbeats: operations hold the lock */
            pthread_mutex_unlock(&ib->lock);
        }
        for (int pe = 0; pe < n && silence > 0; pe++) {
            if (pe == me || ib->qps[pe] == NULL)
                continue;
            uint64_t b = ib->beats[pe];
            if (b == BEAT_BYE)
                continue;
            if (b != ib->last_seen[pe]) {
                ib->last_seen[pe] = b;
                ib->seen_at[pe] = now;
            } else if (now - ib->seen_at[pe] > silence) {
                char how[96];
                snprintf(how, sizeof(how), "was lost: its heartbeats stopped for %g s "
                         "(GSHMEM_HEARTBEAT_TIMEOUT)", gshmemi_env.HEARTBEAT_TIMEOUT);
                gshmemi_end_for_lost_pe(pe, how);
            }
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void ibrc_close_all(struct ibrc *ib);

static int ibrc_open(const int *peers, int n_peers, struct gshmemi_transport **out)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    const int me = gshmemi_rt.my_pe, n = gshmemi_rt.n_pes;
    struct ibv_device **devs;
    struct ibv_port_attr pa;
    union ibv_gid gid;
    uint32_t *qpns = NULL, *theirs = NULL;
    struct peer_info mine;
    int nd = 0, st = GSHMEM_ERR_IO;
    struct ibrc *ib = calloc(1, sizeof(*ib));

    if (ib == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    pthread_mutex_init(&ib->lock, NULL);
    devs = ibv_get_device_list(&nd);
    {
        const char **names = calloc((size_t)nd + 1, sizeof(char *));
        char bus[32] = "", why[160];
        int pick = -1, port = 1;
        if (gshmemi_gpu_device() < 0 || gshmemi_gpu_bus_id(bus, sizeof(bus)) != 0)
            bus[0] = '\0';
        for (int i = 0; names != NULL && i < nd; i++)
            names[i] = ibv_get_device_name(devs[i]);
        if (names != NULL)
            pick = gshmemi_nic_pick("/sys", names, nd, gshmemi_env.HCA_LIST, bus, &port, why,
                                    sizeof(why));
        if (pick >= 0 && (ib->ctx = ibv_open_device(devs[pick])) != NULL) {
            ib->port = port;
            GSHMEMI_INFO(TRANSPORT, "ibrc: RDMA device %s port %d: %s", names[pick], port, why);
        }
        free(names);
    }
    if (devs != NULL)
        ibv_free_device_list(devs);
    if (ib->ctx == NULL) {
        GSHMEMI_ERROR(TRANSPORT, "ibrc: no RDMA device%s%s could be opened", gshmemi_env.HCA_LIST[0]
                      ? " allowed by GSHMEM_HCA_LIST=" : "", gshmemi_env.HCA_LIST);
        pthread_mutex_destroy(&ib->lock);
        free(ib);
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    if (ibv_query_port(ib->ctx, (uint8_t)ib->port, &pa) != 0) {
        GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot query port %d of %s", ib->port,
                      ibv_get_device_name(ib->ctx->device));
        goto err;
    }
    ib->mtu = pa.active_mtu;
    ib->gid_index = pick_gid(ib);
    if (ibv_query_gid(ib->ctx, (uint8_t)ib->port, ib->gid_index, &gid) != 0) {
        GSHMEMI_ERROR(TRANSPORT, "ibrc: no GID at index %d (GSHMEM_IB_GID_INDEX)", ib->gid_index);
        goto err;
    }
    ib->pd = ibv_alloc_pd(ib->ctx);
    ib->cq = ib->pd ? ibv_create_cq(ib->ctx, 256, NULL, NULL, 0) : NULL;
    if (gshmemi_staging_alloc(&ib->staging, STAGING, "ibrc transport") != 0)
        goto err;
    ib->staging_mr = ib->cq ? ibv_reg_mr(ib->pd, ib->staging.base, STAGING,
                                                     IBV_ACCESS_LOCAL_WRITE) : NULL;
    ib->ctrl_mr = ib->staging_mr ? ibv_reg_mr(ib->pd, gshmemi_ctrl_word(me, 0), GSHMEMI_CTRL_SIZE,
                                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC |
                                                IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)
                                 : NULL;
    ib->qps = calloc((size_t)n, sizeof(*ib->qps));
    ib->info = calloc((size_t)n, sizeof(*ib->info));
    ib->last_seen = calloc((size_t)n, sizeof(uint64_t));
    ib->seen_at = calloc((size_t)n, sizeof(uint64_t));
    ib->beats = aligned_alloc(4096, ((size_t)n * sizeof(uint64_t) + 4095) & ~(size_t)4095);
    if (ib->beats != NULL) {
        memset((void *)ib->beats, 0, (size_t)n * sizeof(uint64_t));
        ib->beats_mr = ib->pd ? ibv_reg_mr(ib->pd, (void *)ib->beats, (size_t)n * sizeof(uint64_t),
                                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
                            : NULL;
    }
    qpns = calloc((size_t)n, sizeof(uint32_t));
    theirs = calloc((size_t)n, sizeof(uint32_t));
    if (ib->ctrl_mr == NULL || ib->qps == NULL || ib->info == NULL || qpns == NULL ||
        theirs == NULL || ib->beats_mr == NULL || ib->last_seen == NULL || ib->seen_at == NULL) {
        GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot set up protection domain, completion queue or memory "
                      "registrations: %s", strerror(errno));
        goto err;
    }
    /* A queue pair to each unmapped peer and one to this PE itself. */
    for (int i = 0; i <= n_peers; i++) {
        int pe = i < n_peers ? peers[i] : me;
        struct ibv_qp_init_attr qa = {.send_cq = ib->cq, .recv_cq = ib->cq, .qp_type = IBV_QPT_RC,
                                      .cap = {.max_send_wr = SQ_DEPTH, .max_recv_wr = 1,
                                              .max_send_sge = 1, .max_recv_sge = 1,
                                              .max_inline_data = 16}};
        ib->qps[pe] = ibv_create_qp(ib->pd, &qa);
        if (ib->qps[pe] == NULL || to_init(ib, ib->qps[pe]) != 0) {
            GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot create a queue pair for pe %d: %s", pe, strerror(errno));
            goto err;
        }
        qpns[pe] = ib->qps[pe]->qp_num;
    }
    memset(&mine, 0, sizeof(mine));
    mine.lid = pa.lid;
    memcpy(mine.gid, gid.raw, 16);
    mine.heap_base = (uint64_t)(uintptr_t)gshmemi_heap.my_base;
    mine.static_base = (uint64_t)(uintptr_t)gshmemi_static.base;
    mine.ctrl_base = (uint64_t)(uintptr_t)gshmemi_ctrl_word(me, 0);
    mine.ctrl_rkey = ib->ctrl_mr->rkey;
    mine.beats_base = (uint64_t)(uintptr_t)ib->beats;
    mine.beats_rkey = ib->beats_mr->rkey;
    gshmemi_random_bytes(&mine.psn, sizeof(mine.psn));
    mine.psn &= 0xffffff;
    GSHMEMI_CHECK_GOTO(bs->ops->allgather(bs, &mine, ib->info, sizeof(mine)), st, err);
    /* qpns[pe]: this PE's queue pair for pe; theirs[pe]: pe's for this one */
    GSHMEMI_CHECK_GOTO(gshmemi_bootstrap_alltoall(bs, qpns, theirs, sizeof(uint32_t)), st, err);
    for (int pe = 0; pe < n; pe++) {
        if (ib->qps[pe] == NULL)
            continue;
        if (to_rts(ib, ib->qps[pe], &ib->info[pe], theirs[pe]) != 0) {
            GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot connect the queue pair to pe %d: %s", pe,
                          strerror(errno));
            st = GSHMEM_ERR_IO;
            goto err;
        }
    }
    GSHMEMI_CHECK_GOTO(register_chunk(ib, 0, gshmemi_heap.size), st, err);
    if (gshmemi_static.size > 0) /* the same on every PE (static_data.c agreed) */
        GSHMEMI_CHECK_GOTO(register_chunk(ib, GSHMEMI_STATIC_OFF,
                                          GSHMEMI_STATIC_OFF + gshmemi_static.size), st, err);
    ib->heap_listener = (struct gshmemi_heap_listener){.grown = heap_grown, .arg = ib};
    gshmemi_heap_listen(&ib->heap_listener);
    if ((errno = pthread_create(&ib->beat_thread, NULL, beat_main, ib)) != 0) {
        GSHMEMI_ERROR(TRANSPORT, "ibrc: cannot start the heartbeat thread: %s", strerror(errno));
        st = GSHMEM_ERR_INTERNAL;
        goto err;
    }
    pthread_setname_np(ib->beat_thread, "gshmem-ibbeat");
    ib->beat_up = 1;
    free(qpns);
    free(theirs);
    GSHMEMI_INFO(TRANSPORT, "ibrc transport up on %s port %d, GID index %d: %d peers",
                 ibv_get_device_name(ib->ctx->device), ib->port, ib->gid_index, n_peers);
    *out = &ib->base;
    return 0;

err:
    free(qpns);
    free(theirs);
    ibrc_close_all(ib);
    return st == 0 ? GSHMEM_ERR_IO : st;
}

static void beat_stop(struct ibrc *ib)
{
    ib->closing = 1;
    if (ib->beat_up)
        pthread_join(ib->beat_thread, NULL);
    ib->beat_up = 0;
}

static void ibrc_close(struct gshmemi_transport *t)
{
    struct ibrc *ib = ibrc_of(t);
    /* Goodbye first: a closing PE's silence is no loss. */
    beat_stop(ib);
    pthread_mutex_lock(&ib->lock);
    int left = 0;
    for (int pe = 0; ib->qps != NULL && pe < gshmemi_rt.n_pes; pe++)
        if (pe != gshmemi_rt.my_pe && ib->qps[pe] != NULL) {
            beat_write(ib, pe, BEAT_BYE, 1);
            left++;
        }
    /* Sent before the queue pairs go (a destroyed one drops what it holds);
     * a peer that is gone already costs at most a second here. */
    uint64_t deadline = gshmemi_deadline_after(1);
    while (left > 0 && gshmemi_now_ns() < deadline) {
        struct ibv_wc wc;
        if (ibv_poll_cq(ib->cq, 1, &wc) == 1 && wc.wr_id >= WR_BYE)
            left--;
    }
    pthread_mutex_unlock(&ib->lock);
    ibrc_close_all(ib);
}

static void ibrc_close_all(struct ibrc *ib)
{
    gshmemi_heap_unlisten(&ib->heap_listener);
    beat_stop(ib);
    for (int i = 0; i < ib->n_chunks; i++) {
        ibv_dereg_mr(ib->chunks[i].mr);
        free(ib->chunks[i].rkeys);
    }
    for (int pe = 0; ib->qps != NULL && pe < gshmemi_rt.n_pes; pe++)
        if (ib->qps[pe] != NULL)
            ibv_destroy_qp(ib->qps[pe]);
    if (ib->ctrl_mr)
        ibv_dereg_mr(ib->ctrl_mr);
    if (ib->beats_mr)
        ibv_dereg_mr(ib->beats_mr);
    if (ib->staging_mr)
        ibv_dereg_mr(ib->staging_mr);
    if (ib->cq)
        ibv_destroy_cq(ib->cq);
    if (ib->pd)
        ibv_dealloc_pd(ib->pd);
    if (ib->ctx)
        ibv_close_device(ib->ctx);
    gshmemi_staging_free(&ib->staging);
    free(ib->qps);
    free(ib->info);
    free((void *)ib->beats);
    free(ib->last_seen);
    free(ib->seen_at);
    pthread_mutex_destroy(&ib->lock);
    free(ib);
}

const struct gshmemi_transport_ops gshmemi_ibrc_ops = {
    .name = "ibrc",
    .nic_atomics = 1,
    .open = ibrc_open,
    .close = ibrc_close,
    .put = ibrc_put,
    .put_strided = ibrc_put_strided,
    .get_strided = ibrc_get_strided,
    .get = ibrc_get,
    .atomic = ibrc_atomic,
    .signal = ibrc_signal,
    .ctrl_add = ibrc_ctrl_add,
    .quiet = ibrc_quiet,
};

#endif /* GSHMEM_HAVE_IBVERBS */
