/* Every family of shmem.h through OpenSHMEM's names, with random data
 * checked against a reference computed on the host: setup and queries,
 * memory, RMA (typed, sized, mem, nbi, strided, with signal, the context
 * forms), atomics (and their nbi and context forms), locks, waits and
 * tests, ordering, teams and contexts, collectives and reductions, and the
 * C11 generic forms.  The typed families run over gshmem's type tables, as
 * shmem.h defines them. */
#include <shmem.h>
#include <shmemx.h>

#include "compat_util.h"

static int me, npes, left, right;
static shmem_ctx_t ctx;
static uint64_t *sig;

/* ---- setup and memory ------------------------------------------------------ */

static void test_setup_and_memory(void)
{
    int major = 0, minor = 0, provided = -1;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    shmem_query_thread(&provided);
    CHECK(major == 1 && minor == 5 && SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 5,
          "version %d.%d", major, minor);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name %s", name);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "thread level %d", provided);
    shmem_pcontrol(0);
    shmem_pcontrol(2, "ignored");

    size_t n = 100 + compat_rand(0, 1, 0) % 1000;
    unsigned char *c = shmem_calloc(n, 1);
    for (size_t i = 0; i < n; i++)
        CHECK(c[i] == 0, "calloc byte %zu", i);
    compat_fill(c, n, me, 2);
    c = shmem_realloc(c, 3 * n);
    unsigned char *expect = malloc(n);
    compat_fill(expect, n, me, 2);
    CHECK(c != NULL && memcmp(c, expect, n) == 0, "realloc kept the contents");
    free(expect);
    shmem_free(c);
    for (size_t al = 8; al <= ((size_t)4 << 20); al *= 32) {
        void *a = shmem_align(al, 24);
        CHECK(a != NULL && ((uintptr_t)a % al) == 0, "shmem_align(%zu)", al);
        shmem_free(a);
    }
    long *h = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(h != NULL, "shmem_malloc_with_hints");
    *h = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(h, 1, right);
    shmem_barrier_all();
    CHECK(*h == 1, "the hinted block takes atomics");
    CHECK(shmem_pe_accessible(right) && shmem_addr_accessible(h, right) &&
              !shmem_pe_accessible(npes) && !shmem_addr_accessible(&n, right), "accessible");
    long *p = shmem_ptr(h, right);
    CHECK(p == NULL || *p == 1, "shmem_ptr reads the neighbour's copy");
    shmem_barrier_all();
    shmem_free(h);
    shmem_free(shmem_malloc(0));
}

/* ---- RMA --------------------------------------------------------------------
 * Each PE writes its random block into its right neighbour and reads it
 * back from there; what arrives from the left is checked against the left
 * PE's data, regenerated here. */

#define N_RMA 19

#define TEST_RMA(NAME, TYPE, G)                                                                \
    do {                                                                                       \
        TYPE *d = shmem_malloc(6 * N_RMA * sizeof(TYPE));                                      \
        TYPE src[N_RMA], want[N_RMA], got[N_RMA], v;                                            \
        const uint64_t tag = 100 + sizeof(TYPE) * 7 + (uint64_t)__LINE__;                     \
        compat_fill(src, sizeof(src), me, tag);                                                \
        compat_fill(want, sizeof(want), left, tag);                                              \
        memset(d, 0xa5, 6 * N_RMA * sizeof(TYPE));                                             \
        *sig = 0;                                                                              \
        shmem_barrier_all();                                                                   \
        shmem_##NAME##_put(d, src, N_RMA, right);                                              \
        shmem_##NAME##_put_nbi(d + N_RMA, src, N_RMA, right);                                  \
        shmem_ctx_##NAME##_p(ctx, d + 2 * N_RMA, src[3], right);                               \
        shmem_##NAME##_iput(d + 3 * N_RMA, src, 2, 1, N_RMA / 2, right);                       \
        shmem_ctx_##NAME##_put_signal(ctx, d + 4 * N_RMA, src, N_RMA, sig, 1, SHMEM_SIGNAL_ADD, \
                                      right);                                                  \
        shmem_##NAME##_put_signal_nbi(d + 5 * N_RMA, src, N_RMA, sig, 1, SHMEM_SIGNAL_ADD,     \
                                      right);                                                  \
        shmem_ctx_quiet(ctx);                                                                  \
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);                                         \
        CHECK(shmem_signal_fetch(sig) == 2, #NAME " signal");                                  \
        CHECK(memcmp(d + 4 * N_RMA, want, sizeof(want)) == 0 &&                                  \
                  memcmp(d + 5 * N_RMA, want, sizeof(want)) == 0,                                \
              #NAME "_put_signal data");                                                       \
        shmem_barrier_all();                                                                   \
        CHECK(memcmp(d, want, sizeof(want)) == 0, #NAME "_put");                                 \
        CHECK(memcmp(d + N_RMA, want, sizeof(want)) == 0, #NAME "_put_nbi");                     \
        CHECK(memcmp(d + 2 * N_RMA, &want[3], sizeof(TYPE)) == 0, #NAME "_p");                  \
        for (int i = 0; i < N_RMA / 2; i++)                                                    \
            CHECK(memcmp(d + 3 * N_RMA + 2 * i, &want[i], sizeof(TYPE)) == 0, #NAME "_iput %d", i); \
        shmem_##NAME##_get(got, d, N_RMA, right);                                              \
        CHECK(memcmp(got, src, sizeof(src)) == 0, #NAME "_get");                               \
        memset(got, 0, sizeof(got));                                                           \
        shmem_ctx_##NAME##_get_nbi(ctx, got, d + N_RMA, N_RMA, right);                         \
        shmem_ctx_quiet(ctx);                                                                  \
        CHECK(memcmp(got, src, sizeof(src)) == 0, #NAME "_get_nbi");                           \
        v = shmem_##NAME##_g(d + 2 * N_RMA, right);                                            \
        CHECK(memcmp(&v, &src[3], sizeof(TYPE)) == 0, #NAME "_g");                             \
        shmem_##NAME##_iget(got, d, 1, 3, N_RMA / 3, right);                                   \
        for (int i = 0; i < N_RMA / 3; i++)                                                    \
            CHECK(memcmp(&got[i], &src[3 * i], sizeof(TYPE)) == 0, #NAME "_iget %d", i);        \
        shmem_barrier_all();                                                                   \
        shmem_free(d);                                                                         \
    } while (0);

/* The sized and mem forms on bytes: one pattern, every form. */
#define TEST_SIZED(BITS, TYPE)                                                                 \
    do {                                                                                       \
        const size_t sz = sizeof(TYPE), n = 13;                                                \
        unsigned char *d = shmem_calloc(4 * n, sz), *src = malloc(n * sz),                     \
                      *want = malloc(n * sz), *got = malloc(n * sz);                            \
        compat_fill(src, n * sz, me, 300 + BITS);                                              \
        compat_fill(want, n * sz, left, 300 + BITS);                                            \
        *sig = 0;                                                                              \
        shmem_barrier_all();                                                                   \
        shmem_put##BITS(d, src, n, right);                                                     \
        shmem_ctx_put##BITS##_nbi(ctx, d + n * sz, src, n, right);                             \
        shmem_iput##BITS(d + 2 * n * sz, src, 1, 1, n, right);                                 \
        shmem_put##BITS##_signal(d + 3 * n * sz, src, n, sig, 1, SHMEM_SIGNAL_SET, right);     \
        shmem_quiet();                                                                         \
        shmem_signal_wait_until(sig, SHMEM_CMP_NE, 0);                                         \
        shmem_barrier_all();                                                                   \
        for (int k = 0; k < 4; k++)                                                            \
            CHECK(memcmp(d + (size_t)k * n * sz, want, n * sz) == 0, "put%d form %d", BITS, k); \
        shmem_get##BITS(got, d, n, right);                                                     \
        CHECK(memcmp(got, src, n * sz) == 0, "get%d", BITS);                                   \
        memset(got, 0, n * sz);                                                                \
        shmem_get##BITS##_nbi(got, d + n * sz, n, right);                                      \
        shmem_quiet();                                                                         \
        CHECK(memcmp(got, src, n * sz) == 0, "get%d_nbi", BITS);                               \
        shmem_iget##BITS(got, d, 1, 1, n, right);                                              \
        CHECK(memcmp(got, src, n * sz) == 0, "iget%d", BITS);                                  \
        shmem_barrier_all();                                                                   \
        shmem_free(d);                                                                         \
        free(src);                                                                             \
        free(want);                                                                             \
        free(got);                                                                             \
    } while (0);

static void test_mem(void)
{
    const size_t n = 1000 + compat_rand(0, 400, 0) % 3000;
    char *d = shmem_calloc(3, n), *src = malloc(n), *want = malloc(n), *got = malloc(n);
    compat_fill(src, n, me, 401);
    compat_fill(want, n, left, 401);
    *sig = 0;
    shmem_barrier_all();
    shmem_putmem(d, src, n, right);
    shmem_putmem_nbi(d + n, src, n, right);
    shmem_ctx_putmem_signal_nbi(ctx, d + 2 * n, src, n, sig, 5, SHMEM_SIGNAL_SET, right);
    shmem_fence();
    shmem_ctx_fence(ctx);
    shmem_quiet();
    CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 5) == 5, "putmem_signal_nbi signal");
    shmem_sync_all();
    for (int k = 0; k < 3; k++)
        CHECK(memcmp(d + (size_t)k * n, want, n) == 0, "putmem form %d", k);
    shmem_getmem(got, d, n, right);
    CHECK(memcmp(got, src, n) == 0, "getmem");
    shmem_ctx_getmem_nbi(ctx, got, d + n, n, right);
    shmem_ctx_quiet(ctx);
    CHECK(memcmp(got, src, n) == 0, "getmem_nbi");
    shmem_barrier_all();
    shmem_free(d);
    free(src);
    free(want);
    free(got);
}

/* ---- atomics ------------------------------------------------------------------
 * Every PE adds its random addend to word 0 of every PE: each word ends as
 * the sum of all addends, which every PE computes. */

#define ADDEND(TYPE, pe) ((TYPE)(compat_rand(pe, 500, 0) % 1000))

#define TEST_AMO_STANDARD(NAME, TYPE, G)                                                       \
    do {                                                                                       \
        TYPE *w = shmem_calloc(4, sizeof(TYPE)), sum = 0, f = 0;                               \
        for (int pe = 0; pe < npes; pe++)                                                      \
            sum = (TYPE)(sum + ADDEND(TYPE, pe));                                              \
        shmem_barrier_all();                                                                   \
        for (int pe = 0; pe < npes; pe++) {                                                    \
            if (pe % 2 == 0)                                                                   \
                shmem_##NAME##_atomic_add(&w[0], ADDEND(TYPE, me), pe);                        \
            else                                                                               \
                (void)shmem_ctx_##NAME##_atomic_fetch_add(ctx, &w[0], ADDEND(TYPE, me), pe);   \
            shmem_ctx_##NAME##_atomic_inc(ctx, &w[1], pe);                                     \
            (void)shmem_##NAME##_atomic_fetch_inc(&w[1], pe);                                  \
            shmem_##NAME##_atomic_fetch_add_nbi(&f, &w[2], (TYPE)2, pe);                       \
            shmem_ctx_##NAME##_atomic_fetch_inc_nbi(ctx, &f, &w[2], pe);                       \
        }                                                                                      \
        shmem_quiet();                                                                         \
        shmem_barrier_all();                                                                   \
        CHECK(w[0] == sum, #NAME " add: %lld, expected %lld", (long long)w[0], (long long)sum); \
        CHECK(w[1] == (TYPE)(2 * npes) && w[2] == (TYPE)(3 * npes), #NAME " inc");             \
        CHECK(shmem_##NAME##_atomic_fetch(&w[0], right) == sum &&                              \
                  shmem_ctx_##NAME##_atomic_fetch(ctx, &w[0], left) == sum, #NAME " fetch");   \
        shmem_barrier_all();                                                                   \
        /* compare_swap: only the right neighbour's value matches */                           \
        TYPE old = shmem_##NAME##_atomic_compare_swap(&w[3], (TYPE)0, ADDEND(TYPE, me), right); \
        CHECK(old == 0, #NAME "_atomic_compare_swap");                                         \
        shmem_barrier_all();                                                                   \
        CHECK(w[3] == ADDEND(TYPE, left), #NAME " compare_swap stored");                       \
        shmem_ctx_##NAME##_atomic_compare_swap_nbi(ctx, &f, &w[3], (TYPE)1 + ADDEND(TYPE, me), \
                                                   (TYPE)7, right);                            \
        shmem_ctx_quiet(ctx);                                                                  \
        CHECK(f == ADDEND(TYPE, me), #NAME " failed compare_swap_nbi fetched");                \
        shmem_barrier_all();                                                                   \
        CHECK(w[3] == ADDEND(TYPE, left), #NAME " failed compare_swap changed nothing");       \
        shmem_barrier_all();                                                                   \
        shmem_free(w);                                                                         \
    } while (0);

#define TEST_AMO_EXTENDED(NAME, TYPE, G)                                                       \
    do {                                                                                       \
        TYPE *w = shmem_calloc(2, sizeof(TYPE)), f = 0;                                        \
        shmem_barrier_all();                                                                   \
        shmem_##NAME##_atomic_set(&w[0], ADDEND(TYPE, me), right);                             \
        shmem_ctx_##NAME##_atomic_set(ctx, &w[1], ADDEND(TYPE, me), right);                    \
        shmem_barrier_all();                                                                   \
        CHECK(w[0] == ADDEND(TYPE, left) && w[1] == ADDEND(TYPE, left), #NAME "_atomic_set"); \
        shmem_barrier_all(); /* checked before the left PE swaps them */                       \
        TYPE old = shmem_##NAME##_atomic_swap(&w[0], (TYPE)3, right);                          \
        CHECK(old == ADDEND(TYPE, me), #NAME "_atomic_swap");                                  \
        shmem_ctx_##NAME##_atomic_swap_nbi(ctx, &f, &w[1], (TYPE)4, right);                    \
        shmem_##NAME##_atomic_fetch_nbi(&old, &w[0], right);                                   \
        shmem_quiet();                                                                         \
        CHECK(f == ADDEND(TYPE, me) && old == (TYPE)3, #NAME " swap_nbi, fetch_nbi");          \
        shmem_barrier_all();                                                                   \
        CHECK(shmem_ctx_##NAME##_atomic_swap(ctx, &w[1], (TYPE)0, me) == (TYPE)4,              \
              #NAME " ctx swap");                                                              \
        shmem_barrier_all();                                                                   \
        shmem_free(w);                                                                         \
    } while (0);

#define MASK(TYPE, pe) ((TYPE)compat_rand(pe, 600, sizeof(TYPE)))

#define TEST_AMO_BITWISE(NAME, TYPE, G)                                                        \
    do {                                                                                       \
        TYPE *w = shmem_malloc(3 * sizeof(TYPE)), o = 0, a = (TYPE)~(TYPE)0, x = 0, f;         \
        w[0] = 0;                                                                              \
        w[1] = (TYPE)~(TYPE)0;                                                                 \
        w[2] = 0;                                                                              \
        for (int pe = 0; pe < npes; pe++) {                                                    \
            o |= MASK(TYPE, pe);                                                               \
            a &= MASK(TYPE, pe);                                                               \
            x ^= MASK(TYPE, pe);                                                               \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        for (int pe = 0; pe < npes; pe++) {                                                    \
            switch ((pe + me) % 3) {                                                           \
            case 0:                                                                            \
                shmem_##NAME##_atomic_or(&w[0], MASK(TYPE, me), pe);                           \
                shmem_ctx_##NAME##_atomic_and(ctx, &w[1], MASK(TYPE, me), pe);                 \
                shmem_##NAME##_atomic_xor(&w[2], MASK(TYPE, me), pe);                          \
                break;                                                                         \
            case 1:                                                                            \
                (void)shmem_ctx_##NAME##_atomic_fetch_or(ctx, &w[0], MASK(TYPE, me), pe);      \
                (void)shmem_##NAME##_atomic_fetch_and(&w[1], MASK(TYPE, me), pe);              \
                (void)shmem_##NAME##_atomic_fetch_xor(&w[2], MASK(TYPE, me), pe);              \
                break;                                                                         \
            default:                                                                           \
                shmem_##NAME##_atomic_fetch_or_nbi(&f, &w[0], MASK(TYPE, me), pe);             \
                shmem_ctx_##NAME##_atomic_fetch_and_nbi(ctx, &f, &w[1], MASK(TYPE, me), pe);   \
                shmem_##NAME##_atomic_fetch_xor_nbi(&f, &w[2], MASK(TYPE, me), pe);            \
                shmem_quiet();                                                                 \
            }                                                                                  \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        CHECK(w[0] == o && w[1] == a && w[2] == x, #NAME " or/and/xor");                       \
        shmem_barrier_all();                                                                   \
        shmem_free(w);                                                                         \
    } while (0);

static void test_locks(void)
{
    long *lock = shmem_calloc(1, sizeof(long));
    int *counter = shmem_calloc(1, sizeof(int));
    const int rounds = 10 + (int)(compat_rand(0, 700, 0) % 20);
    for (int i = 0; i < rounds; i++) {
        if (i % 3 != 0)
            shmem_set_lock(lock);
        else
            while (shmem_test_lock(lock))
                ;
        shmem_int_p(counter, shmem_int_g(counter, 0) + 1, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    CHECK(shmem_int_g(counter, 0) == rounds * npes, "lock-protected counter %d, expected %d",
          shmem_int_g(counter, 0), rounds * npes);
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(lock);
}

/* ---- waits and tests -----------------------------------------------------------
 * Each PE sets slot me of every PE's ivars to its nonzero random value. */

#define WAITVAL(TYPE, pe) ((TYPE)(1 + compat_rand(pe, 800, 0) % 100))

#define TEST_WAIT(NAME, TYPE, G)                                                               \
    do {                                                                                       \
        TYPE *iv = shmem_calloc((size_t)npes, sizeof(TYPE));                                   \
        TYPE *expect = malloc(sizeof(TYPE) * (size_t)npes);                                   \
        size_t *idx = malloc(sizeof(size_t) * (size_t)npes);                                   \
        for (int pe = 0; pe < npes; pe++)                                                      \
            expect[pe] = WAITVAL(TYPE, pe);                                                    \
        shmem_barrier_all();                                                                   \
        CHECK(shmem_##NAME##_test(&iv[0], SHMEM_CMP_EQ, 0) == 1 &&                             \
                  shmem_##NAME##_test_any(iv, (size_t)npes, NULL, SHMEM_CMP_NE, 0) == SIZE_MAX, \
              #NAME " tests before");                                                          \
        shmem_barrier_all();                                                                   \
        for (int pe = 0; pe < npes; pe++)                                                      \
            shmem_##NAME##_p(&iv[me], WAITVAL(TYPE, me), pe);                         \
        shmem_##NAME##_wait_until(&iv[left], SHMEM_CMP_EQ, expect[left]);                      \
        size_t any = shmem_##NAME##_wait_until_any(iv, (size_t)npes, NULL, SHMEM_CMP_NE, 0);   \
        CHECK(any < (size_t)npes, #NAME "_wait_until_any");                                    \
        shmem_##NAME##_wait_until_all(iv, (size_t)npes, NULL, SHMEM_CMP_GT, 0);                \
        shmem_##NAME##_wait_until_all_vector(iv, (size_t)npes, NULL, SHMEM_CMP_EQ, expect);    \
        CHECK(memcmp(iv, expect, sizeof(TYPE) * (size_t)npes) == 0, #NAME " values");          \
        CHECK(shmem_##NAME##_wait_until_some(iv, (size_t)npes, idx, NULL, SHMEM_CMP_GE, 1) ==  \
                  (size_t)npes, #NAME "_wait_until_some");                                     \
        CHECK(shmem_##NAME##_wait_until_any_vector(iv, (size_t)npes, NULL, SHMEM_CMP_LE,       \
                                                   expect) < (size_t)npes, #NAME " any_vector"); \
        CHECK(shmem_##NAME##_wait_until_some_vector(iv, (size_t)npes, idx, NULL, SHMEM_CMP_EQ, \
                                                    expect) == (size_t)npes, #NAME " some_vector"); \
        CHECK(shmem_##NAME##_test(&iv[me], SHMEM_CMP_EQ, expect[me]) &&                        \
                  shmem_##NAME##_test_all(iv, (size_t)npes, NULL, SHMEM_CMP_LT, 101) &&        \
                  shmem_##NAME##_test_all_vector(iv, (size_t)npes, NULL, SHMEM_CMP_GE, expect) && \
                  shmem_##NAME##_test_any_vector(iv, (size_t)npes, NULL, SHMEM_CMP_EQ, expect) < \
                      (size_t)npes &&                                                          \
                  shmem_##NAME##_test_some(iv, (size_t)npes, idx, NULL, SHMEM_CMP_NE, 0) ==    \
                      (size_t)npes &&                                                          \
                  shmem_##NAME##_test_some_vector(iv, (size_t)npes, idx, NULL, SHMEM_CMP_NE,   \
                                                  expect) == 0,                                \
              #NAME " tests after");                                                           \
        shmem_barrier_all();                                                                   \
        shmem_free(iv);                                                                        \
        free(expect);                                                                          \
        free(idx);                                                                             \
    } while (0);

/* ---- teams, collectives, reductions ---------------------------------------------- */

/* Rows of a reduction table to leave out: gshmem's 16-bit floats, which
 * have no host arithmetic to compute the reference with. */
#define SKIP_half ~, 1
#define SKIP_bfloat16 ~, 1
#define SECOND_(a, b, ...) b
#define SECOND(...) SECOND_(__VA_ARGS__)
#define IS_SKIPPED(NAME) SECOND(SKIP_##NAME, 0, ~)
#define IF_0(...) __VA_ARGS__
#define IF_1(...)
#define IF_(c, ...) IF_##c(__VA_ARGS__)
#define IF(c, ...) IF_(c, __VA_ARGS__)
#define UNLESS_SKIPPED(NAME, ...) IF(IS_SKIPPED(NAME), __VA_ARGS__)

static shmem_team_t even; /* the even PEs of the world; SHMEM_TEAM_INVALID elsewhere */

#define N_COLL 7

/* broadcast, collect, fcollect, alltoall, alltoalls over the world. */
#define TEST_COLL(NAME, TYPE, G)                                                               \
    do {                                                                                       \
        const size_t n = N_COLL, sz = sizeof(TYPE), np = (size_t)npes;                        \
        const int root = (int)(compat_rand(0, 900, sz) % (uint64_t)npes);                      \
        TYPE *src = shmem_malloc(np * n * 2 * sz), *dst = shmem_malloc(np * n * 2 * sz);       \
        unsigned char *want = malloc(np * n * 2 * sz);                                          \
        compat_fill(src, np * n * sz, me, 901);                                                \
        shmem_barrier_all();                                                                   \
        CHECK(shmem_##NAME##_broadcast(SHMEM_TEAM_WORLD, dst, src, n, root) == 0, "bcast");    \
        compat_fill(want, n * sz, root, 901);                                                   \
        CHECK(memcmp(dst, want, n * sz) == 0, #NAME "_broadcast from %d", root);                \
        CHECK(shmem_##NAME##_fcollect(SHMEM_TEAM_WORLD, dst, src, n) == 0, "fcollect");        \
        for (int pe = 0; pe < npes; pe++)                                                      \
            compat_fill(want + (size_t)pe * n * sz, n * sz, pe, 901);                           \
        CHECK(memcmp(dst, want, np * n * sz) == 0, #NAME "_fcollect");                          \
        /* collect: PE i gives i % 3 + 1 elements */                                          \
        CHECK(shmem_##NAME##_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)(me % 3 + 1)) == 0,   \
              "collect");                                                                      \
        size_t off = 0;                                                                        \
        for (int pe = 0; pe < npes; pe++) {                                                    \
            compat_fill(want + off, (size_t)(pe % 3 + 1) * sz, pe, 901);                        \
            off += (size_t)(pe % 3 + 1) * sz;                                                  \
        }                                                                                      \
        CHECK(memcmp(dst, want, off) == 0, #NAME "_collect");                                   \
        /* alltoall: my block j to PE j, at block me */                                       \
        CHECK(shmem_##NAME##_alltoall(SHMEM_TEAM_WORLD, dst, src, n) == 0, "alltoall");        \
        unsigned char *blk = malloc(np * n * sz);                                              \
        for (int pe = 0; pe < npes; pe++) {                                                    \
            compat_fill(blk, np * n * sz, pe, 901);                                            \
            memcpy(want + (size_t)pe * n * sz, blk + (size_t)me * n * sz, n * sz);              \
        }                                                                                      \
        CHECK(memcmp(dst, want, np * n * sz) == 0, #NAME "_alltoall");                          \
        /* alltoalls: element strides 2 (dest) and 1 (source), 3 elements a PE */              \
        CHECK(shmem_##NAME##_alltoalls(SHMEM_TEAM_WORLD, dst, src, 2, 1, 3) == 0, "alltoalls"); \
        for (int pe = 0; pe < npes; pe++) {                                                    \
            compat_fill(blk, np * n * sz, pe, 901);                                            \
            for (int k = 0; k < 3; k++)                                                        \
                CHECK(memcmp((unsigned char *)dst + ((size_t)pe * 3 + (size_t)k) * 2 * sz,     \
                             blk + ((size_t)me * 3 + (size_t)k) * sz, sz) == 0,                \
                      #NAME "_alltoalls from pe %d element %d", pe, k);                        \
        }                                                                                      \
        free(blk);                                                                             \
        shmem_barrier_all();                                                                   \
        shmem_free(src);                                                                       \
        shmem_free(dst);                                                                       \
        free(want);                                                                             \
    } while (0);

static void test_coll_mem(void)
{
    const size_t n = 33, np = (size_t)npes;
    char *src = shmem_malloc(np * n), *dst = shmem_malloc(np * n), *want = malloc(np * n);
    compat_fill(src, np * n, me, 950);
    shmem_barrier_all();
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, n, npes - 1) == 0, "broadcastmem");
    compat_fill(want, n, npes - 1, 950);
    CHECK(memcmp(dst, want, n) == 0, "broadcastmem data");
    CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, n) == 0 &&
              shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, n) == 0, "collectmem");
    for (int pe = 0; pe < npes; pe++)
        compat_fill(want + (size_t)pe * n, n, pe, 950);
    CHECK(memcmp(dst, want, np * n) == 0, "fcollectmem/collectmem data");
    CHECK(shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, 4) == 0 &&
              shmem_alltoallsmem(SHMEM_TEAM_WORLD, dst, src, 1, 1, 4) == 0, "alltoallmem");
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
    free(want);
}

/* Reductions over the world and over the even PEs' team. */
#define RVAL(TYPE, pe, i, op) ((TYPE)(compat_rand(pe, 1000 + op, i) % 10))
#define PVAL(TYPE, pe, i) ((TYPE)((pe) < 6 ? 1 + compat_rand(pe, 1010, i) % 2 : 1))

#define REDUCE_ON(TEAM, NAME, TYPE, OPNAME, INIT, COMBINE, VAL)                                \
    do {                                                                                       \
        int tn = shmem_team_n_pes(TEAM);                                                       \
        for (size_t i = 0; i < n; i++) {                                                       \
            TYPE r = INIT;                                                                     \
            for (int t = 0; t < tn; t++) {                                                     \
                int pe = shmem_team_translate_pe(TEAM, t, SHMEM_TEAM_WORLD);                   \
                TYPE v = VAL;                                                                  \
                r = COMBINE;                                                                   \
            }                                                                                  \
            ref[i] = r;                                                                        \
            src[i] = ({ int pe = me; VAL; });                                                  \
        }                                                                                      \
        shmem_team_sync(TEAM);                                                                 \
        CHECK(shmem_##NAME##_##OPNAME##_reduce(TEAM, dst, src, n) == 0, #NAME "_" #OPNAME);    \
        CHECK(memcmp(dst, ref, n * sizeof(TYPE)) == 0, #NAME "_" #OPNAME "_reduce values");   \
    } while (0)

#define N_RED 5
#define TEST_REDUCE_ARITH(NAME, TYPE, G) UNLESS_SKIPPED(NAME, do {                             \
        const size_t n = N_RED;                                                                \
        TYPE *src = shmem_malloc(n * sizeof(TYPE)), *dst = shmem_malloc(n * sizeof(TYPE));     \
        TYPE ref[N_RED];                                                                       \
        shmem_team_t teams[2] = {SHMEM_TEAM_WORLD, even};                                      \
        for (int k = 0; k < 2; k++) {                                                          \
            if (teams[k] == SHMEM_TEAM_INVALID)                                                \
                continue;                                                                      \
            REDUCE_ON(teams[k], NAME, TYPE, sum, (TYPE)0, (TYPE)(r + v), RVAL(TYPE, pe, i, 1)); \
            REDUCE_ON(teams[k], NAME, TYPE, prod, (TYPE)1, (TYPE)(r * v), PVAL(TYPE, pe, i));   \
            REDUCE_ON(teams[k], NAME, TYPE, min, (TYPE)100, (v < r ? v : r), RVAL(TYPE, pe, i, 2)); \
            REDUCE_ON(teams[k], NAME, TYPE, max, (TYPE)0, (v > r ? v : r), RVAL(TYPE, pe, i, 3)); \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        shmem_free(src);                                                                       \
        shmem_free(dst);                                                                       \
    } while (0);)

#define BVAL(TYPE, pe, i) ((TYPE)compat_rand(pe, 1100, i))
#define TEST_REDUCE_BITWISE(NAME, TYPE, G)                                                     \
    do {                                                                                       \
        const size_t n = N_RED;                                                                \
        TYPE *src = shmem_malloc(n * sizeof(TYPE)), *dst = shmem_malloc(n * sizeof(TYPE));     \
        TYPE ref[N_RED];                                                                       \
        REDUCE_ON(SHMEM_TEAM_WORLD, NAME, TYPE, and, (TYPE)~(TYPE)0, (TYPE)(r & v), BVAL(TYPE, pe, i)); \
        REDUCE_ON(SHMEM_TEAM_WORLD, NAME, TYPE, or, (TYPE)0, (TYPE)(r | v), BVAL(TYPE, pe, i));  \
        REDUCE_ON(SHMEM_TEAM_WORLD, NAME, TYPE, xor, (TYPE)0, (TYPE)(r ^ v), BVAL(TYPE, pe, i)); \
        shmem_barrier_all();                                                                   \
        shmem_free(src);                                                                       \
        shmem_free(dst);                                                                       \
    } while (0);

static void test_teams(void)
{
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    shmem_team_config_t conf = {.num_contexts = 2}, got;
    int n_even = (npes + 1) / 2;

    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n_even, &conf, SHMEM_TEAM_NUM_CONTEXTS,
                                   &even) == 0, "split_strided");
    if (me % 2 == 0) {
        CHECK(shmem_team_my_pe(even) == me / 2 && shmem_team_n_pes(even) == n_even, "even team");
        CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 2, "get_config");
        CHECK(shmem_team_translate_pe(even, n_even - 1, SHMEM_TEAM_WORLD) == 2 * (n_even - 1),
              "translate_pe");
        shmem_ctx_t tctx;
        shmem_team_t back;
        CHECK(shmem_team_create_ctx(even, SHMEM_CTX_SERIALIZED, &tctx) == 0 &&
                  shmem_ctx_get_team(tctx, &back) == 0 && back == even, "team_create_ctx");
        shmem_ctx_destroy(tctx);
        CHECK(shmem_team_sync(even) == 0, "team_sync");
    } else {
        CHECK(even == SHMEM_TEAM_INVALID && shmem_team_my_pe(even) == -1, "not in the even team");
    }
    int xr = npes > 2 ? 2 : 1;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d");
    CHECK(shmem_team_my_pe(x) == me % xr && shmem_team_my_pe(y) == me / xr, "2d coordinates");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) >= 1 && shmem_team_my_pe(SHMEM_TEAM_WORLD) == me,
          "predefined teams");
    int *box = shmem_malloc(sizeof(int));
    int *p = shmem_team_ptr(SHMEM_TEAM_WORLD, box, me);
    CHECK(p == box, "team_ptr of myself");
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    shmem_barrier_all();
    shmem_free(box);
}

/* ---- C11 generic forms, with and without a context ------------------------------ */

static void test_generic(void)
{
    long *d = shmem_calloc(8, sizeof(long));
    double *fd = shmem_calloc(2, sizeof(double));
    const long src[4] = {(long)compat_rand(me, 1200, 0), 2, 3, 4};
    long f = 0, exp0 = (long)compat_rand(left, 1200, 0);
    shmem_barrier_all();
    shmem_put(d, src, 4, right);
    shmem_put(ctx, d + 4, src, 4, right);
    shmem_p(ctx, &fd[0], 2.5 * me, right);
    shmem_fence(); /* the atomics below go to words the puts wrote */
    shmem_atomic_add(&d[7], 10, right);
    shmem_atomic_add(ctx, &d[7], 10, right);
    shmem_atomic_fetch_add_nbi(ctx, &f, &d[6], 1, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(d[0] == exp0 && d[4] == exp0 && fd[0] == 2.5 * left, "generic put/p");
    CHECK(d[7] == 24 && d[6] == 4, "generic atomics: %ld %ld", d[7], d[6]);
    CHECK(shmem_g(d, right) == src[0] && shmem_g(ctx, &fd[0], right) == 2.5 * me, "generic g");
    CHECK(shmem_atomic_fetch(ctx, &d[7], right) == 24 && shmem_atomic_fetch(&d[7], left) == 24,
          "generic fetch");
    shmem_wait_until(&d[7], SHMEM_CMP_EQ, 24);
    CHECK(shmem_test(&d[7], SHMEM_CMP_GE, 24) == 1, "generic test");
    long *bsrc = shmem_malloc(sizeof(long) * 2), *bdst = shmem_malloc(sizeof(long) * 2);
    bsrc[0] = me + 1;
    bsrc[1] = 2;
    shmem_barrier_all();
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, bdst, bsrc, 2) == 0 &&
              bdst[0] == (long)npes * (npes + 1) / 2 && bdst[1] == 2L * npes, "generic sum_reduce");
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, bdst, bsrc, 1) == 0 && bdst[0] == npes,
          "generic max_reduce");
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, 1, 0) == 0 && bdst[0] == 1,
          "generic broadcast");
    shmem_barrier_all();
    shmem_free(bsrc);
    shmem_free(bdst);
    shmem_free(fd);
    shmem_free(d);
}

int main(void)
{
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create");
    sig = shmem_calloc(1, sizeof(uint64_t));

    test_setup_and_memory();
    GSHMEM_FOR_RMA_TYPES(TEST_RMA)
    GSHMEM_FOR_RMA_SIZES(TEST_SIZED)
    test_mem();
    GSHMEM_FOR_AMO_STANDARD_TYPES(TEST_AMO_STANDARD)
    GSHMEM_FOR_AMO_EXTENDED_TYPES(TEST_AMO_EXTENDED)
    GSHMEM_FOR_AMO_BITWISE_TYPES(TEST_AMO_BITWISE)
    test_locks();
    GSHMEM_FOR_P2P_SYNC_TYPES(TEST_WAIT)
    test_teams();
    GSHMEM_FOR_RMA_TYPES(TEST_COLL)
    test_coll_mem();
    GSHMEM_FOR_REDUCE_ARITH_TYPES(TEST_REDUCE_ARITH)
    GSHMEM_FOR_REDUCE_BITWISE_TYPES(TEST_REDUCE_BITWISE)
    test_generic();

    shmem_ctx_destroy(ctx);
    shmem_free(sig);
    COMPAT_DONE();
}
