/* Host collectives on several teams (the world, a stride-2 and a stride-3
 * split, the world reversed, a 2D row): broadcast, collect, fcollect,
 * alltoall and alltoalls on every RMA type (the host-only long double too)
 * and their mem forms, every reduction on every type it has (the host-only
 * long double and complex types too; reduce, reducescatter, the sum
 * scans), in place where the spec allows it, at sizes from 0 to the
 * largest that fits, at each edge of the host heap's algorithms (the last
 * size before the algorithm, its round count or its chunk count changes,
 * and the next: team_edges), and back-to-back calls with no barrier
 * between (now and then a large one, so that the algorithm changes from
 * call to call).
 * Every PE regenerates every other PE's input from the seed, computes the
 * expected result itself (integers in the unsigned type of their width,
 * floats and long doubles in team order, at their full precision, half,
 * bfloat16 and the complex types on small integers that they and their
 * products hold exactly, complex products by their parts) and checks
 * every byte of dest, which is poisoned before each call (of a long
 * double, the bytes of its value: its padding is unspecified).
 *
 * SPMD_COLL_PART=i/k (the runs that force one algorithm or peer class, and
 * the sanitizers'): of the types' moves and reductions only every k-th from
 * the i-th (the mem forms always), and 1000/k back-to-back calls (at least
 * 250), so that k such runs together cover every one for CI's time; every
 * team, size, shape and edge is checked in every run.  i,j,.../k: those
 * parts together.  SPMD_COLL_BUF: larger buffers (2m), where an edge needs
 * them.  SPMD_COLL_EDGES=1: each edge's sizes on stderr, as checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmd_util.h"

static int me, npes;
static uint64_t seed;
static unsigned char *sym_src, *sym_dst; /* symmetric, buf_size bytes each */
/* 1 MiB, or SPMD_COLL_BUF (bytes, k or m suffix) in the runs that cross
 * the edges beyond it (the alltoall's 512 KiB a member: n blocks of it in
 * source and in dest); the sizes before the edges' section are those of
 * 1 MiB (BASE_BUF) in every run. */
#define BASE_BUF ((size_t)1 << 20)
static size_t buf_size = BASE_BUF;

/* The world PEs of a team, by team index. */
struct team {
    gshmem_team_t t;
    const char *name;
    int n, my;
    int pes[64];
    int mapped, spread; /* as the library classes it (team_class) */
};

static void team_of(struct team *tm, gshmem_team_t t, const char *name)
{
    tm->t = t;
    tm->name = name;
    tm->n = gshmem_team_n_pes(t);
    tm->my = gshmem_team_my_pe(t);
    for (int i = 0; i < tm->n && i < 64; i++)
        tm->pes[i] = gshmem_team_translate_pe(t, i, GSHMEM_TEAM_WORLD);
}

/* Member i's input of `len` bytes for call number `tag`. */
static void input(unsigned char *buf, size_t len, int world_pe, uint64_t tag)
{
    spmd_fill(buf, len, seed, world_pe, tag);
}

static void put_source(const void *buf, size_t len) { spmd_store(sym_src, buf, len); }
/* dest and the 64 bytes after it, which expect_bytes checks stay so */
static void poison_dest(size_t len)
{
    spmd_set(sym_dst, POISON, len + 64 <= buf_size ? len + 64 : len);
}

/* dest holds want: the first vbytes of each element of es bytes. */
static void expect_values(const char *what, const struct team *tm, const unsigned char *want,
                          size_t len, size_t es, size_t vbytes, uint64_t tag)
{
    unsigned char *got = malloc(len + 64);
    spmd_load(got, sym_dst, len + 64 <= buf_size ? len + 64 : len);
    if (vbytes == es && memcmp(got, want, len) == 0)
        spmd_checks += (int)len; /* every byte right: the loop below would say nothing */
    else
        for (size_t i = 0; i < len; i++)
            CHECK(i % es >= vbytes || got[i] == want[i],
                  "%s on %s (call %llu): byte %zu of %zu is %#x, expected %#x", what, tm->name,
                  (unsigned long long)tag, i, len, got[i], want[i]);
    if (len + 64 <= buf_size)
        CHECK(spmd_all_bytes(got + len, 64, POISON), "%s on %s: bytes past dest written", what,
              tm->name);
    free(got);
}

static void expect_bytes(const char *what, const struct team *tm, const unsigned char *want,
                         size_t len, uint64_t tag)
{
    expect_values(what, tm, want, len, 1, 1, tag);
}

/* ---- moving data: every RMA type through its typed functions -------------------- */

typedef int bcast_fn(gshmem_team_t, void *, const void *, size_t, int);
typedef int coll_fn(gshmem_team_t, void *, const void *, size_t);
typedef int alltoalls_fn(gshmem_team_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t);
struct mover {
    const char *type;
    size_t esize;
    bcast_fn *broadcast;
    coll_fn *collect, *fcollect, *alltoall;
    alltoalls_fn *alltoalls;
};

#define MOVER(NAME, TYPE, G)                                                                 \
    {#NAME, sizeof(TYPE), (bcast_fn *)gshmem_##NAME##_broadcast, (coll_fn *)gshmem_##NAME##_collect, \
     (coll_fn *)gshmem_##NAME##_fcollect, (coll_fn *)gshmem_##NAME##_alltoall,                 \
     (alltoalls_fn *)gshmem_##NAME##_alltoalls},
static const struct mover movers[] = {
    GSHMEM_FOR_RMA_TYPES(MOVER)
    GSHMEM_FOR_RMA_HOST_TYPES(MOVER)
    {"mem", 1, gshmem_broadcastmem, gshmem_collectmem, gshmem_fcollectmem, gshmem_alltoallmem,
     gshmem_alltoallsmem},
};

/* The collectives a check makes (the edges' section makes one at a time). */
enum { C_BROADCAST = 1, C_FCOLLECT = 2, C_COLLECT = 4, C_ALLTOALL = 8, C_ALLTOALLS = 16,
       C_MOVES = 31, C_REDUCE = 32, C_REDUCESCATTER = 64, C_SCANS = 128, C_REDUCTIONS = 224 };

/* ops: of C_MOVES; root < 0: broadcast from every other member (every
 * member up to 3) and in place, fcollect in place too; else broadcast from
 * root alone, and neither in place. */
static void check_moves(const struct team *tm, const struct mover *m, size_t nelems, uint64_t tag,
                        unsigned ops, int one_root)
{
    const size_t es = m->esize, b = nelems * es;
    /* room for the largest: alltoalls' source (3 elements a step), collect's dest */
    const size_t room = 3 * (size_t)tm->n * b + (size_t)tm->n * (size_t)tm->n * es + 64;
    unsigned char *want = calloc(1, room), *in = malloc(room);
    char what[96];

    /* broadcast from each root in turn (the root's own dest too) */
    for (int root = one_root < 0 ? 0 : one_root; ops & C_BROADCAST && root < tm->n;
         root += one_root >= 0 ? tm->n : tm->n > 3 ? 2 : 1) {
        input(in, b, tm->pes[tm->my], tag);
        put_source(in, b);
        poison_dest(b);
        CHECK(m->broadcast(tm->t, sym_dst, sym_src, nelems, root) == 0, "broadcast");
        input(want, b, tm->pes[root], tag);
        snprintf(what, sizeof(what), "%s_broadcast(%zu) from %d", m->type, nelems, root);
        expect_bytes(what, tm, want, b, tag++);
    }
    /* in place (dest == source): from the last member */
    if (ops & C_BROADCAST && one_root < 0) {
        input(in, b, tm->pes[tm->my], tag);
        poison_dest(b);
        spmd_store(sym_dst, in, b);
        CHECK(m->broadcast(tm->t, sym_dst, sym_dst, nelems, tm->n - 1) == 0, "broadcast in place");
        input(want, b, tm->pes[tm->n - 1], tag);
        snprintf(what, sizeof(what), "%s_broadcast(%zu) in place from %d", m->type, nelems,
                 tm->n - 1);
        expect_bytes(what, tm, want, b, tag++);
    }
    /* fcollect */
    if (ops & C_FCOLLECT) {
        input(in, b, tm->pes[tm->my], tag);
        put_source(in, b);
        poison_dest(b * (size_t)tm->n);
        CHECK(m->fcollect(tm->t, sym_dst, sym_src, nelems) == 0, "fcollect");
        for (int i = 0; i < tm->n; i++)
            input(want + (size_t)i * b, b, tm->pes[i], tag);
        snprintf(what, sizeof(what), "%s_fcollect(%zu)", m->type, nelems);
        expect_bytes(what, tm, want, b * (size_t)tm->n, tag++);
    }
    /* in place: the source is this member's block of dest */
    if (ops & C_FCOLLECT && one_root < 0) {
        input(in, b, tm->pes[tm->my], tag);
        poison_dest(b * (size_t)tm->n);
        spmd_store((char *)sym_dst + (size_t)tm->my * b, in, b);
        CHECK(m->fcollect(tm->t, sym_dst, (char *)sym_dst + (size_t)tm->my * b, nelems) == 0,
              "fcollect in place");
        for (int i = 0; i < tm->n; i++)
            input(want + (size_t)i * b, b, tm->pes[i], tag);
        snprintf(what, sizeof(what), "%s_fcollect(%zu) in place", m->type, nelems);
        expect_bytes(what, tm, want, b * (size_t)tm->n, tag++);
    }
    /* collect: member i gives nelems + i elements */
    if (ops & C_COLLECT) {
        size_t off = 0, mine = (nelems + (size_t)tm->my) * es;
        input(in, mine, tm->pes[tm->my], tag);
        put_source(in, mine);
        poison_dest((size_t)tm->n * (b + (size_t)tm->n * es));
        CHECK(m->collect(tm->t, sym_dst, sym_src, nelems + (size_t)tm->my) == 0, "collect");
        for (int i = 0; i < tm->n; i++) {
            const size_t len = (nelems + (size_t)i) * es;
            input(want + off, len, tm->pes[i], tag);
            off += len;
        }
        snprintf(what, sizeof(what), "%s_collect(%zu + index)", m->type, nelems);
        expect_bytes(what, tm, want, off, tag++);
    }
    /* alltoall: block j of member i's source lands at block i of member j */
    if (ops & C_ALLTOALL) {
        input(in, b * (size_t)tm->n, tm->pes[tm->my], tag);
        put_source(in, b * (size_t)tm->n);
        poison_dest(b * (size_t)tm->n);
        CHECK(m->alltoall(tm->t, sym_dst, sym_src, nelems) == 0, "alltoall");
        for (int i = 0; i < tm->n; i++) {
            input(in, b * (size_t)tm->n, tm->pes[i], tag);
            memcpy(want + (size_t)i * b, in + (size_t)tm->my * b, b);
        }
        snprintf(what, sizeof(what), "%s_alltoall(%zu)", m->type, nelems);
        expect_bytes(what, tm, want, b * (size_t)tm->n, tag++);
    }
    /* alltoalls with dst 2 and sst 3: elements between stay poisoned */
    const ptrdiff_t dst = 2, sst = 3;
    const size_t src_len = (size_t)tm->n * nelems * (size_t)sst * es;
    const size_t dst_len = (size_t)tm->n * nelems * (size_t)dst * es;
    if (ops & C_ALLTOALLS && src_len <= buf_size && dst_len + 64 <= buf_size) {
        input(in, src_len, tm->pes[tm->my], tag);
        put_source(in, src_len);
        poison_dest(dst_len);
        CHECK(m->alltoalls(tm->t, sym_dst, sym_src, dst, sst, nelems) == 0, "alltoalls");
        memset(want, POISON, dst_len);
        for (int i = 0; i < tm->n; i++) {
            input(in, src_len, tm->pes[i], tag);
            for (size_t k = 0; k < nelems; k++)
                memcpy(want + (((size_t)i * nelems + k) * (size_t)dst) * es,
                       in + (((size_t)tm->my * nelems + k) * (size_t)sst) * es, es);
        }
        snprintf(what, sizeof(what), "%s_alltoalls(%zu)", m->type, nelems);
        expect_bytes(what, tm, want, dst_len, tag++);
    }
    free(want);
    free(in);
}

/* ---- reductions ------------------------------------------------------------------ */

/* 16-bit floats hold the test's small integers exactly: their encodings. */
static uint16_t half_of(int v)
{
    if (v == 0)
        return 0;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
    while ((a >> e) > 1)
        e++;
    return (uint16_t)(sign | ((e + 15) << 10) | (((a << 10) >> e) & 0x3ff));
}
static uint16_t bfloat16_of(int v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
/* The integer such an encoding holds: the inverse of the two above on the
 * test's values and their sums and products of up to 8 (|v| <= 256). */
static int int_of_half(uint16_t h)
{
    const unsigned e = (h >> 10) & 31, m = h & 0x3ff;
    const int a = e == 0 ? 0 : (int)((uint64_t)(1024 + m) << e >> 25);
    return h & 0x8000 ? -a : a;
}
static int int_of_bfloat16(uint16_t h)
{
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return (int)f;
}

/* The inputs: random bits for integers, random floats, random long
 * doubles that need all 64 bits of their significand, small integers for
 * the 16-bit floats and the complex types' parts. */
enum kind { K_INT, K_FLOAT, K_DOUBLE, K_HALF, K_BF16, K_LDOUBLE, K_CDOUBLE, K_CFLOAT };

/* A complex part, from a random byte: -15..15 (complexd), -3..3
 * (complexf), so that the product of up to 8 PEs' values, and every
 * partial product on the way, is an integer the part's type holds exactly
 * (|re| and |im| at most 21.3^8 < 2^53, 4.25^8 < 2^24), whatever the
 * order of the multiplications and additions in a complex product. */
static double complex_part(enum kind k, unsigned char r)
{
    const int span = k == K_CDOUBLE ? 15 : 3;
    return (double)(r % (2 * span + 1)) - span;
}

/* Elements from..from+n-1 of a PE's input, into buf[0..n). */
static void reduce_input_part(unsigned char *buf, size_t from, size_t n, size_t es, enum kind k,
                              int world_pe, uint64_t tag)
{
    unsigned char *whole = malloc((from + n) * 8 + 8), *raw = whole + from * 8;
    input(whole, (from + n) * 8, world_pe, tag);
    for (size_t i = 0; i < n; i++) {
        if (k == K_FLOAT) {
            float f = (float)((int32_t)((uint32_t)raw[8 * i] << 16 | raw[8 * i + 1]) % 2000) / 64.0f;
            memcpy(buf + i * es, &f, es);
        } else if (k == K_DOUBLE) {
            double d = (double)((int64_t)raw[8 * i] * 997 - 50000) / 3.0;
            memcpy(buf + i * es, &d, es);
        } else if (k == K_LDOUBLE) {
            int64_t v;
            memcpy(&v, raw + 8 * i, 8);
            long double ld = (long double)v / 3.0L; /* 63 bits and a repeating fraction */
            memcpy(buf + i * es, &ld, es);
        } else if (k == K_CDOUBLE) {
            const double parts[2] = {complex_part(k, raw[8 * i]), complex_part(k, raw[8 * i + 1])};
            memcpy(buf + i * es, parts, es);
        } else if (k == K_CFLOAT) {
            const float parts[2] = {(float)complex_part(k, raw[8 * i]),
                                    (float)complex_part(k, raw[8 * i + 1])};
            memcpy(buf + i * es, parts, es);
        } else if (k == K_HALF || k == K_BF16) {
            /* +-1, +-2: sums and products of up to 8 stay exact (|x| <= 256) */
            int v = 1 + raw[8 * i] % 2;
            if (raw[8 * i + 1] & 1)
                v = -v;
            uint16_t h = k == K_HALF ? half_of(v) : bfloat16_of(v);
            memcpy(buf + i * es, &h, 2);
        } else {
            memcpy(buf + i * es, raw + 8 * i, es);
        }
    }
    free(whole);
}

static void reduce_input(unsigned char *buf, size_t n, size_t es, enum kind k, int world_pe,
                         uint64_t tag)
{
    reduce_input_part(buf, 0, n, es, k, world_pe, tag);
}

enum op { O_AND, O_OR, O_XOR, O_MIN, O_MAX, O_SUM, O_PROD };

/* acc = acc op x, one element, as the test computes it (independently of
 * the library: integers by their value in a signed or unsigned 64-bit
 * view of the type, wrapped to its width). */
static void ref_combine(unsigned char *acc, const unsigned char *x, size_t es, enum kind k,
                        int is_signed, enum op op)
{
    if (k == K_LDOUBLE) {
        long double a, b, r;
        memcpy(&a, acc, sizeof(a)), memcpy(&b, x, sizeof(b));
        r = op == O_MIN ? (b < a ? b : a)
          : op == O_MAX ? (b > a ? b : a)
          : op == O_SUM ? a + b : a * b;
        memcpy(acc, &r, sizeof(r));
        return;
    }
    if (k == K_CDOUBLE || k == K_CFLOAT) { /* by the parts, in double: all exact */
        double a[2], b[2];
        for (int j = 0; j < 2; j++) {
            float fa, fb;
            if (k == K_CFLOAT)
                memcpy(&fa, acc + 4 * j, 4), memcpy(&fb, x + 4 * j, 4), a[j] = fa, b[j] = fb;
            else
                memcpy(&a[j], acc + 8 * j, 8), memcpy(&b[j], x + 8 * j, 8);
        }
        const double r[2] = {op == O_SUM ? a[0] + b[0] : a[0] * b[0] - a[1] * b[1],
                             op == O_SUM ? a[1] + b[1] : a[0] * b[1] + a[1] * b[0]};
        for (int j = 0; j < 2; j++) {
            const float f = (float)r[j];
            if (k == K_CFLOAT)
                memcpy(acc + 4 * j, &f, 4);
            else
                memcpy(acc + 8 * j, &r[j], 8);
        }
        return;
    }
    if (k == K_FLOAT || k == K_DOUBLE) {
        double a, b;
        float fa, fb;
        if (k == K_FLOAT) {
            memcpy(&fa, acc, 4), memcpy(&fb, x, 4);
            a = fa, b = fb;
        } else {
            memcpy(&a, acc, 8), memcpy(&b, x, 8);
        }
        double r = op == O_MIN ? (b < a ? b : a) : op == O_MAX ? (b > a ? b : a)
                 : op == O_SUM ? (k == K_FLOAT ? (double)(fa + fb) : a + b)
                               : (k == K_FLOAT ? (double)(fa * fb) : a * b);
        if (k == K_FLOAT) {
            float f = (float)r;
            memcpy(acc, &f, 4);
        } else {
            memcpy(acc, &r, 8);
        }
        return;
    }
    if (k == K_HALF || k == K_BF16) { /* on the small integers they hold */
        uint16_t ha, hb;
        memcpy(&ha, acc, 2), memcpy(&hb, x, 2);
        const int a = k == K_HALF ? int_of_half(ha) : int_of_bfloat16(ha);
        const int b = k == K_HALF ? int_of_half(hb) : int_of_bfloat16(hb);
        int r = op == O_MIN ? (b < a ? b : a) : op == O_MAX ? (b > a ? b : a) : op == O_SUM ? a + b : a * b;
        uint16_t h = k == K_HALF ? half_of(r) : bfloat16_of(r);
        memcpy(acc, &h, 2);
        return;
    }
    uint64_t ua = 0, ub = 0;
    memcpy(&ua, acc, es), memcpy(&ub, x, es);
    const int sh = 64 - 8 * (int)es;
    int64_t sa = (int64_t)(ua << sh) >> sh, sb = (int64_t)(ub << sh) >> sh;
    uint64_t r;
    switch (op) {
    case O_AND: r = ua & ub; break;
    case O_OR: r = ua | ub; break;
    case O_XOR: r = ua ^ ub; break;
    case O_MIN: r = is_signed ? (uint64_t)(sb < sa ? sb : sa) : (ub < ua ? ub : ua); break;
    case O_MAX: r = is_signed ? (uint64_t)(sb > sa ? sb : sa) : (ub > ua ? ub : ua); break;
    case O_SUM: r = ua + ub; break;
    default: r = ua * ub; break;
    }
    memcpy(acc, &r, es);
}

typedef int red_fn(gshmem_team_t, void *, const void *, size_t);
struct reducer {
    const char *name;
    size_t esize;
    enum kind kind;
    int is_signed;
    enum op op;
    red_fn *reduce, *reducescatter, *inscan, *exscan; /* scans: sum only */
};

#define KIND_OF(NAME) (!strcmp(#NAME, "float") ? K_FLOAT : !strcmp(#NAME, "double") ? K_DOUBLE \
                       : !strcmp(#NAME, "half") ? K_HALF : !strcmp(#NAME, "bfloat16") ? K_BF16   \
                       : !strcmp(#NAME, "longdouble") ? K_LDOUBLE                                \
                       : !strcmp(#NAME, "complexd") ? K_CDOUBLE                                  \
                       : !strcmp(#NAME, "complexf") ? K_CFLOAT : K_INT)
#define RED_BIT(NAME, TYPE, G)                                                                  \
    {#NAME "_and", sizeof(TYPE), K_INT, 0, O_AND, (red_fn *)gshmem_##NAME##_and_reduce,        \
     (red_fn *)gshmem_##NAME##_and_reducescatter, NULL, NULL},                                   \
    {#NAME "_or", sizeof(TYPE), K_INT, 0, O_OR, (red_fn *)gshmem_##NAME##_or_reduce,           \
     (red_fn *)gshmem_##NAME##_or_reducescatter, NULL, NULL},                                    \
    {#NAME "_xor", sizeof(TYPE), K_INT, 0, O_XOR, (red_fn *)gshmem_##NAME##_xor_reduce,        \
     (red_fn *)gshmem_##NAME##_xor_reducescatter, NULL, NULL},
/* As the operation tables: the arithmetic types' min and max, then the
 * sum and prod that the complex types have too. */
#define RED_ARITH(NAME, TYPE, G)                                                                \
    {#NAME "_min", sizeof(TYPE), KIND_OF(NAME), -1, O_MIN, (red_fn *)gshmem_##NAME##_min_reduce, \
     (red_fn *)gshmem_##NAME##_min_reducescatter, NULL, NULL},                                   \
    {#NAME "_max", sizeof(TYPE), KIND_OF(NAME), -1, O_MAX, (red_fn *)gshmem_##NAME##_max_reduce, \
     (red_fn *)gshmem_##NAME##_max_reducescatter, NULL, NULL},                                   \
    RED_COMPLEX(NAME, TYPE, G)
#define RED_COMPLEX(NAME, TYPE, G)                                                              \
    {#NAME "_sum", sizeof(TYPE), KIND_OF(NAME), -1, O_SUM, (red_fn *)gshmem_##NAME##_sum_reduce, \
     (red_fn *)gshmem_##NAME##_sum_reducescatter, (red_fn *)gshmem_##NAME##_sum_inscan,          \
     (red_fn *)gshmem_##NAME##_sum_exscan},                                                      \
    {#NAME "_prod", sizeof(TYPE), KIND_OF(NAME), -1, O_PROD,                                     \
     (red_fn *)gshmem_##NAME##_prod_reduce, (red_fn *)gshmem_##NAME##_prod_reducescatter, NULL,  \
     NULL},
static struct reducer reducers[] = {
    GSHMEM_FOR_REDUCE_BITWISE_TYPES(RED_BIT)
    GSHMEM_FOR_REDUCE_ARITH_TYPES(RED_ARITH)
    GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(RED_ARITH)
    GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(RED_COMPLEX)
};

/* The bytes of each of r's elements that hold its value. */
static size_t value_bytes(const struct reducer *r)
{
    return r->kind == K_LDOUBLE ? SPMD_LDBL_VALUE_BYTES : r->esize;
}

/* Whether each arithmetic type is signed (the rows' -1, filled here from
 * the list below: the 16-bit floats have no C type here to ask). */
static void fill_signs(void)
{
#define SIGN_SET(NAME, TYPE, G)                                                                 \
    for (size_t r = 0; r < sizeof(reducers) / sizeof(reducers[0]); r++)                          \
        if (reducers[r].is_signed == -1 && !strncmp(reducers[r].name, #NAME "_", strlen(#NAME "_")) && \
            strchr(reducers[r].name + strlen(#NAME "_"), '_') == NULL)                          \
            reducers[r].is_signed = KIND_OF(NAME) != K_INT || SIGN_OF_##NAME;
#define SIGN_OF_char ((char)-1 < (char)0)
#define SIGN_OF_schar 1
#define SIGN_OF_short 1
#define SIGN_OF_int 1
#define SIGN_OF_long 1
#define SIGN_OF_longlong 1
#define SIGN_OF_ptrdiff 1
#define SIGN_OF_uchar 0
#define SIGN_OF_ushort 0
#define SIGN_OF_uint 0
#define SIGN_OF_ulong 0
#define SIGN_OF_ulonglong 0
#define SIGN_OF_int8 1
#define SIGN_OF_int16 1
#define SIGN_OF_int32 1
#define SIGN_OF_int64 1
#define SIGN_OF_uint8 0
#define SIGN_OF_uint16 0
#define SIGN_OF_uint32 0
#define SIGN_OF_uint64 0
#define SIGN_OF_size 0
#define SIGN_OF_float 1
#define SIGN_OF_double 1
#define SIGN_OF_half 1
#define SIGN_OF_bfloat16 1
#define SIGN_OF_longdouble 1
#define SIGN_OF_complexd 1
#define SIGN_OF_complexf 1
    GSHMEM_FOR_REDUCE_ARITH_TYPES(SIGN_SET)
    GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(SIGN_SET)
    GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(SIGN_SET)
}

/* want = member 0's input combined with members 1..upto-1's: their nelems
 * elements from element blk. */
static void ref_reduce(unsigned char *want, const struct team *tm, const struct reducer *r,
                       size_t nelems, size_t blk, int upto, uint64_t tag)
{
    const size_t es = r->esize;
    unsigned char *in = malloc(nelems * es + 8);
    memset(want, 0, nelems * es);
    for (int i = 0; i < upto; i++) {
        reduce_input_part(in, blk, nelems, es, r->kind, tm->pes[i], tag);
        for (size_t e = 0; e < nelems; e++) {
            if (i == 0)
                memcpy(want + e * es, in + e * es, es);
            else
                ref_combine(want + e * es, in + e * es, es, r->kind, r->is_signed, r->op);
        }
    }
    free(in);
}

/* ops: of C_REDUCTIONS (the scans where r has them). */
static void check_reductions(const struct team *tm, const struct reducer *r, size_t nelems,
                             int in_place, uint64_t tag, unsigned ops)
{
    const size_t es = r->esize, b = nelems * es;
    unsigned char *in = malloc(b * (size_t)tm->n + 8), *want = malloc(b * (size_t)tm->n + 8);
    char what[96];
    void *dest = in_place ? sym_src : sym_dst;

    /* reduce (in place: dest is source) */
    if (ops & C_REDUCE) {
        reduce_input(in, nelems, es, r->kind, tm->pes[tm->my], tag);
        put_source(in, b);
        poison_dest(b);
        CHECK(r->reduce(tm->t, dest, sym_src, nelems) == 0, "reduce");
        if (in_place) {
            unsigned char *got = malloc(b + 8);
            spmd_load(got, sym_src, b);
            spmd_store(sym_dst, got, b);
            free(got);
        }
        ref_reduce(want, tm, r, nelems, 0, tm->n, tag);
        snprintf(what, sizeof(what), "%s_reduce(%zu)%s", r->name, nelems,
                 in_place ? " in place" : "");
        expect_values(what, tm, want, b, es, value_bytes(r), tag++);
    }
    /* reducescatter: block my of everybody's source (in place: dest is
     * this PE's own block of the source, as NCCL's in-place form) */
    if (ops & C_REDUCESCATTER) {
        reduce_input(in, nelems * (size_t)tm->n, es, r->kind, tm->pes[tm->my], tag);
        put_source(in, b * (size_t)tm->n);
        poison_dest(b);
        void *block = (char *)sym_src + b * (size_t)tm->my;
        CHECK(r->reducescatter(tm->t, in_place ? block : sym_dst, sym_src, nelems) == 0,
              "reducescatter");
        if (in_place) {
            unsigned char *got = malloc(b + 8);
            spmd_load(got, block, b);
            spmd_store(sym_dst, got, b);
            free(got);
        }
        ref_reduce(want, tm, r, nelems, nelems * (size_t)tm->my, tm->n, tag);
        snprintf(what, sizeof(what), "%s_reducescatter(%zu)%s", r->name, nelems,
                 in_place ? " in place" : "");
        expect_values(what, tm, want, b, es, value_bytes(r), tag++);
    }
    /* the sum scans */
    for (int inclusive = 1; ops & C_SCANS && r->inscan != NULL && inclusive >= 0; inclusive--) {
        reduce_input(in, nelems, es, r->kind, tm->pes[tm->my], tag);
        put_source(in, b);
        poison_dest(b);
        CHECK((inclusive ? r->inscan : r->exscan)(tm->t, dest, sym_src, nelems) == 0, "scan");
        if (in_place) {
            unsigned char *got = malloc(b + 8);
            spmd_load(got, sym_src, b);
            spmd_store(sym_dst, got, b);
            free(got);
        }
        const int upto = inclusive ? tm->my + 1 : tm->my;
        ref_reduce(want, tm, r, nelems, 0, upto, tag);
        if (upto == 0)
            memset(want, 0, b);
        snprintf(what, sizeof(what), "%s_%s(%zu)%s", r->name, inclusive ? "inscan" : "exscan",
                 nelems, in_place ? " in place" : "");
        expect_values(what, tm, want, b, es, value_bytes(r), tag++);
    }
    free(in);
    free(want);
}

/* ---- the algorithms' edges ------------------------------------------------------ */

/* The inputs' tag of call k on team i (each call's parts count on from it). */
#define TAG(i, k) (((uint64_t)(i) + 1) << 40 | (uint64_t)(k) << 8)

/* SPMD_COLL_PART's quarters of the types: one, or several (i,j,.../k). */
static unsigned part_mask;
static size_t parts = 1;

static int in_part(size_t i) { return part_mask >> (i % parts) & 1; }

static int parse_parts(const char *s)
{
    const char *slash = strchr(s, '/');
    char *end;
    if (slash == NULL)
        return -1;
    parts = strtoul(slash + 1, &end, 10);
    if (*end != '\0' || parts == 0 || parts > 32)
        return -1;
    part_mask = 0;
    for (const char *p = s;; p = end + 1) {
        const unsigned long i = strtoul(p, &end, 10);
        if (end == p || i >= parts || (*end != ',' && end != slash))
            return -1;
        part_mask |= 1u << i;
        if (end == slash)
            return 0;
    }
}

/* Where the host heap's collectives change algorithm, round count or chunk
 * count with the payload a member (src/coll/collectives.c's choice and
 * pipe.c's chunks, restated here: a change there wants one here), by this
 * run's GSHMEM_COLL_ALGO and by the team: all mapped, spread (over nodes,
 * some holding several members) or flat (through the transport).
 *   - the one-shot area: cap = 32 KiB / n_pes bytes a member (a multiple
 *     of 64), at most GSHMEM_COLL_LL_MAX (16 KiB) but under ll, none under
 *     simple; one-shot where all are mapped while n x piece <= 2 KiB (one
 *     round; ll: any size in rounds of cap), through the transport up to
 *     two rounds of cap (ll: any number) on teams of up to 32 members
 *     (GSHMEM_TEST_ONESHOT_MEMBERS);
 *   - beyond them through the transport, recursive doubling: up to two
 *     rounds of cap x n_pes / n (Bruck's alltoall: / its blocks), the
 *     broadcast (doubling's, flat) one round of cap; doubling forced: any
 *     number of such rounds (broadcast: of cap x n_pes);
 *   - the pipelined forms, auto: flat, the chained reduce up to 32 KiB and
 *     the direct alltoall from 128 KiB to 512 KiB; spread, the
 *     hierarchical broadcast up to 512 KiB, fcollect and collect up to 128
 *     KiB, the hierarchical alltoall up to 32 KiB then the direct one up to
 *     512 KiB, the chained reduce and reducescatter up to 128 KiB; then the
 *     barrier algorithm;
 *   - their chunks (ring and hier forced): 256 KiB passed on (broadcast,
 *     fcollect, collect), 32 KiB of a chain's partial results, 4 of them
 *     in flight.
 * An edge is the last payload below it: mult x (base less base mod the
 * element size); it is checked there and one element above. */
struct edge {
    unsigned op; /* a C_ value */
    size_t base, mult;
};

static struct {
    const char *algo;
    size_t cap;  /* the one-shot area's bytes a member */
    int members; /* one-shot's most members through the transport */
} coll;

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    char *end;
    if (v == NULL || *v == '\0')
        return dflt;
    const size_t x = (size_t)strtoull(v, &end, 0);
    return *end == 'k' || *end == 'K' ? x << 10 : *end == 'm' || *end == 'M' ? x << 20 : x;
}

static void coll_model(void)
{
    const char *algo = getenv("GSHMEM_COLL_ALGO");
    coll.algo = algo != NULL && *algo != '\0' ? algo : "auto";
    const size_t ll_max = env_size("GSHMEM_COLL_LL_MAX", 16 << 10);
    coll.cap = (32u << 10) / (size_t)npes < 256 || !strcmp(coll.algo, "simple") ||
                       !strcmp(coll.algo, "grid")
                   ? 0
                   : ((32u << 10) / (size_t)npes) & ~(size_t)63;
    if (strcmp(coll.algo, "ll") != 0 && ll_max < coll.cap)
        coll.cap = ll_max & ~(size_t)15;
    coll.members = (int)env_size("GSHMEM_TEST_ONESHOT_MEMBERS", 0);
    if (coll.members <= 0)
        coll.members = 32;
}

/* Whose heaps each world PE maps and its node (its node team's first
 * member), from every PE (jobs of up to 64), for team_class. */
static uint64_t maps_of[64];
static int node_of[64];

static void gather_maps(void)
{
    uint64_t mine[2] = {0, (uint64_t)gshmem_team_translate_pe(GSHMEMX_TEAM_NODE, 0,
                                                              GSHMEM_TEAM_WORLD)};
    for (int pe = 0; pe < npes; pe++)
        if (gshmem_ptr(sym_src, pe) != NULL)
            mine[0] |= (uint64_t)1 << pe;
    spmd_store(sym_src, mine, sizeof(mine));
    CHECK(gshmem_fcollectmem(GSHMEM_TEAM_WORLD, sym_dst, sym_src, sizeof(mine)) == 0, "maps");
    for (int pe = 0; pe < npes; pe++) {
        spmd_load(mine, sym_dst + pe * sizeof(mine), sizeof(mine));
        maps_of[pe] = mine[0];
        node_of[pe] = (int)mine[1];
    }
}

static int same_members(const struct team *a, const struct team *b)
{
    int same = a->n == b->n;
    for (int i = 0; i < a->n && same; i++) {
        int found = 0;
        for (int j = 0; j < b->n; j++)
            found |= a->pes[i] == b->pes[j];
        same = found;
    }
    return same;
}

static void team_class(struct team *tm)
{
    int nodes = 0, shared = 0;
    tm->mapped = 1;
    for (int i = 0; i < tm->n; i++) {
        int first = 1;
        for (int j = 0; j < tm->n; j++) {
            tm->mapped &= (int)(maps_of[tm->pes[i]] >> tm->pes[j] & 1);
            if (j < i && node_of[tm->pes[j]] == node_of[tm->pes[i]])
                first = 0;
        }
        nodes += first;
        shared |= !first;
    }
    tm->spread = nodes > 1 && shared;
}

static int bruck_blocks(int n)
{
    int b = 0;
    for (int d = 1; d < n; d <<= 1)
        for (int q = 1; q < n; q++)
            b += (q & d) != 0;
    return b;
}

static const char *op_name(unsigned op)
{
    static const char *const names[] = {"broadcast", "fcollect", "collect", "alltoall",
                                        "alltoalls", "reduce", "reducescatter", "scans"};
    for (int i = 0; i < 8; i++)
        if (op == 1u << i)
            return names[i];
    return "?";
}

static size_t add_edge(struct edge *e, size_t k, unsigned ops, size_t base, size_t mult)
{
    for (unsigned op = 1; op <= C_SCANS; op <<= 1) {
        int seen = !(ops & op) || base == 0;
        for (size_t i = 0; i < k && !seen; i++)
            seen = e[i].op == op && e[i].base * e[i].mult == base * mult;
        if (!seen)
            e[k++] = (struct edge){.op = op, .base = base, .mult = mult};
    }
    return k;
}

/* This team's edges under this run's algorithm (at most 64). */
static size_t team_edges(const struct team *tm, struct edge *e)
{
    const char *algo = coll.algo;
    const size_t n = (size_t)tm->n, cap = coll.cap;
    const unsigned all = C_BROADCAST | C_FCOLLECT | C_COLLECT | C_ALLTOALL | C_REDUCTIONS;
    size_t k = 0;
#define EDGE(OPS, BASE, MULT) (k = add_edge(e, k, OPS, BASE, MULT))
    if (n < 2 || cap == 0)
        return 0;
    const size_t room = cap * (size_t)npes / n;
    const size_t bruck = cap * (size_t)npes / (size_t)bruck_blocks(tm->n);
    const int gathers = tm->n <= coll.members, ring = !strcmp(algo, "ring");
    const int hier = !strcmp(algo, "hier"), dbl = !strcmp(algo, "doubling");
    if (!strcmp(algo, "ll")) {
        EDGE(all, cap, 1);
        return k;
    }
    /* one-shot as auto chooses it (the scans under every algorithm; the
     * collect and reducescatter under doubling too) */
    const unsigned oneshot_ops = ring || hier ? C_SCANS : dbl ? C_COLLECT | C_REDUCESCATTER : all;
    /* one round: collect's, and auto's broadcast on a flat team (doubling's) */
    const unsigned rounds_ops =
        all & ~(unsigned)(C_COLLECT | (!tm->mapped && !tm->spread ? C_BROADCAST : 0));
    if (tm->mapped) {
        EDGE(oneshot_ops, (2 << 10) / n, 1);
    } else if (gathers) {
        EDGE(oneshot_ops, cap, 1);
        EDGE(oneshot_ops & rounds_ops, cap, 2);
    }
    if (ring || hier) { /* hier: the ring forms where the team does not spread */
        EDGE(C_BROADCAST | (hier && tm->spread ? 0 : C_FCOLLECT | C_COLLECT), 256 << 10, 1);
        EDGE(C_REDUCE | C_REDUCESCATTER, 32 << 10, 1);
        EDGE(C_REDUCE, 32 << 10, 4);
    } else if (dbl) {
        EDGE(C_BROADCAST, cap * (size_t)npes, 1);
        EDGE(C_FCOLLECT | C_REDUCE | C_SCANS, room, 1);
        EDGE(C_ALLTOALL, bruck, 1);
        if (tm->spread)
            EDGE(C_COLLECT | C_REDUCESCATTER, 128 << 10, 1);
    } else if (!tm->mapped && !tm->spread) { /* auto, flat */
        EDGE(C_BROADCAST, cap, 1); /* doubling's broadcast, one round */
        if (!gathers) {
            EDGE(C_FCOLLECT | C_SCANS, room, 1);
            EDGE(C_FCOLLECT | C_SCANS, room, 2);
            EDGE(C_ALLTOALL, bruck, 1);
            EDGE(C_ALLTOALL, bruck, 2);
        }
        EDGE(C_REDUCE, 32 << 10, 1);
        EDGE(C_ALLTOALL, (128 << 10) - 1, 1);
        EDGE(C_ALLTOALL, 512 << 10, 1);
    } else if (!tm->mapped) { /* auto, spread */
        EDGE(C_BROADCAST | C_ALLTOALL, 512 << 10, 1);
        EDGE(C_FCOLLECT | C_COLLECT | C_REDUCE | C_REDUCESCATTER, 128 << 10, 1);
        EDGE(C_ALLTOALL, 32 << 10, 1);
    }
#undef EDGE
    return k;
}

/* A reduction for edge number `pick` of a team: none on 16-bit floats
 * (slow to check), a sum for the scans. */
static const struct reducer *edge_reducer(unsigned op, size_t pick)
{
    const size_t n_reducers = sizeof(reducers) / sizeof(reducers[0]);
    size_t count = 0;
#define EDGE_REDUCER(r) \
    ((r)->kind != K_HALF && (r)->kind != K_BF16 && (op != C_SCANS || (r)->inscan != NULL))
    for (size_t ri = 0; ri < n_reducers; ri++)
        count += EDGE_REDUCER(&reducers[ri]);
    pick %= count;
    for (size_t ri = 0; ri < n_reducers; ri++)
        if (EDGE_REDUCER(&reducers[ri]) && pick-- == 0)
            return &reducers[ri];
#undef EDGE_REDUCER
    return &reducers[0];
}

/* Each of the team's edges at its last size and one element above, where
 * the buffers hold them: moves as mem (bytes), reductions on a type that
 * changes from edge to edge. */
static uint64_t check_edges(const struct team *tm, const struct mover *mem, int ti, uint64_t k)
{
    struct edge e[64];
    const size_t ne = team_edges(tm, e), n = (size_t)tm->n;
    for (size_t ei = 0; ei < ne; ei++) {
        const size_t pick = ei * 5 + (size_t)ti * 3 + part_mask * 7;
        const struct reducer *r = e[ei].op & C_MOVES ? NULL : edge_reducer(e[ei].op, pick);
        const size_t es = r != NULL ? r->esize : 1;
        const size_t last = e[ei].mult * (e[ei].base - e[ei].base % es);
        for (size_t side = 0; side < 2; side++) {
            const size_t ne_ = last / es + side, b = ne_ * es;
            /* the bytes of the largest of source and dest */
            const size_t most = e[ei].op & (C_BROADCAST | C_REDUCE | C_SCANS) ? b
                              : e[ei].op == C_COLLECT ? n * (b + n)
                                                      : n * b;
            const int fits = most + 64 <= buf_size && (e[ei].op != C_COLLECT || b >= n - 1);
            if (getenv("SPMD_COLL_EDGES") != NULL && tm->my == 0) /* which, for a person */
                fprintf(stderr, "edge on pe %d: %s (%d, %s): %s %zu bytes%s%s%s\n", me, tm->name,
                        tm->n, tm->mapped ? "mapped" : tm->spread ? "spread" : "flat",
                        op_name(e[ei].op), b, r != NULL ? " of " : "", r != NULL ? r->name : "",
                        fits ? "" : ": no room");
            if (!fits)
                continue;
            if (r == NULL)
                check_moves(tm, mem, e[ei].op == C_COLLECT ? b - (n - 1) : b, TAG(ti, k++),
                            e[ei].op, (int)((ei + side) % n));
            else
                check_reductions(tm, r, ne_, 0, TAG(ti, k++), e[ei].op);
        }
    }
    return k;
}

int main(void)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    seed = spmd_seed();
    buf_size = env_size("SPMD_COLL_BUF", BASE_BUF);
    buf_size = buf_size > BASE_BUF ? buf_size : BASE_BUF;
    sym_src = gshmem_malloc(buf_size);
    sym_dst = gshmem_malloc(buf_size);
    CHECK(sym_src != NULL && sym_dst != NULL, "two buffers of %zu bytes", buf_size);
    fill_signs();
    /* the edges' section: the host heap's algorithms, teams of world PEs below 64 */
    const int edges = !spmd_heap_on_device() && npes <= 64;
    if (edges) {
        coll_model();
        gather_maps();
    }

    /* Teams in one order on every PE (a PE outside one skips it, so every
     * member of a team sees the same calls on it, in the same order); the
     * inputs' tags come from the team and the call's number in it. */
    gshmem_team_t split[4] = {GSHMEM_TEAM_INVALID, GSHMEM_TEAM_INVALID, GSHMEM_TEAM_INVALID,
                              GSHMEM_TEAM_INVALID};
    gshmem_team_t y2d;
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &split[0]);
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 3,
                              npes > 1 ? (npes - 1 + 2) / 3 : 1, NULL, 0, &split[1]);
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &split[2]);
    gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 3, NULL, 0, &split[3], NULL, 0, &y2d);
    /* The shared and node teams where they are not the world (simulated
     * nodes, GSHMEM_TEST_UNMAPPED), the 2D split's columns and the teams of
     * each node's n-th PE (of one member on one node): one handle, a team
     * per group, its members alone in its calls. */
    enum { NTEAMS = 9 };
    struct team teams[NTEAMS];
    gshmem_team_t handles[NTEAMS] = {GSHMEM_TEAM_WORLD, split[0], split[1], split[2],
                                     split[3], GSHMEM_TEAM_SHARED, GSHMEMX_TEAM_NODE, y2d,
                                     GSHMEMX_TEAM_SAME_MYPE_NODE};
    const char *names[NTEAMS] = {"world", "stride 2", "stride 3 from 1", "world reversed",
                                 "2d row of 3", "shared", "node", "2d column",
                                 "same index on each node"};
    for (int i = 5; i < 7; i++)
        if (gshmem_team_n_pes(handles[i]) == npes)
            handles[i] = GSHMEM_TEAM_INVALID;
    for (int i = 0; i < NTEAMS; i++) {
        team_of(&teams[i], handles[i], names[i]);
        if (edges)
            team_class(&teams[i]);
    }
#define MEMBER(i) (handles[i] != GSHMEM_TEAM_INVALID)

    const char *part_env = getenv("SPMD_COLL_PART");
    part_mask = 1;
    if (part_env != NULL && parse_parts(part_env) != 0) {
        fprintf(stderr, "SPMD_COLL_PART=%s: want i/k or i,j,.../k with each i < k <= 32\n",
                part_env);
        return 2;
    }
    int chosen = 0;
    for (size_t i = 0; i < parts; i++)
        chosen += in_part(i);
    const int back_to_back = 1000 * chosen / (int)parts > 250 ? 1000 * chosen / (int)parts : 250;

    const size_t sizes[] = {0, 1, 13};
    const size_t n_movers = sizeof(movers) / sizeof(movers[0]);
    const size_t n_reducers = sizeof(reducers) / sizeof(reducers[0]);
    for (int ti = 0; ti < NTEAMS; ti++) {
        uint64_t k = 0;
        if (!MEMBER(ti))
            continue;
        for (size_t mi = 0; mi < n_movers; mi++)
            for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
                if (in_part(mi) || mi == n_movers - 1)
                    check_moves(&teams[ti], &movers[mi], sizes[si], TAG(ti, k++), C_MOVES, -1);
        for (size_t ri = 0; ri < n_reducers; ri++)
            for (size_t si = 0; in_part(ri) && si < sizeof(sizes) / sizeof(sizes[0]); si++)
                check_reductions(&teams[ti], &reducers[ri], sizes[si], si == 2 && ri % 3 == 0,
                                 TAG(ti, k++), C_REDUCTIONS);
        /* larger: the mem forms and a few reductions, where parts are uneven;
         * the largest that fits, past the pipelined algorithms' chunks (256
         * KiB passed on, 4 x 32 KiB of a chain's partial results) */
        const size_t n = (size_t)teams[ti].n, fits = (BASE_BUF - 64) / n - n;
        const size_t big[] = {4099, 65536 + 7, fits - fits % 8 - 5};
        for (size_t bi = 0; bi < 3; bi++) {
            if (bi < 2 && big[bi] * n * 2 > BASE_BUF)
                continue;
            check_moves(&teams[ti], &movers[n_movers - 1], big[bi], TAG(ti, k++), C_MOVES, -1);
            for (size_t ri = 0; ri < n_reducers; ri++) {
                /* elements: big / 8 (16-byte ones: as many bytes as 8-byte ones) */
                const size_t es = reducers[ri].esize, ne = big[bi] / (es > 8 ? es : 8);
                if (ne * es * n <= BASE_BUF &&
                    (bi < 2 ? ri % 7 == 0 && in_part(ri / 7) : !strcmp(reducers[ri].name, "float_sum") ||
                     !strcmp(reducers[ri].name, "ulong_xor") ||
                     !strcmp(reducers[ri].name, "int16_min") ||
                     !strcmp(reducers[ri].name, "longdouble_sum") ||
                     !strcmp(reducers[ri].name, "complexd_prod")))
                    check_reductions(&teams[ti], &reducers[ri], ne, bi == 2 && ri % 2,
                                     TAG(ti, k++), C_REDUCTIONS);
            }
        }
        /* the host heap's algorithms' edges, each crossed, on the first of
         * the teams with the same members (the same edges: the rest add
         * only time) */
        int first = edges;
        for (int tj = 0; tj < ti && first; tj++)
            first = !MEMBER(tj) || !same_members(&teams[tj], &teams[ti]);
        if (first)
            k = check_edges(&teams[ti], &movers[n_movers - 1], ti, k);
    }
    /* back to back: teams and operations alternate with no barrier between */
    for (int it = 0; it < back_to_back; it++) {
        const int ti = it % NTEAMS;
        if (!MEMBER(ti))
            continue;
        const struct team *tm = &teams[ti];
        if (it % 100 == 51) /* now and then large: the algorithms change from call to call */
            check_moves(tm, &movers[n_movers - 1], 40000 + (size_t)it, TAG(ti, 100000 + it),
                        C_MOVES, -1);
        else if (it % 100 == 52) { /* 10 reducers 49 apart (none on 16-bit floats: slow to check) */
            const struct reducer *r = &reducers[(size_t)(it / 100 * 49 + 52) % n_reducers];
            const size_t fit = (BASE_BUF - 64) / ((size_t)tm->n * r->esize); /* reducescatter's source */
            check_reductions(tm, r, 20000 + (size_t)it < fit ? 20000 + (size_t)it : fit, it % 3 == 0,
                             TAG(ti, 100000 + it), C_REDUCTIONS);
        }
        else if (it % 2)
            check_moves(tm, &movers[(size_t)it % n_movers], 1 + (size_t)it % 5,
                        TAG(ti, 100000 + it), C_MOVES, -1);
        else
            check_reductions(tm, &reducers[(size_t)it % n_reducers], 1 + (size_t)it % 7, it % 4 == 0,
                             TAG(ti, 100000 + it), C_REDUCTIONS);
    }
    for (int i = 0; i < 4; i++)
        if (split[i] != GSHMEM_TEAM_INVALID)
            gshmem_team_destroy(split[i]);
    if (y2d != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(y2d);
    gshmem_free(sym_dst);
    gshmem_free(sym_src);
    SPMD_DONE();
}
