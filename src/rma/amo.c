/* Host atomics on mapped peers: the compiler's __atomic builtins on the
 * peer's mapping (lock-free on every type here, floats included) for the
 * host heap; a one-thread kernel with system-scope atomics for the device
 * heap. */
#include <stdbool.h>
#include <string.h>

#include <gshmem.h>

#include "gpu/gpu.h"
#include "rma/rma.h"

static inline uint64_t amo_bits(const void *v, size_t size)
{
    uint64_t b = 0;
    memcpy(&b, v, size);
    return b;
}

/* Through the transport (r NULL) or on the device heap: the atomic op on sym
 * at pe, returning the old value as TYPE. */
#define DEV_AMO(TYPE, sym, r, op, a, b, fetch)                                                   \
    ({                                                                                      \
        TYPE a_ = (a), b_ = (b), t_;                                                        \
        uint64_t o_ =                                                                       \
            r == NULL ? gshmemi_transport->atomic(__func__, pe, gshmemi_rma_off(sym), op,    \
                                                  sizeof(TYPE), amo_bits(&a_, sizeof(TYPE)), \
                                                  amo_bits(&b_, sizeof(TYPE)), fetch)        \
                      : gshmemi_gpu_atomic(__func__, r, op, sizeof(TYPE),                    \
                                           amo_bits(&a_, sizeof(TYPE)),                     \
                                           amo_bits(&b_, sizeof(TYPE)), fetch);             \
        memcpy(&t_, &o_, sizeof(TYPE));                                                     \
        t_;                                                                                 \
    })
/* r is NULL where pe is reached through the transport; else on the device
 * heap the one-thread kernel does it. */
#define ON_DEVICE GSHMEMI_UNLIKELY(gshmemi_heap.on_device || r == NULL)

#define AMO_TARGET(TYPE, dest, pe)                                                         \
    ({                                                                                     \
        TYPE *r_ = (TYPE *)gshmemi_rma_atomic_target(__func__, "dest", dest, sizeof(TYPE), pe); \
        gshmemi_rma_check_aligned(__func__, "dest", dest, sizeof(TYPE));                   \
        r_;                                                                                \
    })

#define DEF_AMO_EXTENDED(NAME, TYPE, G)                                                    \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch(const TYPE *source, int pe)               \
    {                                                                                      \
        TYPE ret, *r = AMO_TARGET(TYPE, source, pe);                                       \
        if (ON_DEVICE)                                                                     \
            return DEV_AMO(TYPE, source, r, GSHMEMI_AMO_FETCH, (TYPE)0, (TYPE)0, 1);               \
        __atomic_load(r, &ret, __ATOMIC_SEQ_CST);                                          \
        return ret;                                                                        \
    }                                                                                      \
    GSHMEM_API void gshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)             \
    {                                                                                      \
        TYPE *r = AMO_TARGET(TYPE, dest, pe);                                              \
        if (ON_DEVICE)                                                                     \
            (void)DEV_AMO(TYPE, dest, r, GSHMEMI_AMO_SET, value, (TYPE)0, 0);                    \
        else                                                                               \
            __atomic_store(r, &value, __ATOMIC_SEQ_CST);                                   \
    }                                                                                      \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)            \
    {                                                                                      \
        TYPE ret, *r = AMO_TARGET(TYPE, dest, pe);                                         \
        if (ON_DEVICE)                                                                     \
            return DEV_AMO(TYPE, dest, r, GSHMEMI_AMO_SWAP, value, (TYPE)0, 1);                  \
        __atomic_exchange(r, &value, &ret, __ATOMIC_SEQ_CST);                              \
        return ret;                                                                        \
    }
GSHMEM_FOR_AMO_EXTENDED_TYPES(DEF_AMO_EXTENDED)

/* The remaining families: one fetching operation each, with its non-fetching
 * twin that on the device heap completes at the next quiet. */
#define AMO_FETCH_OP(TYPE, dest, pe, OP, BUILTIN, value)                                    \
    do {                                                                                    \
        TYPE *r = AMO_TARGET(TYPE, dest, pe);                                               \
        if (ON_DEVICE)                                                                      \
            return DEV_AMO(TYPE, dest, r, OP, value, (TYPE)0, 1);                                 \
        return BUILTIN(r, value, __ATOMIC_SEQ_CST);                                         \
    } while (0)
#define AMO_OP(TYPE, dest, pe, OP, BUILTIN, value)                                          \
    do {                                                                                    \
        TYPE *r = AMO_TARGET(TYPE, dest, pe);                                               \
        if (ON_DEVICE)                                                                      \
            (void)DEV_AMO(TYPE, dest, r, OP, value, (TYPE)0, 0);                                  \
        else                                                                                \
            BUILTIN(r, value, __ATOMIC_SEQ_CST);                                            \
    } while (0)

#define DEF_AMO_STANDARD(NAME, TYPE, G)                                                     \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value,  \
                                                        int pe)                             \
    {                                                                                       \
        TYPE *r = AMO_TARGET(TYPE, dest, pe);                                               \
        if (ON_DEVICE)                                                                      \
            return DEV_AMO(TYPE, dest, r, GSHMEMI_AMO_CSWAP, cond, value, 1);                     \
        __atomic_compare_exchange_n(r, &cond, value, false, __ATOMIC_SEQ_CST,               \
                                    __ATOMIC_SEQ_CST);                                      \
        return cond; /* the value found, whether or not it was swapped */                   \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                    \
    {                                                                                       \
        AMO_FETCH_OP(TYPE, dest, pe, GSHMEMI_AMO_ADD, __atomic_fetch_add, (TYPE)1);         \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_inc(TYPE *dest, int pe)                          \
    {                                                                                       \
        AMO_OP(TYPE, dest, pe, GSHMEMI_AMO_ADD, __atomic_fetch_add, (TYPE)1);               \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)        \
    {                                                                                       \
        AMO_FETCH_OP(TYPE, dest, pe, GSHMEMI_AMO_ADD, __atomic_fetch_add, value);           \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)              \
    {                                                                                       \
        AMO_OP(TYPE, dest, pe, GSHMEMI_AMO_ADD, __atomic_fetch_add, value);                 \
    }
GSHMEM_FOR_AMO_STANDARD_TYPES(DEF_AMO_STANDARD)

#define DEF_AMO_BITWISE(NAME, TYPE, G)                                                      \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe)        \
    {                                                                                       \
        AMO_FETCH_OP(TYPE, dest, pe, GSHMEMI_AMO_AND, __atomic_fetch_and, value);           \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe)              \
    {                                                                                       \
        AMO_OP(TYPE, dest, pe, GSHMEMI_AMO_AND, __atomic_fetch_and, value);                 \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe)         \
    {                                                                                       \
        AMO_FETCH_OP(TYPE, dest, pe, GSHMEMI_AMO_OR, __atomic_fetch_or, value);             \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe)               \
    {                                                                                       \
        AMO_OP(TYPE, dest, pe, GSHMEMI_AMO_OR, __atomic_fetch_or, value);                   \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe)        \
    {                                                                                       \
        AMO_FETCH_OP(TYPE, dest, pe, GSHMEMI_AMO_XOR, __atomic_fetch_xor, value);           \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe)              \
    {                                                                                       \
        AMO_OP(TYPE, dest, pe, GSHMEMI_AMO_XOR, __atomic_fetch_xor, value);                 \
    }
GSHMEM_FOR_AMO_BITWISE_TYPES(DEF_AMO_BITWISE)
