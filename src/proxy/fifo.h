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
 * Header-only so that the same code serves the CUDA producers: the atomics
 * below map to the compiler's builtins on the host and to CUDA's on the GPU.
 */
#ifndef GSHMEMI_PROXY_FIFO_H
#define GSHMEMI_PROXY_FIFO_H

#include <stdint.h>

#if defined(__CUDA_ARCH__)
/* The consumer is a CPU thread: the publishing store and the polls are
 * ordered at system scope, and nothing stronger than that is paid for. */
#define GSHMEMI_FIFO_FN __device__ __forceinline__
#define FIFO_FETCH_ADD(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
__device__ __forceinline__ uint64_t gshmemi_fifo_ld_acquire(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void gshmemi_fifo_st_release(uint64_t *p, uint64_t v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
#define FIFO_LOAD_ACQUIRE(p) gshmemi_fifo_ld_acquire(p)
#define FIFO_STORE_RELEASE(p, v) gshmemi_fifo_st_release((p), (v))
#define FIFO_LOAD_CACHE(p) (*(volatile uint64_t *)(p))
#define FIFO_MAX(p, v) atomicMax((unsigned long long *)(p), (unsigned long long)(v))
/* Waiting threads back off: a poll of host memory is a read across PCIe,
 * and thousands of threads polling at once slow the link for the data. */
#define FIFO_RELAX(spins) __nanosleep(64u << ((spins) < 6 ? (spins) : 6))
#else
#define GSHMEMI_FIFO_FN static inline
#define FIFO_FETCH_ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define FIFO_LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define FIFO_STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define FIFO_LOAD_CACHE(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define FIFO_MAX(p, v) gshmemi_fifo_max((p), (v))
#define FIFO_RELAX(spins) ((void)(spins), gshmemi_fifo_relax())
#include <sched.h>
static inline void gshmemi_fifo_relax(void) { sched_yield(); }
static inline void gshmemi_fifo_max(uint64_t *p, uint64_t v)
{
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
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
};

#define GSHMEMI_FIFO_PARITY (1ull << 63)

/* The parity a request number's lap is published with (lap 0: set, so a
 * zeroed ring reads as empty). */
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_parity(const struct gshmemi_fifo *f, uint64_t number)
{
    return ((number / f->capacity) & 1) ? 0 : GSHMEMI_FIFO_PARITY;
}

/* Producer: pushes a request; returns its number (quiet waits for
 * completed > number).  tag must fit in 63 bits. */
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_push(struct gshmemi_fifo *f, const uint64_t *w, int nw,
                                           uint64_t tag)
{
    const uint64_t number = FIFO_FETCH_ADD(f->head, 1);
    struct gshmemi_fifo_slot *s = &f->slots[number & (f->capacity - 1)];
    if (f->taken_cache == 0 || number - FIFO_LOAD_CACHE(f->taken_cache) >= f->capacity) {
        uint64_t t;
        unsigned spins = 0;
        while (number - (t = FIFO_LOAD_ACQUIRE(f->taken)) >= f->capacity) {
            FIFO_RELAX(spins); /* full: wait for the consumer, never overwrite */
            spins++;
        }
        if (f->taken_cache != 0)
            FIFO_MAX(f->taken_cache, t);
    }
    for (int i = 0; i < nw; i++)
        s->w[i] = w[i];
    FIFO_STORE_RELEASE(&s->ctrl, (tag & ~GSHMEMI_FIFO_PARITY) | gshmemi_fifo_parity(f, number));
    return number;
}

/* Producer: how many requests are complete (quiet waits for its last
 * request's number to fall below it). */
GSHMEMI_FIFO_FN uint64_t gshmemi_fifo_completed(const struct gshmemi_fifo *f)
{
    return FIFO_LOAD_ACQUIRE(f->completed);
}

/* Producer: waits until request `number` is complete (quiet): a few
 * quick polls, then backing off. */
GSHMEMI_FIFO_FN void gshmemi_fifo_wait_completed(const struct gshmemi_fifo *f, uint64_t number)
{
    unsigned spins = 0;
    while (FIFO_LOAD_ACQUIRE(f->completed) <= number)
        if (++spins > 32)
            FIFO_RELAX(spins - 32);
}

/* Consumer: the request of number `next`, if published; returns 1 and fills
 * out, else 0.  The consumer then publishes taken = next + 1. */
GSHMEMI_FIFO_FN int gshmemi_fifo_peek(const struct gshmemi_fifo *f, uint64_t next,
                                      struct gshmemi_fifo_slot *out)
{
    const struct gshmemi_fifo_slot *s = &f->slots[next & (f->capacity - 1)];
    uint64_t ctrl = FIFO_LOAD_ACQUIRE(&s->ctrl);
    if ((ctrl & GSHMEMI_FIFO_PARITY) != gshmemi_fifo_parity(f, next))
        return 0;
    for (int i = 0; i < GSHMEMI_FIFO_WORDS; i++)
        out->w[i] = s->w[i];
    out->ctrl = ctrl & ~GSHMEMI_FIFO_PARITY;
    return 1;
}

#endif
