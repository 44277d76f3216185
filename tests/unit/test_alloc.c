/* The allocator: randomised sequences of take/give/resize/extend, checked for
 * determinism (two allocators fed the same calls agree), alignment,
 * non-overlap, coalescing and exact accounting. */
#include <stdint.h>
#include <string.h>

#include <gshmem.h>

#include "heap/alloc.h"
#include "test_util.h"

#define SLOTS 512

struct live {
    size_t off, size;
    int used;
};

static void check_invariants(const struct gshmemi_alloc *a, const struct live *l)
{
    size_t pos = 0, in_use = 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct gshmemi_alloc_block *b = &a->blocks[i];
        EXPECT(b->off == pos, "block %zu starts at %zu, expected %zu", i, b->off, pos);
        EXPECT(b->size > 0, "empty block %zu", i);
        if (i > 0)
            EXPECT(b->used || a->blocks[i - 1].used, "adjacent free blocks %zu, %zu not merged",
                   i - 1, i);
        pos = b->off + b->size;
        if (b->used)
            in_use += b->size;
    }
    EXPECT(pos == a->capacity, "blocks cover %zu of %zu", pos, a->capacity);
    EXPECT(in_use == a->in_use, "in_use %zu, blocks say %zu", a->in_use, in_use);
    /* Live allocations do not overlap one another. */
    for (int i = 0; i < SLOTS; i++)
        for (int j = i + 1; j < SLOTS && l[i].used; j++)
            if (l[j].used)
                EXPECT(l[i].off + l[i].size <= l[j].off || l[j].off + l[j].size <= l[i].off,
                       "allocations %d [%zu,+%zu) and %d [%zu,+%zu) overlap", i, l[i].off,
                       l[i].size, j, l[j].off, l[j].size);
}

static void run(unsigned long long seed, int steps)
{
    struct gshmemi_alloc a, b;
    struct live l[SLOTS];
    unsigned long long s = seed;

    memset(l, 0, sizeof(l));
    EXPECT(gshmemi_alloc_init(&a, 1 << 20) == 0, "init");
    EXPECT(gshmemi_alloc_init(&b, 1 << 20) == 0, "init");
    for (int step = 0; step < steps; step++) {
        int k = (int)(test_rand(&s) % SLOTS);
        unsigned op = (unsigned)(test_rand(&s) % 10);
        if (!l[k].used && op < 6) {
            size_t size = 1 + test_rand(&s) % (op < 4 ? 4096 : 200000);
            size_t align = (size_t)1 << (test_rand(&s) % 16);
            size_t oa, ob;
            int ra = gshmemi_alloc_take(&a, size, align, &oa);
            int rb = gshmemi_alloc_take(&b, size, align, &ob);
            EXPECT(ra == rb, "take results differ");
            if (ra != 0) {
                /* Grow as the heap would, then it must fit. */
                size_t need = gshmemi_alloc_needed_capacity(&a, size, align);
                EXPECT(need >= a.capacity, "needed capacity shrinks");
                gshmemi_alloc_extend(&a, need);
                gshmemi_alloc_extend(&b, need);
                ra = gshmemi_alloc_take(&a, size, align, &oa);
                rb = gshmemi_alloc_take(&b, size, align, &ob);
                EXPECT(ra == 0 && rb == 0, "take after growth to %zu failed", need);
            }
            if (ra == 0) {
                EXPECT(oa == ob, "not deterministic: %zu vs %zu", oa, ob);
                EXPECT(oa % align == 0 && oa % GSHMEMI_ALLOC_MIN_ALIGN == 0,
                       "offset %zu not aligned to %zu", oa, align);
                l[k] = (struct live){oa, gshmemi_alloc_round(size), 1};
            }
        } else if (l[k].used && op < 8) {
            size_t bo, bs;
            EXPECT(gshmemi_alloc_lookup(&a, l[k].off, &bo, &bs) == GSHMEMI_ALLOC_BLOCK_START,
                   "live block not found");
            if (l[k].size > GSHMEMI_ALLOC_MIN_ALIGN)
                EXPECT(gshmemi_alloc_lookup(&a, l[k].off + 1, &bo, &bs) == GSHMEMI_ALLOC_INTERIOR,
                       "interior not reported");
            gshmemi_alloc_give(&a, l[k].off);
            gshmemi_alloc_give(&b, l[k].off);
            size_t fo, fs;
            EXPECT(gshmemi_alloc_lookup(&a, l[k].off, &fo, &fs) == GSHMEMI_ALLOC_FREE,
                   "freed block still used");
            l[k].used = 0;
        } else if (l[k].used) {
            size_t size = 1 + test_rand(&s) % 100000;
            int ra = gshmemi_alloc_resize(&a, l[k].off, size);
            int rb = gshmemi_alloc_resize(&b, l[k].off, size);
            EXPECT(ra == rb, "resize results differ");
            if (ra == 0)
                l[k].size = gshmemi_alloc_round(size);
        }
        if (step % 97 == 0)
            check_invariants(&a, l);
    }
    check_invariants(&a, l);
    EXPECT(a.n == b.n && memcmp(a.blocks, b.blocks, a.n * sizeof(a.blocks[0])) == 0,
           "the two allocators diverged");
    for (int k = 0; k < SLOTS; k++)
        if (l[k].used)
            gshmemi_alloc_give(&a, l[k].off);
    EXPECT(a.n == 1 && !a.blocks[0].used && a.in_use == 0,
           "freeing everything leaves %zu blocks, %zu bytes in use", a.n, a.in_use);
    gshmemi_alloc_fini(&a);
    gshmemi_alloc_fini(&b);
}

int main(void)
{
    struct gshmemi_alloc a;
    size_t off, bo, bs;

    /* Edge cases first. */
    gshmemi_alloc_init(&a, 4096);
    EXPECT(gshmemi_alloc_take(&a, 0, 0, &off) == GSHMEM_ERR_INVALID_ARG, "size 0");
    EXPECT(gshmemi_alloc_take(&a, 5000, 0, &off) == GSHMEM_ERR_NO_MEMORY, "too big");
    EXPECT(gshmemi_alloc_needed_capacity(&a, 5000, 0) == gshmemi_alloc_round(5000),
           "needed capacity of an empty heap");
    EXPECT(gshmemi_alloc_take(&a, 4096, 0, &off) == 0 && off == 0, "exact fit");
    EXPECT(gshmemi_alloc_lookup(&a, 4096, &bo, &bs) == GSHMEMI_ALLOC_OUTSIDE, "outside");
    gshmemi_alloc_give(&a, 0);
    EXPECT(gshmemi_alloc_take(&a, 100, 1024, &off) == 0 && off == 0, "aligned");
    EXPECT(gshmemi_alloc_take(&a, 100, 1024, &off) == 0 && off == 1024, "second aligned");
    gshmemi_alloc_fini(&a);

    /* A part added used (a registered buffer): never handed out, never
     * merged with the free space before it, and free space after it. */
    gshmemi_alloc_init(&a, 4096);
    EXPECT(gshmemi_alloc_extend_used(&a, 8192) == 0, "extend used");
    EXPECT(gshmemi_alloc_extend_used(&a, 8192) == GSHMEM_ERR_INVALID_ARG, "extend used by 0");
    EXPECT(gshmemi_alloc_lookup(&a, 4096, &bo, &bs) == GSHMEMI_ALLOC_BLOCK_START && bo == 4096 &&
           bs == 4096 && a.in_use == 4096, "the used part");
    EXPECT(gshmemi_alloc_take(&a, 8192, 0, &off) == GSHMEM_ERR_NO_MEMORY, "no fit across it");
    EXPECT(gshmemi_alloc_take(&a, 4096, 0, &off) == 0 && off == 0, "the free part before it");
    gshmemi_alloc_extend(&a, 12288);
    EXPECT(gshmemi_alloc_take(&a, 4096, 0, &off) == 0 && off == 8192, "free space after it");
    gshmemi_alloc_fini(&a);

    /* A base aligned less than the request: the address is aligned. */
    gshmemi_alloc_init(&a, (size_t)64 << 20);
    a.base = (uintptr_t)3 << 21; /* 2 MiB aligned, not 4 MiB */
    EXPECT(gshmemi_alloc_take(&a, 100, 0, &off) == 0 && off == 0, "default alignment");
    EXPECT(gshmemi_alloc_take(&a, 100, (size_t)4 << 20, &off) == 0 &&
           (a.base + off) % ((size_t)4 << 20) == 0, "4 MiB address alignment, offset %zu", off);
    EXPECT(gshmemi_alloc_needed_capacity(&a, 100, (size_t)16 << 20) ==
           ((size_t)16 << 20) - a.base + 256, "needed capacity for 16 MiB alignment");
    gshmemi_alloc_fini(&a);

    for (unsigned long long seed = 1; seed <= 20; seed++)
        run(seed * 0x9e3779b97f4a7c15ull, 4000);
    TEST_DONE();
}
