/* Host atomics: on mapped peers through the heap's access (compare-and-swap
 * on the mapping of host memory, a one-thread kernel on GPU memory), on the
 * others through the transport.  The types' values travel as their bits. */
#include <string.h>

#include <gshmem.h>

#include "rma/rma.h"

/* The atomic op on pe's copy of the size-byte word at dest, with operands
 * *a and *b of that size (NULL: 0): through the transport where
 * pe is not mapped here (or the transport's atomics are the NIC's), else
 * through the heap's access.  With old, waits and writes the old value
 * there; without, it completes by the next quiet. */
static void amo(const char *call, const void *dest, int pe, int op, size_t size, const void *a,
                const void *b, void *old)
{
    uint64_t a_bits = 0, b_bits = 0, old_bits;
    char *r = gshmemi_rma_atomic_target(call, "dest", dest, size, pe);
    gshmemi_rma_check_aligned(call, "dest", dest, size);
    if (a != NULL)
        memcpy(&a_bits, a, size);
    if (b != NULL)
        memcpy(&b_bits, b, size);
    if (GSHMEMI_UNLIKELY(r == NULL))
        old_bits = gshmemi_transport_atomic(call, pe, gshmemi_rma_off(dest), op, size, a_bits,
                                             b_bits, old != NULL);
    else
        old_bits = gshmemi_heap.access->atomic(call, r, op, size, a_bits, b_bits, old != NULL);
    if (old != NULL)
        memcpy(old, &old_bits, size);
}

#define DEF_AMO_EXTENDED(NAME, TYPE, G)                                                    \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch(const TYPE *source, int pe)               \
    {                                                                                      \
        TYPE old;                                                                          \
        amo(__func__, source, pe, GSHMEMI_AMO_FETCH, sizeof(TYPE), NULL, NULL, &old);      \
        return old;                                                                        \
    }                                                                                      \
    GSHMEM_API void gshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)             \
    {                                                                                      \
        amo(__func__, dest, pe, GSHMEMI_AMO_SET, sizeof(TYPE), &value, NULL, NULL);        \
    }                                                                                      \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)            \
    {                                                                                      \
        TYPE old;                                                                          \
        amo(__func__, dest, pe, GSHMEMI_AMO_SWAP, sizeof(TYPE), &value, NULL, &old);       \
        return old;                                                                        \
    }
GSHMEM_FOR_AMO_EXTENDED_TYPES(DEF_AMO_EXTENDED)

#define DEF_AMO_STANDARD(NAME, TYPE, G)                                                     \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value,  \
                                                        int pe)                             \
    {                                                                                       \
        TYPE old;                                                                          \
        amo(__func__, dest, pe, GSHMEMI_AMO_CSWAP, sizeof(TYPE), &cond, &value, &old);     \
        return old;                                                                        \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                    \
    {                                                                                       \
        TYPE old;                                                                          \
        amo(__func__, dest, pe, GSHMEMI_AMO_ADD, sizeof(TYPE), &(TYPE){1}, NULL, &old);    \
        return old;                                                                        \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_inc(TYPE *dest, int pe)                          \
    {                                                                                       \
        amo(__func__, dest, pe, GSHMEMI_AMO_ADD, sizeof(TYPE), &(TYPE){1}, NULL, NULL);    \
    }                                                                                       \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)        \
    {                                                                                       \
        TYPE old;                                                                          \
        amo(__func__, dest, pe, GSHMEMI_AMO_ADD, sizeof(TYPE), &value, NULL, &old);        \
        return old;                                                                        \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)              \
    {                                                                                       \
        amo(__func__, dest, pe, GSHMEMI_AMO_ADD, sizeof(TYPE), &value, NULL, NULL);        \
    }
GSHMEM_FOR_AMO_STANDARD_TYPES(DEF_AMO_STANDARD)

#define DEF_AMO_BITWISE_OP(NAME, TYPE, OP, KIND)                                            \
    GSHMEM_API TYPE gshmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)       \
    {                                                                                       \
        TYPE old;                                                                          \
        amo(__func__, dest, pe, KIND, sizeof(TYPE), &value, NULL, &old);                   \
        return old;                                                                        \
    }                                                                                       \
    GSHMEM_API void gshmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)             \
    {                                                                                       \
        amo(__func__, dest, pe, KIND, sizeof(TYPE), &value, NULL, NULL);                   \
    }
#define DEF_AMO_BITWISE(NAME, TYPE, G)                                                      \
    DEF_AMO_BITWISE_OP(NAME, TYPE, and, GSHMEMI_AMO_AND)                                    \
    DEF_AMO_BITWISE_OP(NAME, TYPE, or, GSHMEMI_AMO_OR)                                      \
    DEF_AMO_BITWISE_OP(NAME, TYPE, xor, GSHMEMI_AMO_XOR)
GSHMEM_FOR_AMO_BITWISE_TYPES(DEF_AMO_BITWISE)
