/* Host atomics on mapped peers: the compiler's __atomic builtins on the
 * peer's mapping (lock-free on every type here, floats included). */
#include <stdbool.h>

#include <gshmem.h>

#include "rma/rma.h"

#define AMO_TARGET(TYPE, dest, pe)                                                         \
    ({                                                                                     \
        TYPE *r_ = (TYPE *)gshmemi_rma_target(__func__, "dest", dest, sizeof(TYPE), pe);   \
        gshmemi_rma_check_aligned(__func__, "dest", dest, sizeof(TYPE));                   \
        r_;                                                                                \
    })

#define DEF_AMO_EXTENDED(NAME, TYPE, G)                                                    \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch(const TYPE *source, int pe)               \
    {                                                                                      \
        TYPE ret, *r = AMO_TARGET(TYPE, source, pe);                                       \
        __atomic_load(r, &ret, __ATOMIC_SEQ_CST);                                          \
        return ret;                                                                        \
    }                                                                                      \
    GSHMEM_API void gshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)             \
    {                                                                                      \
        TYPE *r = AMO_TARGET(TYPE, dest, pe);                                              \
        __atomic_store(r, &value, __ATOMIC_SEQ_CST);                                       \
    }                                                                                      \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)            \
    {                                                                                      \
        TYPE ret, *r = AMO_TARGET(TYPE, dest, pe);                                         \
        __atomic_exchange(r, &value, &ret, __ATOMIC_SEQ_CST);                              \
        return ret;                                                                        \
    }
GSHMEM_FOR_AMO_EXTENDED_TYPES(DEF_AMO_EXTENDED)

#define DEF_AMO_STANDARD(NAME, TYPE, G)                                                     \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value,  \
                                                        int pe)                             \
    {                                                                                       \
        TYPE *r = AMO_TARGET(TYPE, dest, pe);                                               \
        __atomic_compare_exchange_n(r, &cond, value, false, __ATOMIC_SEQ_CST,               \
                                    __ATOMIC_SEQ_CST);                                      \
        return cond; /* the value found, whether or not it was swapped */                   \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                    \
    {                                                                                       \
        return __atomic_fetch_add(AMO_TARGET(TYPE, dest, pe), (TYPE)1, __ATOMIC_SEQ_CST);   \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_inc(TYPE *dest, int pe)                          \
    {                                                                                       \
        __atomic_fetch_add(AMO_TARGET(TYPE, dest, pe), (TYPE)1, __ATOMIC_SEQ_CST);          \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)        \
    {                                                                                       \
        return __atomic_fetch_add(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);     \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)              \
    {                                                                                       \
        __atomic_fetch_add(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);            \
    }
GSHMEM_FOR_AMO_STANDARD_TYPES(DEF_AMO_STANDARD)

#define DEF_AMO_BITWISE(NAME, TYPE, G)                                                      \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe)        \
    {                                                                                       \
        return __atomic_fetch_and(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);     \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe)              \
    {                                                                                       \
        __atomic_fetch_and(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);            \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe)         \
    {                                                                                       \
        return __atomic_fetch_or(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);      \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe)               \
    {                                                                                       \
        __atomic_fetch_or(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);             \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe)        \
    {                                                                                       \
        return __atomic_fetch_xor(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);     \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe)              \
    {                                                                                       \
        __atomic_fetch_xor(AMO_TARGET(TYPE, dest, pe), value, __ATOMIC_SEQ_CST);            \
    }
GSHMEM_FOR_AMO_BITWISE_TYPES(DEF_AMO_BITWISE)
