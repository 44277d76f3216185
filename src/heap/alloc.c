#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "core/api.h"
#include "heap/alloc.h"

size_t gshmemi_alloc_round(size_t size)
{
    return GSHMEMI_ALIGN_UP(size, GSHMEMI_ALLOC_MIN_ALIGN);
}

static int reserve_slots(struct gshmemi_alloc *a, size_t extra)
{
    if (a->n + extra <= a->cap)
        return 0;
    size_t cap = a->cap ? a->cap * 2 : 64;
    while (cap < a->n + extra)
        cap *= 2;
    struct gshmemi_alloc_block *b = realloc(a->blocks, cap * sizeof(*b));
    if (b == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    a->blocks = b;
    a->cap = cap;
    return 0;
}

static void insert_at(struct gshmemi_alloc *a, size_t i, struct gshmemi_alloc_block blk)
{
    memmove(&a->blocks[i + 1], &a->blocks[i], (a->n - i) * sizeof(blk));
    a->blocks[i] = blk;
    a->n++;
}

static void remove_at(struct gshmemi_alloc *a, size_t i)
{
    memmove(&a->blocks[i], &a->blocks[i + 1], (a->n - i - 1) * sizeof(a->blocks[0]));
    a->n--;
}

int gshmemi_alloc_init(struct gshmemi_alloc *a, size_t capacity)
{
    memset(a, 0, sizeof(*a));
    return gshmemi_alloc_extend(a, capacity);
}

void gshmemi_alloc_fini(struct gshmemi_alloc *a)
{
    free(a->blocks);
    memset(a, 0, sizeof(*a));
}

int gshmemi_alloc_extend(struct gshmemi_alloc *a, size_t new_capacity)
{
    if (new_capacity <= a->capacity)
        return 0;
    size_t added = new_capacity - a->capacity;
    if (a->n > 0 && !a->blocks[a->n - 1].used) {
        a->blocks[a->n - 1].size += added;
    } else {
        GSHMEMI_CHECK(reserve_slots(a, 1));
        insert_at(a, a->n, (struct gshmemi_alloc_block){a->capacity, added, 0});
    }
    a->capacity = new_capacity;
    return 0;
}

int gshmemi_alloc_extend_used(struct gshmemi_alloc *a, size_t new_capacity)
{
    if (new_capacity <= a->capacity)
        return GSHMEM_ERR_INVALID_ARG;
    GSHMEMI_CHECK(reserve_slots(a, 1));
    size_t added = new_capacity - a->capacity;
    insert_at(a, a->n, (struct gshmemi_alloc_block){a->capacity, added, 1});
    a->in_use += added;
    a->capacity = new_capacity;
    return 0;
}

/* The first offset at or after off whose address is a multiple of align. */
static size_t align_offset(const struct gshmemi_alloc *a, size_t off, size_t align)
{
    return off + ((size_t)0 - (size_t)(a->base + off)) % align;
}

/* The first free block that holds size bytes at align, or a->n. */
static size_t first_fit(const struct gshmemi_alloc *a, size_t size, size_t align, size_t *start_out)
{
    for (size_t i = 0; i < a->n; i++) {
        struct gshmemi_alloc_block b = a->blocks[i];
        if (b.used)
            continue;
        size_t start = align_offset(a, b.off, align);
        if (start < b.off || start - b.off > b.size || b.size - (start - b.off) < size)
            continue;
        *start_out = start;
        return i;
    }
    return a->n;
}

int gshmemi_alloc_fits(const struct gshmemi_alloc *a, size_t size, size_t align)
{
    size_t start;
    size = gshmemi_alloc_round(size);
    align = GSHMEMI_MAX(align, (size_t)GSHMEMI_ALLOC_MIN_ALIGN);
    return size > 0 && first_fit(a, size, align, &start) < a->n;
}

int gshmemi_alloc_take(struct gshmemi_alloc *a, size_t size, size_t align, size_t *off)
{
    size_t start;
    size = gshmemi_alloc_round(size);
    align = GSHMEMI_MAX(align, (size_t)GSHMEMI_ALLOC_MIN_ALIGN);
    if (size == 0)
        return GSHMEM_ERR_INVALID_ARG;
    size_t i = first_fit(a, size, align, &start);
    if (i < a->n) {
        struct gshmemi_alloc_block b = a->blocks[i];
        /* Split into [lead free][used][tail free]. */
        GSHMEMI_CHECK(reserve_slots(a, 2));
        size_t lead = start - b.off, tail = b.size - lead - size;
        a->blocks[i] = (struct gshmemi_alloc_block){start, size, 1};
        if (tail > 0)
            insert_at(a, i + 1, (struct gshmemi_alloc_block){start + size, tail, 0});
        if (lead > 0)
            insert_at(a, i, (struct gshmemi_alloc_block){b.off, lead, 0});
        a->in_use += size;
        *off = start;
        return 0;
    }
    return GSHMEM_ERR_NO_MEMORY;
}

size_t gshmemi_alloc_needed_capacity(const struct gshmemi_alloc *a, size_t size, size_t align)
{
    size_t start = a->capacity;
    size = gshmemi_alloc_round(size);
    align = GSHMEMI_MAX(align, (size_t)GSHMEMI_ALLOC_MIN_ALIGN);
    if (a->n > 0 && !a->blocks[a->n - 1].used)
        start = a->blocks[a->n - 1].off;
    return align_offset(a, start, align) + size;
}

/* Index of the block containing off, or a->n. */
static size_t find(const struct gshmemi_alloc *a, size_t off)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->blocks[mid].off + a->blocks[mid].size <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->n && a->blocks[lo].off <= off ? lo : a->n;
}

enum gshmemi_alloc_where gshmemi_alloc_lookup(const struct gshmemi_alloc *a, size_t off,
                                              size_t *block_off, size_t *block_size)
{
    size_t i = find(a, off);
    if (i == a->n)
        return GSHMEMI_ALLOC_OUTSIDE;
    *block_off = a->blocks[i].off;
    *block_size = a->blocks[i].size;
    if (!a->blocks[i].used)
        return GSHMEMI_ALLOC_FREE;
    return a->blocks[i].off == off ? GSHMEMI_ALLOC_BLOCK_START : GSHMEMI_ALLOC_INTERIOR;
}

void gshmemi_alloc_give(struct gshmemi_alloc *a, size_t off)
{
    size_t i = find(a, off);
    if (i == a->n || !a->blocks[i].used || a->blocks[i].off != off)
        return;
    a->blocks[i].used = 0;
    a->in_use -= a->blocks[i].size;
    if (i + 1 < a->n && !a->blocks[i + 1].used) {
        a->blocks[i].size += a->blocks[i + 1].size;
        remove_at(a, i + 1);
    }
    if (i > 0 && !a->blocks[i - 1].used) {
        a->blocks[i - 1].size += a->blocks[i].size;
        remove_at(a, i);
    }
}

int gshmemi_alloc_resize(struct gshmemi_alloc *a, size_t off, size_t new_size)
{
    size_t i = find(a, off);
    new_size = gshmemi_alloc_round(new_size);
    if (i == a->n || !a->blocks[i].used || a->blocks[i].off != off || new_size == 0)
        return GSHMEM_ERR_INVALID_ARG;
    struct gshmemi_alloc_block *b = &a->blocks[i];
    if (new_size <= b->size) {
        size_t freed = b->size - new_size;
        if (freed == 0)
            return 0;
        GSHMEMI_CHECK(reserve_slots(a, 1));
        b = &a->blocks[i];
        b->size = new_size;
        a->in_use -= freed;
        if (i + 1 < a->n && !a->blocks[i + 1].used) {
            a->blocks[i + 1].off -= freed;
            a->blocks[i + 1].size += freed;
        } else {
            insert_at(a, i + 1, (struct gshmemi_alloc_block){off + new_size, freed, 0});
        }
        return 0;
    }
    size_t more = new_size - b->size;
    if (i + 1 >= a->n || a->blocks[i + 1].used || a->blocks[i + 1].size < more)
        return GSHMEM_ERR_NO_MEMORY;
    b->size = new_size;
    a->in_use += more;
    a->blocks[i + 1].off += more;
    a->blocks[i + 1].size -= more;
    if (a->blocks[i + 1].size == 0)
        remove_at(a, i + 1);
    return 0;
}
