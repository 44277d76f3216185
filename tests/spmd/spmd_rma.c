/* Every RMA family on every type (the host-only long double too: random
 * bytes, moved as they are, p and g only its value's bytes): put, get, p,
 * g, iput, iget, nbi, sized, putmem/getmem, between every PE and the PEs
 * at distances 1 and n-1, on random data with poisoned destinations. */
#include <gshmem.h>

#include "spmd_util.h"

#define N 37         /* elements per transfer: odd, not a power of two */
#define STRIDE_D 3
#define STRIDE_S 2

static int me, npes;
static uint64_t seed;
static unsigned char *sym;     /* symmetric scratch: npes slots */
static unsigned char *src_sym; /* symmetric source: this PE's random data */
static size_t slot;            /* bytes per slot */

static void reset(void)
{
    spmd_set(sym, POISON, slot * (size_t)npes);
    gshmem_barrier_all();
}

/* Checks that slot `from` of sym holds `len` bytes of from's data for `tag`
 * at element stride `stride` (elements of esize, the first vbytes of each
 * checked), and poison elsewhere. */
static void check_values(int from, size_t esize, size_t vbytes, size_t n, ptrdiff_t stride,
                         uint64_t tag, ptrdiff_t src_stride, const char *what)
{
    unsigned char expect[N * 16 * 4], got[N * 16 * STRIDE_D];
    spmd_fill(expect, sizeof(expect), seed, from, tag);
    spmd_load(got, sym + slot * (size_t)from, slot);
    for (size_t i = 0; i < slot; i++) {
        size_t e = i / esize, k = i % esize;
        int written = e % (size_t)stride == 0 && e / (size_t)stride < n;
        if (written && k >= vbytes)
            continue;
        unsigned char want = written ? expect[(e / (size_t)stride) * (size_t)src_stride * esize + k]
                                     : POISON;
        CHECK(got[i] == want, "%s from pe %d: byte %zu is 0x%02x, expected 0x%02x", what, from, i,
              got[i], want);
    }
}

static void check_slot(int from, size_t esize, size_t n, ptrdiff_t stride, uint64_t tag,
                       ptrdiff_t src_stride, const char *what)
{
    check_values(from, esize, esize, n, stride, tag, src_stride, what);
}

#define TEST_TYPE(NAME, TYPE, G)                                                                  \
    do {                                                                                          \
        const uint64_t tag = __LINE__ * 1000 + sizeof(TYPE);                                       \
        TYPE local[N * STRIDE_S], back[N * STRIDE_D];                                              \
        TYPE *dst = (TYPE *)(sym + slot * (size_t)me);                                             \
        const int to = (me + 1) % npes, from = (me + npes - 1) % npes;                             \
        spmd_fill(local, sizeof(local), seed, me, tag);                                            \
        spmd_store(src_sym, local, sizeof(local));                                                 \
        /* put and put_nbi */                                                                      \
        reset();                                                                                   \
        gshmem_##NAME##_put(dst, local, N, to);                                                    \
        gshmem_barrier_all();                                                                      \
        check_slot(from, sizeof(TYPE), N, 1, tag, 1, #NAME "_put");                                \
        reset();                                                                                   \
        gshmem_##NAME##_put_nbi(dst, local, N, from);                                              \
        gshmem_quiet();                                                                            \
        gshmem_barrier_all();                                                                      \
        check_slot(to, sizeof(TYPE), N, 1, tag, 1, #NAME "_put_nbi");                              \
        /* get and get_nbi: from a peer's source into a local buffer */                            \
        memset(back, POISON, sizeof(back));                                                        \
        gshmem_##NAME##_get(back, (TYPE *)src_sym, N, to);                                         \
        spmd_fill(local, sizeof(local), seed, to, tag);                                            \
        CHECK(memcmp(back, local, N * sizeof(TYPE)) == 0, #NAME "_get from pe %d", to);            \
        CHECK(spmd_all_bytes((char *)back + N * sizeof(TYPE), sizeof(back) - N * sizeof(TYPE),     \
                             POISON), #NAME "_get wrote past its end");                            \
        memset(back, POISON, sizeof(back));                                                        \
        gshmem_##NAME##_get_nbi(back, (TYPE *)src_sym, N, from);                                   \
        gshmem_quiet();                                                                            \
        spmd_fill(local, sizeof(local), seed, from, tag);                                          \
        CHECK(memcmp(back, local, N * sizeof(TYPE)) == 0, #NAME "_get_nbi from pe %d", from);      \
        /* p and g */                                                                              \
        spmd_fill(local, sizeof(local), seed, me, tag);                                            \
        reset();                                                                                   \
        gshmem_##NAME##_p(dst, local[0], to);                                                      \
        gshmem_barrier_all();                                                                      \
        check_values(from, sizeof(TYPE), SPMD_VALUE_BYTES(TYPE), 1, 1, tag, 1, #NAME "_p");       \
        TYPE gv = gshmem_##NAME##_g((TYPE *)src_sym + 5, to);                                      \
        spmd_fill(back, sizeof(back), seed, to, tag);                                              \
        CHECK(memcmp(&gv, &back[5], SPMD_VALUE_BYTES(TYPE)) == 0, #NAME "_g from pe %d", to);     \
        /* iput: source stride 2, target stride 3 */                                               \
        reset();                                                                                   \
        gshmem_##NAME##_iput(dst, local, STRIDE_D, STRIDE_S, N, to);                               \
        gshmem_barrier_all();                                                                      \
        check_slot(from, sizeof(TYPE), N, STRIDE_D, tag, STRIDE_S, #NAME "_iput");                 \
        /* iget: from the peer's source at stride 2 into local stride 3 */                         \
        memset(back, POISON, sizeof(back));                                                        \
        gshmem_##NAME##_iget(back, (TYPE *)src_sym, STRIDE_D, STRIDE_S, N, to);                    \
        spmd_fill(local, sizeof(local), seed, to, tag);                                            \
        for (size_t i = 0; i < N * STRIDE_D; i++) {                                                \
            if (i % STRIDE_D == 0)                                                                 \
                CHECK(memcmp(&back[i], &local[i / STRIDE_D * STRIDE_S], sizeof(TYPE)) == 0,        \
                      #NAME "_iget element %zu", i);                                               \
            else                                                                                   \
                CHECK(spmd_all_bytes(&back[i], sizeof(TYPE), POISON), #NAME "_iget gap %zu", i);    \
        }                                                                                          \
        gshmem_barrier_all();                                                                      \
    } while (0);

#define TEST_SIZED(BITS, TYPE)                                                                   \
    do {                                                                                         \
        const uint64_t tag = 77000 + BITS;                                                       \
        TYPE local[N * STRIDE_S], back[N];                                                       \
        void *dst = sym + slot * (size_t)me;                                                     \
        const int to = (me + 1) % npes, from = (me + npes - 1) % npes;                           \
        spmd_fill(local, sizeof(local), seed, me, tag);                                          \
        spmd_store(src_sym, local, sizeof(local));                                               \
        reset();                                                                                 \
        gshmem_put##BITS(dst, local, N, to);                                                     \
        gshmem_barrier_all();                                                                    \
        check_slot(from, sizeof(TYPE), N, 1, tag, 1, "put" #BITS);                               \
        reset();                                                                                 \
        gshmem_put##BITS##_nbi(dst, local, N, to);                                               \
        gshmem_quiet();                                                                          \
        gshmem_barrier_all();                                                                    \
        check_slot(from, sizeof(TYPE), N, 1, tag, 1, "put" #BITS "_nbi");                        \
        reset();                                                                                 \
        gshmem_iput##BITS(dst, local, STRIDE_D, STRIDE_S, N, to);                                \
        gshmem_barrier_all();                                                                    \
        check_slot(from, sizeof(TYPE), N, STRIDE_D, tag, STRIDE_S, "iput" #BITS);                \
        reset(); /* contiguous at the target: packed where a transport carries it */             \
        gshmem_iput##BITS(dst, local, 1, STRIDE_S, N, to);                                       \
        gshmem_barrier_all();                                                                    \
        check_slot(from, sizeof(TYPE), N, 1, tag, STRIDE_S, "iput" #BITS " to stride 1");        \
        reset(); /* from the symmetric source: GPU memory on the GPU heap */                     \
        gshmem_iput##BITS(dst, src_sym, STRIDE_D, STRIDE_S, N, to);                              \
        gshmem_barrier_all();                                                                    \
        check_slot(from, sizeof(TYPE), N, STRIDE_D, tag, STRIDE_S, "iput" #BITS " from heap");   \
        gshmem_get##BITS(back, src_sym, N, to);                                                  \
        spmd_fill(local, sizeof(local), seed, to, tag);                                          \
        CHECK(memcmp(back, local, sizeof(back)) == 0, "get" #BITS);                              \
        memset(back, POISON, sizeof(back));                                                      \
        gshmem_get##BITS##_nbi(back, src_sym, N, to);                                            \
        gshmem_quiet();                                                                          \
        CHECK(memcmp(back, local, sizeof(back)) == 0, "get" #BITS "_nbi");                       \
        TYPE strided[N];                                                                         \
        gshmem_iget##BITS(strided, src_sym, 1, STRIDE_S, N, to);                                 \
        for (int i = 0; i < N; i++)                                                              \
            CHECK(memcmp(&strided[i], &local[i * STRIDE_S], sizeof(TYPE)) == 0, "iget" #BITS);   \
        gshmem_barrier_all();                                                                    \
    } while (0);

static void test_mem(void)
{
    enum { MEM = (9 << 18) + 64 }; /* through tcp: 37 chunks of a get, the last short */
    static const size_t sizes[] = {0, 1, 7, 64, 4099, 1 << 20, 5, MEM - 5};
    unsigned char *big_src = gshmem_malloc(MEM);
    unsigned char *big_dst = gshmem_malloc(MEM);
    unsigned char *local = malloc(MEM), *expect = malloc(MEM), *got = malloc(MEM);
    const int to = (me + 1) % npes, from = (me + npes - 1) % npes;

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k];
        spmd_fill(local, MEM, seed, me, 900 + k);
        spmd_store(big_src, local, MEM);
        spmd_set(big_dst, POISON, MEM);
        gshmem_barrier_all();
        if (k % 2)
            gshmem_putmem(big_dst, local, len, to);
        else
            gshmem_putmem_nbi(big_dst, local, len, to);
        gshmem_barrier_all();
        spmd_fill(expect, MEM, seed, from, 900 + k);
        spmd_load(got, big_dst, MEM);
        CHECK(memcmp(got, expect, len) == 0, "putmem of %zu bytes", len);
        CHECK(spmd_all_bytes(got + len, MEM - len, POISON), "putmem past %zu bytes", len);
        memset(local, POISON, MEM);
        if (k % 2)
            gshmem_getmem(local, big_src, len, to);
        else
            gshmem_getmem_nbi(local, big_src, len, to);
        gshmem_quiet();
        spmd_fill(expect, MEM, seed, to, 900 + k);
        CHECK(memcmp(local, expect, len) == 0, "getmem of %zu bytes", len);
        CHECK(spmd_all_bytes(local + len, MEM - len, POISON), "getmem past %zu bytes", len);
        gshmem_barrier_all();
    }
    /* Every PE writes its own slot of every other PE's buffer at once. */
    spmd_set(big_dst, POISON, MEM);
    gshmem_barrier_all();
    size_t part = MEM / (size_t)npes;
    spmd_fill(local, part, seed, me, 999);
    for (int pe = 0; pe < npes; pe++)
        gshmem_putmem(big_dst + part * (size_t)me, local, part, pe);
    gshmem_barrier_all();
    spmd_load(got, big_dst, MEM);
    for (int pe = 0; pe < npes; pe++) {
        spmd_fill(expect, part, seed, pe, 999);
        CHECK(memcmp(got + part * (size_t)pe, expect, part) == 0, "all-to-all slot of pe %d", pe);
    }
    free(got);
    free(local);
    free(expect);
    gshmem_free(big_dst);
    gshmem_free(big_src);
}

/* A burst of overlapping puts of random sizes (bytes to hundreds of KiB,
 * ordered by fence), then the target's buffer must equal the same puts
 * applied locally: a transport's framing, buffering and ordering under a
 * stream of requests of every size. */
static void test_burst(void)
{
    enum { AREA = 1 << 21, PUTS = 300 };
    unsigned char *area = gshmem_malloc(AREA);
    unsigned char *src = malloc(AREA), *expect = malloc(AREA), *got = malloc(AREA);
    const int to = (me + 1) % npes, from = (me + npes - 1) % npes;
    CHECK(area != NULL && src != NULL && expect != NULL && got != NULL, "burst allocation");
    spmd_set(area, POISON, AREA);
    gshmem_barrier_all();
    /* The same sequence, from the sender's seed, on both sides. */
    for (int side = 0; side < 2; side++) {
        const int pe = side == 0 ? me : from;
        uint64_t r = spmd_mix(seed ^ (uint64_t)pe * 104729);
        spmd_fill(src, AREA, seed, pe, 4242);
        memset(expect, POISON, AREA);
        for (int i = 0; i < PUTS; i++) {
            r = spmd_mix(r);
            size_t len = (r % 10 < 6) ? 1 + r % 300 : (r % 10 < 9) ? 4096 + r % 70000 : 131072 + r % 180000;
            size_t off = (size_t)(spmd_mix(r) % (AREA - len)), from_off = (size_t)(r >> 40) % (AREA - len);
            memcpy(expect + off, src + from_off, len);
            if (side == 0) {
                gshmem_putmem_nbi(area + off, src + from_off, len, to);
                gshmem_fence(); /* the next may overlap this one */
            }
        }
        if (side == 0) {
            gshmem_quiet();
            gshmem_barrier_all();
        }
    }
    spmd_load(got, area, AREA);
    size_t bad = 0;
    while (bad < AREA && got[bad] == expect[bad])
        bad++;
    CHECK(bad == AREA, "burst of %d puts from pe %d: byte %zu is %d, expected %d", PUTS, from,
          bad, bad < AREA ? got[bad] : 0, bad < AREA ? expect[bad] : 0);
    gshmem_barrier_all();
    free(got);
    free(expect);
    free(src);
    gshmem_free(area);
}

/* Strided puts larger than a transport's frame or packing buffer (tcp:
 * 64 KiB of packed elements a frame, 256 KiB a put where the target's are
 * contiguous; ibrc: its 1 MiB staging buffer), contiguous at the target and
 * at strides 3 and 2, and one element at a stride whose bytes wrap: every
 * element in place, poison between. */
static void test_large_iput(void)
{
    enum { BIG = 9 << 18 }; /* 2.25 MiB */
    const int to = (me + 1) % npes, from = (me + npes - 1) % npes;
    uint32_t *big = gshmem_malloc(BIG);
    uint32_t *got = malloc(BIG), *mine = malloc(BIG), *theirs = malloc(BIG);
    CHECK(big != NULL && got != NULL && mine != NULL && theirs != NULL, "large iput buffers");
    const struct {
        ptrdiff_t dst;
        size_t n;
    } shapes[] = {{1, 70001}, {3, 80000}, {2, 270000}};
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
        const ptrdiff_t dst = shapes[si].dst;
        const size_t n = shapes[si].n;
        const uint64_t tag = 91000 + si;
        spmd_fill(mine, BIG, seed, me, tag);
        spmd_fill(theirs, BIG, seed, from, tag);
        spmd_set(big, POISON, BIG);
        gshmem_barrier_all();
        gshmem_uint32_iput(big, mine, dst, 2, n, to);
        gshmem_barrier_all();
        spmd_load(got, big, BIG);
        for (size_t i = 0; i < BIG / 4; i++) {
            uint32_t want;
            memset(&want, POISON, sizeof(want));
            if (i % (size_t)dst == 0 && i / (size_t)dst < n)
                want = theirs[i / (size_t)dst * 2];
            CHECK(got[i] == want, "uint32_iput of %zu at stride %td from pe %d: element %zu is "
                  "%#x, expected %#x", n, dst, from, i, got[i], want);
        }
    }
    /* one element: the strides' bytes wrap, which no element reaches */
    spmd_set(big, POISON, 16);
    gshmem_barrier_all();
    const uint64_t v = 0x0123456789abcdefull ^ (uint64_t)me;
    gshmem_uint64_iput((uint64_t *)(void *)big, &v, (ptrdiff_t)1 << 61, (ptrdiff_t)1 << 61, 1, to);
    gshmem_barrier_all();
    spmd_load(got, big, 16);
    uint64_t one;
    memcpy(&one, got, 8);
    CHECK(one == (0x0123456789abcdefull ^ (uint64_t)from) && spmd_all_bytes(got + 2, 8, POISON),
          "uint64_iput of one element at stride 2^61 from pe %d", from);
    gshmem_barrier_all();
    gshmem_free(big);
    free(got);
    free(mine);
    free(theirs);
}

/* Large strided gets from a peer (through a transport: frames of packed
 * elements; ibrc: reads of the span, or of each element where they lie
 * over 1 KiB apart, into its 1 MiB staging buffer, which the fourth shape
 * fills three times), into host memory and into the heap (GPU memory on a
 * GPU heap). */
static void test_large_iget(void)
{
    enum { BIG = 9 << 18 }; /* 2.25 MiB */
    const int from = (me + npes - 1) % npes;
    uint32_t *big = gshmem_malloc(BIG), *sym_dest = gshmem_malloc(BIG);
    uint32_t *host_dest = malloc(BIG), *got = malloc(BIG), *theirs = malloc(BIG);
    CHECK(big != NULL && sym_dest != NULL && host_dest != NULL && got != NULL && theirs != NULL,
          "large iget buffers");
    const struct {
        ptrdiff_t dst, sst;
        size_t n;
        int into_sym;
    } shapes[] = {{2, 1, 70001, 1}, {1, 3, 80000, 0}, {3, 2, 190000, 0}, {2, 2, 270000, 1},
                  {1, 300, 1900, 1}};
    for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
        const ptrdiff_t dst = shapes[si].dst, sst = shapes[si].sst;
        const size_t n = shapes[si].n;
        const uint64_t tag = 92000 + si;
        uint32_t *dest = shapes[si].into_sym ? sym_dest : host_dest;
        spmd_fill(got, BIG, seed, me, tag); /* (got: a staging buffer here) */
        spmd_store(big, got, BIG);
        spmd_fill(theirs, BIG, seed, from, tag);
        if (shapes[si].into_sym)
            spmd_set(dest, POISON, BIG);
        else
            memset(dest, POISON, BIG);
        gshmem_barrier_all();
        gshmem_uint32_iget(dest, big, dst, sst, n, from);
        if (shapes[si].into_sym)
            spmd_load(got, dest, BIG);
        else
            memcpy(got, dest, BIG);
        for (size_t i = 0; i < BIG / 4; i++) {
            uint32_t want;
            memset(&want, POISON, sizeof(want));
            if (i % (size_t)dst == 0 && i / (size_t)dst < n)
                want = theirs[i / (size_t)dst * (size_t)sst];
            CHECK(got[i] == want, "uint32_iget of %zu at strides %td/%td from pe %d into %s: "
                  "element %zu is %#x, expected %#x", n, dst, sst, from,
                  shapes[si].into_sym ? "the heap" : "host memory", i, got[i], want);
        }
        gshmem_barrier_all(); /* before big is filled again */
    }
    /* one element: the strides' bytes wrap, which no element reaches */
    const uint64_t v = 0x0123456789abcdefull ^ (uint64_t)me;
    spmd_store(big, &v, 8);
    gshmem_barrier_all();
    uint64_t one[2];
    memset(one, POISON, sizeof(one));
    gshmem_uint64_iget(one, (uint64_t *)(void *)big, (ptrdiff_t)1 << 61, (ptrdiff_t)1 << 61, 1,
                       from);
    CHECK(one[0] == (0x0123456789abcdefull ^ (uint64_t)from) && spmd_all_bytes(&one[1], 8, POISON),
          "uint64_iget of one element at stride 2^61 from pe %d", from);
    gshmem_barrier_all();
    gshmem_free(sym_dest);
    gshmem_free(big);
    free(host_dest);
    free(got);
    free(theirs);
}

/* Elements more than 2 GiB apart, past what cudaDevAttrMaxPitch says
 * (2^31 - 1), which the GPU heap's 2D copies still take (H200, CUDA 13):
 * iput, then iget into host memory and into the heap, at a stride of
 * 2^29 + 1 uint32.  Only where TEST_RMA_WIDE_PITCH is set (the GPU heap's
 * tests): each PE's buffer is over 4 GiB. */
static void test_wide_pitch(void)
{
    const ptrdiff_t S = ((ptrdiff_t)1 << 29) + 1;
    const int to = (me + 1) % npes, from = (me + npes - 1) % npes;
    uint32_t *big = gshmem_malloc((size_t)(2 * S + 4) * 4);
    CHECK(big != NULL, "a buffer of %zu bytes", (size_t)(2 * S + 4) * 4);
    uint32_t mine[3], want[3], got[3];
    for (int i = 0; i < 3; i++) {
        mine[i] = 0x5a000000u ^ (uint32_t)(me << 8) ^ (uint32_t)i;
        want[i] = 0x5a000000u ^ (uint32_t)(from << 8) ^ (uint32_t)i;
        spmd_set(big + i * S, POISON, 3 * 4); /* the element, and the next two */
    }
    gshmem_barrier_all();
    gshmem_uint32_iput(big, mine, S, 1, 3, to);
    gshmem_barrier_all();
    for (int i = 0; i < 3; i++) {
        uint32_t w[3];
        spmd_load(w, big + i * S, sizeof(w));
        CHECK(w[0] == want[i] && spmd_all_bytes(&w[1], 8, POISON),
              "uint32_iput at stride 2^29+1 from pe %d: element %d is %#x, expected %#x", from, i,
              w[0], want[i]);
    }
    /* back: the peer's elements (its own from the PE before it) */
    const int two_back = (from + npes - 1) % npes;
    memset(got, POISON, sizeof(got));
    gshmem_uint32_iget(got, big, 1, S, 3, from);
    gshmem_uint32_iget(big + 1, big, S, S, 3, from); /* into the heap, beside them */
    gshmem_barrier_all();
    for (int i = 0; i < 3; i++) {
        const uint32_t w2 = 0x5a000000u ^ (uint32_t)(two_back << 8) ^ (uint32_t)i;
        uint32_t w[3];
        spmd_load(w, big + i * S, sizeof(w));
        CHECK(got[i] == w2 && w[1] == w2 && spmd_all_bytes(&w[2], 4, POISON),
              "uint32_iget at stride 2^29+1 from pe %d: element %d is %#x in host memory and %#x "
              "in the heap, expected %#x", from, i, got[i], w[1], w2);
    }
    gshmem_barrier_all();
    gshmem_free(big);
}

int main(void)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    seed = spmd_seed();
    if (me == 0)
        printf("seed %llu\n", (unsigned long long)seed);
    slot = N * 16 * STRIDE_D;
    sym = gshmem_malloc(slot * (size_t)npes);
    src_sym = gshmem_malloc(N * 16 * 4);
    CHECK(sym != NULL && src_sym != NULL, "allocation");

    GSHMEM_FOR_RMA_TYPES(TEST_TYPE)
    GSHMEM_FOR_RMA_HOST_TYPES(TEST_TYPE)
    GSHMEM_FOR_RMA_SIZES(TEST_SIZED)
    test_mem();
    test_burst();
    test_large_iput();
    test_large_iget();
    if (getenv("TEST_RMA_WIDE_PITCH") != NULL)
        test_wide_pitch();

    gshmem_free(src_sym);
    gshmem_free(sym);
    SPMD_DONE();
}
