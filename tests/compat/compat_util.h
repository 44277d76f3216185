/* Helpers of the OpenSHMEM programs: CHECK, which ends the job naming the
 * PE, and random data any PE can regenerate for any other (the reference
 * is computed on the host from the same seed). */
#ifndef COMPAT_UTIL_H
#define COMPAT_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

static int compat_checks;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        compat_checks++;                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL pe %d %s:%d: %s: ", shmem_my_pe(), __FILE__, __LINE__,   \
                    #cond);                                                                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            fflush(stderr);                                                                \
            shmem_global_exit(1);                                                          \
        }                                                                                  \
    } while (0)

#define COMPAT_DONE()                                                                      \
    do {                                                                                   \
        shmem_barrier_all();                                                               \
        if (shmem_my_pe() == 0)                                                            \
            printf("%s: %d PEs, %d checks on pe 0, all passed\n", __FILE__, shmem_n_pes(), \
                   compat_checks);                                                         \
        shmem_finalize();                                                                  \
        return 0;                                                                          \
    } while (0)

static inline uint64_t compat_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The run's seed: TEST_SEED, else fixed. */
static inline uint64_t compat_seed(void)
{
    const char *s = getenv("TEST_SEED");
    return s ? strtoull(s, NULL, 0) : 20261125;
}

/* A random number that depends on (pe, tag, i) and the seed only. */
static inline uint64_t compat_rand(int pe, uint64_t tag, uint64_t i)
{
    return compat_mix(compat_seed() ^ compat_mix((uint64_t)pe * 7919 + compat_mix(tag) + i));
}

/* len random bytes of (pe, tag). */
static inline void compat_fill(void *buf, size_t len, int pe, uint64_t tag)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)(compat_rand(pe, tag, i / 8) >> (8 * (i % 8)));
}

#endif
