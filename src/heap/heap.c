/*
 * The symmetric heap: reservation, collective growth, the GPU heap's own
 * area, and the listeners that layers above register.  The allocation
 * calls are in heap_api.c, the control segment in ctrl.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/ctrl.h"
#include "heap/heap.h"
#include "heap/heap_priv.h"

struct gshmemi_heap gshmemi_heap;

/* ---- listeners ---------------------------------------------------------- */

void gshmemi_heap_listen(struct gshmemi_heap_listener *l)
{
    struct gshmemi_heap_listener **p = &gshmemi_heap.listeners;
    while (*p != NULL)
        p = &(*p)->next;
    l->next = NULL;
    *p = l;
}

void gshmemi_heap_unlisten(struct gshmemi_heap_listener *l)
{
    for (struct gshmemi_heap_listener **p = &gshmemi_heap.listeners; *p != NULL; p = &(*p)->next) {
        if (*p == l) {
            *p = l->next;
            return;
        }
    }
}

void gshmemi_heap_quiet_all(const char *call)
{
    gshmemi_heap.access->quiet(call);
    for (struct gshmemi_heap_listener *l = gshmemi_heap.listeners; l != NULL; l = l->next)
        if (l->quiet != NULL)
            l->quiet(l->arg, call);
}

/* ---- growth ------------------------------------------------------------ */

void gshmemi_heap_grow_prepare(size_t new_size, struct gshmemi_heap_growth *g)
{
    g->new_size = new_size;
    g->adopted = 0;
    g->mem.fd = -1;
    g->mem.handle = 0;
    g->status = gshmemi_heap.ops->create(new_size - gshmemi_heap.size, &g->mem);
}

void gshmemi_heap_grow_abandon(struct gshmemi_heap_growth *g)
{
    gshmemi_heap.ops->destroy(&g->mem);
}

/* A mapped chunk is kept (heap.h says why); without room to keep it, its
 * handle goes at once, as the mapping keeps the memory. */
static void grow_keep(struct gshmemi_heap_growth *g)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    struct gshmemi_heap_mem *c = realloc(h->chunks, (h->n_chunks + 1) * sizeof(*c));
    if (c == NULL) {
        gshmemi_heap_grow_abandon(g);
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
    for (size_t i = 0; i < h->n_user; i++)
        if (h->user[i].live)
            h->ops->destroy(&h->user[i].mem);
    free(h->user);
    h->user = NULL;
    h->n_user = 0;
}

/* Blob-shared chunks: every PE's handle through the bootstrap, imported
 * and mapped for each mapped peer. */
static int share_by_blob(struct gshmemi_heap_growth *g, size_t add)
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

int gshmemi_heap_grow_commit(struct gshmemi_heap_growth *g)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    const size_t add = g->new_size - h->size;
    int *fds = malloc(sizeof(int) * (size_t)(h->n_mapped_peers + 1));
    uint64_t t0 = gshmemi_now_ns(), t_map, t_exchange;
    int st;

    if (fds == NULL) { /* the other PEs are committing: they cannot be told apart */
        GSHMEMI_ERROR(HEAP, "heap growth to %zu bytes: out of host memory; ending the job",
                      g->new_size);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "out of host memory");
    }
    /* From here a failure leaves PEs with different heaps: fatal. */
    st = h->ops->map(&g->mem, h->my_base + h->size);
    t_map = t_exchange = gshmemi_now_ns();
    if (st == 0 && h->share_by_blob) {
        st = share_by_blob(g, add);
    } else if (st == 0 && h->n_mapped_peers > 0) {
        /* The export follows the map: the driver serialises the two. */
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
    if (!g->adopted)
        grow_keep(g);
    if (st != 0) {
        if (st != GSHMEM_ERR_PEER_LOST) /* else the loss is named where it was seen */
            GSHMEMI_ERROR(HEAP, "heap growth to %zu bytes failed part way: the PEs' heaps no "
                          "longer match, ending the job", g->new_size);
        gshmemi_end_after_collective(st, "heap growth failed");
    }
    size_t old_size = h->size;
    /* Read by the transport's thread as it checks incoming frames. */
    __atomic_store_n(&h->size, g->new_size, __ATOMIC_RELEASE);
    h->growths++;
    st = g->adopted ? gshmemi_alloc_extend_used(&h->alloc, g->new_size)
                    : gshmemi_alloc_extend(&h->alloc, g->new_size);
    if (st != 0) { /* the heap and its allocator would disagree on its size */
        GSHMEMI_ERROR(HEAP, "heap growth to %zu bytes: out of host memory for the allocator; "
                      "ending the job", g->new_size);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "out of host memory");
    }
    for (struct gshmemi_heap_listener *l = h->listeners; l != NULL; l = l->next) {
        if (l->grown != NULL && l->grown(l->arg, old_size, g->new_size) != 0) {
            GSHMEMI_ERROR(HEAP, "the grown heap could not be taken on (the reason is above); "
                          "ending the job");
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "heap growth");
        }
    }
    /* A peer reaching this PE through a transport may write into the new
     * part as soon as its own call returns: it returns once every PE's
     * transport has taken the new size on. */
    if ((st = gshmemi_rt.bs->ops->barrier(gshmemi_rt.bs)) != 0)
        gshmemi_end_after_collective(st, "bootstrap failed");
    uint64_t t_end = gshmemi_now_ns();
    GSHMEMI_INFO(HEAP, "heap grown by %zu to %zu bytes: map %.3f ms, exchange %.3f ms, map %d "
                 "peers %.3f ms", add, g->new_size, (t_map - t0) * 1e-6, (t_exchange - t_map) * 1e-6,
                 h->n_mapped_peers, (t_end - t_exchange) * 1e-6);
    return st;
}

/* Grows every PE's heap to new_size, agreeing on the creation first.
 * Collective; used where no other all-gather can carry the agreement. */
int gshmemi_heap_grow(size_t new_size)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    struct gshmemi_heap_growth g;
    int *all_st = malloc(sizeof(int) * (size_t)bs->size);
    int st;

    if (all_st == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    gshmemi_heap_grow_prepare(new_size, &g);
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
        gshmemi_heap_grow_abandon(&g);
        return st;
    }
    return gshmemi_heap_grow_commit(&g);
}

/* ---- the GPU heap's own area -------------------------------------------- */

/* The barriers' counters (enum gshmemi_dev_area, gshmem/internal/
 * device_state.h) are in an area of the GPU heap: the first allocation, so
 * at the same offset on every PE, and zeroed before the init's closing
 * barrier. */
static int device_area_init(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    const int n_pes = gshmemi_rt.n_pes;
    char **bases = malloc(sizeof(char *) * (size_t)n_pes);
    size_t off;
    int st;

    if (bases == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    st = gshmemi_alloc_take(&h->alloc, GSHMEMI_DEV_AREA_WORDS * sizeof(uint64_t), 0, &off);
    if (st == 0) {
        h->dev_internal = h->my_base + off;
        h->internal[h->n_internal++] = h->dev_internal;
        gshmemi_gpu_memset("gshmem_init", h->dev_internal, 0,
                           GSHMEMI_DEV_AREA_WORDS * sizeof(uint64_t));
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
    if (strcmp(want, "auto") == 0 && gshmemi_rt.host_heap_default) {
        GSHMEMI_INFO(HEAP, "the heap is in host memory: the program asked for it where "
                     "GSHMEM_HEAP is auto (OpenSHMEM's shmem_init)");
        *ops = &gshmemi_hostshm_ops;
        return 0;
    }
    if (strcmp(want, "auto") != 0 && strcmp(want, "device") != 0) {
        GSHMEMI_ERROR(HEAP, "GSHMEM_HEAP is '%s': expected auto, device or host", want);
        return GSHMEM_ERR_INVALID_ARG;
    }
    /* GPUs belong to the machine: simulated nodes share them, spread by
     * the machine's local rank as if unsplit. */
    st = gshmemi_gpu_open(gshmemi_rt.machine_local_rank, why, sizeof(why));
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

/* GSHMEM_TEST_UNMAPPED ("a-b,c-d"): the pairs, each checked; with pe >= 0,
 * whether this PE is to leave pe's heap unmapped; -1 (said) where the
 * setting does not parse. */
static int test_unmapped(int pe)
{
    const char *s = gshmemi_env.TEST_UNMAPPED;
    const int me = gshmemi_rt.my_pe, n = gshmemi_rt.n_pes;
    int hit = 0;
    while (*s != '\0') {
        char *end, *mid;
        const long a = strtol(s, &mid, 10);
        const long b = mid != s && *mid == '-' ? strtol(mid + 1, &end, 10) : -1;
        if (b < 0 || end == mid + 1 || a < 0 || a >= n || b >= n || a == b ||
            (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0')) {
            GSHMEMI_ERROR(HEAP, "GSHMEM_TEST_UNMAPPED is '%s': expected pairs of distinct PEs "
                          "below %d, as 0-1,2-3", gshmemi_env.TEST_UNMAPPED, n);
            return -1;
        }
        hit |= (a == me && b == pe) || (b == me && a == pe);
        s = *end == ',' ? end + 1 : end;
    }
    return hit;
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
    h->access = h->ops->access;
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
    if (test_unmapped(-1) < 0) {
        st = GSHMEM_ERR_INVALID_ARG;
        goto err_free;
    }
    for (int i = 0; i < gshmemi_rt.n_local; i++) {
        int pe = gshmemi_rt.local_pes[i];
        if (pe != me && (gshmemi_env.DISABLE_P2P || !mappable[i] || test_unmapped(pe)))
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
    GSHMEMI_CHECK_GOTO(gshmemi_ctrl_init(&h->fdx), st, err_ctrl);
    GSHMEMI_CHECK_GOTO(gshmemi_alloc_init(&h->alloc, 0), st, err_ctrl);
    h->alloc.base = (uintptr_t)h->my_base;
    GSHMEMI_CHECK_GOTO(gshmemi_heap_grow(initial), st, err_alloc);
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
    gshmemi_ctrl_fini();
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
    gshmemi_ctrl_fini();
    h->access->quiet("gshmem_finalize");
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
