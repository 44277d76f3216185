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

/* The fetching atomics' nbi forms: old values land in local fetch words by
 * the quiet; counters and swaps come out exact. */
#define TEST_NBI_STANDARD(NAME, TYPE, G)                                                         \
    do {                                                                                         \
        TYPE *w = gshmem_calloc(2, sizeof(TYPE)), f[K], c;                                       \
        const int to = (me + 1) % npes;                                                          \
        for (int i = 0; i < K; i++)                                                              \
            gshmem_##NAME##_atomic_fetch_inc_nbi(&f[i], &w[0], 0);                               \
        gshmem_##NAME##_atomic_fetch_add_nbi(&c, &w[1], (TYPE)(me + 1), to);                     \
        gshmem_quiet();                                                                          \
        for (int i = 1; i < K; i++)                                                              \
            CHECK(f[i] > f[i - 1] && f[i] < (TYPE)(npes * K), #NAME "_atomic_fetch_inc_nbi");    \
        CHECK(c == 0, #NAME "_atomic_fetch_add_nbi fetched %lld", (long long)c);                 \
        gshmem_barrier_all();                                                                    \
        gshmem_##NAME##_atomic_fetch_nbi(&c, &w[1], to);                                         \
        gshmem_quiet();                                                                          \
        CHECK(c == (TYPE)(me + 1), #NAME "_atomic_fetch_nbi fetched %lld", (long long)c);        \
        gshmem_##NAME##_atomic_compare_swap_nbi(&f[0], &w[1], (TYPE)(me + 1), (TYPE)7, to);      \
        gshmem_##NAME##_atomic_swap_nbi(&f[1], &w[1], (TYPE)9, to);                              \
        gshmem_quiet();                                                                          \
        CHECK(f[0] == (TYPE)(me + 1) && f[1] == (TYPE)7, #NAME " compare_swap_nbi, swap_nbi");   \
        gshmem_barrier_all();                                                                    \
        CHECK(LOAD(TYPE, &w[0]) == (TYPE)(me == 0 ? npes * K : 0) && LOAD(TYPE, &w[1]) == 9,     \
              #NAME " nbi results");                                                             \
        gshmem_barrier_all();                                                                    \
        gshmem_free(w);                                                                          \
    } while (0);

#define TEST_NBI_BITWISE(NAME, TYPE, G)                                                          \
    do {                                                                                         \
        TYPE *w = gshmem_calloc(1, sizeof(TYPE)), f = 0;                                         \
        gshmem_##NAME##_atomic_fetch_or_nbi(&f, w, (TYPE)1, me);                                 \
        gshmem_##NAME##_atomic_fetch_xor_nbi(&f, w, (TYPE)3, me);                                \
        gshmem_quiet();                                                                          \
        CHECK(f == 1, #NAME " fetch_or_nbi then fetch_xor_nbi fetched %lld", (long long)f);      \
        gshmem_##NAME##_atomic_fetch_and_nbi(&f, w, (TYPE)0, me);                                \
        gshmem_quiet();                                                                          \
        CHECK(f == 2 && LOAD(TYPE, w) == 0, #NAME " fetch_and_nbi");                             \
        gshmem_barrier_all();                                                                    \
        gshmem_free(w);                                                                          \
    } while (0);

/* A counter on PE 0 read and written with plain get and put under the
 * lock: exact only if the lock excludes. */
static void test_locks(void)
{
    long *lock = gshmem_calloc(1, sizeof(long));
    int *counter = gshmem_calloc(1, sizeof(int));
    for (int i = 0; i < K; i++) {
        if (i % 2 == 0) {
            gshmem_set_lock(lock);
        } else {
            while (gshmem_test_lock(lock) != 0)
                ;
        }
        int v = gshmem_int_g(counter, 0);
        gshmem_int_p(counter, v + 1, 0);
        gshmem_clear_lock(lock);
    }
    gshmem_barrier_all();
    CHECK(gshmem_int_g(counter, 0) == npes * K, "counter under the lock: %d, expected %d",
          gshmem_int_g(counter, 0), npes * K);
    CHECK(gshmem_long_g(lock, 0) == 0, "the lock is free at the end");
    gshmem_barrier_all();
    gshmem_free(counter);
    gshmem_free(lock);
}

/* Atomics right behind puts of odd lengths: over tcp their frames then
 * start at odd bytes of the target's receive buffer (UBSan found one read
 * there in place once, at its misaligned address). */
static void test_after_odd_puts(void)
{
    enum { ROUNDS = 100, ADDS = 8 };
    long *ctr = gshmem_calloc(1, sizeof(long));
    char *bytes = gshmem_calloc(3 * ROUNDS, 1); /* round r's put: 1 + r % 3 bytes at 3 r */
    const int to = (me + 1) % npes, from = (me + npes - 1) % npes;
    for (int r = 0; r < ROUNDS; r++) {
        char mine[3];
        for (int i = 0; i < 3; i++)
            mine[i] = (char)(me * 31 + r * 7 + i);
        gshmem_putmem(bytes + 3 * r, mine, 1 + (size_t)(r % 3), to);
        for (int i = 0; i < ADDS; i++)
            gshmem_long_atomic_add(ctr, (long)(i + 1), to);
    }
    gshmem_quiet();
    gshmem_barrier_all();
    /* read through get from this PE: on the GPU heap the copies are not
     * host memory */
    const long want = (long)ROUNDS * ADDS * (ADDS + 1) / 2;
    const long got = gshmem_long_g(ctr, me);
    CHECK(got == want, "atomics behind odd puts: %ld, expected %ld", got, want);
    char seen[3 * ROUNDS];
    gshmem_getmem(seen, bytes, sizeof(seen), me);
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < 3; i++) {
            const char exp = i < 1 + r % 3 ? (char)(from * 31 + r * 7 + i) : 0;
            CHECK(seen[3 * r + i] == exp, "round %d's put, byte %d: %d, expected %d", r, i,
                  seen[3 * r + i], exp);
        }
    gshmem_barrier_all();
    gshmem_free(bytes);
    gshmem_free(ctr);
}

int main(void)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    GSHMEM_FOR_AMO_STANDARD_TYPES(TEST_STANDARD)
    GSHMEM_FOR_AMO_EXTENDED_TYPES(TEST_EXTENDED)
    GSHMEM_FOR_AMO_BITWISE_TYPES(TEST_BITWISE)
    GSHMEM_FOR_AMO_STANDARD_TYPES(TEST_NBI_STANDARD)
    GSHMEM_FOR_AMO_BITWISE_TYPES(TEST_NBI_BITWISE)
    test_locks();
    test_after_odd_puts();
    SPMD_DONE();
}
