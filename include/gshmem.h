/*
 * gshmem: a partitioned global address space for NVIDIA GPUs and CPUs.
 *
 * Host API, C11 (also usable from C++ and CUDA host code).  Names follow
 * OpenSHMEM 1.5 / NVSHMEM with the gshmem_ prefix.
 */
#ifndef GSHMEM_H
#define GSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "gshmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GSHMEM_API __attribute__((visibility("default")))
#else
#define GSHMEM_API
#endif

/* Functions with a device definition too (gshmem_device.cuh): in CUDA's
 * device compilation pass they are declared for host and device. */
#if defined(__CUDACC__) && defined(__CUDA_ARCH__)
#define GSHMEMI_HD_API GSHMEM_API __host__ __device__
#else
#define GSHMEMI_HD_API GSHMEM_API
#endif

#define GSHMEM_MAJOR_VERSION 1
#define GSHMEM_MINOR_VERSION 5
#define GSHMEM_MAX_NAME_LEN 64
#define GSHMEM_VENDOR_STRING "gshmem"

/* ---- status ---------------------------------------------------------- */

typedef enum {
    GSHMEM_SUCCESS = 0,
    GSHMEM_ERR_INVALID_ARG = -1,
    GSHMEM_ERR_NO_MEMORY = -2,
    GSHMEM_ERR_TIMEOUT = -3,
    GSHMEM_ERR_IO = -4,
    GSHMEM_ERR_NOT_SUPPORTED = -5,
    GSHMEM_ERR_PEER_LOST = -6,
    GSHMEM_ERR_BOOTSTRAP = -7,
    GSHMEM_ERR_CUDA = -8,
    GSHMEM_ERR_ASYMMETRIC = -9,
    GSHMEM_ERR_NOT_INITIALIZED = -10,
    GSHMEM_ERR_PERMISSION = -11,
    GSHMEM_ERR_INTERNAL = -12,
    GSHMEM_ERR_UNREACHABLE = -13,
} gshmem_status_t;

GSHMEM_API const char *gshmem_status_string(int status);

/* ---- constants --------------------------------------------------------- */

enum { GSHMEM_THREAD_SINGLE = 0, GSHMEM_THREAD_FUNNELED, GSHMEM_THREAD_SERIALIZED,
       GSHMEM_THREAD_MULTIPLE };

enum { GSHMEM_CMP_EQ = 0, GSHMEM_CMP_NE, GSHMEM_CMP_GT, GSHMEM_CMP_LE, GSHMEM_CMP_LT,
       GSHMEM_CMP_GE };

enum { GSHMEM_SIGNAL_SET = 0, GSHMEM_SIGNAL_ADD = 1 };

/* ---- setup, query, exit ---------------------------------------------- */

GSHMEM_API void gshmem_init(void);
GSHMEM_API int gshmem_init_thread(int requested, int *provided);
GSHMEM_API void gshmem_query_thread(int *provided);
GSHMEM_API void gshmem_finalize(void);
GSHMEMI_HD_API int gshmem_my_pe(void);
GSHMEMI_HD_API int gshmem_n_pes(void);
GSHMEM_API void gshmem_global_exit(int status) __attribute__((noreturn));
GSHMEM_API void gshmem_info_get_version(int *major, int *minor);
GSHMEM_API void gshmem_info_get_name(char *name);
/* Profiling control (OpenSHMEM's shmem_pcontrol): levels are accepted, no
 * profiling library is attached. */
GSHMEM_API void gshmem_pcontrol(int level, ...);

/* ---- symmetric heap ---------------------------------------------------- */

GSHMEM_API void *gshmem_malloc(size_t size);
GSHMEM_API void *gshmem_calloc(size_t count, size_t size);
GSHMEM_API void *gshmem_align(size_t alignment, size_t size);
GSHMEM_API void *gshmem_realloc(void *ptr, size_t size);
GSHMEM_API void gshmem_free(void *ptr);
/* Hints of how the block will be used (GSHMEM_MALLOC_*, OR-ed); 0 is
 * gshmem_malloc.  Accepted and, today, not needed: every block serves every use. */
#define GSHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define GSHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)
GSHMEM_API void *gshmem_malloc_with_hints(size_t size, long hints);
GSHMEMI_HD_API void *gshmem_ptr(const void *dest, int pe);
GSHMEM_API int gshmem_addr_accessible(const void *addr, int pe);
GSHMEM_API int gshmem_pe_accessible(int pe);

/* ---- RMA ------------------------------------------------------------
 * GSHMEM_FOR_RMA_OPS for each type (gshmem_int_put), each size (the sized
 * forms, gshmem_put32) and the mem forms (gshmem_putmem, nelems in bytes).
 * A typed family's declarations take their qualifier first: GSHMEMI_HD_API
 * (host, and kernels where gshmem_device.cuh defines them) for the types of
 * GSHMEM_FOR_<FAMILY>_TYPES, GSHMEM_API (host only) for those of
 * GSHMEM_FOR_<FAMILY>_HOST_TYPES. */

#define GSHMEMI_DECL_RMA_PUT(API, F, T) \
    API void F(T *dest, const T *source, size_t nelems, int pe);
#define GSHMEMI_DECL_RMA_GET(API, F, T) GSHMEMI_DECL_RMA_PUT(API, F, T)
#define GSHMEMI_DECL_RMA_P(API, F, T) API void F(T *dest, T value, int pe);
#define GSHMEMI_DECL_RMA_G(API, F, T) API T F(const T *source, int pe);
#define GSHMEMI_DECL_RMA_IPUT(API, F, T)                                                \
    API void F(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
               int pe);
#define GSHMEMI_DECL_RMA_IGET(API, F, T) GSHMEMI_DECL_RMA_IPUT(API, F, T)
#define GSHMEMI_DECL_RMA_PUT_SIGNAL(API, F, T)                                          \
    API void F(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,            \
               uint64_t signal, int sig_op, int pe);

#define GSHMEMI_DECL_RMA_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    GSHMEMI_DECL_RMA_##SHAPE(GSHMEMI_HD_API, gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DECL_RMA_HOST_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    GSHMEMI_DECL_RMA_##SHAPE(GSHMEM_API, gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DECL_RMA(NAME, TYPE, G) GSHMEM_FOR_RMA_OPS(GSHMEMI_DECL_RMA_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_RMA_HOST(NAME, TYPE, G) \
    GSHMEM_FOR_RMA_OPS(GSHMEMI_DECL_RMA_HOST_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DECL_RMA)
GSHMEM_FOR_RMA_HOST_TYPES(GSHMEMI_DECL_RMA_HOST)

#define GSHMEMI_DECL_RMA_SIZED_OP(STEM, TAIL, SHAPE, NBI, BITS, TYPE) \
    GSHMEMI_RMA_SIZED_##SHAPE(                                         \
        NBI, GSHMEMI_DECL_RMA_##SHAPE(GSHMEMI_HD_API, gshmem_##STEM##BITS##TAIL, void))
#define GSHMEMI_DECL_RMA_SIZED(BITS, TYPE) GSHMEM_FOR_RMA_OPS(GSHMEMI_DECL_RMA_SIZED_OP, BITS, TYPE)
GSHMEM_FOR_RMA_SIZES(GSHMEMI_DECL_RMA_SIZED)

#define GSHMEMI_DECL_RMA_MEM(STEM, TAIL, SHAPE, NBI, A, B) \
    GSHMEMI_RMA_MEM_##SHAPE(                                \
        NBI, GSHMEMI_DECL_RMA_##SHAPE(GSHMEMI_HD_API, gshmem_##STEM##mem##TAIL, void))
GSHMEM_FOR_RMA_OPS(GSHMEMI_DECL_RMA_MEM, , )

#undef GSHMEMI_DECL_RMA_MEM
#undef GSHMEMI_DECL_RMA_SIZED
#undef GSHMEMI_DECL_RMA_SIZED_OP
#undef GSHMEMI_DECL_RMA_HOST
#undef GSHMEMI_DECL_RMA
#undef GSHMEMI_DECL_RMA_HOST_TYPED
#undef GSHMEMI_DECL_RMA_TYPED

/* ---- signals ---------------------------------------------------------- */

GSHMEMI_HD_API uint64_t gshmem_signal_fetch(const uint64_t *sig_addr);
GSHMEMI_HD_API uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomics ----------------------------------------------------------
 * GSHMEM_FOR_AMO_{EXTENDED,STANDARD,BITWISE}_OPS for each type of the type
 * table of the same name (gshmem_int_atomic_fetch_add). */

#define GSHMEMI_DECL_AMO_FETCH(F, T) GSHMEMI_HD_API T F(const T *source, int pe);
#define GSHMEMI_DECL_AMO_OP(F, T) GSHMEMI_HD_API void F(T *dest, T value, int pe);
#define GSHMEMI_DECL_AMO_FETCH_OP(F, T) GSHMEMI_HD_API T F(T *dest, T value, int pe);
#define GSHMEMI_DECL_AMO_CSWAP(F, T) GSHMEMI_HD_API T F(T *dest, T cond, T value, int pe);
#define GSHMEMI_DECL_AMO_INC(F, T) GSHMEMI_HD_API void F(T *dest, int pe);
#define GSHMEMI_DECL_AMO_FETCH_INC(F, T) GSHMEMI_HD_API T F(T *dest, int pe);

#define GSHMEMI_DECL_AMO_TYPED(STEM, TAIL, SHAPE, AMO, NAME, TYPE) \
    GSHMEMI_DECL_AMO_##SHAPE(gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DECL_AMO_EXTENDED(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_EXTENDED_OPS(GSHMEMI_DECL_AMO_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_AMO_STANDARD(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_STANDARD_OPS(GSHMEMI_DECL_AMO_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_AMO_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_BITWISE_OPS(GSHMEMI_DECL_AMO_TYPED, NAME, TYPE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_DECL_AMO_EXTENDED)
GSHMEM_FOR_AMO_STANDARD_TYPES(GSHMEMI_DECL_AMO_STANDARD)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_DECL_AMO_BITWISE)
#undef GSHMEMI_DECL_AMO_BITWISE
#undef GSHMEMI_DECL_AMO_STANDARD
#undef GSHMEMI_DECL_AMO_EXTENDED
#undef GSHMEMI_DECL_AMO_TYPED

/* The fetching atomics' nbi forms (GSHMEMI_AMO_NBI_<SHAPE>), host only:
 * gshmem_int_atomic_fetch_add_nbi(fetch, dest, value, pe). */
#define GSHMEMI_DECL_AMO_NBI_FETCH(F, T) GSHMEM_API void F(T *fetch, const T *source, int pe);
#define GSHMEMI_DECL_AMO_NBI_FETCH_OP(F, T) GSHMEM_API void F(T *fetch, T *dest, T value, int pe);
#define GSHMEMI_DECL_AMO_NBI_CSWAP(F, T) \
    GSHMEM_API void F(T *fetch, T *dest, T cond, T value, int pe);
#define GSHMEMI_DECL_AMO_NBI_FETCH_INC(F, T) GSHMEM_API void F(T *fetch, T *dest, int pe);
#define GSHMEMI_DECL_AMO_NBI_TYPED(STEM, TAIL, SHAPE, AMO, NAME, TYPE) \
    GSHMEMI_AMO_NBI_##SHAPE(GSHMEMI_DECL_AMO_NBI_##SHAPE(gshmem_##NAME##_##STEM##TAIL##_nbi, TYPE))
#define GSHMEMI_DECL_AMO_NBI_EXTENDED(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_EXTENDED_OPS(GSHMEMI_DECL_AMO_NBI_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_AMO_NBI_STANDARD(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_STANDARD_OPS(GSHMEMI_DECL_AMO_NBI_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_AMO_NBI_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_BITWISE_OPS(GSHMEMI_DECL_AMO_NBI_TYPED, NAME, TYPE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_DECL_AMO_NBI_EXTENDED)
GSHMEM_FOR_AMO_STANDARD_TYPES(GSHMEMI_DECL_AMO_NBI_STANDARD)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_DECL_AMO_NBI_BITWISE)
#undef GSHMEMI_DECL_AMO_NBI_BITWISE
#undef GSHMEMI_DECL_AMO_NBI_STANDARD
#undef GSHMEMI_DECL_AMO_NBI_EXTENDED
#undef GSHMEMI_DECL_AMO_NBI_TYPED

/* Distributed locks: lock is a symmetric long, 0 (free) when first used;
 * the lock word is PE 0's copy.  set blocks until this PE holds the lock,
 * test takes it if free (0) or returns 1, clear completes this PE's
 * operations (quiet) and frees it. */
GSHMEM_API void gshmem_set_lock(long *lock);
GSHMEM_API void gshmem_clear_lock(long *lock);
GSHMEM_API int gshmem_test_lock(long *lock);

/* ---- point-to-point synchronisation -------------------------------------
 * GSHMEM_FOR_P2P_SYNC_OPS for each type (gshmem_int_wait_until_any). */

/* What ONE and ALL return: nothing from a wait, from a test whether the
 * comparison holds. */
#define GSHMEMI_SYNC_RESULT_0 void
#define GSHMEMI_SYNC_RESULT_1 int
#define GSHMEMI_DECL_SYNC_ONE(F, T, NBI) \
    GSHMEMI_HD_API GSHMEMI_SYNC_RESULT_##NBI F(T *ivar, int cmp, T cmp_value);
#define GSHMEMI_DECL_SYNC_ALL(F, T, NBI)                                                  \
    GSHMEMI_HD_API GSHMEMI_SYNC_RESULT_##NBI F(T *ivars, size_t nelems, const int *status, \
                                               int cmp, T cmp_value);
#define GSHMEMI_DECL_SYNC_ANY(F, T, NBI) \
    GSHMEMI_HD_API size_t F(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);
#define GSHMEMI_DECL_SYNC_SOME(F, T, NBI)                                                 \
    GSHMEMI_HD_API size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,  \
                            int cmp, T cmp_value);
#define GSHMEMI_DECL_SYNC_ALL_VECTOR(F, T, NBI)                                           \
    GSHMEMI_HD_API GSHMEMI_SYNC_RESULT_##NBI F(T *ivars, size_t nelems, const int *status, \
                                               int cmp, const T *cmp_values);
#define GSHMEMI_DECL_SYNC_ANY_VECTOR(F, T, NBI)                                           \
    GSHMEMI_HD_API size_t F(T *ivars, size_t nelems, const int *status, int cmp,          \
                            const T *cmp_values);
#define GSHMEMI_DECL_SYNC_SOME_VECTOR(F, T, NBI)                                          \
    GSHMEMI_HD_API size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,  \
                            int cmp, const T *cmp_values);

#define GSHMEMI_DECL_SYNC_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    GSHMEMI_DECL_SYNC_##SHAPE(gshmem_##NAME##_##STEM##TAIL, TYPE, NBI)
#define GSHMEMI_DECL_SYNC(NAME, TYPE, G) \
    GSHMEM_FOR_P2P_SYNC_OPS(GSHMEMI_DECL_SYNC_TYPED, NAME, TYPE)
GSHMEM_FOR_P2P_SYNC_TYPES(GSHMEMI_DECL_SYNC)
#undef GSHMEMI_DECL_SYNC
#undef GSHMEMI_DECL_SYNC_TYPED

/* ---- ordering and collective synchronisation -------------------------- */

GSHMEMI_HD_API void gshmem_fence(void);
GSHMEMI_HD_API void gshmem_quiet(void);
GSHMEMI_HD_API void gshmem_barrier_all(void);
GSHMEMI_HD_API void gshmem_sync_all(void);

/* ---- teams -------------------------------------------------------------- */

/* A team's handle: the same number on every member. */
typedef int32_t gshmem_team_t;
#define GSHMEM_TEAM_INVALID ((gshmem_team_t)-1)
#define GSHMEM_TEAM_WORLD ((gshmem_team_t)0)
#define GSHMEM_TEAM_SHARED ((gshmem_team_t)1)           /* PEs that map each other's heaps */
#define GSHMEMX_TEAM_NODE ((gshmem_team_t)2)            /* the PEs of this node */
#define GSHMEMX_TEAM_SAME_MYPE_NODE ((gshmem_team_t)3)  /* one PE a node: those of this PE's
                                                         * rank within its node */

typedef struct {
    int num_contexts;
} gshmem_team_config_t;
#define GSHMEM_TEAM_NUM_CONTEXTS (1L << 0)

GSHMEMI_HD_API int gshmem_team_my_pe(gshmem_team_t team);
GSHMEMI_HD_API int gshmem_team_n_pes(gshmem_team_t team);
GSHMEMI_HD_API int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe,
                                        gshmem_team_t dest_team);
GSHMEM_API int gshmem_team_get_config(gshmem_team_t team, long config_mask,
                                      gshmem_team_config_t *config);
/* start, stride and size name PEs of the parent team (not of the world). */
GSHMEM_API int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride,
                                         int size, const gshmem_team_config_t *config,
                                         long config_mask, gshmem_team_t *new_team);
GSHMEM_API int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange,
                                    const gshmem_team_config_t *xaxis_config, long xaxis_mask,
                                    gshmem_team_t *xaxis_team,
                                    const gshmem_team_config_t *yaxis_config, long yaxis_mask,
                                    gshmem_team_t *yaxis_team);
/* Collective over the team's members; of GSHMEM_TEAM_INVALID, no operation.
 * The team's stream-ordered collectives must have completed first (it does
 * not wait for the application's streams), and no CUDA graph that captured
 * them may be replayed after. */
GSHMEM_API void gshmem_team_destroy(gshmem_team_t team);
GSHMEMI_HD_API void *gshmem_team_ptr(gshmem_team_t team, const void *dest, int pe);
GSHMEMI_HD_API int gshmem_team_sync(gshmem_team_t team);
GSHMEMI_HD_API int gshmem_barrier(gshmem_team_t team);

/* ---- contexts ------------------------------------------------------------
 * A context is an ordering and completion scope for a thread's operations:
 * gshmem_ctx_quiet and gshmem_ctx_fence act on it.  Today every context
 * shares the default one's resources, so quiet on any context completes all
 * of this PE's operations (a superset of the context's); the typed
 * operations of OpenSHMEM's context forms are gshmem's own (shmem.h). */
struct gshmemi_ctx {
    long options;       /* GSHMEM_CTX_* as created */
    gshmem_team_t team; /* the team the context's PE numbers are of */
    uint32_t magic;     /* tells a live context from a destroyed one */
};
typedef struct gshmemi_ctx *gshmem_ctx_t;
GSHMEM_API extern struct gshmemi_ctx gshmemi_ctx_default;
#define GSHMEM_CTX_DEFAULT (&gshmemi_ctx_default)
#define GSHMEM_CTX_INVALID ((gshmem_ctx_t)0)
#define GSHMEM_CTX_SERIALIZED (1L << 0)
#define GSHMEM_CTX_PRIVATE (1L << 1)
#define GSHMEM_CTX_NOSTORE (1L << 2)

/* 0, or nonzero with *ctx GSHMEM_CTX_INVALID (never on valid input today). */
GSHMEM_API int gshmem_ctx_create(long options, gshmem_ctx_t *ctx);
GSHMEM_API int gshmem_team_create_ctx(gshmem_team_t team, long options, gshmem_ctx_t *ctx);
GSHMEM_API void gshmem_ctx_destroy(gshmem_ctx_t ctx);
GSHMEM_API int gshmem_ctx_get_team(gshmem_ctx_t ctx, gshmem_team_t *team);
GSHMEM_API void gshmem_ctx_quiet(gshmem_ctx_t ctx);
GSHMEM_API void gshmem_ctx_fence(gshmem_ctx_t ctx);
/* Ends the job: call (a context form, such as shmem.h's) was given
 * GSHMEM_CTX_INVALID. */
GSHMEM_API void gshmemi_ctx_invalid(const char *call) __attribute__((noreturn, cold));

/* ---- collectives ------------------------------------------------------- */

/* As RMA's, the qualifier first. */
#define GSHMEMI_DECL_COLL_BROADCAST(API, F, T) \
    API int F(gshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root);
#define GSHMEMI_DECL_COLL_FCOLLECT(API, F, T) \
    API int F(gshmem_team_t team, T *dest, const T *source, size_t nelems);
#define GSHMEMI_DECL_COLL_COLLECT(API, F, T) GSHMEMI_DECL_COLL_FCOLLECT(API, F, T)
#define GSHMEMI_DECL_COLL_ALLTOALL(API, F, T) GSHMEMI_DECL_COLL_FCOLLECT(API, F, T)
#define GSHMEMI_DECL_COLL_ALLTOALLS(API, F, T)                                              \
    API int F(gshmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
              size_t nelems);
#define GSHMEMI_DECL_COLL_TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    GSHMEMI_DECL_COLL_##SHAPE(GSHMEMI_HD_API, gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DECL_COLL_HOST_TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    GSHMEMI_DECL_COLL_##SHAPE(GSHMEM_API, gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DECL_COLL(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(GSHMEMI_DECL_COLL_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_COLL_HOST(NAME, TYPE, G) \
    GSHMEM_FOR_COLL_OPS(GSHMEMI_DECL_COLL_HOST_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DECL_COLL)
GSHMEM_FOR_RMA_HOST_TYPES(GSHMEMI_DECL_COLL_HOST)
#define GSHMEMI_DECL_COLL_MEM(STEM, TAIL, SHAPE, V, A, B) \
    GSHMEMI_DECL_COLL_##SHAPE(GSHMEMI_HD_API, gshmem_##STEM##mem##TAIL, void)
GSHMEM_FOR_COLL_OPS(GSHMEMI_DECL_COLL_MEM, , )
#undef GSHMEMI_DECL_COLL_MEM
#undef GSHMEMI_DECL_COLL_HOST
#undef GSHMEMI_DECL_COLL

#define GSHMEMI_DECL_REDUCE_REDUCE(API, F, T) \
    API int F(gshmem_team_t team, T *dest, const T *source, size_t nreduce);
#define GSHMEMI_DECL_REDUCE_REDUCESCATTER(API, F, T) GSHMEMI_DECL_REDUCE_REDUCE(API, F, T)
#define GSHMEMI_DECL_REDUCE_INSCAN(API, F, T) \
    API int F(gshmem_team_t team, T *dest, const T *source, size_t nelems);
#define GSHMEMI_DECL_REDUCE_EXSCAN(API, F, T) GSHMEMI_DECL_REDUCE_INSCAN(API, F, T)
#define GSHMEMI_DECL_REDUCE_TYPED(STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    GSHMEMI_DECL_REDUCE_##SHAPE(GSHMEMI_HD_API, gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DECL_REDUCE_HOST_TYPED(STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    GSHMEMI_DECL_REDUCE_##SHAPE(GSHMEM_API, gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DECL_REDUCE_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(GSHMEMI_DECL_REDUCE_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_REDUCE_ARITH(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(GSHMEMI_DECL_REDUCE_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_REDUCE_ARITH_HOST(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(GSHMEMI_DECL_REDUCE_HOST_TYPED, NAME, TYPE)
#define GSHMEMI_DECL_REDUCE_COMPLEX_HOST(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_COMPLEX_OPS(GSHMEMI_DECL_REDUCE_HOST_TYPED, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(GSHMEMI_DECL_REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(GSHMEMI_DECL_REDUCE_ARITH)
GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(GSHMEMI_DECL_REDUCE_ARITH_HOST)
GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(GSHMEMI_DECL_REDUCE_COMPLEX_HOST)
#undef GSHMEMI_DECL_REDUCE_BITWISE
#undef GSHMEMI_DECL_REDUCE_ARITH
#undef GSHMEMI_DECL_REDUCE_ARITH_HOST
#undef GSHMEMI_DECL_REDUCE_COMPLEX_HOST

/* ---- active-set collectives (OpenSHMEM 1.5's deprecated forms) -------------
 * Host only.  Called by the PEs of the active set alone, PE_start + i *
 * 2^logPE_stride for i < PE_size (world PE numbers, all in the job), each
 * passing the same triplet and the same pSync: a symmetric array of
 * GSHMEM_SYNC_SIZE longs, every element GSHMEM_SYNC_VALUE before the first
 * call (and again when each call returns).  Consecutive calls by the same
 * active set may reuse pSync; another active set may use it once every
 * PE of the earlier one has returned.  The data collectives take nelems
 * elements of 32 or 64 bits (GSHMEM_FOR_ACTIVE_SET_SIZES) and move as
 * GSHMEM_FOR_COLL_OPS's rows, except that broadcast leaves the root's dest
 * alone and PE_root is an index in the active set.  The reductions
 * (GSHMEM_FOR_TO_ALL_*) take pWrk, symmetric work space of
 * max(nreduce / 2 + 1, GSHMEM_REDUCE_MIN_WRKDATA_SIZE) elements, which
 * gshmem does not use.  gshmem_barrier names the team barrier, so the
 * active set's is gshmemx_barrier_active_set: every PE's earlier
 * operations are complete (quiet), then it meets the others. */
#define GSHMEM_SYNC_VALUE 0L
#define GSHMEM_SYNC_SIZE 64
#define GSHMEM_REDUCE_MIN_WRKDATA_SIZE 1

GSHMEM_API void gshmemx_barrier_active_set(int PE_start, int logPE_stride, int PE_size,
                                           long *pSync);
/* The same without the quiet (OpenSHMEM's deprecated active-set shmem_sync). */
GSHMEM_API void gshmemx_sync_active_set(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define GSHMEMI_DECL_ACTIVE_SET_BROADCAST(F)                                               \
    GSHMEM_API void F(void *dest, const void *source, size_t nelems, int PE_root,          \
                      int PE_start, int logPE_stride, int PE_size, long *pSync);
#define GSHMEMI_DECL_ACTIVE_SET_FCOLLECT(F)                                                \
    GSHMEM_API void F(void *dest, const void *source, size_t nelems, int PE_start,         \
                      int logPE_stride, int PE_size, long *pSync);
#define GSHMEMI_DECL_ACTIVE_SET_COLLECT(F) GSHMEMI_DECL_ACTIVE_SET_FCOLLECT(F)
#define GSHMEMI_DECL_ACTIVE_SET_ALLTOALL(F) GSHMEMI_DECL_ACTIVE_SET_FCOLLECT(F)
#define GSHMEMI_DECL_ACTIVE_SET_ALLTOALLS(F)                                               \
    GSHMEM_API void F(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                      size_t nelems, int PE_start, int logPE_stride, int PE_size,          \
                      long *pSync);
#define GSHMEMI_DECL_ACTIVE_SET_OP(STEM, TAIL, SHAPE, V, BITS, TYPE) \
    GSHMEMI_DECL_ACTIVE_SET_##SHAPE(gshmem_##STEM##BITS##TAIL)
#define GSHMEMI_DECL_ACTIVE_SET(BITS, TYPE) \
    GSHMEM_FOR_COLL_OPS(GSHMEMI_DECL_ACTIVE_SET_OP, BITS, TYPE)
GSHMEM_FOR_ACTIVE_SET_SIZES(GSHMEMI_DECL_ACTIVE_SET)
#undef GSHMEMI_DECL_ACTIVE_SET
#undef GSHMEMI_DECL_ACTIVE_SET_OP

#define GSHMEMI_DECL_TO_ALL(STEM, TAIL, SHAPE, OP, NAME, TYPE)                              \
    GSHMEM_API void gshmem_##NAME##_##STEM##TAIL(TYPE *dest, const TYPE *source, int nreduce, \
                                                 int PE_start, int logPE_stride,           \
                                                 int PE_size, TYPE *pWrk, long *pSync);
#define GSHMEMI_DECL_TO_ALL_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_BITWISE_OPS(GSHMEMI_DECL_TO_ALL, NAME, TYPE)
#define GSHMEMI_DECL_TO_ALL_MINMAX(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_MINMAX_OPS(GSHMEMI_DECL_TO_ALL, NAME, TYPE)
#define GSHMEMI_DECL_TO_ALL_SUMPROD(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_SUMPROD_OPS(GSHMEMI_DECL_TO_ALL, NAME, TYPE)
GSHMEM_FOR_TO_ALL_BITWISE_TYPES(GSHMEMI_DECL_TO_ALL_BITWISE)
GSHMEM_FOR_TO_ALL_MINMAX_TYPES(GSHMEMI_DECL_TO_ALL_MINMAX)
GSHMEM_FOR_TO_ALL_SUMPROD_TYPES(GSHMEMI_DECL_TO_ALL_SUMPROD)
GSHMEM_FOR_TO_ALL_MINMAX_HOST_TYPES(GSHMEMI_DECL_TO_ALL_MINMAX)
GSHMEM_FOR_TO_ALL_SUMPROD_HOST_TYPES(GSHMEMI_DECL_TO_ALL_SUMPROD)
#undef GSHMEMI_DECL_TO_ALL_BITWISE
#undef GSHMEMI_DECL_TO_ALL_MINMAX
#undef GSHMEMI_DECL_TO_ALL_SUMPROD
#undef GSHMEMI_DECL_TO_ALL

#ifdef __cplusplus
}
#endif

/* ---- C11 generic forms (OpenSHMEM 1.5) -------------------------------- */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* The call's function: _Generic over *(x), each type of GSHMEMI_<TYPES>_TYPES
 * with G 1 selecting gshmem_<type>_<OP> (RMA_ALL: the RMA types and the
 * host-only ones).  (OP is pasted before it travels, so that an
 * application's macro named like an operation, p or g, cannot change it.)
 * A macro does not expand inside its own expansion, so these forms cannot
 * be used within an expansion of a type table they select from
 * (GSHMEM_FOR_RMA_TYPES for gshmem_put): use the typed names there. */
#define GSHMEMI_GENERIC(TYPES, OP, x) \
    _Generic(*(x), GSHMEMI_##TYPES##_TYPES(GSHMEMI_GENERIC_ASSOC, _##OP) GSHMEMI_GENERIC_DEFAULT)
#define GSHMEMI_GENERIC_ASSOC(NAME, TYPE, G, SUFFIX) \
    GSHMEMI_IF_GENERIC(G, TYPE: gshmem_##NAME##SUFFIX, )

/* Unmatched types select this, which is never defined: a link error names it. */
void gshmemi_generic_type_not_supported(void);
#define GSHMEMI_GENERIC_DEFAULT default: gshmemi_generic_type_not_supported

/* One for each row of the operation tables (a macro cannot define macros);
 * tests/install/generic.c calls each row's. */
#define gshmem_put(dest, ...) GSHMEMI_GENERIC(RMA_ALL, put, dest)(dest, __VA_ARGS__)
#define gshmem_put_nbi(dest, ...) GSHMEMI_GENERIC(RMA_ALL, put_nbi, dest)(dest, __VA_ARGS__)
#define gshmem_get(dest, ...) GSHMEMI_GENERIC(RMA_ALL, get, dest)(dest, __VA_ARGS__)
#define gshmem_get_nbi(dest, ...) GSHMEMI_GENERIC(RMA_ALL, get_nbi, dest)(dest, __VA_ARGS__)
#define gshmem_p(dest, ...) GSHMEMI_GENERIC(RMA_ALL, p, dest)(dest, __VA_ARGS__)
#define gshmem_g(source, ...) GSHMEMI_GENERIC(RMA_ALL, g, source)(source, __VA_ARGS__)
#define gshmem_iput(dest, ...) GSHMEMI_GENERIC(RMA_ALL, iput, dest)(dest, __VA_ARGS__)
#define gshmem_iget(dest, ...) GSHMEMI_GENERIC(RMA_ALL, iget, dest)(dest, __VA_ARGS__)
#define gshmem_put_signal(dest, ...) GSHMEMI_GENERIC(RMA_ALL, put_signal, dest)(dest, __VA_ARGS__)
#define gshmem_put_signal_nbi(dest, ...) \
    GSHMEMI_GENERIC(RMA_ALL, put_signal_nbi, dest)(dest, __VA_ARGS__)

#define gshmem_atomic_fetch(source, ...) \
    GSHMEMI_GENERIC(AMO_EXTENDED, atomic_fetch, source)(source, __VA_ARGS__)
#define gshmem_atomic_set(dest, ...) \
    GSHMEMI_GENERIC(AMO_EXTENDED, atomic_set, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_swap(dest, ...) \
    GSHMEMI_GENERIC(AMO_EXTENDED, atomic_swap, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_compare_swap(dest, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_compare_swap, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_inc(dest, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_fetch_inc, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_inc(dest, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_inc, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_add(dest, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_fetch_add, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_add(dest, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_add, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_and(dest, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_fetch_and, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_and(dest, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_and, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_or(dest, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_fetch_or, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_or(dest, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_or, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_xor(dest, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_fetch_xor, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_xor(dest, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_xor, dest)(dest, __VA_ARGS__)

#define gshmem_atomic_fetch_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_EXTENDED, atomic_fetch_nbi, fetch)(fetch, __VA_ARGS__)
#define gshmem_atomic_swap_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_EXTENDED, atomic_swap_nbi, fetch)(fetch, __VA_ARGS__)
#define gshmem_atomic_compare_swap_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_compare_swap_nbi, fetch)(fetch, __VA_ARGS__)
#define gshmem_atomic_fetch_inc_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_fetch_inc_nbi, fetch)(fetch, __VA_ARGS__)
#define gshmem_atomic_fetch_add_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_STANDARD, atomic_fetch_add_nbi, fetch)(fetch, __VA_ARGS__)
#define gshmem_atomic_fetch_and_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_fetch_and_nbi, fetch)(fetch, __VA_ARGS__)
#define gshmem_atomic_fetch_or_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_fetch_or_nbi, fetch)(fetch, __VA_ARGS__)
#define gshmem_atomic_fetch_xor_nbi(fetch, ...) \
    GSHMEMI_GENERIC(AMO_BITWISE, atomic_fetch_xor_nbi, fetch)(fetch, __VA_ARGS__)

#define gshmem_wait_until(ivar, ...) GSHMEMI_GENERIC(P2P_SYNC, wait_until, ivar)(ivar, __VA_ARGS__)
#define gshmem_wait_until_all(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, wait_until_all, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_any(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, wait_until_any, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_some(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, wait_until_some, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_all_vector(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, wait_until_all_vector, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_any_vector(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, wait_until_any_vector, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_some_vector(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, wait_until_some_vector, ivars)(ivars, __VA_ARGS__)
#define gshmem_test(ivar, ...) GSHMEMI_GENERIC(P2P_SYNC, test, ivar)(ivar, __VA_ARGS__)
#define gshmem_test_all(ivars, ...) GSHMEMI_GENERIC(P2P_SYNC, test_all, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_any(ivars, ...) GSHMEMI_GENERIC(P2P_SYNC, test_any, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_some(ivars, ...) GSHMEMI_GENERIC(P2P_SYNC, test_some, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_all_vector(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, test_all_vector, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_any_vector(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, test_any_vector, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_some_vector(ivars, ...) \
    GSHMEMI_GENERIC(P2P_SYNC, test_some_vector, ivars)(ivars, __VA_ARGS__)

#endif /* C11 generic forms */

#endif /* GSHMEM_H */
