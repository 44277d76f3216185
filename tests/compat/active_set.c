/* OpenSHMEM 1.5's deprecated active-set collectives through OpenSHMEM's
 * names, in the style of the specification's examples: pSync set to
 * SHMEM_SYNC_VALUE before the first call, pWrk for the reductions, only
 * the active set's PEs calling.  Over several active sets (the world,
 * stride 2 from PE 1, one PE, sizes that are not powers of two, strides 4
 * and 2 from other starts): shmem_barrier (a put before it is seen after
 * it), broadcast32/64 from several roots (the root's dest untouched),
 * collect32/64 (a different count on each PE, zero too), fcollect32/64
 * (in place too), alltoall32/64, alltoalls32/64 and every to_all
 * reduction, long double and the complex types included (in place too, on
 * static dest and source, and larger than the implementation's chunk),
 * random data against a reference each PE
 * computes, dest poisoned so that an unwritten or extra element shows.
 * Two pSync arrays, a global one and one from shmem_malloc, are taken in
 * turn, so that each is checked to hold SHMEM_SYNC_VALUE again as soon as
 * a call returns (no member can use it again before this PE's next call
 * on the other); then many back-to-back calls reuse one pSync. */
#include <complex.h>

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

uint64_t s64_src[CAP], s64_dst[CAP]; /* static dest and source */
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
 * from its left neighbour is there.  Slots alternate: a slot is written
 * again only after this PE's next barrier, when it has been read.  Every
 * other meeting is the deprecated shmem_sync, after a quiet of its own
 * (a sync completes nothing). */
static void test_barrier(void)
{
    const int right = pe_at((idx + 1) % as.size), left = pe_at((idx + as.size - 1) % as.size);
    for (int it = 0; it < 12; it++) {
        long *ps = next_psync();
        const char *how = it % 2 ? "shmem_sync" : "shmem_barrier";
        shmem_long_p(&bar_slot[it % 2], 1000L * it + me, right);
        if (it % 2) {
            shmem_quiet();
            shmem_sync(AS_ARGS, ps);
        } else {
            shmem_barrier(AS_ARGS, ps);
        }
        CHECK(bar_slot[it % 2] == 1000L * it + left, "%s %d: slot %ld", how, it, bar_slot[it % 2]);
        check_psync(ps, how);
    }
}

/* ---- data collectives ------------------------------------------------------------
 * Each case runs the 32-bit form on heap buffers and the 64-bit one on
 * static ones: a form's n elements a member of e bytes. */

struct form {
    size_t e, n;
    unsigned char *dst, *src;
};
static struct form forms[2];

typedef void broadcast_fn(void *, const void *, size_t, int, int, int, int, long *);
typedef void move_fn(void *, const void *, size_t, int, int, int, long *);
typedef void strided_fn(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int, int, int,
                        long *);

/* The case for both forms: CASE(form, fn, name, args...). */
#define BOTH_FORMS(CASE, STEM, ...)                                                            \
    do {                                                                                       \
        CASE(&forms[0], shmem_##STEM##32, "shmem_" #STEM "32", __VA_ARGS__);                  \
        CASE(&forms[1], shmem_##STEM##64, "shmem_" #STEM "64", __VA_ARGS__);                  \
    } while (0)

/* dest poisoned for `elems` elements and two more, the next pSync. */
static long *prepare(const struct form *f, size_t elems)
{
    memset(f->dst, POISON, (elems + 2) * f->e);
    return next_psync();
}

/* The root's data reaches every other member; the root's dest stays as it
 * was. */
static void broadcast_case(const struct form *f, broadcast_fn *fn, const char *name, int root,
                           uint64_t tag)
{
    unsigned char want[N32 * 8];
    compat_fill(f->src, f->n * f->e, me, tag);
    long *ps = prepare(f, f->n);
    fn(f->dst, f->src, f->n, root, AS_ARGS, ps);
    check_psync(ps, name);
    compat_fill(want, f->n * f->e, pe_at(root), tag);
    if (idx == root)
        check_poison(f->dst, f->n * f->e, name);
    else
        CHECK(memcmp(f->dst, want, f->n * f->e) == 0, "%s from %d", name, root);
    check_poison(f->dst + f->n * f->e, 2 * f->e, name);
}

/* Member i's elements of member i's data at want + at[i] elements (count[i]). */
static void want_blocks(unsigned char *want, const struct form *f, const size_t *count,
                        uint64_t tag)
{
    for (int i = 0, at = 0; i < as.size; at += (int)count[i++])
        compat_fill(want + (size_t)at * f->e, count[i] * f->e, pe_at(i), tag);
}

/* Member i gives count[i] elements (fcollect: n each, collect: (5 i + 3) %
 * 4: 3, 0, 1, 2, 3, ...); in place, the source is this PE's block of dest. */
static void gather_case(const struct form *f, move_fn *fn, const char *name, int varying,
                        int in_place, uint64_t tag)
{
    size_t count[MAX_PES], total = 0, mine = 0;
    unsigned char *want = malloc(CAP * 8);
    for (int i = 0; i < as.size; total += count[i++]) {
        count[i] = varying ? (size_t)((5 * i + 3) % 4) : f->n;
        mine += i < idx ? count[i] : 0;
    }
    long *ps = prepare(f, total);
    unsigned char *src = in_place ? f->dst + mine * f->e : f->src;
    compat_fill(src, count[idx] * f->e, me, tag);
    fn(f->dst, src, count[idx], AS_ARGS, ps);
    check_psync(ps, name);
    want_blocks(want, f, count, tag);
    CHECK(memcmp(f->dst, want, total * f->e) == 0, "%s%s (%zu elements)", name,
          in_place ? " in place" : "", total);
    check_poison(f->dst + total * f->e, 2 * f->e, name);
    free(want);
}

/* Block j of member i's source lands at block i of member j's dest. */
static void alltoall_case(const struct form *f, move_fn *fn, const char *name, uint64_t tag)
{
    const size_t sz = (size_t)as.size, block = f->n * f->e;
    unsigned char *theirs = malloc(CAP * 8);
    compat_fill(f->src, sz * block, me, tag);
    long *ps = prepare(f, sz * f->n);
    fn(f->dst, f->src, f->n, AS_ARGS, ps);
    check_psync(ps, name);
    for (int i = 0; i < as.size; i++) {
        compat_fill(theirs, sz * block, pe_at(i), tag);
        CHECK(memcmp(f->dst + (size_t)i * block, theirs + (size_t)idx * block, block) == 0,
              "%s from member %d", name, i);
    }
    check_poison(f->dst + sz * block, 2 * f->e, name);
    free(theirs);
}

/* Three elements a member, at stride 2 in dest and 3 in source: element
 * k of member i's block j lands at element k of block i of member j's
 * dest; the elements between stay poisoned. */
static void alltoalls_case(const struct form *f, strided_fn *fn, const char *name, uint64_t tag)
{
    const size_t sz = (size_t)as.size, e = f->e, span = (sz * 3 - 1) * 3 + 1;
    unsigned char *theirs = malloc(CAP * 8);
    compat_fill(f->src, span * e, me, tag);
    long *ps = prepare(f, sz * 6);
    fn(f->dst, f->src, 2, 3, 3, AS_ARGS, ps);
    check_psync(ps, name);
    for (int i = 0; i < as.size; i++) {
        compat_fill(theirs, span * e, pe_at(i), tag);
        for (size_t k = 0; k < 3; k++) {
            const size_t at = ((size_t)i * 3 + k) * 2;
            CHECK(memcmp(f->dst + at * e, theirs + ((size_t)idx * 3 + k) * 3 * e, e) == 0,
                  "%s member %d element %zu", name, i, k);
            check_poison(f->dst + (at + 1) * e, e, name);
        }
    }
    free(theirs);
}

static void test_data(void)
{
    for (int root = 0; root < as.size; root += as.size > 4 ? as.size / 3 + 1 : 1)
        BOTH_FORMS(broadcast_case, broadcast, root, 200 + (uint64_t)root);
    BOTH_FORMS(gather_case, fcollect, 0, 0, 300);
    BOTH_FORMS(gather_case, fcollect, 0, 1, 310);
    BOTH_FORMS(gather_case, collect, 1, 0, 400);
    BOTH_FORMS(alltoall_case, alltoall, 500);
    BOTH_FORMS(alltoalls_case, alltoalls, 600);
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

/* Complex values: small integer parts, so that sums and products of up to
 * 8 members are exact in float too and no rounding (or contraction of the
 * product into fused operations) can make the order or the code path
 * count; the order is still the one checked for the real types. */
static double _Complex cval(int op, int m, int pe, int i, uint64_t tag)
{
    const uint64_t r = compat_rand(pe, tag * 8 + (uint64_t)op, (uint64_t)i);
    (void)m;
    return (double)((int)(r % 7) - 3) + (double)((int)((r >> 16) % 7) - 3) * _Complex_I;
}

#define COMBINE_AND(r, v) ((r) & (v))
#define COMBINE_OR(r, v) ((r) | (v))
#define COMBINE_XOR(r, v) ((r) ^ (v))
#define COMBINE_MIN(r, v) ((v) < (r) ? (v) : (r))
#define COMBINE_MAX(r, v) ((v) > (r) ? (v) : (r))
#define COMBINE_SUM(r, v) ((r) + (v))
#define COMBINE_PROD(r, v) ((r) * (v))

/* Results equal the reference: to the bit, but for long double, whose
 * padding bytes are unspecified (compared by value). */
static int same_ld(const long double *a, const long double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}
#define same(dst, ref, n)                                                                     \
    _Generic(*(dst), long double: same_ld((const long double *)(void *)(dst),                \
                                          (const long double *)(void *)(ref), (n)),          \
             default: memcmp((dst), (ref), (size_t)(n) * sizeof(*(dst))) == 0)

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
        CHECK(same(dst, ref, n),                                                              \
              "shmem_" #NAME "_" #OPNAME "_to_all on %d elements%s", (int)(n),                \
              (void *)(dst) == (void *)(src) ? " in place" : "");                             \
        if ((void *)(dst) != (void *)(src))                                                   \
            check_poison((dst) + (n), 2 * sizeof(TYPE), "shmem_" #NAME "_" #OPNAME "_to_all"); \
    } while (0)

/* Every operation of a type: the integers' seven, the floating types'
 * four (OPS: X(opname, OP, ...) for each); dst may be src. */
#define INT_OPS(X, ...)                                                                       \
    X(and, AND, __VA_ARGS__) X(or, OR, __VA_ARGS__) X(xor, XOR, __VA_ARGS__)                  \
    FLOAT_OPS(X, __VA_ARGS__)
#define FLOAT_OPS(X, ...)                                                                     \
    X(min, MIN, __VA_ARGS__) X(max, MAX, __VA_ARGS__) X(sum, SUM, __VA_ARGS__)                \
    X(prod, PROD, __VA_ARGS__)
#define COMPLEX_OPS(X, ...) X(sum, SUM, __VA_ARGS__) X(prod, PROD, __VA_ARGS__)
#define TO_ALL_OP(OPNAME, OP, NAME, TYPE, VAL) \
    TO_ALL_CASE(NAME, TYPE, OPNAME, OP, VAL, dst, src, n, tag + (uint64_t)OP_##OP);
#define DEF_TO_ALL(NAME, TYPE, VAL, OPS)                                                      \
    static void to_all_##NAME(TYPE *dst, TYPE *src, int n, uint64_t tag)                      \
    {                                                                                         \
        TYPE *ref = malloc(sizeof(TYPE) * ((size_t)n + 1));                                   \
        OPS(TO_ALL_OP, NAME, TYPE, VAL)                                                       \
        free(ref);                                                                            \
    }
DEF_TO_ALL(short, short, ival, INT_OPS)
DEF_TO_ALL(int, int, ival, INT_OPS)
DEF_TO_ALL(long, long, ival, INT_OPS)
DEF_TO_ALL(longlong, long long, ival, INT_OPS)
DEF_TO_ALL(float, float, fval, FLOAT_OPS)
DEF_TO_ALL(double, double, fval, FLOAT_OPS)
DEF_TO_ALL(longdouble, long double, fval, FLOAT_OPS)
DEF_TO_ALL(complexd, double _Complex, cval, COMPLEX_OPS)
DEF_TO_ALL(complexf, float _Complex, cval, COMPLEX_OPS)

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
    ON_HEAP(longdouble, long double, N_RED, 810);
    ON_HEAP(complexd, double _Complex, N_RED, 820);
    ON_HEAP(complexf, float _Complex, N_RED, 830);
#undef ON_HEAP
    /* fewer elements than members, and none */
    to_all_int((int *)(void *)red_b, (int *)(void *)red_a, 1, 760);
    to_all_double((double *)(void *)red_b, (double *)(void *)red_a, 0, 770);
    /* static dest and source */
    to_all_longlong(sll_dst, sll_src, N_RED, 780);
    to_all_double(big_dst, big_src, 3, 790);
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
    const struct form *f = &forms[1];
    unsigned char *want = malloc(CAP * 8);
    size_t count[MAX_PES], at = 0;
    int *isrc = (int *)(void *)red_a, *idst = (int *)(void *)red_b;
    long *ps = next_psync(); /* not the one the last call took: that is checked there */
    for (int i = 0; i < as.size; at += count[i++])
        count[i] = f->n;
    for (int it = 0; it < 40; it++) {
        const uint64_t tag = 900 + (uint64_t)it;
        const int root = it % as.size;
        shmem_barrier(AS_ARGS, ps);
        compat_fill(f->src, f->n * 8, me, tag);
        shmem_broadcast64(f->dst, f->src, f->n, root, AS_ARGS, ps);
        compat_fill(want, f->n * 8, pe_at(root), tag);
        CHECK(idx == root || memcmp(f->dst, want, f->n * 8) == 0, "broadcast64 round %d", it);
        compat_fill(f->src, f->n * 8, me, tag + 1);
        shmem_fcollect64(f->dst, f->src, f->n, AS_ARGS, ps);
        want_blocks(want, f, count, tag + 1);
        CHECK(memcmp(f->dst, want, at * 8) == 0, "fcollect64 round %d", it);
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
    forms[0] = (struct form){4, N32, (unsigned char *)h32_dst, (unsigned char *)h32_src};
    forms[1] = (struct form){8, N64, (unsigned char *)s64_dst, (unsigned char *)s64_src};
    red_a = shmem_malloc((N_RED + 2) * 16); /* the largest type: long double */
    red_b = shmem_malloc((N_RED + 2) * 16);
    shmem_barrier_all(); /* every PE's pSync is initialised */
    /* shmem_sync's team form, beside the active-set one (test_barrier) */
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(SHMEM_TEAM_WORLD)");

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
        if (as.size < 1 || as.start + (as.size - 1) * (1 << as.log) >= npes ||
            (s > 0 && as.size == npes))
            continue;
        const int d = me - as.start;
        idx = d >= 0 && d % (1 << as.log) == 0 && (d >> as.log) < as.size ? d >> as.log : -1;
        turns = 0;
        memset(s64_dst, POISON, sizeof(s64_dst));
        memset(h32_dst, POISON, CAP * 4);
        shmem_barrier_all();
        if (idx >= 0) {
            test_barrier();
            test_data();
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
