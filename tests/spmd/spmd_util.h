/* Helpers for SPMD tests: deterministic per-PE random data that any PE can
 * regenerate, poison patterns, and CHECK, which ends the job on failure. */
#ifndef GSHMEM_SPMD_UTIL_H
#define GSHMEM_SPMD_UTIL_H

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gshmem.h>

#define POISON 0xa5

static int spmd_checks __attribute__((unused)); /* (a program may make no CHECK) */

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        spmd_checks++;                                                                     \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL pe %d %s:%d: %s: ", gshmem_my_pe(), __FILE__, __LINE__,  \
                    #cond);                                                                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            fflush(stderr);                                                                \
            gshmem_global_exit(1);                                                         \
        }                                                                                  \
    } while (0)

static inline uint64_t spmd_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The seed of a run: from TEST_SEED, else fixed; printed by PE 0. */
static inline uint64_t spmd_seed(void)
{
    const char *s = getenv("TEST_SEED");
    return s ? strtoull(s, NULL, 0) : 20261122;
}

/* Fills buf with bytes that depend on (seed, pe, tag) only. */
static inline void spmd_fill(void *buf, size_t len, uint64_t seed, int pe, uint64_t tag)
{
    unsigned char *p = buf;
    uint64_t state = spmd_mix(seed ^ spmd_mix((uint64_t)pe * 7919 + tag));
    size_t i = 0;
    for (; i + 8 <= len; i += 8) { /* a word at a time: the collectives' tests fill megabytes */
        state = spmd_mix(state);
        for (int j = 0; j < 8; j++)
            p[i + j] = (unsigned char)(state >> (8 * j));
    }
    if (i < len) {
        state = spmd_mix(state);
        for (unsigned j = 0; j < 8 && i + j < len; j++)
            p[i + j] = (unsigned char)(state >> (8 * j));
    }
}

/* The bytes of a long double that hold its value: x87's 80-bit format
 * fills 10 of its 16, and a copy by value (an argument, a return value)
 * need not carry the other 6. */
#define SPMD_LDBL_VALUE_BYTES ((size_t)(LDBL_MANT_DIG == 64 ? 10 : sizeof(long double)))
/* Of any type T: the bytes a copy by value carries. */
#define SPMD_VALUE_BYTES(T) \
    _Generic(*(T *)0, long double: SPMD_LDBL_VALUE_BYTES, default: sizeof(T))

static inline int spmd_all_bytes(const void *buf, size_t len, unsigned char v)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < len; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/* Host access to this PE's own heap objects, whatever memory the heap is in
 * (GPU memory is not host-addressable): a get or put to oneself. */
static inline void spmd_load(void *dst, const void *sym, size_t n)
{
    gshmem_getmem(dst, sym, n, gshmem_my_pe());
}

static inline void spmd_store(void *sym, const void *src, size_t n)
{
    gshmem_putmem(sym, src, n, gshmem_my_pe());
}

static inline void spmd_set(void *sym, int byte, size_t n)
{
    void *tmp = malloc(n);
    memset(tmp, byte, n);
    spmd_store(sym, tmp, n);
    free(tmp);
}

/* The value of one heap object of type T. */
#define LOAD(T, p)                                                                         \
    ({                                                                                     \
        T load_v_;                                                                         \
        spmd_load(&load_v_, (p), sizeof(T));                                               \
        load_v_;                                                                           \
    })
#define STORE(T, p, v)                                                                     \
    do {                                                                                   \
        T store_v_ = (v);                                                                  \
        spmd_store((p), &store_v_, sizeof(T));                                             \
    } while (0)

/* Whether the heap is GPU memory (host stores through gshmem_ptr are then
 * not possible). */
static inline int spmd_heap_on_device(void)
{
    const char *h = getenv("GSHMEM_HEAP");
    return h != NULL && strcmp(h, "device") == 0;
}

/* A boolean setting, as the library reads one (1, y, yes, true, on). */
static inline int spmd_env_bool(const char *name)
{
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    const char *v = getenv(name);
    for (size_t i = 0; v != NULL && i < sizeof(yes) / sizeof(yes[0]); i++)
        if (strcasecmp(v, yes[i]) == 0)
            return 1;
    return 0;
}

/* Whether only each PE's own heap is mapped (the rest through a transport). */
static inline int spmd_p2p_disabled(void) { return spmd_env_bool("GSHMEM_DISABLE_P2P"); }

/* This PE's heap as [*lo, *hi), found with gshmem_addr_accessible around p
 * (the runtime keeps areas of its own in the heap: a test does not assume
 * where the application's blocks start or end). */
static inline void spmd_heap_bounds(char *p, char **lo, char **hi)
{
    const int me = gshmem_my_pe();
    size_t below = 0, above = 0;
    for (size_t step = (size_t)1 << 40; step > 0; step >>= 1) {
        if (below + step <= (size_t)(uintptr_t)p && gshmem_addr_accessible(p - below - step, me))
            below += step;
        if (gshmem_addr_accessible(p + above + step, me))
            above += step;
    }
    *lo = p - below;
    *hi = p + above + 1;
}

#define SPMD_DONE()                                                                        \
    do {                                                                                   \
        gshmem_barrier_all();                                                              \
        if (gshmem_my_pe() == 0)                                                           \
            printf("%s: %d PEs, %d checks on pe 0, all passed\n", __FILE__, gshmem_n_pes(), \
                   spmd_checks);                                                           \
        gshmem_finalize();                                                                 \
        return 0;                                                                          \
    } while (0)

#endif
