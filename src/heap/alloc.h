/* Deterministic allocator of heap offsets: first fit over blocks kept in
 * address order, with splitting and coalescing.  The same sequence of calls
 * gives the same offsets on every PE.  Metadata lives on the host. */
#ifndef GSHMEMI_HEAP_ALLOC_H
#define GSHMEMI_HEAP_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#define GSHMEMI_ALLOC_MIN_ALIGN 256 /* as cudaMalloc: good for any vector access */

struct gshmemi_alloc_block {
    size_t off;
    size_t size;
    int used;
};

struct gshmemi_alloc {
    struct gshmemi_alloc_block *blocks; /* address order, covering [0, capacity) */
    size_t n;
    size_t cap;
    size_t capacity; /* bytes managed */
    size_t in_use;
    /* Where offset 0 lies in this process: blocks are aligned in address,
     * not in offset, since the heap's base may be less aligned than a
     * request (its chunks' granularity is 2 MiB).  0 in the unit tests. */
    uintptr_t base;
};

enum gshmemi_alloc_where {
    GSHMEMI_ALLOC_BLOCK_START, /* the start of a used block */
    GSHMEMI_ALLOC_INTERIOR,    /* inside a used block, not at its start */
    GSHMEMI_ALLOC_FREE,        /* in free space */
    GSHMEMI_ALLOC_OUTSIDE,     /* past the end */
};

int gshmemi_alloc_init(struct gshmemi_alloc *a, size_t capacity);
void gshmemi_alloc_fini(struct gshmemi_alloc *a);
/* Size rounded as the allocator will; 0 stays 0. */
size_t gshmemi_alloc_round(size_t size);
/* Whether take(size, align) would succeed now (changes nothing). */
int gshmemi_alloc_fits(const struct gshmemi_alloc *a, size_t size, size_t align);
/* 0 and *off, or GSHMEM_ERR_NO_MEMORY when nothing fits (the heap may grow). */
int gshmemi_alloc_take(struct gshmemi_alloc *a, size_t size, size_t align, size_t *off);
/* The capacity with which take(size, align) would succeed at the end. */
size_t gshmemi_alloc_needed_capacity(const struct gshmemi_alloc *a, size_t size, size_t align);
int gshmemi_alloc_extend(struct gshmemi_alloc *a, size_t new_capacity);
/* Extends to new_capacity with the added bytes one used block. */
int gshmemi_alloc_extend_used(struct gshmemi_alloc *a, size_t new_capacity);
/* Where off lies; *block_off and *block_size describe the containing block. */
enum gshmemi_alloc_where gshmemi_alloc_lookup(const struct gshmemi_alloc *a, size_t off,
                                              size_t *block_off, size_t *block_size);
/* Frees the used block starting at off (checked with lookup first). */
void gshmemi_alloc_give(struct gshmemi_alloc *a, size_t off);
/* Grows or shrinks the used block at off in place; GSHMEM_ERR_NO_MEMORY if
 * the block after it is not free and large enough. */
int gshmemi_alloc_resize(struct gshmemi_alloc *a, size_t off, size_t new_size);

#endif
