/* The typed wait_until / test families, generated from the type table. */
#include <gshmem.h>

#include "heap/heap.h"
#include "sync/wait.h"

#define WAIT_DESC(TYPE, ivars_, n, st, cmp_, v, vals)                                    \
    {                                                                                    \
        .call = __func__, .ivars = (void *)(ivars_), .nelems = (n), .esize = sizeof(TYPE), \
        .is_signed = (TYPE)-1 < (TYPE)1, .status = (st), .cmp = (cmp_),                  \
        .value = (uint64_t)(v), .values = (vals), .access = gshmemi_heap.access       \
    }

/* cmp_values of the vector forms, checked. */
#define VEC(v) ((v) != NULL ? (const void *)(v) : gshmemi_wait_no_values(__func__))

#define RUN(TYPE, mode, idx, ivars_, n, st, cmp_, v, vals, fn)                           \
    do {                                                                                 \
        const struct gshmemi_wait w_ = WAIT_DESC(TYPE, ivars_, n, st, cmp_, v, vals);    \
        gshmemi_wait_check(&w_);                                                         \
        return fn(&w_, mode, idx);                                                       \
    } while (0)

#define DEF_SYNC(NAME, TYPE, G)                                                                 \
    GSHMEM_API void gshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)             \
    {                                                                                           \
        const struct gshmemi_wait w = WAIT_DESC(TYPE, ivar, 1, NULL, cmp, cmp_value, NULL);     \
        gshmemi_wait_check(&w);                                                                 \
        (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);                                   \
    }                                                                                           \
    GSHMEM_API void gshmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,                  \
                                                   const int *status, int cmp, TYPE cmp_value)  \
    {                                                                                           \
        const struct gshmemi_wait w = WAIT_DESC(TYPE, ivars, nelems, status, cmp, cmp_value,    \
                                                NULL);                                          \
        gshmemi_wait_check(&w);                                                                 \
        (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);                                   \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,                \
                                                     const int *status, int cmp,                \
                                                     TYPE cmp_value)                            \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_ANY, NULL, ivars, nelems, status, cmp, cmp_value, NULL,          \
            gshmemi_wait_until);                                                                \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems,               \
                                                      size_t *indices, const int *status,       \
                                                      int cmp, TYPE cmp_value)                  \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_SOME, indices, ivars, nelems, status, cmp, cmp_value, NULL,      \
            gshmemi_wait_until);                                                                \
    }                                                                                           \
    GSHMEM_API void gshmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,           \
                                                          const int *status, int cmp,           \
                                                          const TYPE *cmp_values)               \
    {                                                                                           \
        const struct gshmemi_wait w = WAIT_DESC(TYPE, ivars, nelems, status, cmp, 0,            \
                                                VEC(cmp_values));                                    \
        gshmemi_wait_check(&w);                                                                 \
        (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);                                   \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,         \
                                                            const int *status, int cmp,         \
                                                            const TYPE *cmp_values)             \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_ANY, NULL, ivars, nelems, status, cmp, 0, VEC(cmp_values),            \
            gshmemi_wait_until);                                                                \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,        \
                                                             size_t *indices,                   \
                                                             const int *status, int cmp,        \
                                                             const TYPE *cmp_values)            \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_SOME, indices, ivars, nelems, status, cmp, 0, VEC(cmp_values),        \
            gshmemi_wait_until);                                                                \
    }                                                                                           \
    GSHMEM_API int gshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                    \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_ALL, NULL, ivar, 1, NULL, cmp, cmp_value, NULL,                  \
            (int)gshmemi_wait_test);                                                            \
    }                                                                                           \
    GSHMEM_API int gshmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status,      \
                                            int cmp, TYPE cmp_value)                            \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_ALL, NULL, ivars, nelems, status, cmp, cmp_value, NULL,          \
            (int)gshmemi_wait_test);                                                            \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status,   \
                                               int cmp, TYPE cmp_value)                         \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_ANY, NULL, ivars, nelems, status, cmp, cmp_value, NULL,          \
            gshmemi_wait_test);                                                                 \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,    \
                                                const int *status, int cmp, TYPE cmp_value)     \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_SOME, indices, ivars, nelems, status, cmp, cmp_value, NULL,      \
            gshmemi_wait_test);                                                                 \
    }                                                                                           \
    GSHMEM_API int gshmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems,                  \
                                                   const int *status, int cmp,                  \
                                                   const TYPE *cmp_values)                      \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_ALL, NULL, ivars, nelems, status, cmp, 0, VEC(cmp_values),            \
            (int)gshmemi_wait_test);                                                            \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems,               \
                                                      const int *status, int cmp,               \
                                                      const TYPE *cmp_values)                   \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_ANY, NULL, ivars, nelems, status, cmp, 0, VEC(cmp_values),            \
            gshmemi_wait_test);                                                                 \
    }                                                                                           \
    GSHMEM_API size_t gshmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems,              \
                                                       size_t *indices, const int *status,      \
                                                       int cmp, const TYPE *cmp_values)         \
    {                                                                                           \
        RUN(TYPE, GSHMEMI_WAIT_SOME, indices, ivars, nelems, status, cmp, 0, VEC(cmp_values),        \
            gshmemi_wait_test);                                                                 \
    }
GSHMEM_FOR_P2P_SYNC_TYPES(DEF_SYNC)
