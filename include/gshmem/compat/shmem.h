/*
 * OpenSHMEM 1.5 names on gshmem (DESIGN.md section 10).
 *
 * Put include/gshmem/compat on the include path (oshcc does) and link
 * libgshmem: every OpenSHMEM name forwards to gshmem's.  The typed families
 * are expanded from gshmem's type and operation tables (gshmem_types.h), so
 * this file lists no type and no operation of its own: OpenSHMEM programs
 * get gshmem's types, a superset of the specification's (long double and
 * the complex types from the host-only tables).
 *
 * Contexts share the default context's resources: the context forms run
 * gshmem's operations, and a context's quiet completes all of this PE's
 * operations.  What is not here, and why: README, "OpenSHMEM programs".
 */
#ifndef GSHMEM_COMPAT_SHMEM_H
#define GSHMEM_COMPAT_SHMEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../gshmem.h" /* found from here: the compat folder alone on the include path */
#include "../../gshmemx.h"

/* ---- types and constants ------------------------------------------------ */

typedef gshmem_team_t shmem_team_t;
typedef gshmem_team_config_t shmem_team_config_t;
typedef gshmem_ctx_t shmem_ctx_t;

#define SHMEM_MAJOR_VERSION GSHMEM_MAJOR_VERSION
#define SHMEM_MINOR_VERSION GSHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN GSHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING GSHMEM_VENDOR_STRING
/* The deprecated spellings. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE GSHMEM_THREAD_SINGLE
#define SHMEM_THREAD_FUNNELED GSHMEM_THREAD_FUNNELED
#define SHMEM_THREAD_SERIALIZED GSHMEM_THREAD_SERIALIZED
#define SHMEM_THREAD_MULTIPLE GSHMEM_THREAD_MULTIPLE

#define SHMEM_CMP_EQ GSHMEM_CMP_EQ
#define SHMEM_CMP_NE GSHMEM_CMP_NE
#define SHMEM_CMP_GT GSHMEM_CMP_GT
#define SHMEM_CMP_GE GSHMEM_CMP_GE
#define SHMEM_CMP_LT GSHMEM_CMP_LT
#define SHMEM_CMP_LE GSHMEM_CMP_LE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET GSHMEM_SIGNAL_SET
#define SHMEM_SIGNAL_ADD GSHMEM_SIGNAL_ADD

#define SHMEM_TEAM_WORLD GSHMEM_TEAM_WORLD
#define SHMEM_TEAM_SHARED GSHMEM_TEAM_SHARED
#define SHMEM_TEAM_INVALID GSHMEM_TEAM_INVALID
#define SHMEM_TEAM_NUM_CONTEXTS GSHMEM_TEAM_NUM_CONTEXTS

#define SHMEM_CTX_DEFAULT GSHMEM_CTX_DEFAULT
#define SHMEM_CTX_INVALID GSHMEM_CTX_INVALID
#define SHMEM_CTX_SERIALIZED GSHMEM_CTX_SERIALIZED
#define SHMEM_CTX_PRIVATE GSHMEM_CTX_PRIVATE
#define SHMEM_CTX_NOSTORE GSHMEM_CTX_NOSTORE

#define SHMEM_MALLOC_ATOMICS_REMOTE GSHMEM_MALLOC_ATOMICS_REMOTE
#define SHMEM_MALLOC_SIGNAL_REMOTE GSHMEM_MALLOC_SIGNAL_REMOTE

/* The deprecated active-set collectives' work arrays (gshmem.h): every
 * routine's pSync is GSHMEM_SYNC_SIZE longs. */
#define SHMEM_SYNC_VALUE GSHMEM_SYNC_VALUE
#define SHMEM_SYNC_SIZE GSHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE GSHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* Every name is a static inline function: callable, and its address can be
 * taken, with no symbol of its own in libgshmem. */
#define SHMEMI_INLINE static inline

/* ---- setup, query, exit --------------------------------------------------- */

/* OpenSHMEM programs load and store symmetric memory on the host: where
 * GSHMEM_HEAP is auto, their heap is in host memory on GPU machines too. */
SHMEMI_INLINE void shmem_init(void)
{
    if (gshmemx_init_attr(GSHMEMX_INIT_HOST_HEAP, NULL) != 0)
        exit(1); /* the reason is logged */
}
SHMEMI_INLINE int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        return gshmem_init_thread(requested, provided); /* refused, with the reason */
    int st = gshmemx_init_attr(GSHMEMX_INIT_HOST_HEAP, NULL);
    if (st == 0 && provided != NULL) /* host calls are thread safe at every level */
        *provided = SHMEM_THREAD_MULTIPLE;
    return st;
}
SHMEMI_INLINE void shmem_query_thread(int *provided) { gshmem_query_thread(provided); }
SHMEMI_INLINE void shmem_finalize(void) { gshmem_finalize(); }
SHMEMI_INLINE void shmem_global_exit(int status) { gshmem_global_exit(status); }
SHMEMI_INLINE int shmem_my_pe(void) { return gshmem_my_pe(); }
SHMEMI_INLINE int shmem_n_pes(void) { return gshmem_n_pes(); }
/* OpenSHMEM's accessible is "reachable by its operations", every PE of the
 * job and every symmetric address; gshmem's is "mapped here" (loads and
 * stores work), which a peer behind a transport is not. */
SHMEMI_INLINE int shmem_pe_accessible(int pe) { return pe >= 0 && pe < gshmem_n_pes(); }
SHMEMI_INLINE int shmem_addr_accessible(const void *addr, int pe)
{
    return shmem_pe_accessible(pe) && gshmem_addr_accessible(addr, gshmem_my_pe());
}
SHMEMI_INLINE void *shmem_ptr(const void *dest, int pe) { return gshmem_ptr(dest, pe); }
SHMEMI_INLINE void shmem_info_get_version(int *major, int *minor)
{
    gshmem_info_get_version(major, minor);
}
SHMEMI_INLINE void shmem_info_get_name(char *name) { gshmem_info_get_name(name); }
/* The level is all a profiling library would be told; none is attached. */
SHMEMI_INLINE void shmem_pcontrol(int level, ...) { gshmem_pcontrol(level); }

/* ---- memory ---------------------------------------------------------------- */

SHMEMI_INLINE void *shmem_malloc(size_t size) { return gshmem_malloc(size); }
SHMEMI_INLINE void *shmem_calloc(size_t count, size_t size) { return gshmem_calloc(count, size); }
SHMEMI_INLINE void *shmem_align(size_t alignment, size_t size)
{
    return gshmem_align(alignment, size);
}
SHMEMI_INLINE void *shmem_realloc(void *ptr, size_t size) { return gshmem_realloc(ptr, size); }
SHMEMI_INLINE void shmem_free(void *ptr) { gshmem_free(ptr); }
SHMEMI_INLINE void *shmem_malloc_with_hints(size_t size, long hints)
{
    return gshmem_malloc_with_hints(size, hints);
}

/* ---- deprecated names the specification still lists ---------------------------
 * The cache routines are no-ops: the host heap is cache coherent. */

SHMEMI_INLINE void start_pes(int npes)
{
    (void)npes; /* the launcher sets the number of PEs */
    shmem_init();
}
SHMEMI_INLINE int _my_pe(void) { return gshmem_my_pe(); }
SHMEMI_INLINE int _num_pes(void) { return gshmem_n_pes(); }
SHMEMI_INLINE void *shmalloc(size_t size) { return gshmem_malloc(size); }
SHMEMI_INLINE void shfree(void *ptr) { gshmem_free(ptr); }
SHMEMI_INLINE void *shrealloc(void *ptr, size_t size) { return gshmem_realloc(ptr, size); }
SHMEMI_INLINE void *shmemalign(size_t alignment, size_t size)
{
    return gshmem_align(alignment, size);
}
SHMEMI_INLINE void shmem_clear_cache_inv(void) {}
SHMEMI_INLINE void shmem_set_cache_inv(void) {}
SHMEMI_INLINE void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
SHMEMI_INLINE void shmem_set_cache_line_inv(void *dest) { (void)dest; }
SHMEMI_INLINE void shmem_udcflush(void) {}
SHMEMI_INLINE void shmem_udcflush_line(void *dest) { (void)dest; }

/* ---- ordering, synchronisation, locks, signals ------------------------------ */

SHMEMI_INLINE void shmem_fence(void) { gshmem_fence(); }
SHMEMI_INLINE void shmem_quiet(void) { gshmem_quiet(); }
SHMEMI_INLINE void shmem_ctx_fence(shmem_ctx_t ctx) { gshmem_ctx_fence(ctx); }
SHMEMI_INLINE void shmem_ctx_quiet(shmem_ctx_t ctx) { gshmem_ctx_quiet(ctx); }
SHMEMI_INLINE void shmem_barrier_all(void) { gshmem_barrier_all(); }
SHMEMI_INLINE void shmem_sync_all(void) { gshmem_sync_all(); }
SHMEMI_INLINE void shmem_set_lock(long *lock) { gshmem_set_lock(lock); }
SHMEMI_INLINE void shmem_clear_lock(long *lock) { gshmem_clear_lock(lock); }
SHMEMI_INLINE int shmem_test_lock(long *lock) { return gshmem_test_lock(lock); }
SHMEMI_INLINE uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    return gshmem_signal_fetch(sig_addr);
}
SHMEMI_INLINE uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return gshmem_signal_wait_until(sig_addr, cmp, cmp_value);
}

/* ---- teams and contexts -------------------------------------------------------- */

SHMEMI_INLINE int shmem_team_my_pe(shmem_team_t team) { return gshmem_team_my_pe(team); }
SHMEMI_INLINE int shmem_team_n_pes(shmem_team_t team) { return gshmem_team_n_pes(team); }
SHMEMI_INLINE int shmem_team_get_config(shmem_team_t team, long config_mask,
                                        shmem_team_config_t *config)
{
    return gshmem_team_get_config(team, config_mask, config);
}
SHMEMI_INLINE int shmem_team_translate_pe(shmem_team_t src_team, int src_pe,
                                          shmem_team_t dest_team)
{
    return gshmem_team_translate_pe(src_team, src_pe, dest_team);
}
SHMEMI_INLINE int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride,
                                           int size, const shmem_team_config_t *config,
                                           long config_mask, shmem_team_t *new_team)
{
    return gshmem_team_split_strided(parent_team, start, stride, size, config, config_mask,
                                     new_team);
}
SHMEMI_INLINE int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                      const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                      shmem_team_t *xaxis_team,
                                      const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                      shmem_team_t *yaxis_team)
{
    return gshmem_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask, xaxis_team,
                                yaxis_config, yaxis_mask, yaxis_team);
}
SHMEMI_INLINE void shmem_team_destroy(shmem_team_t team) { gshmem_team_destroy(team); }
SHMEMI_INLINE int shmem_team_sync(shmem_team_t team) { return gshmem_team_sync(team); }
SHMEMI_INLINE void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    return gshmem_team_ptr(team, dest, pe);
}
SHMEMI_INLINE int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return gshmem_ctx_create(options, ctx);
}
SHMEMI_INLINE int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    return gshmem_team_create_ctx(team, options, ctx);
}
SHMEMI_INLINE void shmem_ctx_destroy(shmem_ctx_t ctx) { gshmem_ctx_destroy(ctx); }
SHMEMI_INLINE int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    return gshmem_ctx_get_team(ctx, team);
}

/* ---- the typed families, from gshmem's tables -------------------------------
 * Each shape's forwarder: F the name after shmem_ and gshmem_, P its
 * parameters and A its arguments, each in parentheses.  The context forms
 * (shmem_ctx_<F>) take the context first; it shares the default's
 * resources, so the operation is gshmem's own (SHMEM_CTX_INVALID ends the
 * job with a message naming the call). */

#define SHMEMI_STRIP(...) __VA_ARGS__
#define SHMEMI_FWD_V(F, P, A) \
    SHMEMI_INLINE void shmem_##F(SHMEMI_STRIP P) { gshmem_##F A; }
#define SHMEMI_FWD_R(R, F, P, A) \
    SHMEMI_INLINE R shmem_##F(SHMEMI_STRIP P) { return gshmem_##F A; }
#define SHMEMI_CTX_CHECK(ctx)                                                       \
    do {                                                                            \
        if ((ctx) == SHMEM_CTX_INVALID)                                             \
            gshmemi_ctx_invalid(__func__);                                          \
    } while (0)
#define SHMEMI_FWD_CTX_V(F, P, A)                                                   \
    SHMEMI_FWD_V(F, P, A)                                                           \
    SHMEMI_INLINE void shmem_ctx_##F(shmem_ctx_t ctx, SHMEMI_STRIP P)               \
    {                                                                               \
        SHMEMI_CTX_CHECK(ctx);                                                      \
        gshmem_##F A;                                                               \
    }
#define SHMEMI_FWD_CTX_R(R, F, P, A)                                                \
    SHMEMI_FWD_R(R, F, P, A)                                                        \
    SHMEMI_INLINE R shmem_ctx_##F(shmem_ctx_t ctx, SHMEMI_STRIP P)                  \
    {                                                                               \
        SHMEMI_CTX_CHECK(ctx);                                                      \
        return gshmem_##F A;                                                        \
    }

/* RMA: GSHMEM_FOR_RMA_OPS, typed, sized and mem (T void there). */
#define SHMEMI_RMA_PUT(F, T) \
    SHMEMI_FWD_CTX_V(F, (T *dest, const T *source, size_t nelems, int pe), (dest, source, nelems, pe))
#define SHMEMI_RMA_GET(F, T) SHMEMI_RMA_PUT(F, T)
#define SHMEMI_RMA_P(F, T) SHMEMI_FWD_CTX_V(F, (T *dest, T value, int pe), (dest, value, pe))
#define SHMEMI_RMA_G(F, T) SHMEMI_FWD_CTX_R(T, F, (const T *source, int pe), (source, pe))
#define SHMEMI_RMA_IPUT(F, T)                                                                     \
    SHMEMI_FWD_CTX_V(F, (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                         int pe), (dest, source, dst, sst, nelems, pe))
#define SHMEMI_RMA_IGET(F, T) SHMEMI_RMA_IPUT(F, T)
#define SHMEMI_RMA_PUT_SIGNAL(F, T)                                                               \
    SHMEMI_FWD_CTX_V(F, (T *dest, const T *source, size_t nelems, uint64_t *sig_addr,           \
                         uint64_t signal, int sig_op, int pe),                                    \
                     (dest, source, nelems, sig_addr, signal, sig_op, pe))

#define SHMEMI_RMA_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    SHMEMI_RMA_##SHAPE(NAME##_##STEM##TAIL, TYPE)
#define SHMEMI_RMA(NAME, TYPE, G) GSHMEM_FOR_RMA_OPS(SHMEMI_RMA_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(SHMEMI_RMA)
GSHMEM_FOR_RMA_HOST_TYPES(SHMEMI_RMA)
#define SHMEMI_RMA_SIZED_OP(STEM, TAIL, SHAPE, NBI, BITS, TYPE) \
    GSHMEMI_RMA_SIZED_##SHAPE(NBI, SHMEMI_RMA_##SHAPE(STEM##BITS##TAIL, void))
#define SHMEMI_RMA_SIZED(BITS, TYPE) GSHMEM_FOR_RMA_OPS(SHMEMI_RMA_SIZED_OP, BITS, TYPE)
GSHMEM_FOR_RMA_SIZES(SHMEMI_RMA_SIZED)
#define SHMEMI_RMA_MEM(STEM, TAIL, SHAPE, NBI, A, B) \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, SHMEMI_RMA_##SHAPE(STEM##mem##TAIL, void))
GSHMEM_FOR_RMA_OPS(SHMEMI_RMA_MEM, , )

/* Atomics: GSHMEM_FOR_AMO_*_OPS, and the fetching ones' nbi forms. */
#define SHMEMI_AMO_FETCH(F, T) SHMEMI_FWD_CTX_R(T, F, (const T *source, int pe), (source, pe))
#define SHMEMI_AMO_OP(F, T) SHMEMI_FWD_CTX_V(F, (T *dest, T value, int pe), (dest, value, pe))
#define SHMEMI_AMO_FETCH_OP(F, T) SHMEMI_FWD_CTX_R(T, F, (T *dest, T value, int pe), (dest, value, pe))
#define SHMEMI_AMO_CSWAP(F, T) \
    SHMEMI_FWD_CTX_R(T, F, (T *dest, T cond, T value, int pe), (dest, cond, value, pe))
#define SHMEMI_AMO_INC(F, T) SHMEMI_FWD_CTX_V(F, (T *dest, int pe), (dest, pe))
#define SHMEMI_AMO_FETCH_INC(F, T) SHMEMI_FWD_CTX_R(T, F, (T *dest, int pe), (dest, pe))
#define SHMEMI_AMO_NBI_FETCH(F, T) \
    SHMEMI_FWD_CTX_V(F, (T *fetch, const T *source, int pe), (fetch, source, pe))
#define SHMEMI_AMO_NBI_FETCH_OP(F, T) \
    SHMEMI_FWD_CTX_V(F, (T *fetch, T *dest, T value, int pe), (fetch, dest, value, pe))
#define SHMEMI_AMO_NBI_CSWAP(F, T) \
    SHMEMI_FWD_CTX_V(F, (T *fetch, T *dest, T cond, T value, int pe), (fetch, dest, cond, value, pe))
#define SHMEMI_AMO_NBI_FETCH_INC(F, T) \
    SHMEMI_FWD_CTX_V(F, (T *fetch, T *dest, int pe), (fetch, dest, pe))

#define SHMEMI_AMO_TYPED(STEM, TAIL, SHAPE, AMO, NAME, TYPE)            \
    SHMEMI_AMO_##SHAPE(NAME##_##STEM##TAIL, TYPE)                       \
    GSHMEMI_AMO_NBI_##SHAPE(SHMEMI_AMO_NBI_##SHAPE(NAME##_##STEM##TAIL##_nbi, TYPE))
#define SHMEMI_AMO_EXTENDED(NAME, TYPE, G) GSHMEM_FOR_AMO_EXTENDED_OPS(SHMEMI_AMO_TYPED, NAME, TYPE)
#define SHMEMI_AMO_STANDARD(NAME, TYPE, G) GSHMEM_FOR_AMO_STANDARD_OPS(SHMEMI_AMO_TYPED, NAME, TYPE)
#define SHMEMI_AMO_BITWISE(NAME, TYPE, G) GSHMEM_FOR_AMO_BITWISE_OPS(SHMEMI_AMO_TYPED, NAME, TYPE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(SHMEMI_AMO_EXTENDED)
GSHMEM_FOR_AMO_STANDARD_TYPES(SHMEMI_AMO_STANDARD)
GSHMEM_FOR_AMO_BITWISE_TYPES(SHMEMI_AMO_BITWISE)

/* Waits and tests: GSHMEM_FOR_P2P_SYNC_OPS; ONE and ALL return nothing from
 * a wait (NBI 0), whether the comparison holds from a test (NBI 1). */
#define SHMEMI_SYNC_RET_0(F, P, A) SHMEMI_FWD_V(F, P, A)
#define SHMEMI_SYNC_RET_1(F, P, A) SHMEMI_FWD_R(int, F, P, A)
#define SHMEMI_SYNC_ONE(F, T, NBI) \
    SHMEMI_SYNC_RET_##NBI(F, (T *ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))
#define SHMEMI_SYNC_ALL(F, T, NBI)                                                         \
    SHMEMI_SYNC_RET_##NBI(F, (T *ivars, size_t nelems, const int *status, int cmp,      \
                              T cmp_value), (ivars, nelems, status, cmp, cmp_value))
#define SHMEMI_SYNC_ANY(F, T, NBI)                                                         \
    SHMEMI_FWD_R(size_t, F, (T *ivars, size_t nelems, const int *status, int cmp,        \
                             T cmp_value), (ivars, nelems, status, cmp, cmp_value))
#define SHMEMI_SYNC_SOME(F, T, NBI)                                                        \
    SHMEMI_FWD_R(size_t, F, (T *ivars, size_t nelems, size_t *indices, const int *status, \
                             int cmp, T cmp_value),                                       \
                 (ivars, nelems, indices, status, cmp, cmp_value))
#define SHMEMI_SYNC_ALL_VECTOR(F, T, NBI)                                                  \
    SHMEMI_SYNC_RET_##NBI(F, (T *ivars, size_t nelems, const int *status, int cmp,      \
                              const T *cmp_values), (ivars, nelems, status, cmp, cmp_values))
#define SHMEMI_SYNC_ANY_VECTOR(F, T, NBI)                                                  \
    SHMEMI_FWD_R(size_t, F, (T *ivars, size_t nelems, const int *status, int cmp,        \
                             const T *cmp_values), (ivars, nelems, status, cmp, cmp_values))
#define SHMEMI_SYNC_SOME_VECTOR(F, T, NBI)                                                 \
    SHMEMI_FWD_R(size_t, F, (T *ivars, size_t nelems, size_t *indices, const int *status, \
                             int cmp, const T *cmp_values),                               \
                 (ivars, nelems, indices, status, cmp, cmp_values))
#define SHMEMI_SYNC_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    SHMEMI_SYNC_##SHAPE(NAME##_##STEM##TAIL, TYPE, NBI)
#define SHMEMI_SYNC(NAME, TYPE, G) GSHMEM_FOR_P2P_SYNC_OPS(SHMEMI_SYNC_TYPED, NAME, TYPE)
GSHMEM_FOR_P2P_SYNC_TYPES(SHMEMI_SYNC)

/* Collectives: GSHMEM_FOR_COLL_OPS, typed and mem. */
#define SHMEMI_COLL_BROADCAST(F, T)                                                           \
    SHMEMI_FWD_R(int, F, (shmem_team_t team, T *dest, const T *source, size_t nelems,       \
                          int PE_root), (team, dest, source, nelems, PE_root))
#define SHMEMI_COLL_FCOLLECT(F, T)                                                            \
    SHMEMI_FWD_R(int, F, (shmem_team_t team, T *dest, const T *source, size_t nelems),      \
                 (team, dest, source, nelems))
#define SHMEMI_COLL_COLLECT(F, T) SHMEMI_COLL_FCOLLECT(F, T)
#define SHMEMI_COLL_ALLTOALL(F, T) SHMEMI_COLL_FCOLLECT(F, T)
#define SHMEMI_COLL_ALLTOALLS(F, T)                                                           \
    SHMEMI_FWD_R(int, F, (shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,       \
                          ptrdiff_t sst, size_t nelems), (team, dest, source, dst, sst, nelems))
#define SHMEMI_COLL_TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    SHMEMI_COLL_##SHAPE(NAME##_##STEM##TAIL, TYPE)
#define SHMEMI_COLL(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(SHMEMI_COLL_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(SHMEMI_COLL)
GSHMEM_FOR_RMA_HOST_TYPES(SHMEMI_COLL)
#define SHMEMI_COLL_MEM(STEM, TAIL, SHAPE, V, A, B) SHMEMI_COLL_##SHAPE(STEM##mem##TAIL, void)
GSHMEM_FOR_COLL_OPS(SHMEMI_COLL_MEM, , )

/* Reductions: GSHMEM_FOR_REDUCE_*_OPS (and gshmem's reducescatter and
 * scans, which OpenSHMEM 1.5 does not have, come along). */
#define SHMEMI_REDUCE_TYPED(STEM, TAIL, SHAPE, OP, NAME, TYPE)                              \
    SHMEMI_FWD_R(int, NAME##_##STEM##TAIL,                                                \
                 (shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce),     \
                 (team, dest, source, nreduce))
#define SHMEMI_REDUCE_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(SHMEMI_REDUCE_TYPED, NAME, TYPE)
#define SHMEMI_REDUCE_ARITH(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(SHMEMI_REDUCE_TYPED, NAME, TYPE)
#define SHMEMI_REDUCE_COMPLEX(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_COMPLEX_OPS(SHMEMI_REDUCE_TYPED, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(SHMEMI_REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(SHMEMI_REDUCE_ARITH)
GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(SHMEMI_REDUCE_ARITH)
GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(SHMEMI_REDUCE_COMPLEX)

/* The deprecated active-set collectives (gshmem.h): the barrier, the data
 * collectives' 32- and 64-bit forms (GSHMEM_FOR_ACTIVE_SET_SIZES) and the
 * to_all reductions (GSHMEM_FOR_TO_ALL_*). */
SHMEMI_INLINE void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    gshmemx_barrier_active_set(PE_start, logPE_stride, PE_size, pSync);
}
/* shmem_sync is two routines of one name: shmem_sync(team) (1.5) and the
 * deprecated shmem_sync(PE_start, logPE_stride, PE_size, pSync); C has no
 * overloading, so the name is a macro that picks by the number of
 * arguments (any other count names shmemi_sync_takes_1_or_4_arguments,
 * which does not exist: a compile error that says why). */
SHMEMI_INLINE void shmemi_sync_active_set(int PE_start, int logPE_stride, int PE_size,
                                          long *pSync)
{
    gshmemx_sync_active_set(PE_start, logPE_stride, PE_size, pSync);
}
#define SHMEMI_SYNC_PICK(A1, A2, A3, A4, F, ...) F
#define shmem_sync(...)                                                                  \
    SHMEMI_SYNC_PICK(__VA_ARGS__, shmemi_sync_active_set, shmemi_sync_takes_1_or_4_arguments, \
                     shmemi_sync_takes_1_or_4_arguments, shmem_team_sync,                 \
                     shmemi_sync_takes_1_or_4_arguments)(__VA_ARGS__)
#define SHMEMI_ACTIVE_SET_BROADCAST(F)                                                        \
    SHMEMI_FWD_V(F, (void *dest, const void *source, size_t nelems, int PE_root, int PE_start, \
                     int logPE_stride, int PE_size, long *pSync),                             \
                 (dest, source, nelems, PE_root, PE_start, logPE_stride, PE_size, pSync))
#define SHMEMI_ACTIVE_SET_FCOLLECT(F)                                                         \
    SHMEMI_FWD_V(F, (void *dest, const void *source, size_t nelems, int PE_start,             \
                     int logPE_stride, int PE_size, long *pSync),                             \
                 (dest, source, nelems, PE_start, logPE_stride, PE_size, pSync))
#define SHMEMI_ACTIVE_SET_COLLECT(F) SHMEMI_ACTIVE_SET_FCOLLECT(F)
#define SHMEMI_ACTIVE_SET_ALLTOALL(F) SHMEMI_ACTIVE_SET_FCOLLECT(F)
#define SHMEMI_ACTIVE_SET_ALLTOALLS(F)                                                        \
    SHMEMI_FWD_V(F, (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,            \
                     size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync), \
                 (dest, source, dst, sst, nelems, PE_start, logPE_stride, PE_size, pSync))
#define SHMEMI_ACTIVE_SET_OP(STEM, TAIL, SHAPE, V, BITS, TYPE) \
    SHMEMI_ACTIVE_SET_##SHAPE(STEM##BITS##TAIL)
#define SHMEMI_ACTIVE_SET(BITS, TYPE) GSHMEM_FOR_COLL_OPS(SHMEMI_ACTIVE_SET_OP, BITS, TYPE)
GSHMEM_FOR_ACTIVE_SET_SIZES(SHMEMI_ACTIVE_SET)
#define SHMEMI_TO_ALL(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                      \
    SHMEMI_FWD_V(NAME##_##STEM##TAIL,                                                       \
                 (TYPE *dest, const TYPE *source, int nreduce, int PE_start,                \
                  int logPE_stride, int PE_size, TYPE *pWrk, long *pSync),                  \
                 (dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync))
#define SHMEMI_TO_ALL_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_BITWISE_OPS(SHMEMI_TO_ALL, NAME, TYPE)
#define SHMEMI_TO_ALL_MINMAX(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_MINMAX_OPS(SHMEMI_TO_ALL, NAME, TYPE)
#define SHMEMI_TO_ALL_SUMPROD(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_SUMPROD_OPS(SHMEMI_TO_ALL, NAME, TYPE)
GSHMEM_FOR_TO_ALL_BITWISE_TYPES(SHMEMI_TO_ALL_BITWISE)
GSHMEM_FOR_TO_ALL_MINMAX_TYPES(SHMEMI_TO_ALL_MINMAX)
GSHMEM_FOR_TO_ALL_SUMPROD_TYPES(SHMEMI_TO_ALL_SUMPROD)
GSHMEM_FOR_TO_ALL_MINMAX_HOST_TYPES(SHMEMI_TO_ALL_MINMAX)
GSHMEM_FOR_TO_ALL_SUMPROD_HOST_TYPES(SHMEMI_TO_ALL_SUMPROD)

/* ---- C11 generic forms ---------------------------------------------------------
 * As gshmem.h's, and for RMA and atomics also with a context first:
 * shmem_put(dest, source, nelems, pe) and shmem_put(ctx, dest, source,
 * nelems, pe).  The first argument's type picks the form; the context form
 * picks its type from the second argument, a pointer (matched with and
 * without const, so that a non-pointer there, as in the form without a
 * context, selects nothing and stays a valid expression). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

#define SHMEMI_SECOND(first, ...) first
#define SHMEMI_CTX_ASSOC(NAME, TYPE, G, SUFFIX) \
    GSHMEMI_IF_GENERIC(G, TYPE *: shmem_ctx_##NAME##SUFFIX, const TYPE *: shmem_ctx_##NAME##SUFFIX, )
#define SHMEMI_CTX_GENERIC(TYPES, OP, x) \
    _Generic((x), GSHMEMI_##TYPES##_TYPES(SHMEMI_CTX_ASSOC, _##OP) GSHMEMI_GENERIC_DEFAULT)
#define SHMEMI_GENERIC_CTX(TYPES, OP, first, ...)                                            \
    _Generic((first),                                                                        \
        shmem_ctx_t: SHMEMI_CTX_GENERIC(TYPES, OP, SHMEMI_SECOND(__VA_ARGS__, 0)),          \
        default: GSHMEMI_GENERIC(TYPES, OP, first))(first, __VA_ARGS__)

#define shmem_put(...) SHMEMI_GENERIC_CTX(RMA_ALL, put, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEMI_GENERIC_CTX(RMA_ALL, put_nbi, __VA_ARGS__)
#define shmem_get(...) SHMEMI_GENERIC_CTX(RMA_ALL, get, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEMI_GENERIC_CTX(RMA_ALL, get_nbi, __VA_ARGS__)
#define shmem_p(...) SHMEMI_GENERIC_CTX(RMA_ALL, p, __VA_ARGS__)
#define shmem_g(...) SHMEMI_GENERIC_CTX(RMA_ALL, g, __VA_ARGS__)
#define shmem_iput(...) SHMEMI_GENERIC_CTX(RMA_ALL, iput, __VA_ARGS__)
#define shmem_iget(...) SHMEMI_GENERIC_CTX(RMA_ALL, iget, __VA_ARGS__)
#define shmem_put_signal(...) SHMEMI_GENERIC_CTX(RMA_ALL, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEMI_GENERIC_CTX(RMA_ALL, put_signal_nbi, __VA_ARGS__)

#define shmem_atomic_fetch(...) SHMEMI_GENERIC_CTX(AMO_EXTENDED, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEMI_GENERIC_CTX(AMO_EXTENDED, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEMI_GENERIC_CTX(AMO_EXTENDED, atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) \
    SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) \
    SHMEMI_GENERIC_CTX(AMO_EXTENDED, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMEMI_GENERIC_CTX(AMO_EXTENDED, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
    SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
    SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
    SHMEMI_GENERIC_CTX(AMO_STANDARD, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
    SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
    SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
    SHMEMI_GENERIC_CTX(AMO_BITWISE, atomic_fetch_xor_nbi, __VA_ARGS__)

/* No context form: gshmem's generic forms under OpenSHMEM's names. */
#define shmem_wait_until(...) gshmem_wait_until(__VA_ARGS__)
#define shmem_wait_until_all(...) gshmem_wait_until_all(__VA_ARGS__)
#define shmem_wait_until_any(...) gshmem_wait_until_any(__VA_ARGS__)
#define shmem_wait_until_some(...) gshmem_wait_until_some(__VA_ARGS__)
#define shmem_wait_until_all_vector(...) gshmem_wait_until_all_vector(__VA_ARGS__)
#define shmem_wait_until_any_vector(...) gshmem_wait_until_any_vector(__VA_ARGS__)
#define shmem_wait_until_some_vector(...) gshmem_wait_until_some_vector(__VA_ARGS__)
#define shmem_test(...) gshmem_test(__VA_ARGS__)
#define shmem_test_all(...) gshmem_test_all(__VA_ARGS__)
#define shmem_test_any(...) gshmem_test_any(__VA_ARGS__)
#define shmem_test_some(...) gshmem_test_some(__VA_ARGS__)
#define shmem_test_all_vector(...) gshmem_test_all_vector(__VA_ARGS__)
#define shmem_test_any_vector(...) gshmem_test_any_vector(__VA_ARGS__)
#define shmem_test_some_vector(...) gshmem_test_some_vector(__VA_ARGS__)

/* Collectives pick their type from dest, the second argument. */
#define SHMEMI_GENERIC_TEAM(TYPES, OP, team, dest, ...) \
    GSHMEMI_GENERIC(TYPES, OP, dest)(team, dest, __VA_ARGS__)
#define shmem_broadcast(...) SHMEMI_GENERIC_TEAM(RMA_ALL, broadcast, __VA_ARGS__)
#define shmem_collect(...) SHMEMI_GENERIC_TEAM(RMA_ALL, collect, __VA_ARGS__)
#define shmem_fcollect(...) SHMEMI_GENERIC_TEAM(RMA_ALL, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) SHMEMI_GENERIC_TEAM(RMA_ALL, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) SHMEMI_GENERIC_TEAM(RMA_ALL, alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) SHMEMI_GENERIC_TEAM(REDUCE_BITWISE, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) SHMEMI_GENERIC_TEAM(REDUCE_BITWISE, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) SHMEMI_GENERIC_TEAM(REDUCE_BITWISE, xor_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) SHMEMI_GENERIC_TEAM(REDUCE_ARITH_ALL, min_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) SHMEMI_GENERIC_TEAM(REDUCE_ARITH_ALL, max_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) SHMEMI_GENERIC_TEAM(REDUCE_SUM_PROD_ALL, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) \
    SHMEMI_GENERIC_TEAM(REDUCE_SUM_PROD_ALL, prod_reduce, __VA_ARGS__)

#endif /* C11 generic forms */

#endif /* GSHMEM_COMPAT_SHMEM_H */
