/* The program's global and static variables as symmetric memory
 * (OpenSHMEM's "symmetric data objects" outside the heap).  At init the
 * executable's writable segment (.data and .bss, after the part that is
 * made read-only after relocation) is moved in place onto a memfd: same
 * addresses, same contents.  Node-local PEs whose heaps are mapped map each
 * other's memfd; a variable's copy on pe is at the same offset from pe's
 * segment start (ASLR puts the executable elsewhere in each process), and
 * the transports reach the others at offsets GSHMEMI_STATIC_OFF + offset.
 * Only the executable's own segment: a shared library's globals are not
 * symmetric. */
#ifndef GSHMEMI_HEAP_STATIC_DATA_H
#define GSHMEMI_HEAP_STATIC_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "core/api.h"
#include "heap/heap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Symmetric offsets at and above this are in the static segment (heap
 * offsets stay far below it). */
#define GSHMEMI_STATIC_OFF (1ull << 62)

struct gshmemi_static_data {
    char *base;        /* this PE's segment (page-aligned), NULL where not moved */
    size_t size;       /* 0 while the segment is not symmetric */
    char **peer_base;  /* by PE: its segment as mapped here, NULL where not mapped */
    int ptr_given;     /* gshmem_ptr gave out a peer's address in it (stores, no call) */
    /* why the segment is not symmetric (for the calls that refuse an
     * address in it), "" where it is */
    char why_not[160];
};

extern struct gshmemi_static_data gshmemi_static;

/* Moves the segment onto shared memory (GSHMEM_SYMMETRIC_DATA), at each
 * init.  Called before any thread of gshmem's starts; another thread of the
 * program writing its globals meanwhile may lose that write.  Failure is
 * not fatal: the segment stays private. */
void gshmemi_static_move(void);
/* At finalize, after gshmemi_static_fini: private pages again, the memfd
 * closed (nothing of the job outlives it). */
void gshmemi_static_restore(void);
/* After the heap's init: every PE checks that all run the same program
 * with the segment moved, then node-local mapped peers map each other's
 * (collective). */
int gshmemi_static_share(void);
void gshmemi_static_fini(void);

/* [p, p + len) lies in this PE's symmetric static segment. */
static inline int gshmemi_static_contains(const void *p, size_t len)
{
    const char *c = (const char *)p;
    const struct gshmemi_static_data *s = &gshmemi_static;
    return s->size != 0 /* not moved: base is NULL */ && c >= s->base && c < s->base + s->size &&
           len <= (size_t)(s->base + s->size - c);
}

/* pe's copy of the static variable at p as mapped here, or NULL. */
static inline void *gshmemi_static_peer_addr(const void *p, int pe)
{
    char *b = gshmemi_static.peer_base[pe];
    return b == NULL ? NULL : b + ((const char *)p - gshmemi_static.base);
}

/* How host code reaches this PE's symmetric memory at p: the heap's
 * access, or its own loads and stores for static data. */
static inline const struct gshmemi_heap_access *gshmemi_sym_access(const void *p)
{
    if (GSHMEMI_LIKELY(gshmemi_heap_contains(p)) || !gshmemi_static_contains(p, 1))
        return gshmemi_heap.access;
    return &gshmemi_host_access;
}

/* ---- symmetric offsets (the transports' addresses) --------------------- */

/* This PE's address of a symmetric range the caller found in the heap or
 * the static segment. */
static inline uint64_t gshmemi_sym_off(const void *p)
{
    if (GSHMEMI_LIKELY(gshmemi_heap_contains(p)))
        return (uint64_t)((const char *)p - gshmemi_heap.my_base);
    return GSHMEMI_STATIC_OFF + (uint64_t)((const char *)p - gshmemi_static.base);
}

/* Whether [off, off + len) is in this PE's heap or static segment. */
static inline int gshmemi_sym_valid(uint64_t off, uint64_t len)
{
    if (off < GSHMEMI_STATIC_OFF)
        return off <= gshmemi_heap.size && len <= gshmemi_heap.size - off;
    off -= GSHMEMI_STATIC_OFF;
    return off <= gshmemi_static.size && len <= gshmemi_static.size - off;
}

/* This PE's address of a valid symmetric offset. */
static inline char *gshmemi_sym_addr(uint64_t off)
{
    if (GSHMEMI_LIKELY(off < GSHMEMI_STATIC_OFF))
        return gshmemi_heap.my_base + off;
    return gshmemi_static.base + (off - GSHMEMI_STATIC_OFF);
}

/* This PE's memory at a valid symmetric offset, and how to reach it. */
static inline char *gshmemi_sym_local(uint64_t off, const struct gshmemi_heap_access **access)
{
    *access = off < GSHMEMI_STATIC_OFF ? gshmemi_heap.access : &gshmemi_host_access;
    return gshmemi_sym_addr(off);
}

#ifdef __cplusplus
}
#endif

#endif
