/* Private to the heap module: growth in two steps, shared by the heap
 * (heap.c) and the allocation calls (heap_api.c). */
#ifndef GSHMEMI_HEAP_HEAP_PRIV_H
#define GSHMEMI_HEAP_HEAP_PRIV_H

#include <stddef.h>

#include "heap/backend.h"

/* prepare creates this PE's new chunk (it may fail, and every PE must
 * learn of it before any maps anything); commit maps it, exchanges it with
 * the mapped peers and maps theirs (a failure there ends the job). */
struct gshmemi_heap_growth {
    size_t new_size;
    struct gshmemi_heap_mem mem;
    int status; /* of the creation */
    /* mem is the program's memory (gshmemx_buffer_register_symmetric): the
     * new part is one used block, and mem is the registration's to keep */
    int adopted;
};

void gshmemi_heap_grow_prepare(size_t new_size, struct gshmemi_heap_growth *g);
void gshmemi_heap_grow_abandon(struct gshmemi_heap_growth *g);
int gshmemi_heap_grow_commit(struct gshmemi_heap_growth *g);
/* Grows every PE's heap to new_size, agreeing on the creation first.
 * Collective; used where no other all-gather can carry the agreement. */
int gshmemi_heap_grow(size_t new_size);

/* Completes every operation issued so far (the GPU's and the listeners'),
 * before an allocation's implied barrier. */
void gshmemi_heap_quiet_all(const char *call);

#endif
