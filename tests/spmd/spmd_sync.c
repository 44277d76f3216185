/* Signals, wait_until/test families (all, any, some, vector) on every sync
 * type, fence ordering, and barrier_all/sync_all correctness. */
#include <gshmem.h>
#include <gshmemx.h>

#include "spmd_util.h"

#define MSG 1000

static int me, npes;
static uint64_t seed;

static void test_signals(void)
{
    /* Every PE sends a message with put_signal(ADD) to every PE: each PE's
     * signal reaches npes, and each message is whole when it is seen. */
    unsigned char *box = gshmem_malloc((size_t)npes * MSG);
    uint64_t *sig = gshmem_calloc(4, sizeof(uint64_t));
    unsigned char local[MSG], expect[MSG];

    spmd_set(box, POISON, (size_t)npes * MSG);
    gshmem_barrier_all();
    spmd_fill(local, MSG, seed, me, 1);
    for (int k = 0; k < npes; k++) {
        int pe = (me + k) % npes;
        if (k % 2)
            gshmem_putmem_signal(box + (size_t)me * MSG, local, MSG, &sig[0], 1, GSHMEM_SIGNAL_ADD, pe);
        else
            gshmem_putmem_signal_nbi(box + (size_t)me * MSG, local, MSG, &sig[0], 1,
                                     GSHMEM_SIGNAL_ADD, pe);
    }
    uint64_t got = gshmem_signal_wait_until(&sig[0], GSHMEM_CMP_EQ, (uint64_t)npes);
    CHECK(got == (uint64_t)npes, "signal_wait_until returned %llu", (unsigned long long)got);
    unsigned char *seen = malloc((size_t)npes * MSG);
    spmd_load(seen, box, (size_t)npes * MSG);
    for (int pe = 0; pe < npes; pe++) {
        spmd_fill(expect, MSG, seed, pe, 1);
        CHECK(memcmp(seen + (size_t)pe * MSG, expect, MSG) == 0, "message from pe %d", pe);
    }
    free(seen);
    /* SET replaces; signal_op; signal_fetch. */
    const int to = (me + 1) % npes;
    gshmem_barrier_all();
    gshmem_int_put_signal((int *)box, &me, 1, &sig[1], 41, GSHMEM_SIGNAL_SET, to);
    gshmem_signal_wait_until(&sig[1], GSHMEM_CMP_EQ, 41);
    CHECK(LOAD(int, box) == (me + npes - 1) % npes, "put_signal data");
    gshmem_barrier_all();
    gshmemx_signal_op(&sig[1], 2, GSHMEM_SIGNAL_ADD, to);
    gshmemx_signal_op(&sig[2], 0xabcdef, GSHMEM_SIGNAL_SET, to);
    gshmem_signal_wait_until(&sig[1], GSHMEM_CMP_GE, 43);
    gshmem_signal_wait_until(&sig[2], GSHMEM_CMP_NE, 0);
    CHECK(gshmem_signal_fetch(&sig[1]) == 43 && gshmem_signal_fetch(&sig[2]) == 0xabcdef,
          "signal_op / signal_fetch");
    /* sized and typed signal forms */
    gshmem_barrier_all();
    uint64_t v64 = 0x1122334455667788ull + (uint64_t)me;
    gshmem_put64_signal(box, &v64, 1, &sig[3], 5, GSHMEM_SIGNAL_ADD, to);
    gshmem_double_put_signal_nbi((double *)box + 1, (double[]){me * 0.5}, 1, &sig[3], 5,
                                 GSHMEM_SIGNAL_ADD, to);
    gshmem_signal_wait_until(&sig[3], GSHMEM_CMP_EQ, 10);
    CHECK(LOAD(uint64_t, box) == 0x1122334455667788ull + (uint64_t)((me + npes - 1) % npes) &&
          LOAD(double, (double *)box + 1) == ((me + npes - 1) % npes) * 0.5,
          "put64_signal / double put_signal_nbi");
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(box);
}

/* Per sync type: every PE sets its flag in every PE's array; the waits and
 * tests see exactly what has been set. */
#define TEST_WAIT(NAME, TYPE, G)                                                                 \
    do {                                                                                         \
        TYPE *flags = gshmem_calloc((size_t)npes + 1, sizeof(TYPE));                             \
        int *status = calloc((size_t)npes, sizeof(int));                                         \
        size_t *idx = calloc((size_t)npes, sizeof(size_t));                                      \
        TYPE *want = calloc((size_t)npes, sizeof(TYPE));                                         \
        for (int pe = 0; pe < npes; pe++)                                                        \
            want[pe] = (TYPE)(pe + 1);                                                           \
        /* Nothing set yet: tests say so. */                                                     \
        CHECK(gshmem_##NAME##_test(&flags[me], GSHMEM_CMP_NE, 0) == 0, #NAME "_test");           \
        CHECK(gshmem_##NAME##_test_any(flags, (size_t)npes, NULL, GSHMEM_CMP_NE, 0) == SIZE_MAX, \
              #NAME "_test_any");                                                                \
        CHECK(gshmem_##NAME##_test_some(flags, (size_t)npes, idx, NULL, GSHMEM_CMP_NE, 0) == 0,  \
              #NAME "_test_some");                                                               \
        CHECK(gshmem_##NAME##_test_all(flags, (size_t)npes, NULL, GSHMEM_CMP_EQ, 0) == 1,        \
              #NAME "_test_all");                                                                \
        gshmem_barrier_all();                                                                    \
        /* The PE before me sets its flag first; wait_until_any sees it. */                      \
        const int from = (me + npes - 1) % npes;                                                 \
        gshmem_##NAME##_p(&flags[me], (TYPE)(me + 1), (me + 1) % npes);                          \
        size_t any = gshmem_##NAME##_wait_until_any(flags, (size_t)npes, NULL, GSHMEM_CMP_GT, 0); \
        CHECK(any < (size_t)npes && LOAD(TYPE, &flags[any]) == want[any],                        \
              #NAME "_wait_until_any: %zu", any);                                                \
        gshmem_##NAME##_wait_until(&flags[from], GSHMEM_CMP_EQ, (TYPE)(from + 1));               \
        size_t some = gshmem_##NAME##_wait_until_some(flags, (size_t)npes, idx, NULL,            \
                                                      GSHMEM_CMP_GE, 1);                         \
        CHECK(some >= 1, #NAME "_wait_until_some: %zu", some);                                   \
        for (size_t i = 0; i < some; i++)                                                        \
            CHECK(LOAD(TYPE, &flags[idx[i]]) == want[idx[i]], #NAME "_wait_until_some %zu", idx[i]); \
        gshmem_barrier_all();                                                                    \
        /* Now everyone sets its flag everywhere. */                                             \
        for (int pe = 0; pe < npes; pe++)                                                        \
            gshmem_##NAME##_p(&flags[me], (TYPE)(me + 1), pe);                                   \
        gshmem_##NAME##_wait_until_all_vector(flags, (size_t)npes, NULL, GSHMEM_CMP_EQ, want);   \
        gshmem_##NAME##_wait_until_all(flags, (size_t)npes, NULL, GSHMEM_CMP_GE, 1);             \
        CHECK(gshmem_##NAME##_test_all_vector(flags, (size_t)npes, NULL, GSHMEM_CMP_EQ, want),   \
              #NAME "_test_all_vector");                                                         \
        CHECK(gshmem_##NAME##_test_some_vector(flags, (size_t)npes, idx, NULL, GSHMEM_CMP_EQ,    \
                                               want) == (size_t)npes, #NAME "_test_some_vector"); \
        /* Excluded elements are ignored; LT/LE/GT compare as the type does. */                  \
        for (int pe = 0; pe < npes; pe++)                                                        \
            status[pe] = pe != from;                                                             \
        CHECK(gshmem_##NAME##_test_any(flags, (size_t)npes, status, GSHMEM_CMP_LT,               \
                                       (TYPE)(from + 2)) == (size_t)from, #NAME " status");      \
        CHECK(gshmem_##NAME##_test_any_vector(flags, (size_t)npes, status, GSHMEM_CMP_LE, want)  \
              == (size_t)from, #NAME "_test_any_vector");                                        \
        CHECK(gshmem_##NAME##_wait_until_any_vector(flags, (size_t)npes, status, GSHMEM_CMP_EQ,  \
                                                    want) == (size_t)from,                       \
              #NAME "_wait_until_any_vector");                                                   \
        CHECK(gshmem_##NAME##_wait_until_some_vector(flags, (size_t)npes, idx, status,           \
                                                     GSHMEM_CMP_EQ, want) == 1 &&                \
                  idx[0] == (size_t)from, #NAME "_wait_until_some_vector");                      \
        CHECK(gshmem_##NAME##_test(&flags[from], GSHMEM_CMP_GT, (TYPE)from), #NAME " GT");       \
        CHECK(!gshmem_##NAME##_test(&flags[from], GSHMEM_CMP_LT, (TYPE)from), #NAME " LT");      \
        for (int pe = 0; pe < npes; pe++)                                                        \
            status[pe] = 1;                                                                      \
        CHECK(gshmem_##NAME##_wait_until_any(flags, (size_t)npes, status, GSHMEM_CMP_EQ, 0) ==   \
                  SIZE_MAX, #NAME " all excluded");                                              \
        /* Signed types compare as signed. */                                                    \
        STORE(TYPE, &flags[npes], (TYPE)-1);                                                     \
        CHECK(gshmem_##NAME##_test(&flags[npes], GSHMEM_CMP_LT, 0) == ((TYPE)-1 < (TYPE)1),      \
              #NAME " signedness");                                                              \
        gshmem_barrier_all();                                                                    \
        free(want);                                                                              \
        free(idx);                                                                               \
        free(status);                                                                            \
        gshmem_free(flags);                                                                      \
    } while (0);

static void test_barriers(void)
{
    /* Each round every PE adds one to every PE's counter; after the barrier
     * every counter must hold exactly rounds * npes. */
    long *count = gshmem_calloc(1, sizeof(long));
    const int rounds = npes > 4 ? 30 : 100;
    for (int r = 1; r <= rounds; r++) {
        for (int pe = 0; pe < npes; pe++)
            gshmem_long_atomic_inc(count, pe);
        if (r % 2)
            gshmem_barrier_all();
        else {
            gshmem_quiet();
            gshmem_sync_all();
        }
        long c = LOAD(long, count);
        CHECK(c == (long)r * npes, "after barrier %d the count is %ld", r, c);
        gshmem_sync_all(); /* nobody adds for round r+1 before all have checked */
    }
    /* fence orders a data put before a flag put to the same PE. */
    int *data = gshmem_calloc(64, sizeof(int));
    int *flag = gshmem_calloc(1, sizeof(int));
    const int to = (me + 1) % npes;
    for (int i = 0; i < 64; i++)
        gshmem_int_p(&data[i], i * 3 + me, to);
    gshmem_fence();
    gshmem_int_p(flag, 1, to);
    gshmem_int_wait_until(flag, GSHMEM_CMP_EQ, 1);
    int seen_data[64];
    spmd_load(seen_data, data, sizeof(seen_data));
    for (int i = 0; i < 64; i++)
        CHECK(seen_data[i] == i * 3 + (me + npes - 1) % npes, "fence: data %d not there with the flag",
              i);
    gshmem_barrier_all();
    gshmem_free(flag);
    gshmem_free(data);
    gshmem_free(count);
}

/* Contexts: created on the world and on a split team, their quiet
 * completes puts, and they report their team. */
static void test_contexts(void)
{
    gshmem_ctx_t ctx = GSHMEM_CTX_INVALID, tctx = GSHMEM_CTX_INVALID;
    gshmem_team_t team = GSHMEM_TEAM_INVALID, t;
    long *box = gshmem_calloc((size_t)npes, sizeof(long));

    CHECK(gshmem_ctx_create(GSHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != GSHMEM_CTX_INVALID,
          "gshmem_ctx_create");
    CHECK(gshmem_ctx_get_team(ctx, &t) == 0 && t == GSHMEM_TEAM_WORLD, "context's team");
    CHECK(gshmem_ctx_get_team(GSHMEM_CTX_DEFAULT, &t) == 0 && t == GSHMEM_TEAM_WORLD,
          "default context's team");
    CHECK(gshmem_ctx_get_team(GSHMEM_CTX_INVALID, &t) != 0 && t == GSHMEM_TEAM_INVALID,
          "invalid context's team");
    const long mine = me + 100; /* the nbi puts' source: kept until the quiet */
    for (int pe = 0; pe < npes; pe++)
        gshmem_long_put_nbi(&box[me], &mine, 1, pe);
    gshmem_ctx_quiet(ctx);
    gshmem_ctx_fence(GSHMEM_CTX_DEFAULT);
    gshmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        CHECK(LOAD(long, &box[pe]) == pe + 100, "put completed by the context's quiet");
    gshmem_ctx_destroy(ctx);
    gshmem_ctx_destroy(GSHMEM_CTX_INVALID); /* no effect */

    /* Even PEs' team: its members get a context on it, the others none. */
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &team) == 0,
          "split");
    int st = gshmem_team_create_ctx(team, 0, &tctx);
    if (me % 2 == 0)
        CHECK(st == 0 && gshmem_ctx_get_team(tctx, &t) == 0 && t == team, "team context");
    else
        CHECK(st != 0 && tctx == GSHMEM_CTX_INVALID, "a context on a team this PE is not in");
    gshmem_ctx_destroy(tctx);
    if (team != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(team);
    gshmem_barrier_all();
    gshmem_free(box);
}

int main(void)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    seed = spmd_seed();
    test_signals();
    GSHMEM_FOR_P2P_SYNC_TYPES(TEST_WAIT)
    test_barriers();
    test_contexts();
    SPMD_DONE();
}
