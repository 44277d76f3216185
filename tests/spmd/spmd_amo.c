/* Every atomic on every atomic type, with all PEs contending on the same
 * words, checked against the exact final values. */
#include <gshmem.h>

#include "spmd_util.h"

#define K 50 /* operations per PE per test */

static int me, npes;

/* Each PE targets the word on PE (me + t) % npes in turn, so every PE's copy
 * is hit by everyone: K ops from each PE land on each target word. */
#define TEST_STANDARD(NAME, TYPE, G)                                                             \
    do {                                                                                         \
        TYPE *w = gshmem_calloc(4, sizeof(TYPE));                                                \
        TYPE last = 0;                                                                           \
        int monotone = 1;                                                                        \
        for (int pe = 0; pe < npes; pe++)                                                        \
            for (int i = 0; i < K; i++) {                                                        \
                TYPE old = gshmem_##NAME##_atomic_fetch_inc(&w[0], pe);                          \
                if (pe == 0 && i > 0 && old <= last)                                             \
                    monotone = 0;                                                                \
                if (pe == 0)                                                                     \
                    last = old;                                                                  \
                gshmem_##NAME##_atomic_inc(&w[1], pe);                                           \
                gshmem_##NAME##_atomic_add(&w[2], (TYPE)(me + 1), pe);                           \
                (void)gshmem_##NAME##_atomic_fetch_add(&w[2], (TYPE)1, pe);                      \
                /* compare_swap: a retry loop adding 2 */                                        \
                TYPE cur = gshmem_##NAME##_atomic_fetch(&w[3], pe), seen;                        \
                while ((seen = gshmem_##NAME##_atomic_compare_swap(&w[3], cur, (TYPE)(cur + 2),  \
                                                                   pe)) != cur)                  \
                    cur = seen;                                                                  \
            }                                                                                    \
        gshmem_barrier_all();                                                                    \
        TYPE total = (TYPE)(npes * K), sum = (TYPE)(K * (npes * (npes + 1) / 2) + npes * K);     \
        CHECK(monotone, #NAME "_atomic_fetch_inc returned a non-increasing value");              \
        TYPE v[4];                                                                               \
        spmd_load(v, w, sizeof(v));                                                              \
        CHECK(v[0] == total && v[1] == total, #NAME " inc: %lld, %lld, expected %lld",           \
              (long long)v[0], (long long)v[1], (long long)total);                               \
        CHECK(v[2] == sum, #NAME " add: %lld, expected %lld", (long long)v[2], (long long)sum);  \
        CHECK(v[3] == (TYPE)(2 * npes * K), #NAME " compare_swap: %lld, expected %lld",          \
              (long long)v[3], (long long)(2 * npes * K));                                       \
        /* compare_swap that must fail returns what is there, changing nothing */                \
        gshmem_barrier_all();                                                                    \
        TYPE found = gshmem_##NAME##_atomic_compare_swap(&w[3], (TYPE)7, (TYPE)9,                \
                                                         (me + 1) % npes);                       \
        CHECK(found == (TYPE)(2 * npes * K), #NAME " failing compare_swap found %lld",           \
              (long long)found);                                                                 \
        gshmem_barrier_all();                                                                    \
        gshmem_free(w);                                                                          \
    } while (0);

#define TEST_EXTENDED(NAME, TYPE, G)                                                             \
    do {                                                                                         \
        TYPE *w = gshmem_calloc((size_t)npes, sizeof(TYPE));                                     \
        const int to = (me + 1) % npes, from = (me + npes - 1) % npes;                           \
        TYPE mine = (TYPE)(me * 3 + 1), theirs = (TYPE)(from * 3 + 1);                           \
        gshmem_##NAME##_atomic_set(&w[me], mine, to);                                            \
        gshmem_barrier_all();                                                                    \
        CHECK(LOAD(TYPE, &w[from]) == theirs, #NAME "_atomic_set");                              \
        CHECK(gshmem_##NAME##_atomic_fetch(&w[me], to) == mine, #NAME "_atomic_fetch");          \
        gshmem_barrier_all();                                                                    \
        TYPE old = gshmem_##NAME##_atomic_swap(&w[me], (TYPE)(mine + 1), to);                    \
        CHECK(old == mine, #NAME "_atomic_swap returned the wrong value");                       \
        gshmem_barrier_all();                                                                    \
        CHECK(LOAD(TYPE, &w[from]) == (TYPE)(theirs + 1), #NAME "_atomic_swap stored wrong");    \
        gshmem_barrier_all();                                                                    \
        gshmem_free(w);                                                                          \
    } while (0);

/* Each PE owns bits (me % width): or sets them, xor flips them twice, and
 * and clears the others' complement, so the final word is exact. */
#define TEST_BITWISE(NAME, TYPE, G)                                                              \
    do {                                                                                         \
        TYPE *w = gshmem_calloc(3, sizeof(TYPE));                                                \
        const int width = (int)(8 * sizeof(TYPE));                                               \
        TYPE bit = (TYPE)((TYPE)1 << (me % width)), all = 0;                                     \
        for (int pe = 0; pe < npes; pe++)                                                        \
            all |= (TYPE)((TYPE)1 << (pe % width));                                              \
        gshmem_barrier_all();                                                                    \
        for (int pe = 0; pe < npes; pe++) {                                                      \
            gshmem_##NAME##_atomic_or(&w[0], bit, pe);                                           \
            (void)gshmem_##NAME##_atomic_fetch_or(&w[1], bit, pe);                               \
            gshmem_##NAME##_atomic_xor(&w[2], bit, pe);                                          \
        }                                                                                        \
        gshmem_barrier_all();                                                                    \
        TYPE v[3];                                                                               \
        spmd_load(v, w, sizeof(v));                                                              \
        CHECK(v[0] == all && v[1] == all, #NAME " or");                                          \
        TYPE expect_xor = 0;                                                                     \
        for (int pe = 0; pe < npes; pe++)                                                        \
            expect_xor ^= (TYPE)((TYPE)1 << (pe % width));                                       \
        CHECK(v[2] == expect_xor, #NAME " xor");                                                 \
        gshmem_barrier_all();                                                                    \
        for (int pe = 0; pe < npes; pe++) {                                                      \
            gshmem_##NAME##_atomic_and(&w[0], (TYPE)~bit, pe);                                   \
            (void)gshmem_##NAME##_atomic_fetch_and(&w[1], (TYPE)~bit, pe);                       \
            (void)gshmem_##NAME##_atomic_fetch_xor(&w[2], bit, pe);                              \
        }                                                                                        \
        gshmem_barrier_all();                                                                    \
        spmd_load(v, w, sizeof(v));                                                              \
        CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0, #NAME " and / fetch_xor");                    \
        gshmem_barrier_all();                                                                    \
        gshmem_free(w);                                                                          \
    } while (0);

int main(void)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    GSHMEM_FOR_AMO_STANDARD_TYPES(TEST_STANDARD)
    GSHMEM_FOR_AMO_EXTENDED_TYPES(TEST_EXTENDED)
    GSHMEM_FOR_AMO_BITWISE_TYPES(TEST_BITWISE)
    SPMD_DONE();
}
