/* The symmetric heap: symmetric offsets, alignment, calloc, realloc, growth
 * past GSHMEM_SYMMETRIC_SIZE with contents kept, gshmem_ptr and the access
 * queries, and init/finalize cycles. Run with GSHMEM_SYMMETRIC_SIZE=4m. */
#include <gshmem.h>
#include <gshmemx.h>

#include "spmd_util.h"

static int me, npes;
static uint64_t seed;

/* Every PE writes a tagged pattern into its part of buf on every PE. */
static void exchange_check(unsigned char *buf, size_t len, uint64_t tag, const char *what)
{
    size_t part = len / (size_t)npes;
    unsigned char *mine = malloc(part), *expect = malloc(part);
    spmd_fill(mine, part, seed, me, tag);
    gshmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        gshmem_putmem(buf + part * (size_t)me, mine, part, pe);
    gshmem_barrier_all();
    unsigned char *got = malloc(part);
    for (int pe = 0; pe < npes; pe++) {
        spmd_fill(expect, part, seed, pe, tag);
        spmd_load(got, buf + part * (size_t)pe, part);
        CHECK(memcmp(got, expect, part) == 0, "%s: part of pe %d", what, pe);
    }
    free(got);
    free(mine);
    free(expect);
}

static void test_basics(void)
{
    char name[GSHMEM_MAX_NAME_LEN];
    int major, minor, level = -1;
    gshmem_info_get_version(&major, &minor);
    gshmem_info_get_name(name);
    gshmem_query_thread(&level);
    CHECK(major == 1 && minor == 5, "version %d.%d", major, minor);
    /* OpenSHMEM: the name is the vendor string itself. */
    CHECK(strcmp(name, GSHMEM_VENDOR_STRING) == 0, "name \"%s\", vendor string \"%s\"", name,
          GSHMEM_VENDOR_STRING);
    CHECK(level == GSHMEM_THREAD_MULTIPLE, "thread level %d", level);
    CHECK(gshmemx_init_status() == GSHMEMX_STATUS_IS_INITIALIZED, "init status");

    /* Offsets are symmetric: the same sequence gives the same offsets. */
    void *a = gshmem_malloc(100), *b = gshmem_align(4096, 10), *c = gshmem_malloc(1 << 16);
    void *z = gshmem_malloc(0);
    CHECK(a && b && c && z == NULL, "allocations");
    CHECK(((uintptr_t)b & 4095) == 0 && ((uintptr_t)a & 255) == 0, "alignment");
    long offs[3] = {(char *)a - (char *)c, (char *)b - (char *)c, (long)((uintptr_t)c & 0xfffff)};
    long *all = gshmem_malloc(sizeof(offs) * (size_t)npes);
    for (int pe = 0; pe < npes; pe++)
        gshmem_putmem(all + 3 * me, offs, sizeof(offs), pe);
    gshmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        long theirs[3];
        spmd_load(theirs, all + 3 * pe, sizeof(theirs));
        CHECK(memcmp(theirs, offs, sizeof(offs)) == 0, "offsets differ from pe %d", pe);
    }
    void *hinted = gshmem_malloc_with_hints(64, GSHMEM_MALLOC_ATOMICS_REMOTE |
                                                     GSHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(hinted != NULL && ((uintptr_t)hinted & 255) == 0, "gshmem_malloc_with_hints");
    gshmem_free(hinted);
    gshmem_pcontrol(1);
    void *big = gshmem_align(1 << 20, 1000);
    CHECK(((uintptr_t)big & ((1 << 20) - 1)) == 0, "1 MiB alignment");
    /* Above the heap chunks' 2 MiB granularity the address must be aligned,
     * not just the offset; each block is usable on every PE. */
    for (size_t al = (size_t)4 << 20; al <= ((size_t)64 << 20); al *= 4) {
        long *q = gshmem_align(al, 1000);
        CHECK(q != NULL && ((uintptr_t)q & (al - 1)) == 0, "gshmem_align(%zu) gave %p", al,
              (void *)q);
        gshmem_long_p(q, me, (me + 1) % npes);
        gshmem_barrier_all();
        CHECK(gshmem_long_g(q, me) == (me + npes - 1) % npes, "block aligned to %zu", al);
        gshmem_free(q);
    }

    /* gshmem_ptr: a store through it lands in the peer's copy. */
    int *box = gshmem_calloc((size_t)npes, sizeof(int));
    for (int pe = 0; pe < npes; pe++) {
        int *p = gshmem_ptr(box, pe);
        if (pe != me && spmd_p2p_disabled()) { /* reached through the transport */
            CHECK(p == NULL && !gshmem_addr_accessible(box, pe) && !gshmem_pe_accessible(pe),
                  "pe %d mapped with GSHMEM_DISABLE_P2P=1", pe);
            gshmem_int_p(&box[me], 1000 + me, pe);
            continue;
        }
        CHECK(p != NULL && gshmem_addr_accessible(box, pe) && gshmem_pe_accessible(pe),
              "pe %d not accessible", pe);
        if (pe == me)
            CHECK(p == box, "gshmem_ptr of myself");
        if (spmd_heap_on_device()) /* a GPU address: kernels may store through it, not the host */
            gshmem_int_p(&box[me], 1000 + me, pe);
        else
            p[me] = 1000 + me;
    }
    CHECK(gshmem_ptr(&offs, 0) == NULL && !gshmem_addr_accessible(&offs, 0),
          "a stack address is not symmetric");
    CHECK(!gshmem_pe_accessible(npes) && gshmem_ptr(box, -1) == NULL, "pe out of range");
    gshmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        CHECK(LOAD(int, &box[pe]) == 1000 + pe, "store through gshmem_ptr from pe %d", pe);

    /* calloc clears memory that was dirty before. */
    unsigned char *d = gshmem_malloc(5000);
    spmd_set(d, 0xff, 5000);
    gshmem_free(d);
    unsigned char *zeroed = gshmem_calloc(50, 100);
    unsigned char seen[5000];
    spmd_load(seen, zeroed, sizeof(seen));
    CHECK(spmd_all_bytes(seen, 5000, 0), "calloc returned dirty memory");
    gshmem_free(zeroed);
    gshmem_free(box);
    gshmem_free(big);
    gshmem_free(all);
    gshmem_free(c);
    gshmem_free(b);
    gshmem_free(a);
    gshmem_free(NULL);
}

static void test_growth(void)
{
    /* 3 MiB fits the 4 MiB start; 20 MiB more needs growth; the first
     * block keeps its contents and peers can write into the new memory. */
    size_t a_len = 3 << 20, b_len = 20 << 20;
    unsigned char *a = gshmem_malloc(a_len);
    CHECK(a != NULL, "3 MiB");
    exchange_check(a, a_len, 11, "before growth");
    unsigned char *b = gshmem_malloc(b_len);
    CHECK(b != NULL, "20 MiB past the initial heap");
    exchange_check(b, b_len, 12, "grown memory");
    const size_t part = a_len / (size_t)npes;
    unsigned char *expect = malloc(part), *got = malloc(part);
    for (int pe = 0; pe < npes; pe++) {
        spmd_fill(expect, part, seed, pe, 11);
        spmd_load(got, a + part * (size_t)pe, part);
        CHECK(memcmp(got, expect, part) == 0, "contents lost in growth (part of pe %d)", pe);
    }
    /* realloc to 40 MiB: moves and grows again; contents follow. */
    unsigned char *a2 = gshmem_realloc(a, 40 << 20);
    CHECK(a2 != NULL, "realloc to 40 MiB");
    for (int pe = 0; pe < npes; pe++) {
        spmd_fill(expect, part, seed, pe, 11);
        spmd_load(got, a2 + part * (size_t)pe, part);
        CHECK(memcmp(got, expect, part) == 0, "realloc lost contents (part of pe %d)", pe);
    }
    exchange_check(a2, 40 << 20, 13, "realloc'd memory");
    /* Shrinking in place keeps the pointer. */
    unsigned char *a3 = gshmem_realloc(a2, 1 << 20);
    CHECK(a3 == a2, "shrinking realloc moved the block");
    CHECK(gshmem_realloc(a3, 0) == NULL, "realloc to 0");
    gshmem_free(b);
    free(got);
    free(expect);
    /* A request past GSHMEM_MAX_HEAP fails the same way everywhere. */
    void *huge = gshmem_malloc((size_t)1 << 46);
    CHECK(huge == NULL, "a 64 TiB allocation succeeded");
}

int main(void)
{
    seed = spmd_seed();
    for (int cycle = 0; cycle < 3; cycle++) {
        gshmem_init();
        me = gshmem_my_pe();
        npes = gshmem_n_pes();
        test_basics();
        if (cycle == 0)
            test_growth();
        gshmem_barrier_all();
        if (cycle < 2) {
            gshmem_finalize();
            gshmem_finalize(); /* idempotent */
            CHECK(gshmemx_init_status() == GSHMEMX_STATUS_NOT_INITIALIZED, "finalised");
        }
    }
    SPMD_DONE();
}
