/* The typed wait_until / test families, generated from the type and
 * operation tables. */
#include <gshmem.h>

#include "heap/heap.h"
#include "heap/static_data.h"
#include "sync/wait.h"

#define WAIT_DESC(TYPE, ivars_, n, st, cmp_, v, vals)                                    \
    {                                                                                    \
        .call = __func__, .ivars = (void *)(ivars_), .nelems = (n), .esize = sizeof(TYPE), \
        .is_signed = (TYPE)-1 < (TYPE)1, .status = (st), .cmp = (cmp_),                  \
        .value = (uint64_t)(v), .values = (vals), .access = gshmemi_sym_access(ivars_)  \
    }

/* cmp_values of the vector forms, checked. */
#define VEC(v) ((v) != NULL ? (const void *)(v) : gshmemi_wait_no_values(__func__))

/* Check the arguments, then wait until (NBI 0: gshmemi_wait_until) or test
 * whether (NBI 1: gshmemi_wait_test) the entries satisfy `mode`.  RUN
 * returns what the scan returns (an index, a count); RUN_ALL_<NBI> is for
 * mode ALL: nothing from a wait, 1 or 0 from a test. */
#define SCAN_0 gshmemi_wait_until
#define SCAN_1 gshmemi_wait_test
#define RUN(NBI, TYPE, mode, idx, ivars_, n, st, cmp_, v, vals)                          \
    do {                                                                                 \
        const struct gshmemi_wait w_ = WAIT_DESC(TYPE, ivars_, n, st, cmp_, v, vals);    \
        gshmemi_wait_check(&w_);                                                         \
        return SCAN_##NBI(&w_, mode, idx);                                               \
    } while (0)
#define RUN_ALL_0(TYPE, ivars_, n, st, cmp_, v, vals)                                    \
    do {                                                                                 \
        const struct gshmemi_wait w_ = WAIT_DESC(TYPE, ivars_, n, st, cmp_, v, vals);    \
        gshmemi_wait_check(&w_);                                                         \
        (void)gshmemi_wait_until(&w_, GSHMEMI_WAIT_ALL, NULL);                           \
    } while (0)
#define RUN_ALL_1(TYPE, ivars_, n, st, cmp_, v, vals)                                    \
    do {                                                                                 \
        const struct gshmemi_wait w_ = WAIT_DESC(TYPE, ivars_, n, st, cmp_, v, vals);    \
        gshmemi_wait_check(&w_);                                                         \
        return (int)gshmemi_wait_test(&w_, GSHMEMI_WAIT_ALL, NULL);                      \
    } while (0)

/* ---- GSHMEM_FOR_P2P_SYNC_OPS: one definition per shape (F the function,
 * T the type), NBI 1 for the tests. */

#define DEF_ONE(F, T, NBI)                                                                  \
    GSHMEM_API GSHMEMI_SYNC_RESULT_##NBI F(T *ivar, int cmp, T cmp_value)                   \
    {                                                                                       \
        RUN_ALL_##NBI(T, ivar, 1, NULL, cmp, cmp_value, NULL);                              \
    }
#define DEF_ALL(F, T, NBI)                                                                  \
    GSHMEM_API GSHMEMI_SYNC_RESULT_##NBI F(T *ivars, size_t nelems, const int *status,      \
                                           int cmp, T cmp_value)                            \
    {                                                                                       \
        RUN_ALL_##NBI(T, ivars, nelems, status, cmp, cmp_value, NULL);                      \
    }
#define DEF_ANY(F, T, NBI)                                                                  \
    GSHMEM_API size_t F(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)   \
    {                                                                                       \
        RUN(NBI, T, GSHMEMI_WAIT_ANY, NULL, ivars, nelems, status, cmp, cmp_value, NULL);   \
    }
#define DEF_SOME(F, T, NBI)                                                                 \
    GSHMEM_API size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,        \
                        int cmp, T cmp_value)                                               \
    {                                                                                       \
        RUN(NBI, T, GSHMEMI_WAIT_SOME, indices, ivars, nelems, status, cmp, cmp_value,      \
            NULL);                                                                          \
    }
#define DEF_ALL_VECTOR(F, T, NBI)                                                           \
    GSHMEM_API GSHMEMI_SYNC_RESULT_##NBI F(T *ivars, size_t nelems, const int *status,      \
                                           int cmp, const T *cmp_values)                    \
    {                                                                                       \
        RUN_ALL_##NBI(T, ivars, nelems, status, cmp, 0, VEC(cmp_values));                   \
    }
#define DEF_ANY_VECTOR(F, T, NBI)                                                           \
    GSHMEM_API size_t F(T *ivars, size_t nelems, const int *status, int cmp,                \
                        const T *cmp_values)                                                \
    {                                                                                       \
        RUN(NBI, T, GSHMEMI_WAIT_ANY, NULL, ivars, nelems, status, cmp, 0, VEC(cmp_values)); \
    }
#define DEF_SOME_VECTOR(F, T, NBI)                                                          \
    GSHMEM_API size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,        \
                        int cmp, const T *cmp_values)                                       \
    {                                                                                       \
        RUN(NBI, T, GSHMEMI_WAIT_SOME, indices, ivars, nelems, status, cmp, 0,              \
            VEC(cmp_values));                                                               \
    }

#define DEF_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    DEF_##SHAPE(gshmem_##NAME##_##STEM##TAIL, TYPE, NBI)
#define DEF_SYNC(NAME, TYPE, G) GSHMEM_FOR_P2P_SYNC_OPS(DEF_TYPED, NAME, TYPE)
GSHMEM_FOR_P2P_SYNC_TYPES(DEF_SYNC)
