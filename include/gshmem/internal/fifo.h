/* The request FIFO between many producers (GPU threads; CPU threads in the
 * unit test) and one consumer (the proxy thread).
 *
 * A ring of slots.  A producer claims a slot with one atomic add on `head`
 * (a request number: slot = number % capacity, lap = number / capacity),
 * waits while the ring is full (number - taken >= capacity: never
 * overwriting a request not yet taken), writes the request, and publishes
 * it with a release store of the word that carries the lap's parity.  The
 * consumer reads the slot of the next number and takes it when the parity
 * is the one that lap expects: a slot holds that lap's request or the
 * previous lap's, never older, so parity alone tells them apart and no
 * separate tail pointer is written by producers.  The consumer publishes
 * `taken` (slots it has read, free again) and `completed` (requests whose
 * effect is done: what quiet waits for).
 *
 * Header-only so that the same code serves the CUDA producers (the device
 * API, gshmem_device.cuh, pushes requests for PEs it cannot map): the
 * atomics below map to the compiler's builtins on the host and to CUDA's on
 * the GPU.  Internal ABI between libgshmem and that header: users never
 * include this header.
 */
#ifndef GSHMEMI_FIFO_H
#define GSHMEMI_FIFO_H

#include <stdint.h>

#if defined(__CUDACC__)
/* GPU producers' accesses.  The consumer is a CPU thread: the publishing
 * store and the polls are ordered at system scope, and nothing stronger
 * than that is paid for.  (Declared in nvcc's host pass too, for kernels
 * that use them directly: bench/fifo_rtt.) */
__device__ __forceinline__ uint64_t gshmemi_fifo_ld_acquire(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ uint64_t gshmemi_fifo_ld_acquire_gpu(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void gshmemi_fifo_st_release(uint64_t *p, uint64_t v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void gshmemi_fifo_st_relaxed(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
#endif

#if defined(__CUDA_ARCH__)
#define GSHMEMI_FIFO_FN __device__ __forceinline__
#define GSHMEMI_FIFO_FETCH_ADD(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#define GSHMEMI_FIFO_LOAD_ACQUIRE(p) gshmemi_fifo_ld_acquire(p)
#define GSHMEMI_FIFO_STORE_RELEASE(p, v) gshmemi_fifo_st_release((p), (v))
#define GSHMEMI_FIFO_STORE_RELAXED(p, v) gshmemi_fifo_st_relaxed((p), (v))
#define GSHMEMI_FIFO_LOAD_CACHE(p) gshmemi_fifo_ld_acquire_gpu(p)
/* The copy is raised after what the poller read (the fence orders them):
 * whoever sees the new copy also sees what the consumer did before. */
#define GSHMEMI_FIFO_MAX(p, v) (__threadfence(), atomicMax((unsigned long long *)(p), (unsigned long long)(v)))
#define GSHMEMI_FIFO_TRY_LOCK(l) (atomicCAS((l), 0u, 1u) == 0u)
#define GSHMEMI_FIFO_UNLOCK(l) atomicExch((l), 0u)
/* Waiting threads back off: a poll of host memory is a read across PCIe,
 * and thousands of threads polling at once slow the link for the data. */
#define GSHMEMI_FIFO_RELAX(spins) __nanosleep(64u << ((spins) < 6 ? (spins) : 6))
#else
#define GSHMEMI_FIFO_FN static inline
#define GSHMEMI_FIFO_FETCH_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define GSHMEMI_FIFO_LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GSHMEMI_FIFO_STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define GSHMEMI_FIFO_STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define GSHMEMI_FIFO_LOAD_CACHE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GSHMEMI_FIFO_MAX(p, v) gshmemi_fifo_max((p), (v))
#define GSHMEMI_FIFO_TRY_LOCK(l) (__atomic_exchange_n((l), 1u, __ATOMIC_ACQUIRE) == 0u)
#define GSHMEMI_FIFO_UNLOCK(l) __atomic_store_n((l), 0u, __ATOMIC_RELEASE)
#define GSHMEMI_FIFO_RELAX(spins) ((void)(spins), gshmemi_fifo_relax())
#include <sched.h>
static inline void gshmemi_fifo_relax(void) { sched_yield(); }
static inline void gshmemi_fifo_max(uint64_t *p, uint64_t v)
{
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}
#endif

/* One request, a cache line: seven words of payload and the word that
 * publishes them. */
#define GSHMEMI_FIFO_WORDS 7
struct gshmemi_fifo_slot {
    uint64_t w[GSHMEMI_FIFO_WORDS];
    uint64_t ctrl; /* bit 63: lap parity; bits 0-62: the producer's tag */
};

struct gshmemi_fifo {
    struct gshmemi_fifo_slot *slots; /* capacity slots, zeroed: lap 0 expects parity 1 */
    uint64_t capacity;               /* a power of two */
    uint64_t *head;                  /* producers: next request number */
    uint64_t *taken;                 /* consumer: requests read */
    uint64_t *taken_cache;           /* producers' last look at taken, in their own memory
                                      * (NULL: none): a GPU reads its own memory far faster
                                      * than host memory, and the copy is enough until the
                                      * ring looks full */
    uint64_t *completed;             /* consumer: requests done */
    /* Producers that wait (ring full, or quiet) read the consumer's counters
     * one at a time into copies in their own memory, which the others read
     * (NULL: every producer reads the counters itself).  Thousands of GPU
     * threads polling host memory at once saturate the PCIe link, and the
     * CUDA work the proxies need to answer them starves. */
    uint64_t *completed_cache;
    uint32_t *look_lock; /* [0]: taken's poller, [1]: completed's */
    struct gshmemi_fifo_cell *cells; /* capacity cells, in host memory (NULL: none) */
};

/* A fetching request's answer (an atomic's old value, a g's bytes) for a
 * producer that has no host memory of its own (a GPU thread): the cell of
 * its slot.  The consumer writes value, then tag = the request's number,
 * as a rule before it publishes `completed`; the producer reads value and frees the
 * cell (tag = GSHMEMI_FIFO_CELL_FREE).  The consumer answers into a cell
 * again only once it is free, so an answer a lap later never overwrites
 * one its reader has not yet read; such a later answer may then come after
 * `completed` (the producer's read waits for its tag). */
struct gshmemi_fifo_cell {
    uint64_t tag;
    uint64_t value;
};
#define GSHMEMI_FIFO_CELL_FREE (~0ull)
/* In a request, the address of an answer that goes to the slot's cell. */
#define GSHMEMI_REQ_TO_CELL 1ull

#define GSHMEMI_FIFO_PARITY (1ull << 63)

/* The parity a request number's lap is published with (lap 0: set, so a
 * zeroed ring reads as empty). */
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_parity(const struct gshmemi_fifo *f, uint64_t number)
{
    return (number & f->capacity) ? 0 : GSHMEMI_FIFO_PARITY; /* the lap's lowest bit */
}

/* Producer: the consumer's counter *counter, looked at for the look-th
 * time in a wait.  The first looks read it directly (a lone waiter sees it
 * soonest); later ones go through the shared copy, which one waiter at a
 * time refreshes. */
#define GSHMEMI_FIFO_DIRECT_LOOKS 8
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_look(const uint64_t *counter, uint64_t *cache,
                                           uint32_t *lock, unsigned look)
{
    if (cache == 0 || look < GSHMEMI_FIFO_DIRECT_LOOKS)
        return GSHMEMI_FIFO_LOAD_ACQUIRE(counter);
    if (lock != 0 && !GSHMEMI_FIFO_TRY_LOCK(lock))
        return GSHMEMI_FIFO_LOAD_CACHE(cache);
    const uint64_t v = GSHMEMI_FIFO_LOAD_ACQUIRE(counter);
    GSHMEMI_FIFO_MAX(cache, v);
    if (lock != 0)
        GSHMEMI_FIFO_UNLOCK(lock);
    return v;
}

/* Producer: pushes a request; returns its number (quiet waits for
 * completed > number).  tag must fit in 63 bits. */
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_push(const struct gshmemi_fifo *f, const uint64_t *w, int nw,
                                           uint64_t tag)
{
    /* The look at taken's copy goes out with the claim, not after its
     * answer (on a GPU, two round trips to its memory in series
     * otherwise): no branch between them.  Without a copy it reads head,
     * only to keep the load unconditional. */
    const uint64_t *copy = f->taken_cache != 0 ? f->taken_cache : f->head;
    const uint64_t number = GSHMEMI_FIFO_FETCH_ADD(f->head, 1);
    const uint64_t seen = GSHMEMI_FIFO_LOAD_CACHE(copy);
    struct gshmemi_fifo_slot *s = &f->slots[number & (f->capacity - 1)];
    if (f->taken_cache == 0 || number - seen >= f->capacity) {
        /* Full, or looks so: wait for the consumer, never overwrite.  The
         * ring is full under load, so the shared copy serves from the start. */
        for (unsigned look = GSHMEMI_FIFO_DIRECT_LOOKS;
             number - gshmemi_fifo_look(f->taken, f->taken_cache, f->look_lock, look) >= f->capacity;
             look++)
            GSHMEMI_FIFO_RELAX(look - GSHMEMI_FIFO_DIRECT_LOOKS);
    }
    const uint64_t ctrl = (tag & ~GSHMEMI_FIFO_PARITY) | gshmemi_fifo_parity(f, number);
    /* A request without words (quiet, fence) has nothing to order before
     * its publication: requests take effect in the order of their numbers,
     * whatever order they were published in.  On a GPU the release is a
     * system-scope fence, the larger part of a push. */
    if (nw == 0) {
        GSHMEMI_FIFO_STORE_RELAXED(&s->ctrl, ctrl);
        return number;
    }
    for (int i = 0; i < nw; i++)
        s->w[i] = w[i];
    GSHMEMI_FIFO_STORE_RELEASE(&s->ctrl, ctrl);
    return number;
}

/* Producer: how many requests are complete, looked at for the look-th time
 * in a wait (quiet waits for its last request's number to fall below it). */
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_completed(const struct gshmemi_fifo *f, unsigned look)
{
    return gshmemi_fifo_look(f->completed, f->completed_cache,
                             f->look_lock != 0 ? f->look_lock + 1 : 0, look);
}

/* Producer: waits until request `number` is complete (quiet): a few
 * quick looks, then backing off. */
GSHMEMI_FIFO_FN void gshmemi_fifo_wait_completed(const struct gshmemi_fifo *f, uint64_t number)
{
    for (unsigned look = 0; gshmemi_fifo_completed(f, look) <= number; look++)
        if (look >= GSHMEMI_FIFO_DIRECT_LOOKS)
            GSHMEMI_FIFO_RELAX(look - GSHMEMI_FIFO_DIRECT_LOOKS);
}

/* Producer: the answer to fetching request `number` (pushed with
 * GSHMEMI_REQ_TO_CELL), once it is complete. */
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_take_answer(const struct gshmemi_fifo *f, uint64_t number)
{
    struct gshmemi_fifo_cell *c = &f->cells[number & (f->capacity - 1)];
    /* written before completed: seldom waits, but a late answer (its cell
     * was unread a lap before) may keep many readers polling host memory */
    for (unsigned spins = 0; GSHMEMI_FIFO_LOAD_ACQUIRE(&c->tag) != number; spins++)
        GSHMEMI_FIFO_RELAX(spins);
    const uint64_t v = GSHMEMI_FIFO_LOAD_ACQUIRE(&c->value);
    GSHMEMI_FIFO_STORE_RELEASE(&c->tag, GSHMEMI_FIFO_CELL_FREE);
    return v;
}

/* Consumer: the request of number `next`, if published; returns 1 and fills
 * out, else 0.  The consumer then publishes taken = next + 1. */
GSHMEMI_FIFO_FN int gshmemi_fifo_peek(const struct gshmemi_fifo *f, uint64_t next,
                                      struct gshmemi_fifo_slot *out)
{
    const struct gshmemi_fifo_slot *s = &f->slots[next & (f->capacity - 1)];
    uint64_t ctrl = GSHMEMI_FIFO_LOAD_ACQUIRE(&s->ctrl);
    if ((ctrl & GSHMEMI_FIFO_PARITY) != gshmemi_fifo_parity(f, next))
        return 0;
    for (int i = 0; i < GSHMEMI_FIFO_WORDS; i++)
        out->w[i] = s->w[i];
    out->ctrl = ctrl & ~GSHMEMI_FIFO_PARITY;
    return 1;
}

/* A request is a slot: the tag packs kind, op, size and target PE; the
 * words depend on the kind:
 *   PUT     w0 dest heap offset, w1 source address, w2 bytes
 *   PUT_INLINE  w0 dest heap offset, w1-w6 the bytes themselves (size: at most 48)
 *   GET     w0 source heap offset, w1 dest address (GSHMEMI_REQ_TO_CELL: the slot's
 *           cell, for at most 8 bytes), w2 bytes
 *   AMO     w0 heap offset, w1 a, w2 b, w3 address for the old value (0: none;
 *           GSHMEMI_REQ_TO_CELL: the slot's cell)
 *   SIGNAL  w0 heap offset, w1 value (op 0: set, 1: add)
 *   QUIET   (none): complete once everything before it is complete at its target
 *   FENCE   (none): puts after it reach each PE after those before it
 *   IPUT    w0 dest heap offset, w1 source address, w2 elements (size bytes each),
 *           w3 dest pitch, w4 source pitch (bytes, at least size)
 *   IGET    w0 source heap offset, w1 dest address, w2 elements (size bytes each),
 *           w3 source pitch, w4 dest pitch (bytes, at least size)
 * Requests to one PE take effect there in the order they were pushed. */
enum gshmemi_req_kind {
    GSHMEMI_REQ_PUT = 1,
    GSHMEMI_REQ_GET,
    GSHMEMI_REQ_AMO,
    GSHMEMI_REQ_SIGNAL,
    GSHMEMI_REQ_QUIET,
    GSHMEMI_REQ_PUT_INLINE,
    GSHMEMI_REQ_FENCE,
    GSHMEMI_REQ_IPUT,
    GSHMEMI_REQ_IGET,
};

/* An AMO request's op (also the host atomics' on GPU memory). */
enum gshmemi_amo_op {
    GSHMEMI_AMO_FETCH,
    GSHMEMI_AMO_SET,
    GSHMEMI_AMO_SWAP,
    GSHMEMI_AMO_CSWAP, /* a: the condition, b: the new value */
    GSHMEMI_AMO_ADD,
    GSHMEMI_AMO_AND,
    GSHMEMI_AMO_OR,
    GSHMEMI_AMO_XOR,
};

/* The most bytes a PUT_INLINE carries: the slot's words after the offset. */
#define GSHMEMI_REQ_INLINE_MAX (8 * (GSHMEMI_FIFO_WORDS - 1))

/* A request's tag: bits 0-7 kind, 8-15 op, 16-31 size, 32-62 the target PE
 * (0 to INT32_MAX; bit 63 is the FIFO's parity). */
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline uint64_t gshmemi_req_tag(int kind, int op, int size, int pe)
{
    return (uint64_t)(kind & 0xff) | (uint64_t)(op & 0xff) << 8 | (uint64_t)(size & 0xffff) << 16 |
           (uint64_t)(uint32_t)pe << 32;
}

/* The fields gshmemi_req_tag packed (the parity bit, if still there, is
 * left out). */
struct gshmemi_req_fields {
    int kind, op, size, pe;
};
#if defined(__CUDACC__)
__host__ __device__
#endif
static inline struct gshmemi_req_fields gshmemi_req_untag(uint64_t tag)
{
    struct gshmemi_req_fields f;
    f.kind = (int)(tag & 0xff);
    f.op = (int)(tag >> 8 & 0xff);
    f.size = (int)(tag >> 16 & 0xffff);
    f.pe = (int)(tag >> 32 & 0x7fffffff);
    return f;
}

#endif
