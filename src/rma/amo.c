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

/* ---- GSHMEM_FOR_AMO_*_OPS ---------------------------------------------------
 * One definition per shape: F the function, T the type, AMO the atomic
 * operation applied (GSHMEMI_AMO_<AMO>). */

#define DEF_FETCH(F, AMO, T)                                                                \
    GSHMEM_API T F(const T *source, int pe)                                                 \
    {                                                                                       \
        T old;                                                                              \
        amo(__func__, source, pe, GSHMEMI_AMO_##AMO, sizeof(T), NULL, NULL, &old);          \
        return old;                                                                         \
    }
#define DEF_OP(F, AMO, T)                                                                   \
    GSHMEM_API void F(T *dest, T value, int pe)                                             \
    {                                                                                       \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &value, NULL, NULL);          \
    }
#define DEF_FETCH_OP(F, AMO, T)                                                             \
    GSHMEM_API T F(T *dest, T value, int pe)                                                \
    {                                                                                       \
        T old;                                                                              \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &value, NULL, &old);          \
        return old;                                                                         \
    }
#define DEF_CSWAP(F, AMO, T)                                                                \
    GSHMEM_API T F(T *dest, T cond, T value, int pe)                                        \
    {                                                                                       \
        T old;                                                                              \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &cond, &value, &old);         \
        return old;                                                                         \
    }
#define DEF_INC(F, AMO, T)                                                                  \
    GSHMEM_API void F(T *dest, int pe)                                                      \
    {                                                                                       \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &(T){1}, NULL, NULL);         \
    }
#define DEF_FETCH_INC(F, AMO, T)                                                            \
    GSHMEM_API T F(T *dest, int pe)                                                         \
    {                                                                                       \
        T old;                                                                              \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &(T){1}, NULL, &old);         \
        return old;                                                                         \
    }

#define DEF_TYPED(STEM, TAIL, SHAPE, AMO, NAME, TYPE) \
    DEF_##SHAPE(gshmem_##NAME##_##STEM##TAIL, AMO, TYPE)
#define DEF_EXTENDED(NAME, TYPE, G) GSHMEM_FOR_AMO_EXTENDED_OPS(DEF_TYPED, NAME, TYPE)
#define DEF_STANDARD(NAME, TYPE, G) GSHMEM_FOR_AMO_STANDARD_OPS(DEF_TYPED, NAME, TYPE)
#define DEF_BITWISE(NAME, TYPE, G) GSHMEM_FOR_AMO_BITWISE_OPS(DEF_TYPED, NAME, TYPE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(DEF_EXTENDED)
GSHMEM_FOR_AMO_STANDARD_TYPES(DEF_STANDARD)
GSHMEM_FOR_AMO_BITWISE_TYPES(DEF_BITWISE)
