/* Memory backends of the symmetric heap: hostshm (memfd) and cumem (GPU
 * memory).  One ops table; the heap calls nothing else of a backend. */
#ifndef GSHMEMI_HEAP_BACKEND_H
#define GSHMEMI_HEAP_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#define GSHMEMI_HEAP_BLOB_BYTES 64 /* a CUmemFabricHandle */

/* Physical memory of one chunk: created here or imported from a peer. */
struct gshmemi_heap_mem {
    int fd;          /* shareable handle (-1 once closed) */
    uint64_t handle; /* backend handle (cumem), 0 for hostshm */
    size_t size;
};

struct gshmemi_heap_access;

/* Address space only: a reservation's alignment costs no memory. */
#define GSHMEMI_HEAP_BASE_ALIGN ((size_t)1 << 30)

struct gshmemi_heap_backend_ops {
    const char *name;
    /* GPU memory: kernels' memory (the device API needs it) */
    int on_device;
    /* how host code reaches the memory (heap.h) */
    const struct gshmemi_heap_access *access;

    /* setup: the size and alignment of chunks and reservations, and how
     * chunks are shared: by fd over Unix sockets (0) or as a blob of
     * GSHMEMI_HEAP_BLOB_BYTES through the bootstrap (1) */
    int (*open)(size_t *granularity, int *share_by_blob);
    /* which node-local PEs' heaps can be mapped here: mappable[i] for
     * local_pes[i].  Collective (every PE calls it). */
    int (*plan)(const int *local_pes, int n_local, int *mappable);
    void (*close)(void);

    /* address space: the base a multiple of GSHMEMI_HEAP_BASE_ALIGN where
     * the backend can, so that gshmem_align up to it gives the same offset
     * on every PE (the heap refuses an alignment whose offsets differ) */
    int (*reserve)(size_t size, void **base_out);
    void (*release)(void *base, size_t size);

    /* chunks */
    int (*create)(size_t size, struct gshmemi_heap_mem *mem_out);
    /* fd to hand to a peer, made on first use; stays owned by mem.  May run
     * on a helper thread while the creating thread goes on. */
    int (*export_fd)(struct gshmemi_heap_mem *mem, int *fd_out);
    /* takes ownership of fd */
    int (*import_fd)(int fd, size_t size, struct gshmemi_heap_mem *mem_out);
    /* the blob forms, for backends that share by blob */
    int (*export_blob)(struct gshmemi_heap_mem *mem, void *blob);
    int (*import_blob)(const void *blob, size_t size, struct gshmemi_heap_mem *mem_out);
    /* maps mem at addr inside the reservation; the mapping outlives mem */
    int (*map)(const struct gshmemi_heap_mem *mem, void *addr);
    /* returns [addr, addr+size) to reserved, unmapped address space */
    int (*unmap)(void *addr, size_t size);
    void (*destroy)(struct gshmemi_heap_mem *mem);

    /* optional (GPU memory): the program's own memory mapped at [addr,
     * addr + size), held as a chunk (gshmemx_buffer_register_symmetric):
     * one whole allocation of size bytes, on this PE's
     * GPU, shareable the way the heap shares chunks where share says so.
     * A status, with the reason in why. */
    int (*adopt)(void *addr, size_t size, int share, struct gshmemi_heap_mem *mem_out, char *why,
                 size_t why_len);
    /* optional (GPU memory): a dma-buf fd for [addr, addr + size) of this
     * PE's own heap, for a NIC to register (ibv_reg_dmabuf_mr); the caller
     * closes it.  -1, with the reason in why, where it cannot be had. */
    int (*dmabuf_fd)(void *addr, size_t size, char *why, size_t why_len);
};

extern const struct gshmemi_heap_backend_ops gshmemi_hostshm_ops;
extern const struct gshmemi_heap_backend_ops gshmemi_cumem_ops;

#endif
