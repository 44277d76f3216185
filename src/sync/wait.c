#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/log.h"
#include "core/util.h"
#include "heap/heap.h"
#include "rma/rma.h"
#include "sync/wait.h"

static inline uint64_t load_bits(const void *p, size_t esize, int is_signed, int atomic)
{
    switch (esize) {
    case 2: {
        uint16_t v = atomic ? __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE)
                            : *(const uint16_t *)p;
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v = atomic ? __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE)
                            : *(const uint32_t *)p;
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default:
        return atomic ? __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE) : *(const uint64_t *)p;
    }
}

static inline int compare(uint64_t a, uint64_t b, int is_signed, int cmp)
{
    int lt = is_signed ? (int64_t)a < (int64_t)b : a < b;
    switch (cmp) {
    case GSHMEM_CMP_EQ: return a == b;
    case GSHMEM_CMP_NE: return a != b;
    case GSHMEM_CMP_GT: return !lt && a != b;
    case GSHMEM_CMP_LE: return lt || a == b;
    case GSHMEM_CMP_LT: return lt;
    case GSHMEM_CMP_GE: return !lt;
    }
    return 0;
}

/* Whether the scan loads ivars in place (with acquire loads). */
static inline int in_place(const struct gshmemi_wait *w)
{
    return w->access == NULL || w->access->host_direct;
}

/* ivars as this scan sees them: in place, or a snapshot read through the
 * heap's access (from the GPU). */
static const void *scan_view(const struct gshmemi_wait *w)
{
    static __thread void *snapshot;
    static __thread size_t snapshot_len;
    size_t len = w->nelems * w->esize;

    if (in_place(w))
        return w->ivars;
    if (len > snapshot_len) {
        void *p = realloc(snapshot, len);
        if (p == NULL)
            gshmemi_rma_fail(w->call, "out of host memory");
        snapshot = p;
        snapshot_len = len;
    }
    w->access->read(w->call, snapshot, w->ivars, len);
    return snapshot;
}

static inline int satisfied(const struct gshmemi_wait *w, const void *view, size_t i)
{
    uint64_t v = load_bits((const char *)view + i * w->esize, w->esize, w->is_signed, in_place(w));
    uint64_t ref = w->values != NULL
                       ? load_bits((const char *)w->values + i * w->esize, w->esize, w->is_signed, 0)
                       : w->value;
    return compare(v, ref, w->is_signed, w->cmp);
}

static const char *cmp_name(int cmp)
{
    static const char *const names[] = {"EQ", "NE", "GT", "LE", "LT", "GE"};
    return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}

static void format_value(uint64_t v, int is_signed, char *buf, size_t len)
{
    if (is_signed)
        snprintf(buf, len, "%" PRId64, (int64_t)v);
    else
        snprintf(buf, len, "%" PRIu64, v);
}

void gshmemi_wait_check(const struct gshmemi_wait *w)
{
    if (w->cmp < GSHMEM_CMP_EQ || w->cmp > GSHMEM_CMP_GE)
        gshmemi_rma_fail(w->call, "cmp %d is not one of GSHMEM_CMP_EQ..GSHMEM_CMP_GE", w->cmp);
    if (w->nelems == 0)
        return;
    const struct gshmemi_heap_access *access;
    (void)gshmemi_rma_sym_target(w->call, "ivars", w->ivars,
                                 gshmemi_rma_bytes(w->call, w->nelems, w->esize), gshmemi_rt.my_pe,
                                 &access);
    gshmemi_rma_check_aligned(w->call, "ivars", w->ivars, w->esize);
}

const void *gshmemi_wait_no_values(const char *call)
{
    gshmemi_rma_fail(call, "cmp_values is NULL");
}

size_t gshmemi_wait_test(const struct gshmemi_wait *w, enum gshmemi_wait_mode mode,
                         size_t *indices)
{
    const void *view = w->nelems > 0 ? scan_view(w) : w->ivars;
    size_t count = 0;
    for (size_t i = 0; i < w->nelems; i++) {
        if (w->status != NULL && w->status[i] != 0)
            continue;
        int ok = satisfied(w, view, i);
        if (mode == GSHMEMI_WAIT_ALL && !ok)
            return 0;
        if (mode == GSHMEMI_WAIT_ANY && ok)
            return i;
        if (mode == GSHMEMI_WAIT_SOME && ok)
            indices[count++] = i;
    }
    switch (mode) {
    case GSHMEMI_WAIT_ALL: return 1;
    case GSHMEMI_WAIT_ANY: return SIZE_MAX;
    default: return count;
    }
}

static void wait_timed_out(const struct gshmemi_wait *w)
{
    char want[32], have[32];
    const void *view = scan_view(w);
    size_t i = 0;
    while (i + 1 < w->nelems && ((w->status != NULL && w->status[i] != 0) || satisfied(w, view, i)))
        i++;
    uint64_t ref = w->values != NULL
                       ? load_bits((const char *)w->values + i * w->esize, w->esize, w->is_signed, 0)
                       : w->value;
    format_value(ref, w->is_signed, want, sizeof(want));
    format_value(load_bits((const char *)view + i * w->esize, w->esize, w->is_signed, in_place(w)),
                 w->is_signed, have, sizeof(have));
    const char *at = (const char *)w->ivars + i * w->esize;
    char where[64];
    if (gshmemi_heap_contains(at))
        snprintf(where, sizeof(where), "heap offset %zu", (size_t)(at - gshmemi_heap.my_base));
    else if (gshmemi_static_contains(at, 1))
        snprintf(where, sizeof(where), "offset %zu of the program's static data",
                 (size_t)(at - gshmemi_static.base));
    else
        snprintf(where, sizeof(where), "the runtime's control segment");
    GSHMEMI_ERROR(SYNC, "%s timed out after %g s (GSHMEM_TIMEOUT): waiting for %p (%s, element "
                  "%zu of %zu) to be %s %s; it holds %s",
                  w->call, gshmemi_env.TIMEOUT, (const void *)at, where, i, w->nelems,
                  cmp_name(w->cmp), want, have);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, w->call);
}

static void (*wait_progress)(const char *call);

void gshmemi_wait_progress_set(void (*fn)(const char *call))
{
    __atomic_store_n(&wait_progress, fn, __ATOMIC_RELEASE);
}

size_t gshmemi_wait_until(const struct gshmemi_wait *w, enum gshmemi_wait_mode mode,
                          size_t *indices)
{
    struct gshmemi_backoff backoff = {0};
    uint64_t deadline = 0;
    size_t active = 0;

    for (size_t i = 0; i < w->nelems; i++)
        active += w->status == NULL || w->status[i] == 0;
    if (active == 0)
        return mode == GSHMEMI_WAIT_ALL ? 1 : mode == GSHMEMI_WAIT_ANY ? SIZE_MAX : 0;
    for (;;) {
        size_t r = gshmemi_wait_test(w, mode, indices);
        if ((mode == GSHMEMI_WAIT_ALL && r == 1) || (mode == GSHMEMI_WAIT_ANY && r != SIZE_MAX) ||
            (mode == GSHMEMI_WAIT_SOME && r > 0))
            return r;
        gshmemi_backoff_wait(&backoff);
        if (backoff.spins < 64)
            continue;
        void (*progress)(const char *) = __atomic_load_n(&wait_progress, __ATOMIC_ACQUIRE);
        if (progress != NULL)
            progress(w->call);
        if (deadline == 0)
            deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
        gshmemi_watch_peers(w->call);
        if (gshmemi_now_ns() >= deadline)
            wait_timed_out(w);
    }
}
