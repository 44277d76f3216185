/* OpenSHMEM's long double and complex types through shmem.h, as a program
 * would use them: every RMA form on long double (typed, context, C11
 * generic; put_signal; the team collectives that move data), the
 * long double min, max, sum and prod reductions and the complex sum and
 * prod reductions over the world and over the even PEs, in place too.
 * Inputs are random; every PE computes the expected values itself (long
 * doubles in team order at their full 64-bit precision, complex products
 * by their real and imaginary parts on small integers, exact in any
 * order); every destination is poisoned before the call and compared by
 * value (a long double's padding is unspecified) or, where nothing may be
 * written, by its bytes. */
#include <shmem.h>

#include "compat_util.h"

#define POISON 0xa5
#define N 23 /* elements a transfer: odd */

static int me, npes, left, right;
static shmem_ctx_t ctx;
/* The reductions' source and dest: allocated by every PE (shmem_malloc
 * is collective over the world), used on the teams the PE is in. */
static void *red_src, *red_dst;

/* Random long doubles of (pe, tag): 63 random bits over 3, whose
 * significand fills all 64 bits (a double would round them). */
static long double ld_rand(int pe, uint64_t tag, uint64_t i)
{
    return (long double)(int64_t)compat_rand(pe, tag, i) / 3.0L;
}

static void ld_fill(long double *v, size_t n, int pe, uint64_t tag)
{
    for (size_t i = 0; i < n; i++)
        v[i] = ld_rand(pe, tag, i);
}

static void poison(void *p, size_t bytes) { memset(p, POISON, bytes); }

/* dest poisoned on every PE before a collective writes it. */
static void poison_all(void *dest, size_t bytes)
{
    poison(dest, bytes);
    shmem_barrier_all();
}

static int all_poison(const void *p, size_t bytes)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != POISON)
            return 0;
    return 1;
}

/* got[i * gstride] == want[i * wstride] for n elements, by value. */
static void expect_ld(const char *what, const long double *got, ptrdiff_t gstride,
                      const long double *want, ptrdiff_t wstride, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK(got[(ptrdiff_t)i * gstride] == want[(ptrdiff_t)i * wstride],
              "%s: element %zu is %Lg, expected %Lg", what, i, got[(ptrdiff_t)i * gstride],
              want[(ptrdiff_t)i * wstride]);
}

/* ---- RMA ------------------------------------------------------------------------
 * Each PE puts its block into its right neighbour, in every form, and gets
 * the right neighbour's block back; what arrives from the left is the left
 * PE's data, regenerated here. */

enum { F_PUT, F_PUT_NBI, F_CTX_PUT, F_GENERIC_PUT, F_SIGNAL, F_SIGNAL_NBI, F_FORMS };

static void test_rma(void)
{
    long double *d = shmem_malloc((F_FORMS + 2) * N * sizeof(long double));
    long double *s = shmem_malloc(N * sizeof(long double));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long double mine[N], from_left[N], from_right[N], got[3 * N];
    ld_fill(mine, N, me, 1);
    ld_fill(from_left, N, left, 1);
    ld_fill(from_right, N, right, 1);
    memcpy(s, mine, sizeof(mine));
    poison(d, (F_FORMS + 2) * N * sizeof(long double));
    shmem_barrier_all();

    shmem_longdouble_put(d + F_PUT * N, mine, N, right);
    shmem_longdouble_put_nbi(d + F_PUT_NBI * N, mine, N, right);
    shmem_ctx_longdouble_put(ctx, d + F_CTX_PUT * N, mine, N, right);
    shmem_put(d + F_GENERIC_PUT * N, mine, N, right);
    shmem_longdouble_put_signal(d + F_SIGNAL * N, mine, N, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_longdouble_put_signal_nbi(ctx, d + F_SIGNAL_NBI * N, mine, N, sig, 1,
                                        SHMEM_SIGNAL_ADD, right);
    long double *elems = d + F_FORMS * N; /* p, ctx p, generic p on elements 0..2 */
    shmem_longdouble_p(&elems[0], mine[0], right);
    shmem_ctx_longdouble_p(ctx, &elems[1], mine[1], right);
    shmem_p(&elems[2], mine[2], right);
    long double *strided = d + (F_FORMS + 1) * N; /* iput: every other element */
    shmem_longdouble_iput(strided, mine, 2, 1, N / 2, right);
    shmem_ctx_longdouble_iput(ctx, strided + 1, mine + 1, 2, 2, N / 4, right);
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);
    shmem_barrier_all();

    static const char *const forms[F_FORMS] = {"put", "put_nbi", "ctx put", "generic put",
                                               "put_signal", "ctx put_signal_nbi"};
    for (int f = 0; f < F_FORMS; f++)
        expect_ld(forms[f], d + f * N, 1, from_left, 1, N);
    expect_ld("p, ctx p, generic p", elems, 1, from_left, 1, 3);
    CHECK(all_poison(elems + 3, (N - 3) * sizeof(long double)), "p wrote past its element");
    expect_ld("iput", strided, 2, from_left, 1, N / 2);
    expect_ld("ctx iput", strided + 1, 2, from_left + 1, 2, N / 4);
    for (size_t i = 2 * (N / 4) + 1; i < N; i += 2)
        CHECK(all_poison(&strided[i], sizeof(long double)), "iput wrote gap %zu", i);

    /* gets from the right neighbour's source, into poisoned buffers */
    poison(got, sizeof(got));
    shmem_longdouble_get(got, s, N, right);
    expect_ld("get", got, 1, from_right, 1, N);
    CHECK(all_poison(got + N, 2 * N * sizeof(long double)), "get wrote past its end");
    poison(got, sizeof(got));
    shmem_ctx_longdouble_get_nbi(ctx, got, s, N, right);
    shmem_get_nbi(got + N, s, N, right);
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    expect_ld("ctx get_nbi", got, 1, from_right, 1, N);
    expect_ld("generic get_nbi", got + N, 1, from_right, 1, N);
    poison(got, sizeof(got));
    shmem_longdouble_iget(got, s, 3, 2, N / 2, right);
    expect_ld("iget", got, 3, from_right, 2, N / 2);
    CHECK(all_poison(&got[1], 2 * sizeof(long double)), "iget wrote a gap");
    CHECK(shmem_longdouble_g(s + 5, right) == from_right[5] &&
              shmem_ctx_longdouble_g(ctx, s + 6, left) == from_left[6] &&
              shmem_g(s + 7, right) == from_right[7],
          "g, ctx g, generic g");
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(s);
    shmem_free(d);
}

/* ---- collectives that move long doubles, over the world ----------------------------- */

static void test_moves(void)
{
    const size_t np = (size_t)npes, b = N * sizeof(long double);
    const int root = (int)(compat_rand(0, 20, 0) % (uint64_t)npes);
    long double *src = shmem_malloc(np * b), *dst = shmem_malloc(2 * np * b);
    long double *want = malloc(np * b), *theirs = malloc(np * b);
    ld_fill(src, np * N, me, 21);

    poison_all(dst, 2 * np * b);
    CHECK(shmem_longdouble_broadcast(SHMEM_TEAM_WORLD, dst, src, N, root) == 0, "broadcast");
    ld_fill(want, N, root, 21);
    expect_ld("broadcast", dst, 1, want, 1, N);
    CHECK(all_poison(dst + N, b), "broadcast wrote past dest");
    poison_all(dst, 2 * np * b);
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, 2, npes - 1) == 0, "generic broadcast");
    ld_fill(want, 2, npes - 1, 21);
    expect_ld("generic broadcast", dst, 1, want, 1, 2);

    poison_all(dst, 2 * np * b);
    CHECK(shmem_longdouble_fcollect(SHMEM_TEAM_WORLD, dst, src, N) == 0, "fcollect");
    for (int pe = 0; pe < npes; pe++) {
        ld_fill(theirs, N, pe, 21);
        expect_ld("fcollect", dst + (size_t)pe * N, 1, theirs, 1, N);
    }
    /* collect: PE i gives i % 4 + 1 elements */
    poison_all(dst, 2 * np * b);
    CHECK(shmem_longdouble_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)(me % 4 + 1)) == 0,
          "collect");
    size_t at = 0;
    for (int pe = 0; pe < npes; at += (size_t)(pe % 4 + 1), pe++) {
        ld_fill(theirs, N, pe, 21);
        expect_ld("collect", dst + at, 1, theirs, 1, (size_t)(pe % 4 + 1));
    }
    CHECK(all_poison(dst + at, sizeof(long double)), "collect wrote past its end");
    /* alltoall: my block j to PE j, at block me */
    poison_all(dst, 2 * np * b);
    CHECK(shmem_longdouble_alltoall(SHMEM_TEAM_WORLD, dst, src, N) == 0, "alltoall");
    for (int pe = 0; pe < npes; pe++) {
        ld_fill(theirs, np * N, pe, 21);
        expect_ld("alltoall", dst + (size_t)pe * N, 1, theirs + (size_t)me * N, 1, N);
    }
    /* alltoalls: 3 elements a PE, dest stride 2, source stride 3 */
    poison_all(dst, 2 * np * b);
    CHECK(shmem_longdouble_alltoalls(SHMEM_TEAM_WORLD, dst, src, 2, 3, 3) == 0, "alltoalls");
    for (int pe = 0; pe < npes; pe++) {
        ld_fill(theirs, np * N, pe, 21);
        expect_ld("alltoalls", dst + (size_t)pe * 6, 2, theirs + (size_t)me * 9, 3, 3);
        CHECK(all_poison(dst + (size_t)pe * 6 + 1, sizeof(long double)), "alltoalls gap");
    }
    shmem_barrier_all();
    free(theirs);
    free(want);
    shmem_free(dst);
    shmem_free(src);
}

/* ---- reductions ------------------------------------------------------------------ */

enum op { MIN, MAX, SUM, PROD };
static const char *const op_names[] = {"min", "max", "sum", "prod"};

/* The team's members in team order, by world PE. */
static int members(shmem_team_t team, int *pes)
{
    const int n = shmem_team_n_pes(team);
    for (int t = 0; t < n; t++)
        pes[t] = shmem_team_translate_pe(team, t, SHMEM_TEAM_WORLD);
    return n;
}

static int ld_reduce(shmem_team_t team, enum op op, long double *dest, const long double *source,
                     size_t n)
{
    switch (op) {
    case MIN: return shmem_longdouble_min_reduce(team, dest, source, n);
    case MAX: return shmem_max_reduce(team, dest, source, n); /* the generic form */
    case SUM: return shmem_longdouble_sum_reduce(team, dest, source, n);
    default: return shmem_longdouble_prod_reduce(team, dest, source, n);
    }
}

static void test_ld_reduce(shmem_team_t team, const char *name, int in_place)
{
    int pes[64];
    const int tn = members(team, pes);
    long double *src = red_src, *dst = in_place ? src : red_dst;
    for (int op = MIN; op <= PROD; op++) {
        const uint64_t tag = 30 + (uint64_t)op;
        long double want[N], theirs[N];
        ld_fill(want, N, pes[0], tag); /* in team order, as the library combines */
        for (int t = 1; t < tn; t++) {
            ld_fill(theirs, N, pes[t], tag);
            for (size_t i = 0; i < N; i++) {
                const long double a = want[i], v = theirs[i];
                want[i] = op == MIN ? (v < a ? v : a) : op == MAX ? (v > a ? v : a)
                        : op == SUM ? a + v : a * v;
            }
        }
        if (!in_place)
            poison(dst, N * sizeof(long double));
        ld_fill(src, N, me, tag);
        shmem_team_sync(team);
        CHECK(ld_reduce(team, (enum op)op, dst, src, N) == 0, "reduce");
        char what[80];
        snprintf(what, sizeof(what), "longdouble_%s_reduce on %s%s", op_names[op], name,
                 in_place ? ", in place" : "");
        expect_ld(what, dst, 1, want, 1, N);
    }
    shmem_team_sync(team);
}

/* Complex values: parts from -S to S (S 15 for double, 3 for float), so
 * that a product over 8 PEs, and every partial product on the way, is
 * exact: the expected value holds whatever order a complex product adds
 * its parts' products in. */
static double part(int pe, uint64_t tag, size_t i, int j, int span)
{
    return (double)(compat_rand(pe, tag, 2 * i + (size_t)j) % (uint64_t)(2 * span + 1)) - span;
}

/* The complex reductions on double _Complex (CT double) or float _Complex
 * (float): the typed forms for sum, the generic ones for prod; the
 * expected parts computed in double, by the parts. */
#define TEST_COMPLEX(NAME, CT, SPAN)                                                           \
    static void test_##NAME##_reduce(shmem_team_t team, const char *name, int in_place)       \
    {                                                                                          \
        int pes[64];                                                                           \
        const int tn = members(team, pes);                                                     \
        CT _Complex *src = red_src, *dst = in_place ? src : red_dst;                           \
        for (int op = SUM; op <= PROD; op++) {                                                 \
            const uint64_t tag = 40 + (uint64_t)op;                                            \
            double want[N][2];                                                                 \
            for (size_t i = 0; i < N; i++) {                                                   \
                want[i][0] = part(pes[0], tag, i, 0, SPAN);                                    \
                want[i][1] = part(pes[0], tag, i, 1, SPAN);                                    \
                for (int t = 1; t < tn; t++) {                                                 \
                    const double re = part(pes[t], tag, i, 0, SPAN);                           \
                    const double im = part(pes[t], tag, i, 1, SPAN);                           \
                    const double a = want[i][0], b = want[i][1];                               \
                    want[i][0] = op == SUM ? a + re : a * re - b * im;                         \
                    want[i][1] = op == SUM ? b + im : a * im + b * re;                         \
                }                                                                              \
            }                                                                                  \
            if (!in_place)                                                                     \
                poison(dst, N * sizeof(CT _Complex));                                          \
            for (size_t i = 0; i < N; i++) {                                                   \
                CT p[2] = {(CT)part(me, tag, i, 0, SPAN), (CT)part(me, tag, i, 1, SPAN)};      \
                memcpy(&src[i], p, sizeof(p)); /* an array of two: the layout of _Complex */  \
            }                                                                                  \
            shmem_team_sync(team);                                                             \
            CHECK((op == SUM ? shmem_##NAME##_sum_reduce(team, dst, src, N)                    \
                             : shmem_prod_reduce(team, dst, src, N)) == 0,                     \
                  #NAME " reduce");                                                            \
            for (size_t i = 0; i < N; i++) {                                                   \
                CT got[2];                                                                     \
                memcpy(got, &dst[i], sizeof(got));                                             \
                CHECK(got[0] == (CT)want[i][0] && got[1] == (CT)want[i][1],                    \
                      #NAME "_%s_reduce on %s%s: element %zu is %g%+gi, expected %g%+gi",      \
                      op_names[op], name, in_place ? ", in place" : "", i, (double)got[0],     \
                      (double)got[1], want[i][0], want[i][1]);                                 \
            }                                                                                  \
        }                                                                                      \
        shmem_team_sync(team);                                                                 \
    }
TEST_COMPLEX(complexd, double, 15)
TEST_COMPLEX(complexf, float, 3)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    CHECK(npes <= 64, "at most 64 PEs");
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");

    test_rma();
    test_moves();
    red_src = shmem_malloc(N * sizeof(long double));
    red_dst = shmem_malloc(N * sizeof(long double));
    shmem_team_t even;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0,
          "split_strided");
    const shmem_team_t teams[2] = {SHMEM_TEAM_WORLD, even};
    const char *const names[2] = {"the world", "the even PEs"};
    for (int k = 0; k < 2; k++) {
        if (teams[k] == SHMEM_TEAM_INVALID)
            continue;
        for (int in_place = 0; in_place < 2; in_place++) {
            test_ld_reduce(teams[k], names[k], in_place);
            test_complexd_reduce(teams[k], names[k], in_place);
            test_complexf_reduce(teams[k], names[k], in_place);
        }
    }
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_free(red_dst);
    shmem_free(red_src);
    shmem_ctx_destroy(ctx);
    COMPAT_DONE();
}
