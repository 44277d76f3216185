/*
 * The collective allocation calls and the address queries.
 *
 * Every allocation call starts with an allgather of each PE's request: it
 * is the call's implied barrier, and it lets every PE see an asymmetric call
 * and fail it the same way, with one message listing what each PE asked.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/backend.h"
#include "heap/heap.h"
#include "heap/static_data.h"
#include "heap/heap_priv.h"

/* ---- collective allocation ----------------------------------------------- */

enum { REQ_MALLOC = 1, REQ_ALIGN, REQ_CALLOC, REQ_REALLOC, REQ_FREE, REQ_INTERNAL, REQ_REGISTER,
       REQ_UNREGISTER };

struct heap_req {
    int32_t op;
    int32_t bad; /* the caller's arguments failed a local check (already logged) */
    uint64_t size;
    uint64_t align;
    uint64_t off; /* free/realloc: heap offset, UINT64_MAX for NULL */
    int32_t grow_status; /* a growth prepared ahead of the call: its creation */
    int32_t pad;
    /* This PE's heap base modulo align: one offset gives an aligned address
     * on every PE only where all have the same. */
    uint64_t phase;
};

static const char *req_call(int op)
{
    switch (op) {
    case REQ_MALLOC: return "gshmem_malloc";
    case REQ_ALIGN: return "gshmem_align";
    case REQ_CALLOC: return "gshmem_calloc";
    case REQ_REALLOC: return "gshmem_realloc";
    case REQ_FREE: return "gshmem_free";
    case REQ_INTERNAL: return "gshmem_init";
    case REQ_REGISTER: return "gshmemx_buffer_register_symmetric";
    case REQ_UNREGISTER: return "gshmemx_buffer_unregister_symmetric";
    }
    return "?";
}

static int req_describe(const struct heap_req *r, char *buf, size_t len)
{
    switch (r->op) {
    case REQ_MALLOC:
    case REQ_CALLOC:
    case REQ_INTERNAL:
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
    case REQ_REGISTER:
        return snprintf(buf, len, "%s(%" PRIu64 " bytes)", req_call(r->op), r->size);
    case REQ_UNREGISTER:
        return snprintf(buf, len, "%s(heap+%" PRIu64 ", %" PRIu64 ")", req_call(r->op), r->off,
                        r->size);
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
    gshmemi_heap_quiet_all(req_call(mine->op));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    st = bs->ops->allgather(bs, mine, all, sizeof(*mine));
    if (st != 0) {
        free(all);
        gshmemi_end_after_collective(st, "bootstrap failed");
    }
    for (int pe = 0; pe < bs->size; pe++) {
        any_bad |= all[pe].bad;
        same &= req_same(&all[pe], &all[0]);
    }
    for (int pe = 0; same && !any_bad && pe < bs->size; pe++) {
        if (all[pe].grow_status != 0) {
            if (pe != gshmemi_rt.my_pe && mine->op == REQ_REGISTER)
                GSHMEMI_ERROR(HEAP, "%s(%llu bytes): pe %d could not take its buffer (its "
                              "message says why)", req_call(mine->op),
                              (unsigned long long)mine->size, pe);
            else if (pe != gshmemi_rt.my_pe)
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
    for (int pe = 1; !any_bad && pe < bs->size; pe++) {
        if (all[pe].phase != all[0].phase) {
            GSHMEMI_ERROR(HEAP, "gshmem_align(%" PRIu64 ", %" PRIu64 "): the heap starts %#" PRIx64
                          " bytes past a multiple of the alignment on pe 0 and %#" PRIx64 " on pe %d, "
                          "so no offset is aligned on both (alignments up to %zu always are)",
                          mine->align, mine->size, all[0].phase, all[pe].phase, pe,
                          (size_t)GSHMEMI_HEAP_BASE_ALIGN);
            free(all);
            return GSHMEM_ERR_NOT_SUPPORTED;
        }
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
    if (new_size > h->size && gshmemi_heap_grow(new_size) != 0)
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
    struct gshmemi_heap_growth g = {.new_size = 0};
    size_t new_size = 0, off;

    if (check_init(req_call(op)) != 0)
        return NULL;
    if (op == REQ_ALIGN && (align == 0 || (align & (align - 1)) != 0)) {
        GSHMEMI_ERROR(HEAP, "gshmem_align(%zu, %zu): the alignment must be a power of two",
                      align, size);
        req.bad = 1;
    } else if (op == REQ_ALIGN) {
        req.phase = (uintptr_t)h->my_base & (align - 1);
    }
    /* A growth is prepared before the implied barrier, whose all-gather
     * then carries its outcome too: one round instead of two, and the chunk
     * is created while the PEs gather. */
    uint64_t t0 = gshmemi_now_ns(), t_prepared;
    if (!req.bad && size > 0) {
        new_size = size_needed(req_call(op), size, align); /* 0: every PE has said why */
        if (new_size > h->size) {
            gshmemi_heap_grow_prepare(new_size, &g);
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
            gshmemi_heap_grow_abandon(&g);
        return NULL;
    }
    if (g.new_size != 0 && gshmemi_heap_grow_commit(&g) != 0)
        return NULL;
    if (gshmemi_alloc_take(&h->alloc, size, align, &off) != 0)
        return NULL;
    return h->my_base + off;
}

GSHMEM_API void *gshmem_malloc(size_t size)
{
    return heap_alloc_call(REQ_MALLOC, size, 0);
}

GSHMEM_API void *gshmem_malloc_with_hints(size_t size, long hints)
{
    const long known = GSHMEM_MALLOC_ATOMICS_REMOTE | GSHMEM_MALLOC_SIGNAL_REMOTE;
    /* Hints only tune where a block goes; every block serves every use, so
     * they are checked and the call is gshmem_malloc's. */
    if ((hints & ~known) != 0) {
        if (check_init("gshmem_malloc_with_hints") != 0)
            return NULL;
        GSHMEMI_ERROR(HEAP, "gshmem_malloc_with_hints(%zu, %#lx): unknown hints %#lx", size, hints,
                      hints & ~known);
        struct heap_req req = {.op = REQ_MALLOC, .bad = 1, .size = size, .off = UINT64_MAX};
        (void)heap_agree(&req);
        return NULL;
    }
    return heap_alloc_call(REQ_MALLOC, size, 0);
}

GSHMEM_API void *gshmem_align(size_t alignment, size_t size)
{
    return heap_alloc_call(REQ_ALIGN, size, alignment);
}

/* Every PE has come this far (the bootstrap's barrier); a failure ends this
 * PE, or the job (gshmemi_end_after_collective). */
static void heap_meet(void)
{
    int st = gshmemi_rt.bs->ops->barrier(gshmemi_rt.bs);
    if (st != 0)
        gshmemi_end_after_collective(st, "bootstrap failed");
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
    if (p != NULL)
        gshmemi_heap.access->memset("gshmem_calloc", p, 0, total);
    /* No PE may write into the block before its owner has cleared it. */
    if (gshmemi_rt.initialized)
        heap_meet();
    return p;
}

void *gshmemi_heap_alloc_internal(const char *who, size_t size)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    if (h->n_internal == (int)GSHMEMI_ARRAY_SIZE(h->internal)) {
        GSHMEMI_ERROR(HEAP, "gshmem_init: no room to record the runtime's %s", who);
        return NULL;
    }
    char *p = heap_alloc_call(REQ_INTERNAL, size, 64);
    if (p == NULL) /* said why on every PE */
        return NULL;
    h->internal[h->n_internal++] = p;
    h->access->memset("gshmem_init", p, 0, size);
    /* No PE writes into the block before its owner has cleared it. */
    heap_meet();
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
        for (int i = 0; i < h->n_internal; i++)
            if (h->my_base + bo == h->internal[i])
                goto not_allocated; /* the runtime's own */
        for (size_t i = 0; i < h->n_user; i++) {
            if (h->user[i].off == bo) {
                GSHMEMI_ERROR(HEAP, "%s(%p): the block is a buffer of the program's made symmetric "
                              "by gshmemx_buffer_register_symmetric%s", call, ptr,
                              h->user[i].live ? "; gshmemx_buffer_unregister_symmetric ends that"
                                              : ", and unregistered since");
                return GSHMEM_ERR_INVALID_ARG;
            }
        }
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
not_allocated:
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
            h->access->copy("gshmem_realloc", result, h->my_base + off,
                            GSHMEMI_MIN(old_size, size), 1);
            gshmemi_alloc_give(&h->alloc, off);
        }
    }
    /* Peers may write into the new block only once its owner has moved the data. */
    heap_meet();
    return result;
}

/* ---- the program's own buffers, made symmetric ---------------------------- */

/* The buffer becomes the heap's next part: mapped at the heap's end in
 * this PE's slot, and shared with the mapped peers like a chunk of the
 * heap's own, so every call reaches it at the returned address. */
GSHMEM_API void *gshmemx_buffer_register_symmetric(void *buf, size_t size, int flags)
{
    static const char call[] = "gshmemx_buffer_register_symmetric";
    struct gshmemi_heap *h = &gshmemi_heap;
    struct heap_req req = {.op = REQ_REGISTER, .size = size, .off = UINT64_MAX};
    struct gshmemi_heap_growth g = {.mem = {.fd = -1}, .adopted = 1};
    char why[256];

    if (check_init(call) != 0)
        return NULL;
    if (!h->on_device || h->ops->adopt == NULL) {
        GSHMEMI_ERROR(HEAP, "%s(%p, %zu): the heap is in host memory (GSHMEM_HEAP): a GPU "
                      "buffer cannot join it", call, buf, size);
        req.bad = 1;
    } else if (buf == NULL || size == 0 || flags != 0) {
        GSHMEMI_ERROR(HEAP, "%s(%p, %zu, %d): %s", call, buf, size, flags,
                      flags != 0 ? "flags must be 0" : "no buffer");
        req.bad = 1;
    } else if (size % h->granularity != 0) {
        GSHMEMI_ERROR(HEAP, "%s(%p, %zu): the size must be a multiple of the heap's granularity, "
                      "%zu bytes", call, buf, size, h->granularity);
        req.bad = 1;
    } else if (size > h->stride - h->size) {
        GSHMEMI_ERROR(HEAP, "%s(%p, %zu): the heap would need %zu bytes, over GSHMEM_MAX_HEAP "
                      "(%zu)", call, buf, size, h->size + size, h->stride);
        req.bad = 1;
    } else {
        /* blobs go through the bootstrap to every PE, mapped or not */
        const int share = h->share_by_blob || h->n_mapped_peers > 0;
        g.status = h->ops->adopt(buf, size, share, &g.mem, why, sizeof(why));
        if (g.status == 0 && share) {
            /* tried now: past the agreement a failure ends the job */
            int fd;
            unsigned char blob[GSHMEMI_HEAP_BLOB_BYTES];
            g.status = h->share_by_blob ? h->ops->export_blob(&g.mem, blob)
                                        : h->ops->export_fd(&g.mem, &fd);
            snprintf(why, sizeof(why), "its memory cannot be exported to the peers");
        }
        if (g.status != 0)
            GSHMEMI_ERROR(HEAP, "%s(%p, %zu): %s", call, buf, size, why);
        req.grow_status = g.status;
    }
    if (heap_agree(&req) != 0) {
        if (g.mem.handle != 0)
            h->ops->destroy(&g.mem);
        return NULL;
    }
    struct gshmemi_heap_user_block *u = realloc(h->user, (h->n_user + 1) * sizeof(*u));
    if (u == NULL) {
        GSHMEMI_ERROR(HEAP, "%s: out of host memory", call);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "out of host memory");
    }
    h->user = u;
    const size_t off = h->size;
    g.new_size = h->size + size;
    if (gshmemi_heap_grow_commit(&g) != 0)
        return NULL;
    h->user[h->n_user++] = (struct gshmemi_heap_user_block){off, size, 1, g.mem};
    return h->my_base + off;
}

/* The heap lets go of the buffer: its mappings here and of the mapped
 * peers' go, and the address range stays a used block (heap.h). */
GSHMEM_API int gshmemx_buffer_unregister_symmetric(void *addr, size_t size)
{
    static const char call[] = "gshmemx_buffer_unregister_symmetric";
    struct gshmemi_heap *h = &gshmemi_heap;
    struct heap_req req = {.op = REQ_UNREGISTER, .size = size, .off = UINT64_MAX};
    struct gshmemi_heap_user_block *u = NULL;

    if (check_init(call) != 0)
        return GSHMEM_ERR_NOT_INITIALIZED;
    if (gshmemi_heap_contains(addr))
        req.off = (uint64_t)((char *)addr - h->my_base);
    for (size_t i = 0; i < h->n_user; i++)
        if (h->user[i].live && h->user[i].off == req.off)
            u = &h->user[i];
    if (u == NULL || u->size != size) {
        GSHMEMI_ERROR(HEAP, "%s(%p, %zu): %s", call, addr, size,
                      u == NULL ? "not an address gshmemx_buffer_register_symmetric returned (or "
                                  "unregistered already)"
                                : "not the size it was registered with");
        req.bad = 1;
    }
    int st = heap_agree(&req);
    if (st != 0)
        return st;
    st = h->ops->unmap(addr, size);
    for (int i = 0; st == 0 && i < h->n_mapped_peers; i++)
        st = h->ops->unmap(gshmemi_heap_peer_addr(addr, h->mapped_peers[i]), size);
    h->ops->destroy(&u->mem);
    u->live = 0;
    if (st != 0) /* the backend said why */
        gshmemi_end_after_collective(st, "unmapping a registered buffer failed");
    return st;
}

/* ---- address queries ---------------------------------------------------- */

/* pe's copy of dest as mapped here, or NULL; *in_static: it is static data */
static void *peer_ptr(const void *dest, int pe, int *in_static)
{
    *in_static = 0;
    if (!gshmemi_rt.initialized || pe < 0 || pe >= gshmemi_rt.n_pes)
        return NULL;
    if (gshmemi_heap_contains(dest))
        return gshmemi_heap_peer_addr(dest, pe);
    if (gshmemi_static_contains(dest, 1)) {
        *in_static = 1;
        return gshmemi_static_peer_addr(dest, pe);
    }
    return NULL;
}

GSHMEM_API void *gshmem_ptr(const void *dest, int pe)
{
    int in_static;
    void *p = peer_ptr(dest, pe, &in_static);
    if (in_static && p != NULL && pe != gshmemi_rt.my_pe && !gshmemi_heap.access->host_direct) {
        /* stores through it pass no call: a fence before waits now, later
         * ones at once */
        gshmemi_gpu_fence_wait(__func__);
        __atomic_store_n(&gshmemi_static.ptr_given, 1, __ATOMIC_RELAXED);
    }
    return p;
}

GSHMEM_API int gshmem_addr_accessible(const void *addr, int pe)
{
    int in_static;
    return peer_ptr(addr, pe, &in_static) != NULL;
}

GSHMEM_API int gshmem_pe_accessible(int pe)
{
    return gshmemi_rt.initialized && pe >= 0 && pe < gshmemi_rt.n_pes &&
           gshmemi_heap.slot_of_pe[pe] >= 0;
}
