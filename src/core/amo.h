/* What each atomic does, written once: the new value of a word from its old
 * value and the operands.  Every place that applies an atomic itself (the
 * tcp target and the host heap on host memory, ibrc's compare-swap loops on
 * the NIC's 8-byte words, the GPU's kernels for host calls on GPU memory)
 * loops a compare-and-swap around this function.  The op codes are the
 * proxy's request format's (enum gshmemi_amo_op). */
#ifndef GSHMEMI_CORE_AMO_H
#define GSHMEMI_CORE_AMO_H

#include <stddef.h>
#include <stdint.h>

#include <gshmem/internal/fifo.h>

#if defined(__CUDACC__)
#define GSHMEMI_AMO_FN static inline __host__ __device__
#else
#define GSHMEMI_AMO_FN static inline
#endif

/* One atomic of a batch: size 4 or 8 bytes at addr. */
struct gshmemi_amo_req {
    void *addr;
    uint64_t a, b;
    int32_t op, size;
};
/* The most atomics one call applies (the GPU's: one kernel's parameter). */
#define GSHMEMI_AMO_BATCH 64

/* The word's new value (its low `size` bytes count; a 4-byte word's upper
 * half is zero); FETCH leaves it as it was.  CSWAP: a is the condition,
 * b the new value. */
GSHMEMI_AMO_FN uint64_t gshmemi_amo_next(int op, uint64_t old, uint64_t a, uint64_t b,
                                         size_t size)
{
    const uint64_t mask = size == 4 ? 0xffffffffull : ~0ull;
    uint64_t v;
    old &= mask, a &= mask, b &= mask;
    switch (op) {
    case GSHMEMI_AMO_SET:
    case GSHMEMI_AMO_SWAP: v = a; break;
    case GSHMEMI_AMO_CSWAP: v = old == a ? b : old; break;
    case GSHMEMI_AMO_ADD: v = old + a; break;
    case GSHMEMI_AMO_AND: v = old & a; break;
    case GSHMEMI_AMO_OR: v = old | a; break;
    case GSHMEMI_AMO_XOR: v = old ^ a; break;
    default: v = old; break; /* FETCH */
    }
    return v & mask;
}

/* Whether op is one gshmemi_amo_next knows. */
GSHMEMI_AMO_FN int gshmemi_amo_valid(int op)
{
    return op >= GSHMEMI_AMO_FETCH && op <= GSHMEMI_AMO_XOR;
}

#if !defined(__CUDA_ARCH__)
/* Applies op to the 4- or 8-byte word at p of host memory (shared with
 * other processes: sequentially consistent), returning its old value. */
static inline uint64_t gshmemi_amo_apply_host(void *p, int op, size_t size, uint64_t a, uint64_t b)
{
    if (size == 4) {
        uint32_t *w = (uint32_t *)p, old = __atomic_load_n(w, __ATOMIC_SEQ_CST);
        if (op == GSHMEMI_AMO_FETCH)
            return old;
        while (!__atomic_compare_exchange_n(w, &old, (uint32_t)gshmemi_amo_next(op, old, a, b, 4),
                                            0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            ;
        return old;
    }
    uint64_t *w = (uint64_t *)p, old = __atomic_load_n(w, __ATOMIC_SEQ_CST);
    if (op == GSHMEMI_AMO_FETCH)
        return old;
    while (!__atomic_compare_exchange_n(w, &old, gshmemi_amo_next(op, old, a, b, 8), 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
    return old;
}
#endif

#endif
