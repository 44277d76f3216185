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

/* ---- symmetric heap ---------------------------------------------------- */

GSHMEM_API void *gshmem_malloc(size_t size);
GSHMEM_API void *gshmem_calloc(size_t count, size_t size);
GSHMEM_API void *gshmem_align(size_t alignment, size_t size);
GSHMEM_API void *gshmem_realloc(void *ptr, size_t size);
GSHMEM_API void gshmem_free(void *ptr);
GSHMEMI_HD_API void *gshmem_ptr(const void *dest, int pe);
GSHMEM_API int gshmem_addr_accessible(const void *addr, int pe);
GSHMEM_API int gshmem_pe_accessible(int pe);

/* ---- RMA ------------------------------------------------------------ */

#define GSHMEMI_DECL_RMA(NAME, TYPE, G)                                                    \
    GSHMEMI_HD_API void gshmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems,     \
                                        int pe);                                           \
    GSHMEMI_HD_API void gshmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, \
                                            int pe);                                       \
    GSHMEMI_HD_API void gshmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems,     \
                                        int pe);                                           \
    GSHMEMI_HD_API void gshmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, \
                                            int pe);                                       \
    GSHMEMI_HD_API void gshmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                     \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_g(const TYPE *source, int pe);                         \
    GSHMEMI_HD_API void gshmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst,    \
                                         ptrdiff_t sst, size_t nelems, int pe);            \
    GSHMEMI_HD_API void gshmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst,    \
                                         ptrdiff_t sst, size_t nelems, int pe);            \
    GSHMEMI_HD_API void gshmem_##NAME##_put_signal(TYPE *dest, const TYPE *source,             \
                                               size_t nelems, uint64_t *sig_addr,          \
                                               uint64_t signal, int sig_op, int pe);       \
    GSHMEMI_HD_API void gshmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source,         \
                                                   size_t nelems, uint64_t *sig_addr,      \
                                                   uint64_t signal, int sig_op, int pe);
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DECL_RMA)
#undef GSHMEMI_DECL_RMA

#define GSHMEMI_DECL_RMA_SIZED(BITS, TYPE)                                                 \
    GSHMEMI_HD_API void gshmem_put##BITS(void *dest, const void *source, size_t nelems,        \
                                     int pe);                                              \
    GSHMEMI_HD_API void gshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems,  \
                                           int pe);                                        \
    GSHMEMI_HD_API void gshmem_get##BITS(void *dest, const void *source, size_t nelems,        \
                                     int pe);                                              \
    GSHMEMI_HD_API void gshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems,  \
                                           int pe);                                        \
    GSHMEMI_HD_API void gshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst,       \
                                      ptrdiff_t sst, size_t nelems, int pe);               \
    GSHMEMI_HD_API void gshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst,       \
                                      ptrdiff_t sst, size_t nelems, int pe);               \
    GSHMEMI_HD_API void gshmem_put##BITS##_signal(void *dest, const void *source,              \
                                              size_t nelems, uint64_t *sig_addr,           \
                                              uint64_t signal, int sig_op, int pe);        \
    GSHMEMI_HD_API void gshmem_put##BITS##_signal_nbi(void *dest, const void *source,          \
                                                  size_t nelems, uint64_t *sig_addr,       \
                                                  uint64_t signal, int sig_op, int pe);
GSHMEM_FOR_RMA_SIZES(GSHMEMI_DECL_RMA_SIZED)
#undef GSHMEMI_DECL_RMA_SIZED

GSHMEMI_HD_API void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe);
GSHMEMI_HD_API void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
GSHMEMI_HD_API void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe);
GSHMEMI_HD_API void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
GSHMEMI_HD_API void gshmem_putmem_signal(void *dest, const void *source, size_t nelems,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
GSHMEMI_HD_API void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                         uint64_t *sig_addr, uint64_t signal, int sig_op,
                                         int pe);

/* ---- signals ---------------------------------------------------------- */

GSHMEMI_HD_API uint64_t gshmem_signal_fetch(const uint64_t *sig_addr);
GSHMEMI_HD_API uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomics ---------------------------------------------------------- */

#define GSHMEMI_DECL_AMO_EXTENDED(NAME, TYPE, G)                                     \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_fetch(const TYPE *source, int pe);        \
    GSHMEMI_HD_API void gshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);      \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_DECL_AMO_EXTENDED)
#undef GSHMEMI_DECL_AMO_EXTENDED

#define GSHMEMI_DECL_AMO_STANDARD(NAME, TYPE, G)                                         \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond,           \
                                                        TYPE value, int pe);             \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                \
    GSHMEMI_HD_API void gshmem_##NAME##_atomic_inc(TYPE *dest, int pe);                      \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);    \
    GSHMEMI_HD_API void gshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);
GSHMEM_FOR_AMO_STANDARD_TYPES(GSHMEMI_DECL_AMO_STANDARD)
#undef GSHMEMI_DECL_AMO_STANDARD

#define GSHMEMI_DECL_AMO_BITWISE(NAME, TYPE, G)                                        \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe);  \
    GSHMEMI_HD_API void gshmem_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe);        \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe);   \
    GSHMEMI_HD_API void gshmem_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe);         \
    GSHMEMI_HD_API TYPE gshmem_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe);  \
    GSHMEMI_HD_API void gshmem_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe);
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_DECL_AMO_BITWISE)
#undef GSHMEMI_DECL_AMO_BITWISE

/* ---- point-to-point synchronisation ----------------------------------- */

#define GSHMEMI_DECL_P2P_SYNC(NAME, TYPE, G)                                                 \
    GSHMEMI_HD_API void gshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);         \
    GSHMEMI_HD_API void gshmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,               \
                                                   const int *status, int cmp,               \
                                                   TYPE cmp_value);                          \
    GSHMEMI_HD_API size_t gshmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,             \
                                                     const int *status, int cmp,             \
                                                     TYPE cmp_value);                        \
    GSHMEMI_HD_API size_t gshmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems,            \
                                                      size_t *indices, const int *status,    \
                                                      int cmp, TYPE cmp_value);              \
    GSHMEMI_HD_API void gshmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,        \
                                                          const int *status, int cmp,        \
                                                          const TYPE *cmp_values);           \
    GSHMEMI_HD_API size_t gshmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,      \
                                                            const int *status, int cmp,      \
                                                            const TYPE *cmp_values);         \
    GSHMEMI_HD_API size_t gshmem_##NAME##_wait_until_some_vector(                                \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,             \
        const TYPE *cmp_values);                                                             \
    GSHMEMI_HD_API int gshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                \
    GSHMEMI_HD_API int gshmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status,   \
                                            int cmp, TYPE cmp_value);                        \
    GSHMEMI_HD_API size_t gshmem_##NAME##_test_any(TYPE *ivars, size_t nelems,                   \
                                               const int *status, int cmp, TYPE cmp_value);  \
    GSHMEMI_HD_API size_t gshmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices, \
                                                const int *status, int cmp,                  \
                                                TYPE cmp_value);                             \
    GSHMEMI_HD_API int gshmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems,               \
                                                   const int *status, int cmp,               \
                                                   const TYPE *cmp_values);                  \
    GSHMEMI_HD_API size_t gshmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems,            \
                                                      const int *status, int cmp,            \
                                                      const TYPE *cmp_values);               \
    GSHMEMI_HD_API size_t gshmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems,           \
                                                       size_t *indices, const int *status,   \
                                                       int cmp, const TYPE *cmp_values);
GSHMEM_FOR_P2P_SYNC_TYPES(GSHMEMI_DECL_P2P_SYNC)
#undef GSHMEMI_DECL_P2P_SYNC

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
#define GSHMEM_TEAM_SHARED ((gshmem_team_t)1)           /* the PEs whose heap this PE maps */
#define GSHMEMX_TEAM_NODE ((gshmem_team_t)2)            /* the PEs of this node */
#define GSHMEMX_TEAM_SAME_MYPE_NODE ((gshmem_team_t)3)  /* one PE a node: those of this PE's
                                                         * rank within its node */

typedef struct {
    int num_contexts;
} gshmem_team_config_t;
#define GSHMEM_TEAM_NUM_CONTEXTS (1L << 0)

GSHMEM_API int gshmem_team_my_pe(gshmem_team_t team);
GSHMEM_API int gshmem_team_n_pes(gshmem_team_t team);
GSHMEM_API int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe,
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
GSHMEM_API void gshmem_team_destroy(gshmem_team_t team);
GSHMEM_API void *gshmem_team_ptr(gshmem_team_t team, const void *dest, int pe);
GSHMEM_API int gshmem_team_sync(gshmem_team_t team);
GSHMEM_API int gshmem_barrier(gshmem_team_t team);

#ifdef __cplusplus
}
#endif

/* ---- C11 generic forms (OpenSHMEM 1.5) -------------------------------- */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

#define GSHMEMI_GEN(NAME, TYPE, G, SUFFIX) GSHMEMI_IF_GENERIC(G, TYPE: gshmem_##NAME##_##SUFFIX, )
#define GSHMEMI_GEN_PUT(N, T, G) GSHMEMI_GEN(N, T, G, put)
#define GSHMEMI_GEN_PUT_NBI(N, T, G) GSHMEMI_GEN(N, T, G, put_nbi)
#define GSHMEMI_GEN_GET(N, T, G) GSHMEMI_GEN(N, T, G, get)
#define GSHMEMI_GEN_GET_NBI(N, T, G) GSHMEMI_GEN(N, T, G, get_nbi)
#define GSHMEMI_GEN_P(N, T, G) GSHMEMI_GEN(N, T, G, p)
#define GSHMEMI_GEN_G(N, T, G) GSHMEMI_GEN(N, T, G, g)
#define GSHMEMI_GEN_IPUT(N, T, G) GSHMEMI_GEN(N, T, G, iput)
#define GSHMEMI_GEN_IGET(N, T, G) GSHMEMI_GEN(N, T, G, iget)
#define GSHMEMI_GEN_PUT_SIGNAL(N, T, G) GSHMEMI_GEN(N, T, G, put_signal)
#define GSHMEMI_GEN_PUT_SIGNAL_NBI(N, T, G) GSHMEMI_GEN(N, T, G, put_signal_nbi)
#define GSHMEMI_GEN_FETCH(N, T, G) GSHMEMI_GEN(N, T, G, atomic_fetch)
#define GSHMEMI_GEN_SET(N, T, G) GSHMEMI_GEN(N, T, G, atomic_set)
#define GSHMEMI_GEN_SWAP(N, T, G) GSHMEMI_GEN(N, T, G, atomic_swap)
#define GSHMEMI_GEN_CSWAP(N, T, G) GSHMEMI_GEN(N, T, G, atomic_compare_swap)
#define GSHMEMI_GEN_FINC(N, T, G) GSHMEMI_GEN(N, T, G, atomic_fetch_inc)
#define GSHMEMI_GEN_INC(N, T, G) GSHMEMI_GEN(N, T, G, atomic_inc)
#define GSHMEMI_GEN_FADD(N, T, G) GSHMEMI_GEN(N, T, G, atomic_fetch_add)
#define GSHMEMI_GEN_ADD(N, T, G) GSHMEMI_GEN(N, T, G, atomic_add)
#define GSHMEMI_GEN_FAND(N, T, G) GSHMEMI_GEN(N, T, G, atomic_fetch_and)
#define GSHMEMI_GEN_AND(N, T, G) GSHMEMI_GEN(N, T, G, atomic_and)
#define GSHMEMI_GEN_FOR(N, T, G) GSHMEMI_GEN(N, T, G, atomic_fetch_or)
#define GSHMEMI_GEN_OR(N, T, G) GSHMEMI_GEN(N, T, G, atomic_or)
#define GSHMEMI_GEN_FXOR(N, T, G) GSHMEMI_GEN(N, T, G, atomic_fetch_xor)
#define GSHMEMI_GEN_XOR(N, T, G) GSHMEMI_GEN(N, T, G, atomic_xor)
#define GSHMEMI_GEN_WAIT(N, T, G) GSHMEMI_GEN(N, T, G, wait_until)
#define GSHMEMI_GEN_WAIT_ALL(N, T, G) GSHMEMI_GEN(N, T, G, wait_until_all)
#define GSHMEMI_GEN_WAIT_ANY(N, T, G) GSHMEMI_GEN(N, T, G, wait_until_any)
#define GSHMEMI_GEN_WAIT_SOME(N, T, G) GSHMEMI_GEN(N, T, G, wait_until_some)
#define GSHMEMI_GEN_WAIT_ALL_V(N, T, G) GSHMEMI_GEN(N, T, G, wait_until_all_vector)
#define GSHMEMI_GEN_WAIT_ANY_V(N, T, G) GSHMEMI_GEN(N, T, G, wait_until_any_vector)
#define GSHMEMI_GEN_WAIT_SOME_V(N, T, G) GSHMEMI_GEN(N, T, G, wait_until_some_vector)
#define GSHMEMI_GEN_TEST(N, T, G) GSHMEMI_GEN(N, T, G, test)
#define GSHMEMI_GEN_TEST_ALL(N, T, G) GSHMEMI_GEN(N, T, G, test_all)
#define GSHMEMI_GEN_TEST_ANY(N, T, G) GSHMEMI_GEN(N, T, G, test_any)
#define GSHMEMI_GEN_TEST_SOME(N, T, G) GSHMEMI_GEN(N, T, G, test_some)
#define GSHMEMI_GEN_TEST_ALL_V(N, T, G) GSHMEMI_GEN(N, T, G, test_all_vector)
#define GSHMEMI_GEN_TEST_ANY_V(N, T, G) GSHMEMI_GEN(N, T, G, test_any_vector)
#define GSHMEMI_GEN_TEST_SOME_V(N, T, G) GSHMEMI_GEN(N, T, G, test_some_vector)

/* Unmatched types select this, which is never defined: a link error names it. */
void gshmemi_generic_type_not_supported(void);
#define GSHMEMI_GENERIC_DEFAULT default: gshmemi_generic_type_not_supported

#define gshmem_put(dest, ...) \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_PUT) GSHMEMI_GENERIC_DEFAULT)(dest, __VA_ARGS__)
#define gshmem_put_nbi(dest, ...) \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_PUT_NBI) GSHMEMI_GENERIC_DEFAULT)(dest, __VA_ARGS__)
#define gshmem_get(dest, ...) \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_GET) GSHMEMI_GENERIC_DEFAULT)(dest, __VA_ARGS__)
#define gshmem_get_nbi(dest, ...) \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_GET_NBI) GSHMEMI_GENERIC_DEFAULT)(dest, __VA_ARGS__)
#define gshmem_p(dest, ...) \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_P) GSHMEMI_GENERIC_DEFAULT)(dest, __VA_ARGS__)
#define gshmem_g(source, ...) \
    _Generic(*(source), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_G) GSHMEMI_GENERIC_DEFAULT)(source, __VA_ARGS__)
#define gshmem_iput(dest, ...) \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_IPUT) GSHMEMI_GENERIC_DEFAULT)(dest, __VA_ARGS__)
#define gshmem_iget(dest, ...) \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_IGET) GSHMEMI_GENERIC_DEFAULT)(dest, __VA_ARGS__)
#define gshmem_put_signal(dest, ...)                                                          \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_PUT_SIGNAL) GSHMEMI_GENERIC_DEFAULT)(   \
        dest, __VA_ARGS__)
#define gshmem_put_signal_nbi(dest, ...)                                                         \
    _Generic(*(dest), GSHMEM_FOR_RMA_TYPES(GSHMEMI_GEN_PUT_SIGNAL_NBI) GSHMEMI_GENERIC_DEFAULT)( \
        dest, __VA_ARGS__)

#define GSHMEMI_AMO_EXT(F, d) \
    _Generic(*(d), GSHMEM_FOR_AMO_EXTENDED_TYPES(F) GSHMEMI_GENERIC_DEFAULT)
#define GSHMEMI_AMO_STD(F, d) \
    _Generic(*(d), GSHMEM_FOR_AMO_STANDARD_TYPES(F) GSHMEMI_GENERIC_DEFAULT)
#define GSHMEMI_AMO_BIT(F, d) \
    _Generic(*(d), GSHMEM_FOR_AMO_BITWISE_TYPES(F) GSHMEMI_GENERIC_DEFAULT)
#define gshmem_atomic_fetch(source, ...) GSHMEMI_AMO_EXT(GSHMEMI_GEN_FETCH, source)(source, __VA_ARGS__)
#define gshmem_atomic_set(dest, ...) GSHMEMI_AMO_EXT(GSHMEMI_GEN_SET, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_swap(dest, ...) GSHMEMI_AMO_EXT(GSHMEMI_GEN_SWAP, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_compare_swap(dest, ...) GSHMEMI_AMO_STD(GSHMEMI_GEN_CSWAP, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_inc(dest, ...) GSHMEMI_AMO_STD(GSHMEMI_GEN_FINC, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_inc(dest, ...) GSHMEMI_AMO_STD(GSHMEMI_GEN_INC, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_add(dest, ...) GSHMEMI_AMO_STD(GSHMEMI_GEN_FADD, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_add(dest, ...) GSHMEMI_AMO_STD(GSHMEMI_GEN_ADD, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_and(dest, ...) GSHMEMI_AMO_BIT(GSHMEMI_GEN_FAND, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_and(dest, ...) GSHMEMI_AMO_BIT(GSHMEMI_GEN_AND, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_or(dest, ...) GSHMEMI_AMO_BIT(GSHMEMI_GEN_FOR, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_or(dest, ...) GSHMEMI_AMO_BIT(GSHMEMI_GEN_OR, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_fetch_xor(dest, ...) GSHMEMI_AMO_BIT(GSHMEMI_GEN_FXOR, dest)(dest, __VA_ARGS__)
#define gshmem_atomic_xor(dest, ...) GSHMEMI_AMO_BIT(GSHMEMI_GEN_XOR, dest)(dest, __VA_ARGS__)

#define GSHMEMI_SYNC(F, d) _Generic(*(d), GSHMEM_FOR_P2P_SYNC_TYPES(F) GSHMEMI_GENERIC_DEFAULT)
#define gshmem_wait_until(ivar, ...) GSHMEMI_SYNC(GSHMEMI_GEN_WAIT, ivar)(ivar, __VA_ARGS__)
#define gshmem_wait_until_all(ivars, ...) GSHMEMI_SYNC(GSHMEMI_GEN_WAIT_ALL, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_any(ivars, ...) GSHMEMI_SYNC(GSHMEMI_GEN_WAIT_ANY, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_some(ivars, ...) GSHMEMI_SYNC(GSHMEMI_GEN_WAIT_SOME, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_all_vector(ivars, ...) \
    GSHMEMI_SYNC(GSHMEMI_GEN_WAIT_ALL_V, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_any_vector(ivars, ...) \
    GSHMEMI_SYNC(GSHMEMI_GEN_WAIT_ANY_V, ivars)(ivars, __VA_ARGS__)
#define gshmem_wait_until_some_vector(ivars, ...) \
    GSHMEMI_SYNC(GSHMEMI_GEN_WAIT_SOME_V, ivars)(ivars, __VA_ARGS__)
#define gshmem_test(ivar, ...) GSHMEMI_SYNC(GSHMEMI_GEN_TEST, ivar)(ivar, __VA_ARGS__)
#define gshmem_test_all(ivars, ...) GSHMEMI_SYNC(GSHMEMI_GEN_TEST_ALL, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_any(ivars, ...) GSHMEMI_SYNC(GSHMEMI_GEN_TEST_ANY, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_some(ivars, ...) GSHMEMI_SYNC(GSHMEMI_GEN_TEST_SOME, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_all_vector(ivars, ...) \
    GSHMEMI_SYNC(GSHMEMI_GEN_TEST_ALL_V, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_any_vector(ivars, ...) \
    GSHMEMI_SYNC(GSHMEMI_GEN_TEST_ANY_V, ivars)(ivars, __VA_ARGS__)
#define gshmem_test_some_vector(ivars, ...) \
    GSHMEMI_SYNC(GSHMEMI_GEN_TEST_SOME_V, ivars)(ivars, __VA_ARGS__)

#endif /* C11 generic forms */

#endif /* GSHMEM_H */
