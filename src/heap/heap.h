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
    int on_device;       /* GPU memory: host code goes through device/gpu.h */
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

    /* The control segment: host memory of the runtime's own (barrier
     * counters, failure notices), shared with every PE of this node
     * whatever memory the heap is in, one slot per local PE. */
    char *ctrl_base;
    int *ctrl_slot_of_pe; /* -1 for PEs on other nodes */
    int n_ctrl_slots;
};

#define GSHMEMI_CTRL_SIZE (64u << 10)
/* Words of the control segment the heap module owns (the sync module's
 * barrier counters start at word 0 and stay below this one). */
#define GSHMEMI_CTRL_LOST_PE 1000 /* (reporter+1) << 32 | (lost+1), set by peers */
#define GSHMEMI_CTRL_ENDING 1001  /* aborting pe + 1, set by a local peer ending the job */

/* This PE ends the job: local peers, told through their control segments
 * before it goes, take its closed connections for that, not for a loss. */
void gshmemi_mark_job_ending(void);

/* A peer is gone: ends this PE with one message naming it.  `how` says
 * what was seen ("ended while this pe was in gshmem_barrier_all").  The
 * first PE of a node to see a loss records it in every local peer's control
 * segment, so a PE that then sees *that* PE go names the PE really lost. */
void gshmemi_end_for_lost_pe(int pe, const char *how) __attribute__((noreturn));

extern struct gshmemi_heap gshmemi_heap;

/* Completes every operation issued so far, before an allocation's implied
 * barrier: set by the layers above (the transport). */
extern void (*gshmemi_heap_quiet_hook)(const char *call);
/* Told of every growth, on every PE together (the transport registers the
 * new memory); a failure ends the job. */
extern int (*gshmemi_heap_grow_hook)(size_t old_size, size_t new_size);

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

/* Word `index` of pe's control segment, or NULL where pe is on another node. */
static inline uint64_t *gshmemi_ctrl_word(int pe, size_t index)
{
    int slot = gshmemi_heap.ctrl_slot_of_pe[pe];
    if (slot < 0)
        return NULL;
    return (uint64_t *)(gshmemi_heap.ctrl_base + (size_t)slot * GSHMEMI_CTRL_SIZE) + index;
}

#ifdef __cplusplus
}
#endif

#endif
