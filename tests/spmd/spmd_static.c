/* The program's global and static variables as symmetric data objects
 * (OpenSHMEM): initialised (.data) and zero (.bss) globals, file- and
 * function-scope statics, reached by every host family: put/get/p/g,
 * strided, atomics of 4 and 8 bytes, locks, put_signal and signal waits,
 * wait_until on a static array, gshmem_ptr, collectives with static dest
 * and source at sizes for each algorithm; mixed with heap objects; their
 * contents kept across the move at init and back at finalize; a child of
 * fork no longer shares them.  Random data, checked against values every PE can regenerate. */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "spmd_util.h"

#define BIG (8u << 20) /* .bss: more than one tcp request, pieces per PE */

long initialized_long = 0x1234567890abcdefL; /* .data */
static int initialized_array[7] = {3, 1, 4, 1, 5, 9, 2};
static unsigned char big[BIG];
long counters[16];
static long amo_words[4];
static int int_counters[4];
static long swap_word;
static long fork_word;
static uint64_t sig;
static long lock_word;
static long under_lock;
static int ivars[8];
static double strided[64];
static unsigned char landing[4096];

static uint64_t seed;

/* Collectives' buffers: per member up to COLL_MAX longs, up to 8 members. */
#define COLL_MAX 6000
static long coll_src[COLL_MAX * 8];
static long coll_dst[COLL_MAX * 8];
static double coll_dsrc[COLL_MAX], coll_ddst[COLL_MAX];

static void check_initial_values(void)
{
    static const int want[7] = {3, 1, 4, 1, 5, 9, 2};
    CHECK(initialized_long == 0x1234567890abcdefL, "initialized_long is %#lx after init",
          initialized_long);
    CHECK(memcmp(initialized_array, want, sizeof(want)) == 0, "initialized_array changed");
    CHECK(spmd_all_bytes(big, 4096, 0) && spmd_all_bytes(big + BIG - 4096, 4096, 0),
          "the .bss array is not zero after init");
}

/* Reach matches the heap's: where a peer's heap is mapped, so are its
 * static data, and the mapping is that PE's copy. */
static void check_ptr(int me, int n)
{
    long *heap_obj = gshmem_malloc(sizeof(long));
    CHECK(gshmem_ptr(&counters[3], me) == (void *)&counters[3], "gshmem_ptr of my own static");
    CHECK(gshmem_addr_accessible(&counters[3], me), "my own static is not accessible");
    CHECK(gshmem_ptr(&landing[0], -1) == NULL && gshmem_ptr(&landing[0], n) == NULL,
          "gshmem_ptr of a PE out of range");
    int local_dummy = 0;
    CHECK(gshmem_ptr(&local_dummy, me) == NULL, "gshmem_ptr of a stack variable");
    for (int pe = 0; pe < n; pe++) {
        long *p = gshmem_ptr(&counters[3], pe);
        CHECK((p != NULL) == (gshmem_ptr(heap_obj, pe) != NULL),
              "pe %d: static data reach (%p) differs from the heap's", pe, (void *)p);
        CHECK((p != NULL) == gshmem_addr_accessible(&counters[3], pe), "pe %d: accessible", pe);
    }
    /* Store through the mapping into the next PE's copy; it checks. */
    gshmem_barrier_all();
    long *next = gshmem_ptr(&counters[3], (me + 1) % n);
    if (next != NULL)
        *next = 1000 + me;
    else
        gshmem_long_p(&counters[3], 1000 + me, (me + 1) % n);
    gshmem_barrier_all();
    CHECK(counters[3] == 1000 + (me + n - 1) % n, "counters[3] holds %ld", counters[3]);
    gshmem_free(heap_obj);
}

/* Every PE puts its random piece into big on every PE, then gets its right
 * neighbour's piece from a third PE; odd sizes and offsets. */
static void check_put_get(int me, int n)
{
    const size_t piece = BIG / (size_t)n - 13;
    unsigned char *mine = malloc(piece), *want = malloc(piece), *got = malloc(piece);
    spmd_fill(mine, piece, seed, me, 1);
    for (int k = 0; k < n; k++) {
        int pe = (me + k) % n;
        gshmem_putmem(big + (size_t)me * (piece + 13) + 7, mine, piece, pe);
    }
    gshmem_barrier_all();
    for (int src = 0; src < n; src++) {
        spmd_fill(want, piece, seed, src, 1);
        CHECK(memcmp(big + (size_t)src * (piece + 13) + 7, want, piece) == 0,
              "pe %d's piece in my big is wrong", src);
    }
    const int from = (me + 2) % n, whose = (me + 1) % n;
    memset(got, POISON, piece);
    gshmem_getmem(got, big + (size_t)whose * (piece + 13) + 7, piece, from);
    spmd_fill(want, piece, seed, whose, 1);
    CHECK(memcmp(got, want, piece) == 0, "getmem of pe %d's piece from pe %d", whose, from);
    /* nbi forms, completed by quiet */
    memset(got, POISON, 4096);
    gshmem_getmem_nbi(got, big + (size_t)whose * (piece + 13) + 7, 4096, from);
    gshmem_quiet();
    CHECK(memcmp(got, want, 4096) == 0, "getmem_nbi");
    gshmem_barrier_all();
    free(mine);
    free(want);
    free(got);
}

/* Typed p/g, and strided puts and gets on a static double array. */
static void check_typed_and_strided(int me, int n)
{
    for (int pe = 0; pe < n; pe++)
        gshmem_long_p(&counters[me % 16], (long)spmd_mix(seed + (uint64_t)me * 131 + (uint64_t)pe),
                      pe);
    gshmem_barrier_all();
    for (int src = 0; src < n && src < 16; src++) {
        if (src + 16 < n)
            continue; /* several PEs wrote the slot: the last one's value is unknown */
        long want = (long)spmd_mix(seed + (uint64_t)src * 131 + (uint64_t)me);
        CHECK(counters[src] == want, "counters[%d] = %ld, want %ld", src, counters[src], want);
        const int peer = (me + 1) % n;
        long want_there = (long)spmd_mix(seed + (uint64_t)src * 131 + (uint64_t)peer);
        CHECK(gshmem_long_g(&counters[src], peer) == want_there, "long_g of counters[%d] on pe %d",
              src, peer);
    }
    gshmem_barrier_all();

    double vals[16], back[16];
    for (int i = 0; i < 16; i++)
        vals[i] = (double)spmd_mix(seed ^ (uint64_t)(me * 16 + i)) / 3.0;
    const int to = (me + 1) % n;
    gshmem_double_iput(strided, vals, 4, 1, 16, to); /* every 4th element on the next PE */
    gshmem_barrier_all();
    const int from = (me + n - 1) % n;
    for (int i = 0; i < 16; i++) {
        double w = (double)spmd_mix(seed ^ (uint64_t)(from * 16 + i)) / 3.0;
        CHECK(strided[4 * i] == w, "strided[%d] from pe %d", 4 * i, from);
    }
    gshmem_double_iget(back, strided, 1, 4, 16, to); /* what I put there */
    CHECK(memcmp(back, vals, sizeof(vals)) == 0, "iget of the strided elements");
    gshmem_barrier_all();
}

/* Atomics of 8 and 4 bytes on static words, from every PE to every PE. */
static void check_atomics(int me, int n)
{
    gshmem_barrier_all();
    const int rounds = 50;
    long fetched_sum = 0;
    for (int r = 0; r < rounds; r++) {
        gshmem_long_atomic_add(&amo_words[0], me + 1, 0);
        fetched_sum += gshmem_long_atomic_fetch_inc(&amo_words[1], 0);
        for (int pe = 0; pe < n; pe++)
            gshmem_int_atomic_add(&int_counters[0], 1, pe);
    }
    /* a compare-and-swap increment loop on a 4-byte word next to a busy one */
    for (int r = 0; r < rounds; r++) {
        int cur = gshmem_int_atomic_fetch(&int_counters[1], (me + 1) % n);
        for (;;) {
            int seen = gshmem_int_atomic_compare_swap(&int_counters[1], cur, cur + 1, (me + 1) % n);
            if (seen == cur)
                break;
            cur = seen;
        }
    }
    gshmem_barrier_all();
    /* fetch_inc handed out 0 .. rounds*n-1, once each: their sum */
    gshmem_long_atomic_add(&amo_words[2], fetched_sum, 0);
    gshmem_barrier_all();
    if (me == 0) {
        const long total = (long)rounds * n;
        CHECK(amo_words[0] == (long)rounds * n * (n + 1) / 2, "atomic_add total %ld", amo_words[0]);
        CHECK(amo_words[1] == total, "fetch_inc total %ld", amo_words[1]);
        CHECK(amo_words[2] == total * (total - 1) / 2, "fetch_inc handed out values summing to "
              "%ld", amo_words[2]);
    }
    CHECK(int_counters[0] == rounds * n, "int atomic_add total %d", int_counters[0]);
    CHECK(int_counters[1] == rounds, "cswap increments %d", int_counters[1]);
    long swapped = gshmem_long_atomic_swap(&swap_word, me + 100, me);
    CHECK(swapped == 0 && swap_word == me + 100, "swap on myself: old %ld now %ld", swapped,
          swap_word);
    gshmem_barrier_all();
}

/* A lock in static data guards a read-modify-write of PE 0's counter. */
static void check_lock(int me, int n)
{
    const int rounds = 20;
    for (int r = 0; r < rounds; r++) {
        gshmem_set_lock(&lock_word);
        long v = gshmem_long_g(&under_lock, 0);
        gshmem_long_p(&under_lock, v + 1, 0);
        gshmem_quiet();
        gshmem_clear_lock(&lock_word);
    }
    gshmem_barrier_all();
    if (me == 0)
        CHECK(under_lock == (long)rounds * n, "under_lock is %ld, want %d", under_lock, rounds * n);
}

/* put_signal into static data, the signal in static data; a fence orders a
 * plain put before a flag. */
static void check_signals(int me, int n)
{
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    unsigned char msg[1000], want[1000];
    for (int r = 1; r <= 5; r++) {
        spmd_fill(msg, sizeof(msg), seed, me, 100 + (uint64_t)r);
        gshmem_putmem_signal(landing, msg, sizeof(msg), &sig, 1, GSHMEM_SIGNAL_ADD, to);
        uint64_t v = gshmem_signal_wait_until(&sig, GSHMEM_CMP_GE, (uint64_t)r);
        CHECK(v == (uint64_t)r, "signal is %llu in round %d", (unsigned long long)v, r);
        spmd_fill(want, sizeof(want), seed, from, 100 + (uint64_t)r);
        CHECK(memcmp(landing, want, sizeof(want)) == 0, "round %d: data before its signal", r);
        CHECK(gshmem_signal_fetch(&sig) == (uint64_t)r, "signal_fetch");
        gshmem_barrier_all(); /* the next round's put may land */
    }
    /* put, fence, flag: the flag never arrives before the data */
    spmd_fill(msg, sizeof(msg), seed, me, 200);
    gshmem_putmem(landing + 2000, msg, sizeof(msg), to);
    gshmem_fence();
    gshmem_int_atomic_set(&ivars[me % 8], me + 1, to);
    gshmem_int_wait_until(&ivars[from % 8], GSHMEM_CMP_EQ, from + 1);
    spmd_fill(want, sizeof(want), seed, from, 200);
    CHECK(memcmp(landing + 2000, want, sizeof(want)) == 0, "data before the fenced flag");
    gshmem_barrier_all();
}

/* wait_until_all over a static array that every PE sets a word of. */
static void check_wait_all(int me, int n)
{
    const int m = n < 8 ? n : 8;
    memset(ivars, 0, sizeof(ivars));
    gshmem_barrier_all();
    if (me < 8)
        for (int pe = 0; pe < n; pe++)
            gshmem_int_atomic_set(&ivars[me], 7 * me + 1, pe);
    gshmem_int_wait_until_all(ivars, (size_t)m, NULL, GSHMEM_CMP_NE, 0);
    for (int i = 0; i < m; i++)
        CHECK(ivars[i] == 7 * i + 1, "ivars[%d] = %d", i, ivars[i]);
    gshmem_barrier_all();
}

/* Static and heap objects in one transfer each way. */
static void check_mixed(int me, int n)
{
    unsigned char *heap = gshmem_malloc(4096), data[4096], got[4096];
    const int to = (me + 1) % n, from = (me + n - 1) % n;
    spmd_fill(landing, sizeof(landing), seed, me, 300);
    gshmem_barrier_all();
    gshmem_putmem(heap, landing, sizeof(landing), to); /* static source, heap dest */
    gshmem_barrier_all();
    spmd_load(data, heap, sizeof(data));
    spmd_fill(got, sizeof(got), seed, from, 300);
    CHECK(memcmp(data, got, sizeof(got)) == 0, "static source into a heap dest");
    gshmem_barrier_all();
    gshmem_getmem(landing, heap, sizeof(landing), to); /* heap source, static dest */
    spmd_fill(got, sizeof(got), seed, me, 300);
    CHECK(memcmp(landing, got, sizeof(got)) == 0, "heap source into a static dest");
    gshmem_barrier_all();
    gshmem_free(heap);
}

/* A function-scope static, and a child of fork that must not write into
 * this PE's (or its peers') copy. */
static void check_fork(int me)
{
    static long mine_only = 77;
    mine_only = 5000 + me;
    pid_t child = fork();
    CHECK(child >= 0, "fork failed");
    if (child == 0) {
        int ok = mine_only == 5000 + me && initialized_long == 0x1234567890abcdefL;
        mine_only = -1;
        initialized_long = -1;
        fork_word = -1;
        _exit(ok ? 0 : 3);
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child, "waitpid");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child saw other values (status %d)",
          status);
    CHECK(mine_only == 5000 + me && initialized_long == 0x1234567890abcdefL && fork_word == 0,
          "the child's writes reached the parent's static data");
}

/* Member pe's element i of the collective tagged tag: small enough that
 * sums of 8 never overflow. */
static long cval(int pe, uint64_t tag, size_t i)
{
    return (long)(spmd_mix(seed ^ spmd_mix((uint64_t)pe * 1000003 + tag * 7919 + i)) % 1000000);
}

/* Collectives whose dest and source are static arrays, small (one-shot)
 * and large (the barrier or pipelined algorithms), against references
 * computed here from every member's regenerated input. */
static void check_collectives(int me, int n)
{
    if (n > 8)
        return;
    const size_t sizes[] = {7, COLL_MAX};
    for (size_t si = 0; si < 2; si++) {
        const size_t k = sizes[si];
        const uint64_t tag = 1000 + si;
        /* fcollect: every member's k elements, in team order */
        for (size_t i = 0; i < k; i++)
            coll_src[i] = cval(me, tag, i);
        memset(coll_dst, POISON, sizeof(coll_dst));
        gshmem_long_fcollect(GSHMEM_TEAM_WORLD, coll_dst, coll_src, k);
        for (int pe = 0; pe < n; pe++)
            for (size_t i = 0; i < k; i++)
                CHECK(coll_dst[(size_t)pe * k + i] == cval(pe, tag, i),
                      "fcollect of %zu: pe %d's element %zu", k, pe, i);
        /* broadcast from the last member */
        memset(coll_dst, POISON, sizeof(coll_dst));
        gshmem_long_broadcast(GSHMEM_TEAM_WORLD, coll_dst, coll_src, k, n - 1);
        for (size_t i = 0; i < k; i++)
            CHECK(coll_dst[i] == cval(n - 1, tag, i), "broadcast of %zu: element %zu", k, i);
        /* into the heap from static data: broadcast (on the GPU heap the
         * root stages its source in its dest) and reduce */
        long *hdst = gshmem_malloc(sizeof(long) * k), *got = malloc(sizeof(long) * k);
        CHECK(hdst != NULL && got != NULL, "gshmem_malloc and malloc of %zu longs", k);
        memset(got, POISON, sizeof(long) * k);
        gshmem_putmem(hdst, got, sizeof(long) * k, me);
        gshmem_quiet();
        gshmem_long_broadcast(GSHMEM_TEAM_WORLD, hdst, coll_src, k, n - 1);
        gshmem_getmem(got, hdst, sizeof(long) * k, me);
        for (size_t i = 0; i < k; i++)
            CHECK(got[i] == cval(n - 1, tag, i), "broadcast of %zu into the heap: element %zu", k, i);
        memset(got, POISON, sizeof(long) * k);
        gshmem_putmem(hdst, got, sizeof(long) * k, me);
        gshmem_quiet();
        gshmem_long_sum_reduce(GSHMEM_TEAM_WORLD, hdst, coll_src, k);
        gshmem_getmem(got, hdst, sizeof(long) * k, me);
        for (size_t i = 0; i < k; i++) {
            long want = 0;
            for (int pe = 0; pe < n; pe++)
                want += cval(pe, tag, i);
            CHECK(got[i] == want, "sum_reduce of %zu into the heap: element %zu", k, i);
        }
        free(got);
        gshmem_free(hdst);
        /* alltoall: my block j goes to member j */
        const size_t b = k / (size_t)n > 0 ? k / (size_t)n : 1;
        for (int j = 0; j < n; j++)
            for (size_t i = 0; i < b; i++)
                coll_src[(size_t)j * b + i] = cval(me, tag + 10 + (uint64_t)j, i);
        memset(coll_dst, POISON, sizeof(coll_dst));
        gshmem_long_alltoall(GSHMEM_TEAM_WORLD, coll_dst, coll_src, b);
        for (int pe = 0; pe < n; pe++)
            for (size_t i = 0; i < b; i++)
                CHECK(coll_dst[(size_t)pe * b + i] == cval(pe, tag + 10 + (uint64_t)me, i),
                      "alltoall of %zu: pe %d's block, element %zu", b, pe, i);
        /* sum reduce of longs, and of doubles (team order: exact) */
        for (size_t i = 0; i < k; i++) {
            coll_src[i] = cval(me, tag + 20, i);
            coll_dsrc[i] = (double)cval(me, tag + 30, i) / 7.0;
        }
        memset(coll_dst, POISON, sizeof(coll_dst));
        gshmem_long_sum_reduce(GSHMEM_TEAM_WORLD, coll_dst, coll_src, k);
        gshmem_double_sum_reduce(GSHMEM_TEAM_WORLD, coll_ddst, coll_dsrc, k);
        for (size_t i = 0; i < k; i++) {
            long want = 0;
            double dwant = 0;
            for (int pe = 0; pe < n; pe++) {
                want += cval(pe, tag + 20, i);
                dwant = pe == 0 ? (double)cval(0, tag + 30, i) / 7.0
                                : dwant + (double)cval(pe, tag + 30, i) / 7.0;
            }
            CHECK(coll_dst[i] == want, "long sum_reduce of %zu: element %zu", k, i);
            CHECK(coll_ddst[i] == dwant, "double sum_reduce of %zu: element %zu", k, i);
        }
        /* reducescatter: block j of the sum goes to member j */
        const size_t rb = k / (size_t)n > 0 ? k / (size_t)n : 1;
        for (size_t i = 0; i < rb * (size_t)n; i++)
            coll_src[i] = cval(me, tag + 60, i);
        memset(coll_dst, POISON, sizeof(coll_dst));
        gshmem_long_sum_reducescatter(GSHMEM_TEAM_WORLD, coll_dst, coll_src, rb);
        for (size_t i = 0; i < rb; i++) {
            long want = 0;
            for (int pe = 0; pe < n; pe++)
                want += cval(pe, tag + 60, (size_t)me * rb + i);
            CHECK(coll_dst[i] == want, "sum_reducescatter of %zu: element %zu", rb, i);
        }
        /* in place: dest == source */
        for (size_t i = 0; i < k; i++)
            coll_src[i] = cval(me, tag + 40, i);
        gshmem_long_max_reduce(GSHMEM_TEAM_WORLD, coll_src, coll_src, k);
        for (size_t i = 0; i < k; i++) {
            long want = cval(0, tag + 40, i);
            for (int pe = 1; pe < n; pe++)
                want = cval(pe, tag + 40, i) > want ? cval(pe, tag + 40, i) : want;
            CHECK(coll_src[i] == want, "in-place max_reduce of %zu: element %zu", k, i);
        }
        /* collect: member pe brings pe + 1 elements per unit of k / 8 */
        const size_t unit = k / 8 > 0 ? k / 8 : 1, mine = unit * (size_t)(me + 1);
        for (size_t i = 0; i < mine; i++)
            coll_src[i] = cval(me, tag + 50, i);
        memset(coll_dst, POISON, sizeof(coll_dst));
        gshmem_long_collect(GSHMEM_TEAM_WORLD, coll_dst, coll_src, mine);
        size_t at = 0;
        for (int pe = 0; pe < n; pe++)
            for (size_t i = 0; i < unit * (size_t)(pe + 1); i++, at++)
                CHECK(coll_dst[at] == cval(pe, tag + 50, i), "collect: pe %d's element %zu", pe, i);
    }
    gshmem_barrier_all();
}

/* finalize puts private pages back and init moves them again: the
 * contents survive both, and the variables are symmetric again. */
static void check_reinit(int me, int n)
{
    unsigned char before[4096];
    memcpy(before, big + BIG / 2, sizeof(before));
    gshmem_finalize();
    CHECK(memcmp(before, big + BIG / 2, sizeof(before)) == 0 &&
              initialized_long == 0x1234567890abcdefL,
          "static data changed across gshmem_finalize");
    gshmem_init();
    CHECK(gshmem_my_pe() == me && memcmp(before, big + BIG / 2, sizeof(before)) == 0,
          "static data changed across a second gshmem_init");
    gshmem_long_p(&swap_word, 9000 + me, (me + 1) % n);
    gshmem_barrier_all();
    CHECK(swap_word == 9000 + (me + n - 1) % n, "after re-init swap_word is %ld", swap_word);
}

int main(void)
{
    gshmem_init();
    const int me = gshmem_my_pe(), n = gshmem_n_pes();
    seed = spmd_seed();
    if (me == 0)
        printf("seed %llu\n", (unsigned long long)seed);
    check_initial_values();
    check_ptr(me, n);
    check_put_get(me, n);
    check_typed_and_strided(me, n);
    check_atomics(me, n);
    check_lock(me, n);
    check_signals(me, n);
    check_wait_all(me, n);
    check_mixed(me, n);
    check_fork(me);
    check_collectives(me, n);
    check_reinit(me, n);
    SPMD_DONE();
}
