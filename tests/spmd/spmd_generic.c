/* The C11 generic forms dispatch to the typed routine of their argument's
 * type: for each type that has one, a generic call moves data as the typed
 * call does.  The type list is written out here on purpose: it checks the
 * table in gshmem_types.h rather than repeating it. */
#include <gshmem.h>

#include "spmd_util.h"

#define GENERIC_RMA(X) X(float) X(double) X(char) X(signed char) X(short) X(int) X(long) \
    X(long long) X(unsigned char) X(unsigned short) X(unsigned int) X(unsigned long)    \
    X(unsigned long long)
#define GENERIC_AMO_STANDARD(X) X(int) X(long) X(long long) X(unsigned int) X(unsigned long) \
    X(unsigned long long)
#define GENERIC_AMO_EXTENDED(X) X(float) X(double) GENERIC_AMO_STANDARD(X)
#define GENERIC_BITWISE(X) X(unsigned int) X(unsigned long) X(unsigned long long)
#define GENERIC_SYNC(X) X(short) X(int) X(long) X(long long) X(unsigned short) \
    X(unsigned int) X(unsigned long) X(unsigned long long)

static int me, npes, to, from;

#define RMA(T)                                                                        \
    do {                                                                              \
        T *buf = gshmem_calloc(16, sizeof(T)), local[8], back[8];                     \
        for (int i = 0; i < 8; i++)                                                   \
            local[i] = (T)(me * 10 + i);                                              \
        gshmem_put(buf, local, 8, to);                                                \
        gshmem_barrier_all();                                                         \
        T seen[16];                                                                   \
        spmd_load(seen, buf, sizeof(seen));                                           \
        for (int i = 0; i < 8; i++)                                                   \
            CHECK(seen[i] == (T)(from * 10 + i), "generic put " #T);                  \
        gshmem_get(back, buf, 8, to);                                                 \
        for (int i = 0; i < 8; i++)                                                   \
            CHECK(back[i] == (T)(me * 10 + i), "generic get " #T);                    \
        CHECK(gshmem_g(&buf[3], to) == (T)(me * 10 + 3), "generic g " #T);            \
        gshmem_barrier_all();                                                         \
        gshmem_p(&buf[8], (T)(me + 1), to);                                           \
        gshmem_iput(&buf[9], local, 2, 1, 3, to);                                     \
        gshmem_put_nbi(&buf[15], &local[7], 1, to);                                   \
        gshmem_quiet();                                                               \
        gshmem_barrier_all();                                                         \
        spmd_load(seen, buf, sizeof(seen));                                           \
        CHECK(seen[8] == (T)(from + 1) && seen[9] == (T)(from * 10) &&                \
                  seen[11] == (T)(from * 10 + 1) && seen[15] == (T)(from * 10 + 7),   \
              "generic p/iput/put_nbi " #T);                                          \
        gshmem_iget(back, buf, 1, 2, 4, to);                                          \
        gshmem_get_nbi(&back[4], &buf[8], 1, to);                                     \
        gshmem_quiet();                                                               \
        CHECK(back[0] == (T)(me * 10) && back[4] == (T)(me + 1), "generic iget " #T); \
        gshmem_barrier_all();                                                         \
        gshmem_free(buf);                                                             \
    } while (0);

#define AMO_STD(T)                                                                    \
    do {                                                                              \
        T *w = gshmem_calloc(1, sizeof(T));                                           \
        gshmem_atomic_inc(w, 0);                                                      \
        (void)gshmem_atomic_fetch_inc(w, 0);                                          \
        gshmem_atomic_add(w, (T)2, 0);                                                \
        (void)gshmem_atomic_fetch_add(w, (T)1, 0);                                    \
        gshmem_barrier_all();                                                         \
        if (me == 0)                                                                  \
            CHECK(LOAD(T, w) == (T)(5 * npes), "generic add family " #T);             \
        gshmem_barrier_all();                                                         \
        (void)gshmem_atomic_compare_swap(w, (T)(5 * npes), (T)1, 0);                  \
        gshmem_barrier_all();                                                         \
        if (me == 0)                                                                  \
            CHECK(LOAD(T, w) == (T)1, "generic compare_swap " #T);                    \
        gshmem_barrier_all();                                                         \
        gshmem_free(w);                                                               \
    } while (0);

#define AMO_EXT(T)                                                                    \
    do {                                                                              \
        T *w = gshmem_calloc(1, sizeof(T));                                           \
        gshmem_atomic_set(w, (T)(me + 2), to);                                        \
        gshmem_barrier_all();                                                         \
        CHECK(gshmem_atomic_fetch(w, from) == (T)(((from + npes - 1) % npes) + 2),    \
              "generic set/fetch " #T);                                               \
        gshmem_barrier_all();                                                         \
        CHECK(gshmem_atomic_swap(w, (T)7, me) == (T)(from + 2), "generic swap " #T);  \
        gshmem_barrier_all();                                                         \
        gshmem_free(w);                                                               \
    } while (0);

#define BITWISE(T)                                                                    \
    do {                                                                              \
        T *w = gshmem_calloc(1, sizeof(T));                                           \
        T bit = (T)((T)1 << (me % 16));                                               \
        gshmem_atomic_or(w, bit, 0);                                                  \
        (void)gshmem_atomic_fetch_xor(w, bit, 0);                                     \
        (void)gshmem_atomic_fetch_or(w, bit, 0);                                      \
        gshmem_atomic_xor(w, bit, 0);                                                 \
        (void)gshmem_atomic_fetch_and(w, (T)~bit, 0);                                 \
        gshmem_atomic_and(w, (T)~(T)0, 0);                                            \
        gshmem_barrier_all();                                                         \
        if (me == 0)                                                                  \
            CHECK(LOAD(T, w) == 0, "generic bitwise " #T);                            \
        gshmem_barrier_all();                                                         \
        gshmem_free(w);                                                               \
    } while (0);

#define SYNC(T)                                                                       \
    do {                                                                              \
        T *f = gshmem_calloc(2, sizeof(T));                                           \
        size_t idx[2];                                                                \
        const T want[2] = {(T)(from + 1), 0};                                         \
        gshmem_p(&f[0], (T)(me + 1), to);                                             \
        gshmem_wait_until(&f[0], GSHMEM_CMP_EQ, (T)(from + 1));                       \
        CHECK(gshmem_test(&f[0], GSHMEM_CMP_EQ, (T)(from + 1)), "generic test " #T);  \
        gshmem_wait_until_all(f, 1, NULL, GSHMEM_CMP_NE, 0);                          \
        CHECK(gshmem_wait_until_any(f, 2, NULL, GSHMEM_CMP_NE, 0) == 0, #T);          \
        CHECK(gshmem_wait_until_some(f, 2, idx, NULL, GSHMEM_CMP_NE, 0) == 1, #T);    \
        gshmem_wait_until_all_vector(f, 2, NULL, GSHMEM_CMP_EQ, want);                \
        CHECK(gshmem_wait_until_any_vector(f, 2, NULL, GSHMEM_CMP_EQ, want) == 0, #T); \
        CHECK(gshmem_wait_until_some_vector(f, 2, idx, NULL, GSHMEM_CMP_EQ, want) == 2, #T); \
        CHECK(gshmem_test_all(f, 1, NULL, GSHMEM_CMP_NE, 0) &&                        \
                  gshmem_test_any(f, 2, NULL, GSHMEM_CMP_EQ, 0) == 1 &&               \
                  gshmem_test_some(f, 2, idx, NULL, GSHMEM_CMP_GE, 0) == 2 &&         \
                  gshmem_test_all_vector(f, 2, NULL, GSHMEM_CMP_EQ, want) &&          \
                  gshmem_test_any_vector(f, 2, NULL, GSHMEM_CMP_EQ, want) == 0 &&     \
                  gshmem_test_some_vector(f, 2, idx, NULL, GSHMEM_CMP_EQ, want) == 2, \
              "generic test families " #T);                                           \
        gshmem_barrier_all();                                                         \
        gshmem_free(f);                                                               \
    } while (0);

int main(void)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    to = (me + 1) % npes;
    from = (me + npes - 1) % npes;
    GENERIC_RMA(RMA)
    GENERIC_AMO_STANDARD(AMO_STD)
    GENERIC_AMO_EXTENDED(AMO_EXT)
    GENERIC_BITWISE(BITWISE)
    GENERIC_SYNC(SYNC)
    /* half and bfloat16 move as 2-byte values */
    gshmem_half *h = gshmem_calloc(1, sizeof(gshmem_half));
    gshmem_half hv = {(uint16_t)(0x3c00 + me)};
    gshmem_p(h, hv, to);
    gshmem_barrier_all();
    CHECK(LOAD(gshmem_half, h).bits == 0x3c00 + from, "generic p of half");
    gshmem_free(h);
    SPMD_DONE();
}
