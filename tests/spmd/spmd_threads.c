/* GSHMEM_THREAD_MULTIPLE: several threads of every PE call the host API at
 * once.  Thread t of each PE sends rounds of data with put-with-signal to
 * thread t of the next PE and waits for its acknowledgement (an atomic add)
 * before reusing the buffer, reads a table of the previous PE with get and
 * g (and a larger one with the other threads: whole by getmem, or every
 * other element by iget), counts on the next PE with fetching atomics,
 * takes a lock on PE 0 that thread t of every other PE contends for, and
 * completes its work with
 * quiet and its own context's quiet.  Then two threads run collect at once,
 * one on the world and one on its reversed split (blocks of different sizes
 * on each, so a team reading the other's sizes lands its blocks wrongly).
 * Last, one thread of each PE puts into the next more than the sockets
 * between them hold while another gets from it (in many answers) and
 * fetches its counters, so a target answers while its own put to the same
 * PE waits for room, and waits for the rest of an answer whose sender
 * waits for the rest of its own.
 * Every value is checked.  Run under ThreadSanitizer too, mapped and through
 * tcp (GSHMEM_DISABLE_P2P=1), where the threads share the transport, and
 * with GSHMEM_COLL_ALGO=simple (collect's sizes through the heap). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "spmd_util.h"

#define THREADS 4
#define ROUNDS 150
#define LEN 192         /* longs per message */
#define TABLE 1024      /* longs in the table every thread reads */
#define LOCK_EVERY 10   /* rounds between two turns of the lock */
#define WIDE ((1 << 17) + 5) /* longs in the table every thread gets whole (through tcp: 17 chunks) */
#define WIDE_EVERY 50   /* rounds between two gets of it */

static int me, npes, to, from;
static long *inbox;        /* symmetric: THREADS * LEN, written by `from`'s threads */
static uint64_t *sig, *ack; /* symmetric: THREADS each; data arrived, buffer free again */
static long *counter;      /* symmetric: THREADS, fetch-added by `from`'s threads */
static long *table;        /* symmetric: written before the threads start */
static long *locks, *locked; /* symmetric, used on PE 0: THREADS each */
static long *wide;           /* symmetric: WIDE longs, got whole by every thread at once */
static int failed[THREADS];

#define COLLECT_ROUNDS 200
#define COLLECT_MAX 8 /* longs a member adds at most, over team index and round */
static gshmem_team_t coll_team[2]; /* the world, its reversed split */
static long *coll_src[2], *coll_dst[2]; /* symmetric, one pair a team */

static long value_of(int pe, int t, int round, int i)
{
    return (long)(spmd_mix(((uint64_t)pe << 40) ^ ((uint64_t)t << 32) ^ ((uint64_t)round << 12) ^
                           (uint64_t)i) >> 1);
}

#define EXPECT(t, cond, ...)                                                               \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL pe %d thread %d: %s: ", me, t, #cond);                   \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            failed[t]++;                                                                   \
            return NULL;                                                                   \
        }                                                                                  \
    } while (0)

static void *worker(void *arg)
{
    const int t = (int)(intptr_t)arg;
    long msg[LEN], got[LEN], row[64];
    gshmem_ctx_t ctx = GSHMEM_CTX_INVALID;
    long *whole = malloc(WIDE * sizeof(long));

    EXPECT(t, whole != NULL, "a buffer of %zu bytes", WIDE * sizeof(long));
    EXPECT(t, gshmem_ctx_create(GSHMEM_CTX_PRIVATE, &ctx) == 0, "ctx_create");
    for (int r = 1; r <= ROUNDS; r++) {
        /* send round r once `to` has read round r - 1 */
        gshmem_signal_wait_until(&ack[t], GSHMEM_CMP_GE, (uint64_t)(r - 1));
        for (int i = 0; i < LEN; i++)
            msg[i] = value_of(me, t, r, i);
        gshmem_putmem_signal(inbox + t * LEN, msg, sizeof(msg), &sig[t], 1, GSHMEM_SIGNAL_ADD, to);

        /* receive round r from `from`, then free the buffer */
        uint64_t s = gshmem_signal_wait_until(&sig[t], GSHMEM_CMP_GE, (uint64_t)r);
        EXPECT(t, s == (uint64_t)r, "round %d: signal %llu", r, (unsigned long long)s);
        gshmem_getmem(got, inbox + t * LEN, sizeof(got), me);
        for (int i = 0; i < LEN; i++)
            EXPECT(t, got[i] == value_of(from, t, r, i), "round %d: element %d", r, i);
        gshmem_uint64_atomic_add(&ack[t], 1, from);

        /* the previous PE's table, by get and g */
        const int at = (r * 61 + t * 17) % (TABLE - 64);
        gshmem_getmem(row, table + at, sizeof(row), from);
        for (int i = 0; i < 64; i++)
            EXPECT(t, row[i] == value_of(from, -1, 0, at + i), "table %d", at + i);
        EXPECT(t, gshmem_long_g(table + at + 7, from) == value_of(from, -1, 0, at + 7), "g");

        /* large gets from every thread of every PE at once (through tcp,
         * their chunks, and the odd threads' strided frames, share the
         * connection's window) */
        if (r % WIDE_EVERY == 0 && t % 2 == 0) {
            memset(whole, 0, WIDE * sizeof(long));
            gshmem_getmem(whole, wide, WIDE * sizeof(long), from);
            for (int i = 0; i < WIDE; i++)
                EXPECT(t, whole[i] == value_of(from, -2, 0, i), "round %d: wide %d", r, i);
        } else if (r % WIDE_EVERY == 0) { /* every other long, packed here */
            const int n = (WIDE + 1) / 2;
            memset(whole, 0, WIDE * sizeof(long));
            gshmem_long_iget(whole, wide, 1, 2, (size_t)n, from);
            for (int i = 0; i < n; i++)
                EXPECT(t, whole[i] == value_of(from, -2, 0, 2 * i), "round %d: iget %d", r, i);
            EXPECT(t, whole[n] == 0, "round %d: iget wrote past its %d elements", r, n);
        }

        long before = gshmem_long_atomic_fetch_add(&counter[t], 1, to);
        EXPECT(t, before >= r - 1 && before < ROUNDS, "round %d: counter was %ld", r, before);

        if (r % LOCK_EVERY == 0) {
            gshmem_set_lock(&locks[t]);
            long v = gshmem_long_g(&locked[t], 0);
            gshmem_long_p(&locked[t], v + 1, 0);
            gshmem_quiet();
            gshmem_clear_lock(&locks[t]);
        }
        gshmem_ctx_quiet(ctx);
    }
    gshmem_quiet();
    gshmem_ctx_destroy(ctx);
    free(whole);
    return NULL;
}

/* Member i of team k adds 1 + (i + k + round) % COLLECT_MAX longs in
 * round r: the two teams' sizes differ in most rounds. */
static int collect_count(int k, int i, int r) { return 1 + (i + k + r) % COLLECT_MAX; }

static void *collector(void *arg)
{
    const int k = (int)(intptr_t)arg;
    const gshmem_team_t team = coll_team[k];
    const int my = gshmem_team_my_pe(team), n = gshmem_team_n_pes(team);
    long mine[COLLECT_MAX], *got = malloc(sizeof(long) * COLLECT_MAX * (size_t)n);

    EXPECT(k, got != NULL, "a buffer of %d longs", COLLECT_MAX * n);
    for (int r = 0; r < COLLECT_ROUNDS; r++) {
        const int cnt = collect_count(k, my, r);
        for (int j = 0; j < cnt; j++)
            mine[j] = value_of(my, 8 + k, r, j);
        spmd_store(coll_src[k], mine, sizeof(long) * (size_t)cnt);
        gshmem_long_collect(team, coll_dst[k], coll_src[k], (size_t)cnt);
        size_t total = 0;
        for (int i = 0; i < n; i++)
            total += (size_t)collect_count(k, i, r);
        spmd_load(got, coll_dst[k], sizeof(long) * total);
        /* counted, not returned from: the other members still wait for
         * this one's later rounds */
        for (int i = 0, at = 0; i < n; i++)
            for (int j = 0; j < collect_count(k, i, r); j++, at++)
                if (got[at] != value_of(i, 8 + k, r, j) && failed[k]++ < 5)
                    fprintf(stderr, "FAIL pe %d: collect on team %d, round %d: element %d "
                            "(member %d's %d) is %ld\n", me, k, r, at, i, j, got[at]);
    }
    free(got);
    return NULL;
}

/* The crossfire: thread 0 puts BIG bytes into the next PE, CROSS_ROUNDS
 * times, while thread 1 gets the next PE's wide table and fetches a
 * counter of it until thread 0 is done. */
#define BIG (24 << 20)
#define CROSS_ROUNDS 16
static unsigned char *big;  /* symmetric: BIG, written by `from` */
static int putting;

static void *crossfire(void *arg)
{
    const int t = (int)(intptr_t)arg;
    if (t == 0) {
        unsigned char *src = malloc(BIG);
        if (src == NULL) { /* (CHECK counts in a global: main's) */
            fprintf(stderr, "pe %d crossfire: no memory for the source\n", me);
            failed[t] = 1;
            __atomic_store_n(&putting, 0, __ATOMIC_RELEASE);
            return NULL;
        }
        memset(src, 0x40 + me, BIG);
        for (int r = 0; r < CROSS_ROUNDS; r++)
            gshmem_putmem(big, src, BIG, to);
        gshmem_quiet();
        __atomic_store_n(&putting, 0, __ATOMIC_RELEASE);
        free(src);
        return NULL;
    }
    long *got = malloc(WIDE * sizeof(long)); /* answered in many chunks through tcp */
    long n = 0;
    if (got == NULL) {
        fprintf(stderr, "pe %d crossfire: no memory for the table\n", me);
        failed[t] = 1;
        return NULL;
    }
    do {
        /* mostly small answers (one each), at times the wide table's many */
        const int whole = n % 8 == 7, len = whole ? WIDE : TABLE;
        memset(got, 0, (size_t)len * sizeof(long));
        gshmem_getmem(got, whole ? wide : table, (size_t)len * sizeof(long), to);
        for (int i = 0; i < len; i++)
            if (got[i] != value_of(to, whole ? -2 : -1, 0, i)) {
                fprintf(stderr, "pe %d crossfire: %s[%d] from pe %d is %ld, expected %ld\n", me,
                        whole ? "wide" : "table", i, to, got[i],
                        value_of(to, whole ? -2 : -1, 0, i));
                failed[t] = 1;
                break;
            }
        const long old = gshmem_long_atomic_fetch_inc(&counter[0], to);
        if (old < ROUNDS + n) {
            fprintf(stderr, "pe %d crossfire: counter from pe %d went back to %ld\n", me, to, old);
            failed[t] = 1;
        }
        n++;
    } while (!failed[t] && __atomic_load_n(&putting, __ATOMIC_ACQUIRE));
    free(got);
    return NULL;
}

int main(void)
{
    int provided = -1;
    pthread_t th[THREADS];

    CHECK(gshmem_init_thread(GSHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
    CHECK(provided == GSHMEM_THREAD_MULTIPLE, "provided %d", provided);
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    to = (me + 1) % npes;
    from = (me + npes - 1) % npes;

    inbox = gshmem_calloc(THREADS * LEN, sizeof(long));
    sig = gshmem_calloc(THREADS, sizeof(uint64_t));
    ack = gshmem_calloc(THREADS, sizeof(uint64_t));
    counter = gshmem_calloc(THREADS, sizeof(long));
    table = gshmem_malloc(TABLE * sizeof(long));
    locks = gshmem_calloc(THREADS, sizeof(long));
    locked = gshmem_calloc(THREADS, sizeof(long));
    wide = gshmem_malloc(WIDE * sizeof(long));
    CHECK(inbox && sig && ack && counter && table && locks && locked && wide, "allocations");
    long *mine = malloc(WIDE * sizeof(long));
    CHECK(mine != NULL, "allocations");
    for (int i = 0; i < TABLE; i++)
        mine[i] = value_of(me, -1, 0, i);
    spmd_store(table, mine, TABLE * sizeof(long));
    for (int i = 0; i < WIDE; i++)
        mine[i] = value_of(me, -2, 0, i);
    spmd_store(wide, mine, WIDE * sizeof(long));
    free(mine);
    gshmem_barrier_all();

    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        CHECK(failed[t] == 0, "thread %d failed", t);

    /* collect on two teams at once */
    coll_team[0] = GSHMEM_TEAM_WORLD;
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0,
                                    &coll_team[1]) == 0, "reversed split");
    for (int k = 0; k < 2; k++) {
        coll_src[k] = gshmem_malloc(COLLECT_MAX * sizeof(long));
        coll_dst[k] = gshmem_malloc(COLLECT_MAX * sizeof(long) * (size_t)npes);
        CHECK(coll_src[k] != NULL && coll_dst[k] != NULL, "collect's buffers");
    }
    for (int k = 0; k < 2; k++)
        CHECK(pthread_create(&th[k], NULL, collector, (void *)(intptr_t)k) == 0, "pthread_create");
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < 2; k++)
        CHECK(failed[k] == 0, "collect on team %d failed", k);
    gshmem_team_destroy(coll_team[1]);

    /* the crossfire, after the workers' counts are checked */
    gshmem_barrier_all();
    for (int t = 0; t < THREADS; t++) {
        CHECK(LOAD(long, &counter[t]) == ROUNDS, "counter %d: %ld", t, LOAD(long, &counter[t]));
        CHECK(LOAD(uint64_t, &sig[t]) == ROUNDS, "signal %d", t);
        CHECK(LOAD(uint64_t, &ack[t]) == ROUNDS, "ack %d", t);
        if (me == 0)
            CHECK(LOAD(long, &locked[t]) == (long)npes * (ROUNDS / LOCK_EVERY), "locked %d: %ld",
                  t, LOAD(long, &locked[t]));
    }
    big = gshmem_malloc(BIG);
    CHECK(big != NULL, "crossfire's buffer");
    gshmem_barrier_all();
    putting = 1;
    for (int t = 0; t < 2; t++)
        CHECK(pthread_create(&th[t], NULL, crossfire, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++)
        CHECK(failed[t] == 0, "crossfire thread %d failed", t);
    gshmem_barrier_all();
    CHECK(spmd_all_bytes(big, BIG, (unsigned char)(0x40 + from)), "crossfire: the puts from pe %d",
          from);
    gshmem_free(big);
    for (int k = 1; k >= 0; k--) {
        gshmem_free(coll_dst[k]);
        gshmem_free(coll_src[k]);
    }
    gshmem_free(wide);
    gshmem_free(locked);
    gshmem_free(locks);
    gshmem_free(table);
    gshmem_free(counter);
    gshmem_free(ack);
    gshmem_free(sig);
    gshmem_free(inbox);
    SPMD_DONE();
}
