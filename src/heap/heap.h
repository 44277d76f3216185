/* The symmetric heap: one address reservation per process holding this PE's
 * heap and every mapped peer's, each at a fixed stride, so a peer's copy of
 * an object is one multiply-add away. */
#ifndef GSHMEMI_HEAP_H
#define GSHMEMI_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "heap/alloc.h"
#include "heap/backend.h"
#include "heap/fdx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gshmemi_heap {
    char *va_base;       /* slot 0 */
    size_t stride;       /* bytes between slots = max heap size */
    char *my_base;       /* this PE's heap */
    size_t size;         /* bytes mapped in every PE's heap */
    int *slot_of_pe;     /* slot of each PE, -1 where not mapped */
    int n_slots;
    int *mapped_peers;   /* other PEs whose heaps are mapped here */
    int n_mapped_peers;
    const struct gshmemi_heap_backend_ops *ops;
    int on_device;       /* GPU memory: host code goes through gpu/gpu.h */
    size_t granularity;  /* of chunks and growth */
    int share_by_blob;   /* chunks travel as blobs through the bootstrap, not as fds */
    struct gshmemi_alloc alloc;
    struct gshmemi_fdx fdx;
    uint64_t growths;
    /* This PE's chunks with their exported fds, kept until finalize: the
     * driver charges ~1 ms to close an exported GPU chunk's fd and as much
     * again for the next export once none is open (tens of us otherwise). */
    struct gshmemi_heap_mem *chunks;
    size_t n_chunks;

    /* GPU heap only: the runtime's own area in it (for kernels: the
     * on-stream barrier), and each PE's heap base as GPU-visible table
     * (NULL where a PE is not mapped). */
    char *dev_internal;
    char **dev_peer_base;
    uint64_t stream_barriers; /* made of stream memory operations, by this PE */
    struct gshmemi_heap_listener *listeners;
};

/* What layers above the heap do at its events, registered while they are
 * up (the heap calls nothing above it).  Listeners run in the order they
 * were registered. */
struct gshmemi_heap_listener {
    /* Before an allocation's implied barrier: complete every operation
     * issued so far (NULL: nothing to do). */
    void (*quiet)(void *arg, const char *call);
    /* The heap grew from old_size to new_size, on every PE together (NULL:
     * nothing to do); a nonzero return ends the job. */
    int (*grown)(void *arg, size_t old_size, size_t new_size);
    void *arg;
    struct gshmemi_heap_listener *next; /* the heap's */
};
void gshmemi_heap_listen(struct gshmemi_heap_listener *l);
void gshmemi_heap_unlisten(struct gshmemi_heap_listener *l);

extern struct gshmemi_heap gshmemi_heap;

int gshmemi_heap_init(void);
void gshmemi_heap_fini(void);

static inline int gshmemi_heap_contains(const void *p)
{
    return (const char *)p >= gshmemi_heap.my_base &&
           (const char *)p < gshmemi_heap.my_base + gshmemi_heap.size;
}

/* The address of pe's copy of the symmetric object at p, or NULL where pe's
 * heap is not mapped. */
static inline void *gshmemi_heap_peer_addr(const void *p, int pe)
{
    int slot = gshmemi_heap.slot_of_pe[pe];
    if (slot < 0)
        return NULL;
    return gshmemi_heap.va_base + (size_t)slot * gshmemi_heap.stride +
           ((const char *)p - gshmemi_heap.my_base);
}

#ifdef __cplusplus
}
#endif

#endif
