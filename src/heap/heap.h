/* The symmetric heap: one address reservation per process holding this PE's
 * heap and every mapped peer's, each at a fixed stride, so a peer's copy of
 * an object is one multiply-add away. */
#ifndef GSHMEMI_HEAP_H
#define GSHMEMI_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/amo.h"
#include "heap/alloc.h"
#include "heap/backend.h"
#include "heap/fdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How host code reaches the heap's memory (this PE's or a mapped peer's),
 * chosen once at init by the backend: hostshm's load and store it, cumem's
 * go through the GPU (copy engines on an internal stream, small kernels for
 * atomics and signals, all completing in issue order).  A failure ends the
 * job naming the call. */
struct gshmemi_heap_access {
    /* host code may load and store the memory itself (and hand it to a NIC
     * or a socket as it is) */
    int host_direct;
    /* between heap memory and any memory of this process; `blocking`
     * waits for the copy (else the next quiet does) */
    void (*copy)(const char *call, void *dst, const void *src, size_t n, int blocking);
    /* count elements of esize bytes at byte pitches dpitch and spitch;
     * `blocking` as for copy */
    void (*copy_strided)(const char *call, void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t esize, size_t count, int blocking);
    void (*memset)(const char *call, void *dst, int value, size_t n);
    /* an atomic (core/amo.h) of 4 or 8 bytes; the old value when fetch, else
     * 0 at once (complete by the next quiet) */
    uint64_t (*atomic)(const char *call, void *addr, int op, size_t size, uint64_t a, uint64_t b,
                       int fetch);
    /* up to GSHMEMI_AMO_BATCH atomics in order; with old, their old values */
    void (*atomics)(const char *call, const struct gshmemi_amo_req *ops, size_t n, uint64_t *old);
    /* signal set (op 0) or add (1) with release: after every earlier write */
    void (*signal)(const char *call, uint64_t *addr, uint64_t value, int op);
    /* a read for a poll (waits, signal fetch): each aligned word of up to 8
     * bytes read whole, not ordered after this PE's pending operations */
    void (*read)(const char *call, void *dst, const void *src, size_t n);
    /* every operation issued so far is complete */
    void (*quiet)(const char *call);
    /* a NIC wrote this memory (completed): make the writes visible */
    void (*nic_written)(const char *call);
};

/* Host code's own loads and stores: the host heap's access, and the one of
 * memory that is host memory whatever the heap is (static data). */
extern const struct gshmemi_heap_access gshmemi_host_access;

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
    const struct gshmemi_heap_access *access; /* the backend's */
    int on_device;       /* GPU memory (kernels' device API, stream-ordered forms) */
    size_t granularity;  /* of chunks and growth */
    int share_by_blob;   /* chunks travel as blobs through the bootstrap, not as fds */
    struct gshmemi_alloc alloc;
    struct gshmemi_fdx fdx;
    uint64_t growths;
    /* This PE's chunks with their exported fds, kept until finalize: the
     * driver charges much more to close an exported GPU chunk's fd, and for
     * the next export once none is open, than for an export while one is. */
    struct gshmemi_heap_mem *chunks;
    size_t n_chunks;

    /* GPU heap only: the runtime's own area in it (for kernels: the
     * barriers' counters, laid out by enum gshmemi_dev_area), and each
     * PE's heap base as GPU-visible table (NULL where a PE is not mapped). */
    char *dev_internal;
    /* Blocks of the runtime's own (dev_internal among them): gshmem_free
     * and gshmem_realloc refuse them. */
    char *internal[16];
    int n_internal;
    char **dev_peer_base;
    /* Buffers of the program's made symmetric
     * (gshmemx_buffer_register_symmetric): each one used block of the
     * heap's; unregistered, the block stays used and its address space
     * unmapped. */
    struct gshmemi_heap_user_block {
        size_t off, size;
        int live;
        struct gshmemi_heap_mem mem; /* this PE's, held while live */
    } *user;
    size_t n_user;
    /* GPU heap: two PEs of the job use one GPU (the same on every PE) */
    int gpu_shared;
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
/* A zeroed block of the runtime's own in every PE's heap, at the same
 * offset on each: collective (every PE calls it, in the same order), like
 * gshmem_calloc; `who` names it in messages.  NULL, with every PE told
 * why, where it cannot be had. */
void *gshmemi_heap_alloc_internal(const char *who, size_t size);

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
