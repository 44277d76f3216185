/* Host atomics: on mapped peers through the heap's access (compare-and-swap
 * on the mapping of host memory, a one-thread kernel on GPU memory), on the
 * others through the transport.  The types' values travel as their bits. */
#include <string.h>

#include <gshmem.h>

#include "core/util.h"
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
    const struct gshmemi_heap_access *access;
    char *r = gshmemi_rma_atomic_target(call, "dest", dest, size, pe, &access);
    gshmemi_rma_check_aligned(call, "dest", dest, size);
    if (a != NULL)
        memcpy(&a_bits, a, size);
    if (b != NULL)
        memcpy(&b_bits, b, size);
    if (GSHMEMI_UNLIKELY(r == NULL))
        old_bits = gshmemi_transport_atomic(call, pe, gshmemi_rma_off(dest), op, size, a_bits,
                                             b_bits, old != NULL);
    else
        old_bits = access->atomic(call, r, op, size, a_bits, b_bits, old != NULL);
    if (old != NULL)
        memcpy(old, &old_bits, size);
}

void gshmemi_rma_atomic(const char *call, void *dest, int pe, int op, size_t size, const void *a,
                        const void *b, void *old)
{
    amo(call, dest, pe, op, size, a, b, old);
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

/* ---- the fetching atomics' nbi forms (GSHMEMI_AMO_NBI_<SHAPE>) ------------
 * Complete before they return: the old value is in *fetch at once, which
 * the next quiet's guarantee includes. */

#define DEF_NBI_FETCH(F, AMO, T)                                                            \
    GSHMEM_API void F(T *fetch, const T *source, int pe)                                    \
    {                                                                                       \
        gshmemi_rma_check_local(__func__, "fetch", fetch, sizeof(T));                       \
        amo(__func__, source, pe, GSHMEMI_AMO_##AMO, sizeof(T), NULL, NULL, fetch);         \
    }
#define DEF_NBI_FETCH_OP(F, AMO, T)                                                         \
    GSHMEM_API void F(T *fetch, T *dest, T value, int pe)                                   \
    {                                                                                       \
        gshmemi_rma_check_local(__func__, "fetch", fetch, sizeof(T));                       \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &value, NULL, fetch);         \
    }
#define DEF_NBI_CSWAP(F, AMO, T)                                                            \
    GSHMEM_API void F(T *fetch, T *dest, T cond, T value, int pe)                           \
    {                                                                                       \
        gshmemi_rma_check_local(__func__, "fetch", fetch, sizeof(T));                       \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &cond, &value, fetch);        \
    }
#define DEF_NBI_FETCH_INC(F, AMO, T)                                                        \
    GSHMEM_API void F(T *fetch, T *dest, int pe)                                            \
    {                                                                                       \
        gshmemi_rma_check_local(__func__, "fetch", fetch, sizeof(T));                       \
        amo(__func__, dest, pe, GSHMEMI_AMO_##AMO, sizeof(T), &(T){1}, NULL, fetch);        \
    }

#define DEF_NBI_TYPED(STEM, TAIL, SHAPE, AMO, NAME, TYPE) \
    GSHMEMI_AMO_NBI_##SHAPE(DEF_NBI_##SHAPE(gshmem_##NAME##_##STEM##TAIL##_nbi, AMO, TYPE))
#define DEF_NBI_EXTENDED(NAME, TYPE, G) GSHMEM_FOR_AMO_EXTENDED_OPS(DEF_NBI_TYPED, NAME, TYPE)
#define DEF_NBI_STANDARD(NAME, TYPE, G) GSHMEM_FOR_AMO_STANDARD_OPS(DEF_NBI_TYPED, NAME, TYPE)
#define DEF_NBI_BITWISE(NAME, TYPE, G) GSHMEM_FOR_AMO_BITWISE_OPS(DEF_NBI_TYPED, NAME, TYPE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(DEF_NBI_EXTENDED)
GSHMEM_FOR_AMO_STANDARD_TYPES(DEF_NBI_STANDARD)
GSHMEM_FOR_AMO_BITWISE_TYPES(DEF_NBI_BITWISE)

/* ---- distributed locks ----------------------------------------------------
 * The word is PE 0's copy of the lock: 0 when free, else the holder's PE
 * number plus one, taken and given back by compare-and-swap. */

static long lock_take(const char *call, long *lock)
{
    long mine = (long)gshmemi_rt.my_pe + 1, old = 0;
    if (GSHMEMI_UNLIKELY(lock == NULL))
        gshmemi_rma_fail(call, "lock is NULL");
    amo(call, lock, 0, GSHMEMI_AMO_CSWAP, sizeof(long), &(long){0}, &mine, &old);
    if (GSHMEMI_UNLIKELY(old == mine))
        gshmemi_rma_fail(call, "this PE already holds the lock at %p", (void *)lock);
    return old;
}

GSHMEM_API void gshmem_set_lock(long *lock)
{
    struct gshmemi_backoff backoff = {0}; /* more PEs than cores still progress */
    while (lock_take(__func__, lock) != 0)
        gshmemi_backoff_wait(&backoff);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* acquire: what the holder reads comes after */
}

GSHMEM_API int gshmem_test_lock(long *lock)
{
    if (lock_take(__func__, lock) != 0)
        return 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 0;
}

GSHMEM_API void gshmem_clear_lock(long *lock)
{
    long mine = (long)gshmemi_rt.my_pe + 1, old = 0;
    if (GSHMEMI_UNLIKELY(lock == NULL))
        gshmemi_rma_fail(__func__, "lock is NULL");
    gshmem_quiet(); /* the next holder sees every update made under the lock */
    amo(__func__, lock, 0, GSHMEMI_AMO_CSWAP, sizeof(long), &mine, &(long){0}, &old);
    if (GSHMEMI_UNLIKELY(old != mine)) {
        if (old == 0)
            gshmemi_rma_fail(__func__, "the lock at %p is not held", (void *)lock);
        gshmemi_rma_fail(__func__, "the lock at %p is held by pe %ld, not this PE", (void *)lock,
                         old - 1);
    }
}
