/* OpenSHMEM 1.5's deprecated active-set collectives through OpenSHMEM's
 * names, in the style of the specification's examples: pSync set to
 * SHMEM_SYNC_VALUE before the first call, pWrk for the reductions, only
 * the active set's PEs calling.  Over several active sets (the world,
 * stride 2 from PE 1, one PE, sizes that are not powers of two, strides 4
 * and 2 from other starts): shmem_barrier (a put before it is seen after
 * it), broadcast32/64 from several roots (the root's dest untouched),
 * collect32/64 (a different count on each PE, zero too), fcollect32/64
 * (in place too), alltoall32/64, alltoalls32/64 and every to_all
 * reduction (in place too, on static dest and source, and larger than the
 * implementation's chunk), random data against a reference each PE
 * computes, dest poisoned so that an unwritten or extra element shows.
 * Two pSync arrays, a global one and one from shmem_malloc, are taken in
 * turn, so that each is checked to hold SHMEM_SYNC_VALUE again as soon as
 * a call returns (no member can use it again before this PE's next call
 * on the other); then many back-to-back calls reuse one pSync. */
#include <shmem.h>

#include "compat_util.h"

#define POISON 0xa5
#define MAX_PES 64
#define N32 13   /* elements a member in the 32-bit data collectives */
#define N64 7    /* and in the 64-bit ones */
#define N_RED 37 /* a reduction's elements */
#define N_BIG 100000 /* a reduction larger than the implementation's chunk */
#define CAP (16 * MAX_PES + 16) /* elements of each data buffer */

long pSync[SHMEM_REDUCE_SYNC_SIZE]; /* a global: in the program's static data */
static long *pSync_heap;            /* from shmem_malloc */
static double pWrk[N_BIG / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];

uint64_t s64_src[CAP], s64_dst[CAP];              /* static dest and source */
static long long sll_src[N_RED + 2], sll_dst[N_RED + 2];
static double big_src[N_BIG + 2], big_dst[N_BIG + 2];
static long bar_slot[2];
static uint32_t *h32_src, *h32_dst; /* from shmem_malloc */
static char *red_a, *red_b;

static int me, npes;

/* The active set of the calls: PE_start, logPE_stride, PE_size. */
static struct {
    int start, log, size;
} as;
static int idx;   /* this PE's index in it; -1: not a member */
static int turns; /* calls so far on the set: the pSync of the next */

static int pe_at(int i)
{
    return as.start + (i << as.log);
}

static long *next_psync(void)
{
    return turns++ % 2 == 0 ? pSync : pSync_heap;
}

/* pSync as the specification wants it when a call has returned. */
static void check_psync(const long *ps, const char *after)
{
    int bad = -1;
    for (int i = 0; i < SHMEM_SYNC_SIZE && bad < 0; i++)
        bad = ps[i] != SHMEM_SYNC_VALUE ? i : -1;
    CHECK(bad < 0, "%s pSync[%d] holds %ld after %s", ps == pSync ? "the global" : "the heap's",
          bad, bad < 0 ? 0 : ps[bad], after);
}

static void check_poison(const void *p, size_t len, const char *what)
{
    const unsigned char *c = p;
    size_t i = 0;
    while (i < len && c[i] == POISON)
        i++;
    CHECK(i == len, "%s: byte %zu of %zu was written", what, i, len);
}

#define AS_ARGS as.start, as.log, as.size

/* ---- barrier ------------------------------------------------------------------- */

/* Each member puts into its right neighbour's slot, then meets: the word
 * from its left neighbour is there.  Slots alternate: the neighbour's next
 * put comes after this PE's next barrier. */
static void test_barrier(void)
{
    const int right = pe_at((idx + 1) % as.size), left = pe_at((idx + as.size - 1) % as.size);
    for (int it = 0; it < 12; it++) {
        long *ps = next_psync();
        shmem_long_p(&bar_slot[it % 2], 1000L * it + me, right);
        shmem_barrier(AS_ARGS, ps);
        CHECK(bar_slot[it % 2] == 1000L * it + left, "shmem_barrier %d: slot %ld", it,
              bar_slot[it % 2]);
        check_psync(ps, "shmem_barrier");
    }
}

/* ---- data collectives ------------------------------------------------------------ */

/* Each root's data reaches every other member; the root's dest stays as
 * it was. */
static void test_broadcast(void)
{
    unsigned char want[N32 * 4];
    for (int root = 0; root < as.size; root += as.size > 4 ? as.size / 3 + 1 : 1) {
        const uint64_t tag = 200 + (uint64_t)root;
        compat_fill(h32_src, N32 * 4, me, tag);
        memset(h32_dst, POISON, (N32 + 2) * 4);
        long *ps = next_psync();
        shmem_broadcast32(h32_dst, h32_src, N32, root, AS_ARGS, ps);
        check_psync(ps, "shmem_broadcast32");
        compat_fill(want, N32 * 4, pe_at(root), tag);
        if (idx == root)
            check_poison(h32_dst, (N32 + 2) * 4, "shmem_broadcast32 on the root");
        else
            CHECK(memcmp(h32_dst, want, N32 * 4) == 0, "shmem_broadcast32 from %d", root);
        check_poison(h32_dst + N32, 8, "shmem_broadcast32 past nelems");

        compat_fill(s64_src, N64 * 8, me, tag + 50);
        memset(s64_dst, POISON, (N64 + 2) * 8);
        ps = next_psync();
        shmem_broadcast64(s64_dst, s64_src, N64, root, AS_ARGS, ps); /* static data */
        check_psync(ps, "shmem_broadcast64");
        compat_fill(want, N64 * 8, pe_at(root), tag + 50);
        if (idx == root)
            check_poison(s64_dst, (N64 + 2) * 8, "shmem_broadcast64 on the root");
        else
            CHECK(memcmp(s64_dst, want, N64 * 8) == 0, "shmem_broadcast64 from %d", root);
        check_poison(s64_dst + N64, 16, "shmem_broadcast64 past nelems");
    }
}

/* Member i's n elements of esize bytes at block i. */
static void want_blocks(unsigned char *want, size_t n, size_t esize, uint64_t tag)
{
    for (int i = 0; i < as.size; i++)
        compat_fill(want + (size_t)i * n * esize, n * esize, pe_at(i), tag);
}

static void test_fcollect(void)
{
    unsigned char *want = malloc(CAP * 8);
    const size_t sz = (size_t)as.size;
    compat_fill(h32_src, N32 * 4, me, 300);
    memset(h32_dst, POISON, (sz * N32 + 2) * 4);
    long *ps = next_psync();
    shmem_fcollect32(h32_dst, h32_src, N32, AS_ARGS, ps);
    check_psync(ps, "shmem_fcollect32");
    want_blocks(want, N32, 4, 300);
    CHECK(memcmp(h32_dst, want, sz * N32 * 4) == 0, "shmem_fcollect32");
    check_poison(h32_dst + sz * N32, 8, "shmem_fcollect32 past the blocks");

    compat_fill(s64_src, N64 * 8, me, 301);
    memset(s64_dst, POISON, (sz * N64 + 2) * 8);
    ps = next_psync();
    shmem_fcollect64(s64_dst, s64_src, N64, AS_ARGS, ps);
    check_psync(ps, "shmem_fcollect64");
    want_blocks(want, N64, 8, 301);
    CHECK(memcmp(s64_dst, want, sz * N64 * 8) == 0, "shmem_fcollect64");
    check_poison(s64_dst + sz * N64, 16, "shmem_fcollect64 past the blocks");

    /* in place: the source is this PE's block of dest */
    memset(s64_dst, POISON, (sz * N64 + 2) * 8);
    compat_fill(s64_dst + (size_t)idx * N64, N64 * 8, me, 302);
    ps = next_psync();
    shmem_fcollect64(s64_dst, s64_dst + (size_t)idx * N64, N64, AS_ARGS, ps);
    check_psync(ps, "shmem_fcollect64 in place");
    want_blocks(want, N64, 8, 302);
    CHECK(memcmp(s64_dst, want, sz * N64 * 8) == 0, "shmem_fcollect64 in place");
    free(want);
}

/* Member i gives (5 i + 3) % 4 elements: 3, 0, 1, 2, 3, 0, ... */
static size_t collect_count(int i)
{
    return (size_t)((5 * i + 3) % 4);
}

static void test_collect(void)
{
    unsigned char *want = malloc(CAP * 8);
    size_t total = 0;
    for (int i = 0; i < as.size; i++)
        total += collect_count(i);

    compat_fill(h32_src, collect_count(idx) * 4, me, 400);
    memset(h32_dst, POISON, (total + 2) * 4);
    long *ps = next_psync();
    shmem_collect32(h32_dst, h32_src, collect_count(idx), AS_ARGS, ps);
    check_psync(ps, "shmem_collect32");
    size_t at = 0;
    for (int i = 0; i < as.size; at += collect_count(i++) * 4)
        compat_fill(want + at, collect_count(i) * 4, pe_at(i), 400);
    CHECK(memcmp(h32_dst, want, total * 4) == 0, "shmem_collect32 (%zu elements)", total);
    check_poison(h32_dst + total, 8, "shmem_collect32 past the blocks");

    compat_fill(s64_src, collect_count(idx) * 8, me, 401);
    memset(s64_dst, POISON, (total + 2) * 8);
    ps = next_psync();
    shmem_collect64(s64_dst, s64_src, collect_count(idx), AS_ARGS, ps);
    check_psync(ps, "shmem_collect64");
    at = 0;
    for (int i = 0; i < as.size; at += collect_count(i++) * 8)
        compat_fill(want + at, collect_count(i) * 8, pe_at(i), 401);
    CHECK(memcmp(s64_dst, want, total * 8) == 0, "shmem_collect64 (%zu elements)", total);
    check_poison(s64_dst + total, 16, "shmem_collect64 past the blocks");
    free(want);
}

/* Block j of member i's source lands at block i of member j's dest. */
static void test_alltoall(void)
{
    const size_t sz = (size_t)as.size;
    unsigned char *theirs = malloc(CAP * 8);
    compat_fill(h32_src, sz * N32 * 4, me, 500);
    memset(h32_dst, POISON, (sz * N32 + 2) * 4);
    long *ps = next_psync();
    shmem_alltoall32(h32_dst, h32_src, N32, AS_ARGS, ps);
    check_psync(ps, "shmem_alltoall32");
    for (int i = 0; i < as.size; i++) {
        compat_fill(theirs, sz * N32 * 4, pe_at(i), 500);
        CHECK(memcmp(h32_dst + (size_t)i * N32, theirs + (size_t)idx * N32 * 4, N32 * 4) == 0,
              "shmem_alltoall32 from member %d", i);
    }
    check_poison(h32_dst + sz * N32, 8, "shmem_alltoall32 past the blocks");

    compat_fill(s64_src, sz * N64 * 8, me, 501);
    memset(s64_dst, POISON, (sz * N64 + 2) * 8);
    ps = next_psync();
    shmem_alltoall64(s64_dst, s64_src, N64, AS_ARGS, ps);
    check_psync(ps, "shmem_alltoall64");
    for (int i = 0; i < as.size; i++) {
        compat_fill(theirs, sz * N64 * 8, pe_at(i), 501);
        CHECK(memcmp(s64_dst + (size_t)i * N64, theirs + (size_t)idx * N64 * 8, N64 * 8) == 0,
              "shmem_alltoall64 from member %d", i);
    }
    check_poison(s64_dst + sz * N64, 16, "shmem_alltoall64 past the blocks");
    free(theirs);
}

/* Three elements a member, at stride 2 in dest and 3 in source: element
 * k of member i's block j lands at element k of block i of member j's
 * dest; the elements between stay poisoned. */
#define ALLTOALLS_CHECK(BITS, dst, tag)                                                       \
    do {                                                                                      \
        const size_t e = BITS / 8, sz = (size_t)as.size;                                     \
        unsigned char *theirs = malloc(CAP * 8);                                               \
        for (int i = 0; i < as.size; i++) {                                                   \
            compat_fill(theirs, ((sz * 3 - 1) * 3 + 1) * e, pe_at(i), tag);                   \
            for (size_t k = 0; k < 3; k++) {                                                  \
                const size_t at = ((size_t)i * 3 + k) * 2;                                    \
                CHECK(memcmp(&dst[at], theirs + (((size_t)idx * 3 + k) * 3) * e, e) == 0,    \
                      "shmem_alltoalls" #BITS " member %d element %zu", i, k);                \
                check_poison(&dst[at + 1], e, "shmem_alltoalls" #BITS " between elements");   \
            }                                                                                 \
        }                                                                                     \
        free(theirs);                                                                         \
    } while (0)

static void test_alltoalls(void)
{
    const size_t sz = (size_t)as.size;
    compat_fill(h32_src, ((sz * 3 - 1) * 3 + 1) * 4, me, 600);
    memset(h32_dst, POISON, (sz * 6 + 2) * 4);
    long *ps = next_psync();
    shmem_alltoalls32(h32_dst, h32_src, 2, 3, 3, AS_ARGS, ps);
    check_psync(ps, "shmem_alltoalls32");
    ALLTOALLS_CHECK(32, h32_dst, 600);

    compat_fill(s64_src, ((sz * 3 - 1) * 3 + 1) * 8, me, 601);
    memset(s64_dst, POISON, (sz * 6 + 2) * 8);
    ps = next_psync();
    shmem_alltoalls64(s64_dst, s64_src, 2, 3, 3, AS_ARGS, ps);
    check_psync(ps, "shmem_alltoalls64");
    ALLTOALLS_CHECK(64, s64_dst, 601);
}

/* ---- reductions -------------------------------------------------------------------- */

enum { OP_AND, OP_OR, OP_XOR, OP_MIN, OP_MAX, OP_SUM, OP_PROD };

/* Member m's (world PE pe's) element i for op: integers. */
static long long ival(int op, int m, int pe, int i, uint64_t tag)
{
    const uint64_t r = compat_rand(pe, tag * 8 + (uint64_t)op, (uint64_t)i);
    switch (op) {
    case OP_MIN:
    case OP_MAX: return (long long)(r % 2001) - 1000;
    case OP_SUM: return (long long)(r % 10);
    case OP_PROD: return m < 6 ? 1 + (long long)(r % 2) : 1; /* no overflow */
    default: return (long long)r; /* bits */
    }
}

/* Floating point: sums and products that round, so that the order counts. */
static double fval(int op, int m, int pe, int i, uint64_t tag)
{
    const uint64_t r = compat_rand(pe, tag * 8 + (uint64_t)op, (uint64_t)i);
    (void)m;
    switch (op) {
    case OP_MIN:
    case OP_MAX: return (double)(r % 200001) / 100.0 - 1000.0;
    case OP_SUM: return (double)(r % 100000) / 977.0;
    default: return 0.5 + (double)(r % 1000) / 512.0;
    }
}

#define COMBINE_AND(r, v) ((r) & (v))
#define COMBINE_OR(r, v) ((r) | (v))
#define COMBINE_XOR(r, v) ((r) ^ (v))
#define COMBINE_MIN(r, v) ((v) < (r) ? (v) : (r))
#define COMBINE_MAX(r, v) ((v) > (r) ? (v) : (r))
#define COMBINE_SUM(r, v) ((r) + (v))
#define COMBINE_PROD(r, v) ((r) * (v))

/* One to_all call on n elements: the reference is the members' values
 * combined in active-set order (the specification leaves the order open;
 * gshmem's is this one, so floating-point results match to the bit). */
#define TO_ALL_CASE(NAME, TYPE, OPNAME, OP, VAL, dst, src, n, tag)                            \
    do {                                                                                      \
        for (int i_ = 0; i_ < (n); i_++) {                                                    \
            TYPE r_ = (TYPE)VAL(OP_##OP, 0, pe_at(0), i_, tag);                               \
            for (int m_ = 1; m_ < as.size; m_++) {                                            \
                TYPE v_ = (TYPE)VAL(OP_##OP, m_, pe_at(m_), i_, tag);                         \
                r_ = (TYPE)COMBINE_##OP(r_, v_);                                              \
            }                                                                                 \
            ref[i_] = r_;                                                                     \
        }                                                                                     \
        if ((void *)(dst) != (void *)(src))                                                   \
            memset(dst, POISON, ((size_t)(n) + 2) * sizeof(TYPE));                            \
        for (int i_ = 0; i_ < (n); i_++)                                                      \
            (src)[i_] = (TYPE)VAL(OP_##OP, idx, me, i_, tag);                                 \
        long *ps_ = next_psync();                                                             \
        shmem_##NAME##_##OPNAME##_to_all(dst, src, n, AS_ARGS, (TYPE *)(void *)pWrk, ps_);    \
        check_psync(ps_, "shmem_" #NAME "_" #OPNAME "_to_all");                               \
        CHECK(memcmp(dst, ref, (size_t)(n) * sizeof(TYPE)) == 0,                              \
              "shmem_" #NAME "_" #OPNAME "_to_all on %d elements%s", (int)(n),                \
              (void *)(dst) == (void *)(src) ? " in place" : "");                             \
        if ((void *)(dst) != (void *)(src))                                                   \
            check_poison((dst) + (n), 2 * sizeof(TYPE), "shmem_" #NAME "_" #OPNAME "_to_all"); \
    } while (0)

/* Every operation of a type: the integers' seven, the floating types'
 * four; dst may be src. */
#define DEF_TO_ALL_ARITH(NAME, TYPE, VAL)                                                     \
    static void to_all_arith_##NAME(TYPE *dst, TYPE *src, int n, uint64_t tag)                \
    {                                                                                         \
        TYPE *ref = malloc(sizeof(TYPE) * ((size_t)n + 1));                                   \
        TO_ALL_CASE(NAME, TYPE, min, MIN, VAL, dst, src, n, tag);                             \
        TO_ALL_CASE(NAME, TYPE, max, MAX, VAL, dst, src, n, tag);                             \
        TO_ALL_CASE(NAME, TYPE, sum, SUM, VAL, dst, src, n, tag);                             \
        TO_ALL_CASE(NAME, TYPE, prod, PROD, VAL, dst, src, n, tag);                           \
        free(ref);                                                                            \
    }
#define DEF_TO_ALL_INT(NAME, TYPE)                                                            \
    DEF_TO_ALL_ARITH(NAME, TYPE, ival)                                                        \
    static void to_all_##NAME(TYPE *dst, TYPE *src, int n, uint64_t tag)                      \
    {                                                                                         \
        TYPE *ref = malloc(sizeof(TYPE) * ((size_t)n + 1));                                   \
        TO_ALL_CASE(NAME, TYPE, and, AND, ival, dst, src, n, tag);                            \
        TO_ALL_CASE(NAME, TYPE, or, OR, ival, dst, src, n, tag);                              \
        TO_ALL_CASE(NAME, TYPE, xor, XOR, ival, dst, src, n, tag);                            \
        free(ref);                                                                            \
        to_all_arith_##NAME(dst, src, n, tag + 1);                                            \
    }
#define DEF_TO_ALL_FLOAT(NAME, TYPE)                                                          \
    DEF_TO_ALL_ARITH(NAME, TYPE, fval)                                                        \
    static void to_all_##NAME(TYPE *dst, TYPE *src, int n, uint64_t tag)                      \
    {                                                                                         \
        to_all_arith_##NAME(dst, src, n, tag);                                                \
    }
DEF_TO_ALL_INT(short, short)
DEF_TO_ALL_INT(int, int)
DEF_TO_ALL_INT(long, long)
DEF_TO_ALL_INT(longlong, long long)
DEF_TO_ALL_FLOAT(float, float)
DEF_TO_ALL_FLOAT(double, double)

static void test_to_all(void)
{
#define ON_HEAP(NAME, TYPE, n, tag)                                                           \
    do {                                                                                      \
        to_all_##NAME((TYPE *)(void *)red_b, (TYPE *)(void *)red_a, n, tag);                  \
        to_all_##NAME((TYPE *)(void *)red_a, (TYPE *)(void *)red_a, n, tag + 4); /* in place */ \
    } while (0)
    ON_HEAP(short, short, N_RED, 700);
    ON_HEAP(int, int, N_RED, 710);
    ON_HEAP(long, long, N_RED, 720);
    ON_HEAP(longlong, long long, N_RED, 730);
    ON_HEAP(float, float, N_RED, 740);
    ON_HEAP(double, double, N_RED, 750);
#undef ON_HEAP
    /* fewer elements than members, and none */
    to_all_int((int *)(void *)red_b, (int *)(void *)red_a, 1, 760);
    to_all_double((double *)(void *)red_b, (double *)(void *)red_a, 0, 770);
    /* static dest and source */
    to_all_longlong(sll_dst, sll_src, N_RED, 780);
    to_all_arith_double(big_dst, big_src, 3, 790);
    if (as.start == 0 && as.size == npes) { /* parts larger than the chunk: the world only */
        double *ref = malloc(sizeof(double) * (N_BIG + 1));
        TO_ALL_CASE(double, double, sum, SUM, fval, big_dst, big_src, N_BIG, 800);
        TO_ALL_CASE(double, double, max, MAX, fval, big_src, big_src, N_BIG, 801);
        free(ref);
    }
}

/* ---- one pSync, many calls ----------------------------------------------------------- */

/* Consecutive calls by the same active set with the same pSync, no other
 * synchronisation, each result checked before the next call; pSync is
 * checked once every PE is past them (main). */
static void test_back_to_back(void)
{
    const size_t sz = (size_t)as.size;
    unsigned char *want = malloc(CAP * 8);
    int *isrc = (int *)(void *)red_a, *idst = (int *)(void *)red_b;
    long *ps = next_psync(); /* not the one the last call took: that is checked there */
    for (int it = 0; it < 40; it++) {
        const uint64_t tag = 900 + (uint64_t)it;
        const int root = it % as.size;
        shmem_barrier(AS_ARGS, ps);
        compat_fill(s64_src, N64 * 8, me, tag);
        shmem_broadcast64(s64_dst, s64_src, N64, root, AS_ARGS, ps);
        compat_fill(want, N64 * 8, pe_at(root), tag);
        CHECK(idx == root || memcmp(s64_dst, want, N64 * 8) == 0, "broadcast64 round %d", it);
        compat_fill(h32_src, N32 * 4, me, tag);
        shmem_fcollect32(h32_dst, h32_src, N32, AS_ARGS, ps);
        want_blocks(want, N32, 4, tag);
        CHECK(memcmp(h32_dst, want, sz * N32 * 4) == 0, "fcollect32 round %d", it);
        compat_fill(s64_src, collect_count(idx) * 8, me, tag);
        shmem_collect64(s64_dst, s64_src, collect_count(idx), AS_ARGS, ps);
        size_t at = 0;
        for (int i = 0; i < as.size; at += collect_count(i++) * 8)
            compat_fill(want + at, collect_count(i) * 8, pe_at(i), tag);
        CHECK(memcmp(s64_dst, want, at) == 0, "collect64 round %d", it);
        for (int i = 0; i < 5; i++)
            isrc[i] = me * 10 + it + i;
        shmem_int_sum_to_all(idst, isrc, 5, AS_ARGS, (int *)(void *)pWrk, ps);
        for (int i = 0; i < 5; i++) {
            int sum = 0;
            for (int m = 0; m < as.size; m++)
                sum += pe_at(m) * 10 + it + i;
            CHECK(idst[i] == sum, "int_sum_to_all round %d element %d: %d, not %d", it, i,
                  idst[i], sum);
        }
    }
    free(want);
}

/* ---- the active sets ------------------------------------------------------------------ */

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAX_PES, "at most %d PEs", MAX_PES);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    pSync_heap = shmem_malloc(SHMEM_SYNC_SIZE * sizeof(long));
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        pSync_heap[i] = SHMEM_SYNC_VALUE;
    h32_src = shmem_malloc(CAP * 4);
    h32_dst = shmem_malloc(CAP * 4);
    red_a = shmem_malloc((N_RED + 2) * 8);
    red_b = shmem_malloc((N_RED + 2) * 8);
    shmem_barrier_all(); /* every PE's pSync is initialised */

    /* (PE_start, logPE_stride, PE_size), where the job has the PEs */
    const int sets[][3] = {
        {0, 0, npes},     /* the world */
        {1, 1, npes / 2}, /* every other PE from PE 1 */
        {npes - 1, 0, 1}, /* one PE */
        {0, 0, 3},        /* three */
        {2, 0, npes - 2}, /* from PE 2 on: 6 of 8 */
        {0, 2, 2},        /* PEs 0 and 4 */
        {1, 1, 3},        /* PEs 1, 3 and 5 */
    };
    int ran = 0;
    for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
        as.start = sets[s][0], as.log = sets[s][1], as.size = sets[s][2];
        const int last = as.start + ((as.size - 1) << as.log);
        if (as.size < 1 || last >= npes || (s > 0 && as.size == npes))
            continue;
        const int d = me - as.start;
        idx = d >= 0 && d % (1 << as.log) == 0 && (d >> as.log) < as.size ? d >> as.log : -1;
        turns = 0;
        memset(s64_dst, POISON, sizeof(s64_dst));
        memset(h32_dst, POISON, CAP * 4);
        shmem_barrier_all();
        if (idx >= 0) {
            test_barrier();
            test_broadcast();
            test_fcollect();
            test_collect();
            test_alltoall();
            test_alltoalls();
            test_to_all();
            test_back_to_back();
        }
        shmem_barrier_all();
        if (idx < 0) { /* the set's calls wrote only its members' memory */
            check_poison(s64_dst, sizeof(s64_dst), "a non-member's static dest");
            check_poison(h32_dst, CAP * 4, "a non-member's heap dest");
        }
        check_psync(pSync, "the set's calls");
        check_psync(pSync_heap, "the set's calls");
        ran++;
    }
    CHECK(ran >= (npes > 1 ? 3 : 1), "%d active sets", ran);
    shmem_free(red_b);
    shmem_free(red_a);
    shmem_free(h32_dst);
    shmem_free(h32_src);
    shmem_free(pSync_heap);
    COMPAT_DONE();
}
