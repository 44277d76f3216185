/*
 * The symmetric heap: reservation, collective growth, and the collective
 * allocation calls.
 *
 * Every allocation call starts with an allgather of each PE's request: it
 * is the call's implied barrier, and it lets every PE see an asymmetric call
 * and fail it the same way, with one message listing what each PE asked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "device/device_state.h"
#include "device/gpu.h"
#include "heap/heap.h"

struct gshmemi_heap gshmemi_heap;
void (*gshmemi_heap_quiet_hook)(const char *call);
int (*gshmemi_heap_grow_hook)(size_t old_size, size_t new_size);

/* ---- growth ------------------------------------------------------------ */

/* A growth in two steps: prepare creates this PE's new chunk (it may fail,
 * and every PE must learn of it before any maps anything); commit maps it,
 * exchanges it with the mapped peers and maps theirs. */
struct growth {
    size_t new_size;
    struct gshmemi_heap_mem mem;
    int status; /* of the creation */
};

static void grow_prepare(size_t new_size, struct growth *g)
{
    g->new_size = new_size;
    g->mem.fd = -1;
    g->mem.handle = 0;
    g->status = gshmemi_heap.ops->create(new_size - gshmemi_heap.size, &g->mem);
}

static void grow_abandon(struct growth *g)
{
    gshmemi_heap.ops->destroy(&g->mem);
}

/* A mapped chunk is kept (heap.h says why); without room to keep it, its
 * handle goes at once, as the mapping keeps the memory. */
static void grow_keep(struct growth *g)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    struct gshmemi_heap_mem *c = realloc(h->chunks, (h->n_chunks + 1) * sizeof(*c));
    if (c == NULL) {
        grow_abandon(g);
        return;
    }
    h->chunks = c;
    h->chunks[h->n_chunks++] = g->mem;
}

static void chunks_free(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    for (size_t i = 0; i < h->n_chunks; i++)
        h->ops->destroy(&h->chunks[i]);
    free(h->chunks);
    h->chunks = NULL;
    h->n_chunks = 0;
}

/* Blob-shared chunks: every PE's handle through the bootstrap, imported
 * and mapped for each mapped peer. */
static int share_by_blob(struct growth *g, size_t add)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    unsigned char mine[GSHMEMI_HEAP_BLOB_BYTES] = {0};
    unsigned char *all = malloc((size_t)GSHMEMI_HEAP_BLOB_BYTES * (size_t)bs->size);
    int st;

    if (all == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    st = h->ops->export_blob(&g->mem, mine);
    if (st == 0)
        st = bs->ops->allgather(bs, mine, all, sizeof(mine));
    for (int i = 0; st == 0 && i < h->n_mapped_peers; i++) {
        struct gshmemi_heap_mem peer = {.fd = -1};
        int pe = h->mapped_peers[i];
        st = h->ops->import_blob(all + (size_t)GSHMEMI_HEAP_BLOB_BYTES * (size_t)pe, add, &peer);
        if (st == 0)
            st = h->ops->map(&peer, h->va_base + (size_t)h->slot_of_pe[pe] * h->stride + h->size);
        h->ops->destroy(&peer);
    }
    free(all);
    return st;
}

static int grow_commit(struct growth *g)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    const size_t add = g->new_size - h->size;
    int *fds = malloc(sizeof(int) * (size_t)(h->n_mapped_peers + 1));
    uint64_t t0 = gshmemi_now_ns(), t_map, t_exchange;
    int st;

    if (fds == NULL) {
        grow_abandon(g);
        return GSHMEM_ERR_NO_MEMORY;
    }
    /* From here a failure leaves PEs with different heaps: fatal. */
    st = h->ops->map(&g->mem, h->my_base + h->size);
    t_map = t_exchange = gshmemi_now_ns();
    if (st == 0 && h->share_by_blob) {
        st = share_by_blob(g, add);
    } else if (st == 0 && h->n_mapped_peers > 0) {
        /* (An export on a helper thread, overlapping the map, was tried: the
         * driver serialises the two, and growth got slower.) */
        int fd;
        st = h->ops->export_fd(&g->mem, &fd);
        if (st == 0)
            st = gshmemi_fdx_exchange(&h->fdx, fd, h->growths, h->mapped_peers,
                                      h->n_mapped_peers, fds, gshmemi_env.BOOTSTRAP_TIMEOUT);
        t_exchange = gshmemi_now_ns();
        for (int i = 0; st == 0 && i < h->n_mapped_peers; i++) {
            struct gshmemi_heap_mem peer;
            int pe = h->mapped_peers[i];
            st = h->ops->import_fd(fds[i], add, &peer);
            fds[i] = -1;
            if (st == 0)
                st = h->ops->map(&peer, h->va_base + (size_t)h->slot_of_pe[pe] * h->stride + h->size);
            h->ops->destroy(&peer); /* the mapping keeps the memory */
        }
        for (int i = 0; i < h->n_mapped_peers; i++)
            if (fds[i] >= 0)
                close(fds[i]);
    }
    free(fds);
    grow_keep(g);
    if (st != 0) {
        GSHMEMI_ERROR(HEAP, "heap growth to %zu bytes failed part way: the PEs' heaps no longer "
                      "match, ending the job", g->new_size);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "heap growth failed");
    }
    size_t old_size = h->size;
    h->size = g->new_size;
    h->growths++;
    if (gshmemi_heap_grow_hook != NULL && gshmemi_heap_grow_hook(old_size, g->new_size) != 0) {
        GSHMEMI_ERROR(HEAP, "the transport could not take the grown heap; ending the job");
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "heap growth");
    }
    st = gshmemi_alloc_extend(&h->alloc, g->new_size);
    gshmemi_device_state_heap_grown();
    uint64_t t_end = gshmemi_now_ns();
    GSHMEMI_INFO(HEAP, "heap grown by %zu to %zu bytes: map %.3f ms, exchange %.3f ms, map %d "
                 "peers %.3f ms", add, g->new_size, (t_map - t0) * 1e-6, (t_exchange - t_map) * 1e-6,
                 h->n_mapped_peers, (t_end - t_exchange) * 1e-6);
    return st;
}

/* Grows every PE's heap to new_size, agreeing on the creation first.
 * Collective; used where no other all-gather can carry the agreement. */
static int heap_grow(size_t new_size)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    struct growth g;
    int *all_st = malloc(sizeof(int) * (size_t)bs->size);
    int st;

    if (all_st == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    grow_prepare(new_size, &g);
    st = bs->ops->allgather(bs, &g.status, all_st, sizeof(int));
    for (int pe = 0; st == 0 && pe < bs->size; pe++) {
        if (all_st[pe] != 0) {
            if (pe != gshmemi_rt.my_pe)
                GSHMEMI_ERROR(HEAP, "heap growth to %zu bytes failed on pe %d", new_size, pe);
            st = GSHMEM_ERR_NO_MEMORY;
        }
    }
    free(all_st);
    if (st != 0) {
        grow_abandon(&g);
        return st;
    }
    return grow_commit(&g);
}

/* ---- control segment ------------------------------------------------------ */

/* Maps every node-local PE's control segment (host memory, zeroed). */
static int ctrl_init(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    const int me = gshmemi_rt.my_pe, n_local = gshmemi_rt.n_local;
    struct gshmemi_heap_mem mem = {.fd = -1};
    int *peers = NULL, *fds = NULL, n_peers = 0, st;

    h->ctrl_slot_of_pe = malloc(sizeof(int) * (size_t)gshmemi_rt.n_pes);
    peers = malloc(sizeof(int) * (size_t)n_local);
    fds = malloc(sizeof(int) * (size_t)n_local);
    if (h->ctrl_slot_of_pe == NULL || peers == NULL || fds == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < gshmemi_rt.n_pes; pe++)
        h->ctrl_slot_of_pe[pe] = -1;
    for (int i = 0; i < n_local; i++) {
        h->ctrl_slot_of_pe[gshmemi_rt.local_pes[i]] = i;
        if (gshmemi_rt.local_pes[i] != me)
            peers[n_peers++] = gshmemi_rt.local_pes[i];
    }
    h->n_ctrl_slots = n_local;
    GSHMEMI_CHECK_GOTO(gshmemi_hostshm_ops.reserve((size_t)n_local * GSHMEMI_CTRL_SIZE,
                                                   (void **)&h->ctrl_base), st, out);
    GSHMEMI_CHECK_GOTO(gshmemi_hostshm_ops.create(GSHMEMI_CTRL_SIZE, &mem), st, out);
    GSHMEMI_CHECK_GOTO(gshmemi_hostshm_ops.map(&mem, h->ctrl_base + (size_t)h->ctrl_slot_of_pe[me] *
                                                         GSHMEMI_CTRL_SIZE), st, out);
    if (n_peers > 0)
        GSHMEMI_CHECK_GOTO(gshmemi_fdx_exchange(&h->fdx, mem.fd, UINT64_MAX, peers, n_peers, fds,
                                                gshmemi_env.BOOTSTRAP_TIMEOUT), st, out);
    for (int i = 0; i < n_peers; i++) {
        struct gshmemi_heap_mem peer = {.fd = fds[i], .size = GSHMEMI_CTRL_SIZE};
        if (st == 0)
            st = gshmemi_hostshm_ops.map(&peer, h->ctrl_base + (size_t)h->ctrl_slot_of_pe[peers[i]] *
                                                               GSHMEMI_CTRL_SIZE);
        gshmemi_hostshm_ops.destroy(&peer);
    }
out:
    gshmemi_hostshm_ops.destroy(&mem);
    free(fds);
    free(peers);
    return st;
}

static void ctrl_fini(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    if (h->ctrl_base != NULL)
        gshmemi_hostshm_ops.release(h->ctrl_base, (size_t)h->n_ctrl_slots * GSHMEMI_CTRL_SIZE);
    free(h->ctrl_slot_of_pe);
    h->ctrl_base = NULL;
    h->ctrl_slot_of_pe = NULL;
}

/* ---- loss notices ------------------------------------------------------- */

static void say_lost(int lost, int reporter, const char *how)
{
    const struct gshmemi_peer *p = &gshmemi_rt.peers[lost];
    if (reporter >= 0)
        GSHMEMI_ERROR(CORE, "pe %d (pid %d on %s) %s (pe %d saw it first); ending this pe", lost,
                      (int)p->pid, p->host, how, reporter);
    else
        GSHMEMI_ERROR(CORE, "pe %d (pid %d on %s) %s; ending this pe", lost, (int)p->pid, p->host,
                      how);
}

void gshmemi_mark_job_ending(void)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    if (gshmemi_heap.ctrl_base == NULL)
        return;
    for (int k = 0; k < rt->n_local; k++)
        __atomic_store_n(gshmemi_ctrl_word(rt->local_pes[k], GSHMEMI_CTRL_ENDING),
                         (uint64_t)rt->my_pe + 1, __ATOMIC_RELEASE);
}

void gshmemi_end_for_lost_pe(int pe, const char *how)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    /* This PE, or a local peer, is ending the job and has said why: the
     * peers it ends go quietly, and the aborting thread's exit status
     * stands (this thread leaves on its own only if that one is held up,
     * or the launcher's signal is slow to come). */
    if (gshmemi_aborting() ||
        (gshmemi_heap.ctrl_base != NULL &&
         __atomic_load_n(gshmemi_ctrl_word(rt->my_pe, GSHMEMI_CTRL_ENDING), __ATOMIC_ACQUIRE))) {
        sleep(5);
        _exit(GSHMEMI_EXIT_ERROR);
    }
    uint64_t *notice = gshmemi_heap.ctrl_base != NULL
                           ? gshmemi_ctrl_word(rt->my_pe, GSHMEMI_CTRL_LOST_PE) : NULL;
    uint64_t seen = notice != NULL ? __atomic_load_n(notice, __ATOMIC_ACQUIRE) : 0;

    if (seen != 0) {
        say_lost((int)(seen & 0xffffffffu) - 1, (int)(seen >> 32) - 1, how);
    } else {
        uint64_t mine = ((uint64_t)(rt->my_pe + 1) << 32) | (uint64_t)(pe + 1);
        for (int k = 0; notice != NULL && k < rt->n_local; k++) {
            uint64_t *w = gshmemi_ctrl_word(rt->local_pes[k], GSHMEMI_CTRL_LOST_PE);
            uint64_t zero = 0;
            __atomic_compare_exchange_n(w, &zero, mine, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
        }
        say_lost(pe, -1, how);
    }
    _exit(GSHMEMI_EXIT_ERROR);
}

/* ---- the GPU heap's own area -------------------------------------------- */

/* Kernels the host launches (the on-stream barrier) keep their counters in
 * an area of the GPU heap: the first allocation, so at the same offset on
 * every PE, and zeroed before the init's closing barrier. */
static int device_area_init(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    const int n_pes = gshmemi_rt.n_pes;
    char **bases = malloc(sizeof(char *) * (size_t)n_pes);
    size_t off;
    int st;

    if (bases == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    st = gshmemi_alloc_take(&h->alloc, GSHMEMI_DEV_AREA_SIZE, 0, &off);
    if (st == 0) {
        h->dev_internal = h->my_base + off;
        gshmemi_gpu_memset("gshmem_init", h->dev_internal, 0, GSHMEMI_DEV_AREA_SIZE);
        for (int pe = 0; pe < n_pes; pe++)
            bases[pe] = gshmemi_heap_peer_addr(h->my_base, pe);
        h->dev_peer_base = gshmemi_gpu_table("gshmem_init", bases, sizeof(char *) * (size_t)n_pes);
        st = gshmemi_rt.bs->ops->barrier(gshmemi_rt.bs);
    }
    free(bases);
    return st;
}

/* ---- init / fini -------------------------------------------------------- */

/* GSHMEM_HEAP: device memory when a usable GPU exists (auto) or when asked
 * (device), else host memory.  Opens the GPU for the device heap. */
static int heap_pick_backend(const struct gshmemi_heap_backend_ops **ops)
{
    const char *want = gshmemi_env.HEAP;
    char why[256] = "";
    int st;

    if (strcmp(want, "host") == 0) {
        *ops = &gshmemi_hostshm_ops;
        return 0;
    }
    if (strcmp(want, "auto") != 0 && strcmp(want, "device") != 0) {
        GSHMEMI_ERROR(HEAP, "GSHMEM_HEAP is '%s': expected auto, device or host", want);
        return GSHMEM_ERR_INVALID_ARG;
    }
    st = gshmemi_gpu_open(gshmemi_rt.local_rank, why, sizeof(why));
    if (st == GSHMEM_ERR_NOT_SUPPORTED && strcmp(want, "auto") == 0) {
        GSHMEMI_INFO(HEAP, "no usable GPU (%s): the heap is in host memory", why);
        *ops = &gshmemi_hostshm_ops;
        return 0;
    }
    if (st == GSHMEM_ERR_NOT_SUPPORTED)
        GSHMEMI_ERROR(HEAP, "GSHMEM_HEAP=device, but there is no usable GPU: %s", why);
    if (st != 0)
        return st;
    *ops = &gshmemi_cumem_ops;
    return 0;
}

int gshmemi_heap_init(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    const int n_pes = gshmemi_rt.n_pes, me = gshmemi_rt.my_pe;
    size_t initial, gran;
    char a[32], b[32], c[32], d[32], e[32];
    int *mappable = NULL;
    int st;

    memset(h, 0, sizeof(*h));
    h->fdx.listen_fd = -1;
    GSHMEMI_CHECK(heap_pick_backend(&h->ops));
    h->on_device = h->ops->on_device;
    GSHMEMI_CHECK_GOTO(h->ops->open(&h->granularity, &h->share_by_blob), st, err_gpu);
    gran = h->granularity;
    h->stride = GSHMEMI_ALIGN_UP(gshmemi_env.MAX_HEAP, gran);
    initial = GSHMEMI_ALIGN_UP(gshmemi_env.SYMMETRIC_SIZE, gran);
    if (initial == 0 || initial > h->stride) {
        GSHMEMI_ERROR(HEAP, "GSHMEM_SYMMETRIC_SIZE (%s) must be above 0 and at most "
                      "GSHMEM_MAX_HEAP (%s)", gshmemi_format_size(gshmemi_env.SYMMETRIC_SIZE, a, sizeof(a)),
                      gshmemi_format_size(gshmemi_env.MAX_HEAP, b, sizeof(b)));
        st = GSHMEM_ERR_INVALID_ARG;
        goto err_close;
    }

    /* Every PE must size its heap alike, or allocations would diverge. */
    {
        uint64_t mine[3] = {initial, h->stride, (uint64_t)h->share_by_blob};
        uint64_t *all = malloc(sizeof(mine) * (size_t)n_pes);
        if (all == NULL) {
            st = GSHMEM_ERR_NO_MEMORY;
            goto err_close;
        }
        st = gshmemi_rt.bs->ops->allgather(gshmemi_rt.bs, mine, all, sizeof(mine));
        for (int pe = 0; st == 0 && pe < n_pes; pe++) {
            if (all[3 * pe + 2] != mine[2]) {
                GSHMEMI_ERROR(HEAP, "pe %d shares heap chunks %s, this pe %s: every PE must use the "
                              "same GSHMEM_CUMEM_HANDLE", pe, all[3 * pe + 2] ? "as fabric handles" : "by fd",
                              mine[2] ? "as fabric handles" : "by fd");
                st = GSHMEM_ERR_ASYMMETRIC;
            } else if (all[3 * pe] != mine[0] || all[3 * pe + 1] != mine[1]) {
                GSHMEMI_ERROR(HEAP, "pe %d has GSHMEM_SYMMETRIC_SIZE %s and GSHMEM_MAX_HEAP %s, this "
                              "pe %s and %s (in multiples of %s): every PE must use the same",
                              pe, gshmemi_format_size(all[3 * pe], a, sizeof(a)),
                              gshmemi_format_size(all[3 * pe + 1], b, sizeof(b)),
                              gshmemi_format_size(mine[0], c, sizeof(c)),
                              gshmemi_format_size(mine[1], d, sizeof(d)),
                              gshmemi_format_size(gran, e, sizeof(e)));
                st = GSHMEM_ERR_ASYMMETRIC;
            }
        }
        free(all);
        if (st != 0)
            goto err_close;
    }

    /* Mapped: this PE and, unless P2P is off, every PE of this node. */
    h->slot_of_pe = malloc(sizeof(int) * (size_t)n_pes);
    h->mapped_peers = malloc(sizeof(int) * (size_t)gshmemi_rt.n_local);
    mappable = malloc(sizeof(int) * (size_t)gshmemi_rt.n_local);
    if (h->slot_of_pe == NULL || h->mapped_peers == NULL || mappable == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto err_free;
    }
    GSHMEMI_CHECK_GOTO(h->ops->plan(gshmemi_rt.local_pes, gshmemi_rt.n_local, mappable), st,
                       err_free);
    for (int pe = 0; pe < n_pes; pe++)
        h->slot_of_pe[pe] = -1;
    for (int i = 0; i < gshmemi_rt.n_local; i++) {
        int pe = gshmemi_rt.local_pes[i];
        if (pe != me && (gshmemi_env.DISABLE_P2P || !mappable[i]))
            continue;
        h->slot_of_pe[pe] = h->n_slots++;
        if (pe != me)
            h->mapped_peers[h->n_mapped_peers++] = pe;
    }
    if (h->stride > SIZE_MAX / (size_t)h->n_slots) {
        GSHMEMI_ERROR(HEAP, "GSHMEM_MAX_HEAP (%s) times %d mapped PEs overflows the address space",
                      gshmemi_format_size(gshmemi_env.MAX_HEAP, a, sizeof(a)), h->n_slots);
        st = GSHMEM_ERR_INVALID_ARG;
        goto err_free;
    }
    GSHMEMI_CHECK_GOTO(h->ops->reserve(h->stride * (size_t)h->n_slots, (void **)&h->va_base), st,
                       err_free);
    h->my_base = h->va_base + (size_t)h->slot_of_pe[me] * h->stride;
    if (gshmemi_rt.n_local > 1)
        GSHMEMI_CHECK_GOTO(gshmemi_fdx_open(&h->fdx, gshmemi_rt.bs->secret, gshmemi_rt.bs->job_id, me),
                           st, err_release);
    GSHMEMI_CHECK_GOTO(ctrl_init(), st, err_ctrl);
    GSHMEMI_CHECK_GOTO(gshmemi_alloc_init(&h->alloc, 0), st, err_ctrl);
    GSHMEMI_CHECK_GOTO(heap_grow(initial), st, err_alloc);
    if (h->on_device)
        GSHMEMI_CHECK_GOTO(device_area_init(), st, err_alloc);
    GSHMEMI_INFO(HEAP, "%s heap at %p, %zu bytes, up to %zu; %d of %d PEs mapped", h->ops->name,
                 (void *)h->my_base, h->size, h->stride, h->n_slots, n_pes);
    free(mappable);
    /* The heap growth's allgather was the last collective: every PE has
     * mapped every control segment, zeroed by its creation. */
    return 0;

err_alloc:
    gshmemi_alloc_fini(&h->alloc);
err_ctrl:
    ctrl_fini();
    gshmemi_fdx_close(&h->fdx);
err_release:
    h->ops->release(h->va_base, h->stride * (size_t)h->n_slots);
    chunks_free();
err_free:
    free(mappable);
    free(h->slot_of_pe);
    free(h->mapped_peers);
err_close:
    h->ops->close();
err_gpu:
    gshmemi_gpu_close();
    memset(h, 0, sizeof(*h));
    return st;
}

void gshmemi_heap_fini(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    if (h->ops == NULL)
        return;
    gshmemi_fdx_close(&h->fdx);
    ctrl_fini();
    if (h->on_device)
        gshmemi_gpu_quiet("gshmem_finalize");
    gshmemi_gpu_free(h->dev_peer_base);
    h->ops->release(h->va_base, h->stride * (size_t)h->n_slots);
    chunks_free();
    h->ops->close();
    gshmemi_gpu_close();
    gshmemi_alloc_fini(&h->alloc);
    free(h->slot_of_pe);
    free(h->mapped_peers);
    memset(h, 0, sizeof(*h));
}

/* ---- collective allocation ----------------------------------------------- */

enum { REQ_MALLOC = 1, REQ_ALIGN, REQ_CALLOC, REQ_REALLOC, REQ_FREE };

struct heap_req {
    int32_t op;
    int32_t bad; /* the caller's arguments failed a local check (already logged) */
    uint64_t size;
    uint64_t align;
    uint64_t off; /* free/realloc: heap offset, UINT64_MAX for NULL */
    int32_t grow_status; /* a growth prepared ahead of the call: its creation */
    int32_t pad;
};

static const char *req_call(int op)
{
    switch (op) {
    case REQ_MALLOC: return "gshmem_malloc";
    case REQ_ALIGN: return "gshmem_align";
    case REQ_CALLOC: return "gshmem_calloc";
    case REQ_REALLOC: return "gshmem_realloc";
    case REQ_FREE: return "gshmem_free";
    }
    return "?";
}

static int req_describe(const struct heap_req *r, char *buf, size_t len)
{
    switch (r->op) {
    case REQ_MALLOC:
    case REQ_CALLOC:
        return snprintf(buf, len, "%s(%" PRIu64 ")", req_call(r->op), r->size);
    case REQ_ALIGN:
        return snprintf(buf, len, "gshmem_align(%" PRIu64 ", %" PRIu64 ")", r->align, r->size);
    case REQ_REALLOC:
        if (r->off == UINT64_MAX)
            return snprintf(buf, len, "gshmem_realloc(NULL, %" PRIu64 ")", r->size);
        return snprintf(buf, len, "gshmem_realloc(heap+%" PRIu64 ", %" PRIu64 ")", r->off, r->size);
    case REQ_FREE:
        if (r->off == UINT64_MAX)
            return snprintf(buf, len, "gshmem_free(NULL)");
        return snprintf(buf, len, "gshmem_free(heap+%" PRIu64 ")", r->off);
    }
    return snprintf(buf, len, "?");
}

static int req_same(const struct heap_req *a, const struct heap_req *b)
{
    return a->op == b->op && a->size == b->size && a->align == b->align && a->off == b->off;
}

/* The implied barrier: gathers every PE's request and checks that all match.
 * Returns 0 when all match and none is bad; fails the same way on every PE. */
static int heap_agree(struct heap_req *mine)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    struct heap_req *all = malloc(sizeof(*all) * (size_t)bs->size);
    int st, same = 1, any_bad = 0;

    if (all == NULL) {
        GSHMEMI_ERROR(HEAP, "%s: out of host memory", req_call(mine->op));
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "out of host memory");
    }
    /* Everything issued before the call is complete before anyone proceeds. */
    if (gshmemi_heap.on_device)
        gshmemi_gpu_quiet(req_call(mine->op));
    if (gshmemi_heap_quiet_hook != NULL)
        gshmemi_heap_quiet_hook(req_call(mine->op));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    st = bs->ops->allgather(bs, mine, all, sizeof(*mine));
    if (st != 0) {
        free(all);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "bootstrap failed");
    }
    for (int pe = 0; pe < bs->size; pe++) {
        any_bad |= all[pe].bad;
        same &= req_same(&all[pe], &all[0]);
    }
    for (int pe = 0; same && !any_bad && pe < bs->size; pe++) {
        if (all[pe].grow_status != 0) {
            if (pe != gshmemi_rt.my_pe)
                GSHMEMI_ERROR(HEAP, "%s(%llu): the heap could not grow on pe %d", req_call(mine->op),
                              (unsigned long long)mine->size, pe);
            free(all);
            return GSHMEM_ERR_NO_MEMORY;
        }
    }
    if (!same) {
        /* One message listing every PE's call (runs of equal calls folded). */
        char msg[1024], d[96];
        int n = snprintf(msg, sizeof(msg), "%s: asymmetric call:", req_call(mine->op));
        for (int pe = 0; pe < bs->size && n < (int)sizeof(msg) - 64; pe++) {
            int last = pe;
            while (last + 1 < bs->size && req_same(&all[last + 1], &all[pe]))
                last++;
            req_describe(&all[pe], d, sizeof(d));
            if (last == pe)
                n += snprintf(msg + n, sizeof(msg) - (size_t)n, " pe %d called %s;", pe, d);
            else
                n += snprintf(msg + n, sizeof(msg) - (size_t)n, " pes %d-%d called %s;", pe, last, d);
            pe = last;
        }
        if (n < (int)sizeof(msg))
            msg[n - 1] = '\0'; /* drop the last ';' */
        GSHMEMI_ERROR(HEAP, "%s", msg);
        free(all);
        return GSHMEM_ERR_ASYMMETRIC;
    }
    free(all);
    return any_bad ? GSHMEM_ERR_INVALID_ARG : 0;
}

/* The heap size with which size bytes at align fit: the current size when
 * they fit now, 0 when no size up to GSHMEM_MAX_HEAP would do (logged).
 * The same on every PE: the allocators are alike. */
static size_t size_needed(const char *call, size_t size, size_t align)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    char a[32], b[32];

    if (gshmemi_alloc_fits(&h->alloc, size, align))
        return h->size;
    size_t need = gshmemi_alloc_needed_capacity(&h->alloc, size, align);
    size_t new_size = GSHMEMI_ALIGN_UP(need, h->granularity);
    if (need < size || new_size > h->stride) {
        GSHMEMI_ERROR(HEAP, "%s(%zu): the heap would need %s bytes, over GSHMEM_MAX_HEAP (%s)",
                      call, size, gshmemi_format_size(new_size, a, sizeof(a)),
                      gshmemi_format_size(h->stride, b, sizeof(b)));
        return 0;
    }
    return new_size;
}

/* Allocates size bytes aligned to align, growing the heap if needed.  Every
 * PE takes the same path: the allocator and the heap size are the same. */
static void *heap_take(const char *call, size_t size, size_t align)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    size_t off, new_size = size_needed(call, size, align);

    if (new_size == 0)
        return NULL;
    if (new_size > h->size && heap_grow(new_size) != 0)
        return NULL;
    if (gshmemi_alloc_take(&h->alloc, size, align, &off) != 0)
        return NULL;
    return h->my_base + off;
}

static int check_init(const char *call)
{
    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(HEAP, "%s called before gshmem_init", call);
        return GSHMEM_ERR_NOT_INITIALIZED;
    }
    return 0;
}

static void *heap_alloc_call(int op, size_t size, size_t align)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    struct heap_req req = {.op = op, .size = size, .align = align, .off = UINT64_MAX};
    struct growth g = {.new_size = 0};
    size_t new_size = 0, off;

    if (check_init(req_call(op)) != 0)
        return NULL;
    if (op == REQ_ALIGN && (align == 0 || (align & (align - 1)) != 0)) {
        GSHMEMI_ERROR(HEAP, "gshmem_align(%zu, %zu): the alignment must be a power of two",
                      align, size);
        req.bad = 1;
    }
    /* A growth is prepared before the implied barrier, whose all-gather
     * then carries its outcome too: one round instead of two, and the chunk
     * is created while the PEs gather. */
    uint64_t t0 = gshmemi_now_ns(), t_prepared;
    if (!req.bad && size > 0) {
        new_size = size_needed(req_call(op), size, align); /* 0: every PE has said why */
        if (new_size > h->size) {
            grow_prepare(new_size, &g);
            req.grow_status = g.status;
        }
    }
    t_prepared = gshmemi_now_ns();
    int st = heap_agree(&req);
    if (g.new_size != 0)
        GSHMEMI_INFO(HEAP, "%s(%zu) growing the heap: chunk created in %.3f ms, all-gather %.3f ms",
                     req_call(op), size, (t_prepared - t0) * 1e-6, (gshmemi_now_ns() - t_prepared) * 1e-6);
    if (st != 0 || size == 0 || new_size == 0) {
        if (g.new_size != 0)
            grow_abandon(&g);
        return NULL;
    }
    if (g.new_size != 0 && grow_commit(&g) != 0)
        return NULL;
    if (gshmemi_alloc_take(&h->alloc, size, align, &off) != 0)
        return NULL;
    return h->my_base + off;
}

GSHMEM_API void *gshmem_malloc(size_t size)
{
    return heap_alloc_call(REQ_MALLOC, size, 0);
}

GSHMEM_API void *gshmem_align(size_t alignment, size_t size)
{
    return heap_alloc_call(REQ_ALIGN, size, alignment);
}

GSHMEM_API void *gshmem_calloc(size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) {
        if (check_init("gshmem_calloc") != 0)
            return NULL;
        GSHMEMI_ERROR(HEAP, "gshmem_calloc(%zu, %zu): the size overflows", count, size);
        struct heap_req req = {.op = REQ_CALLOC, .bad = 1, .size = SIZE_MAX, .off = UINT64_MAX};
        (void)heap_agree(&req);
        return NULL;
    }
    void *p = heap_alloc_call(REQ_CALLOC, total, 0);
    if (p != NULL && gshmemi_heap.on_device)
        gshmemi_gpu_memset("gshmem_calloc", p, 0, total);
    else if (p != NULL)
        memset(p, 0, total);
    /* No PE may write into the block before its owner has cleared it. */
    if (gshmemi_rt.initialized && gshmemi_rt.bs->ops->barrier(gshmemi_rt.bs) != 0)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "bootstrap failed");
    return p;
}

/* Checks that ptr is the start of a live block; logs why not. */
static int check_block(const char *call, const void *ptr, size_t *off_out, size_t *size_out)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    size_t bo, bs;
    const char *p = ptr;

    if (p < h->my_base || p >= h->my_base + h->size) {
        GSHMEMI_ERROR(HEAP, "%s(%p): not an address in the symmetric heap [%p, %p)", call, ptr,
                      (void *)h->my_base, (void *)(h->my_base + h->size));
        return GSHMEM_ERR_INVALID_ARG;
    }
    switch (gshmemi_alloc_lookup(&h->alloc, (size_t)(p - h->my_base), &bo, &bs)) {
    case GSHMEMI_ALLOC_BLOCK_START:
        if (h->my_base + bo == h->dev_internal)
            break;
        *off_out = bo;
        *size_out = bs;
        return 0;
    case GSHMEMI_ALLOC_INTERIOR:
        GSHMEMI_ERROR(HEAP, "%s(%p): the pointer is %zu bytes into the block at %p (%zu bytes); "
                      "pass the pointer the allocation returned", call, ptr,
                      (size_t)(p - h->my_base) - bo, (void *)(h->my_base + bo), bs);
        return GSHMEM_ERR_INVALID_ARG;
    case GSHMEMI_ALLOC_FREE:
    case GSHMEMI_ALLOC_OUTSIDE:
        break;
    }
    GSHMEMI_ERROR(HEAP, "%s(%p): no block is allocated there (already freed, or never "
                  "allocated)", call, ptr);
    return GSHMEM_ERR_INVALID_ARG;
}

GSHMEM_API void gshmem_free(void *ptr)
{
    struct heap_req req = {.op = REQ_FREE, .off = UINT64_MAX};
    size_t off = 0, size;

    if (check_init("gshmem_free") != 0)
        return;
    if (ptr != NULL) {
        if (check_block("gshmem_free", ptr, &off, &size) == 0)
            req.off = off;
        else
            req.bad = 1, req.off = (uint64_t)((char *)ptr - gshmemi_heap.my_base);
    }
    if (heap_agree(&req) != 0 || ptr == NULL)
        return;
    gshmemi_alloc_give(&gshmemi_heap.alloc, off);
}

GSHMEM_API void *gshmem_realloc(void *ptr, size_t size)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    struct heap_req req = {.op = REQ_REALLOC, .size = size, .off = UINT64_MAX};
    size_t off = 0, old_size = 0;
    void *result;

    if (check_init("gshmem_realloc") != 0)
        return NULL;
    if (ptr != NULL) {
        if (check_block("gshmem_realloc", ptr, &off, &old_size) == 0)
            req.off = off;
        else
            req.bad = 1, req.off = (uint64_t)((char *)ptr - h->my_base);
    }
    if (heap_agree(&req) != 0)
        return NULL;
    if (ptr == NULL)
        return size == 0 ? NULL : heap_take("gshmem_realloc", size, 0);
    if (size == 0) {
        gshmemi_alloc_give(&h->alloc, off);
        return NULL;
    }
    if (gshmemi_alloc_resize(&h->alloc, off, size) == 0) {
        result = ptr;
    } else {
        result = heap_take("gshmem_realloc", size, 0);
        if (result != NULL) {
            if (h->on_device)
                gshmemi_gpu_copy("gshmem_realloc", result, h->my_base + off,
                                 GSHMEMI_MIN(old_size, size), 1);
            else
                memcpy(result, h->my_base + off, GSHMEMI_MIN(old_size, size));
            gshmemi_alloc_give(&h->alloc, off);
        }
    }
    /* Peers may write into the new block only once its owner has moved the data. */
    if (gshmemi_rt.bs->ops->barrier(gshmemi_rt.bs) != 0)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "bootstrap failed");
    return result;
}

/* ---- address queries ---------------------------------------------------- */

GSHMEM_API void *gshmem_ptr(const void *dest, int pe)
{
    if (!gshmemi_rt.initialized || pe < 0 || pe >= gshmemi_rt.n_pes || !gshmemi_heap_contains(dest))
        return NULL;
    return gshmemi_heap_peer_addr(dest, pe);
}

GSHMEM_API int gshmem_addr_accessible(const void *addr, int pe)
{
    return gshmemi_rt.initialized && pe >= 0 && pe < gshmemi_rt.n_pes &&
           gshmemi_heap_contains(addr) && gshmemi_heap.slot_of_pe[pe] >= 0;
}

GSHMEM_API int gshmem_pe_accessible(int pe)
{
    return gshmemi_rt.initialized && pe >= 0 && pe < gshmemi_rt.n_pes &&
           gshmemi_heap.slot_of_pe[pe] >= 0;
}
