/* The GPU this PE uses, and host-side access to GPU memory: copies through
 * the copy engines on an internal stream, atomics and signals as small
 * kernels on the same stream (so all complete in issue order), reads for
 * polling on a stream of their own.  Every failure here is fatal for the
 * calling operation: it logs the CUDA error and ends the job. */
#ifndef GSHMEMI_GPU_GPU_H
#define GSHMEMI_GPU_GPU_H

#include <gshmem/internal/device_state.h>

#include "core/amo.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable GPUs; 0 with the reason in why when there are none. */
int gshmemi_gpu_count(char *why, size_t why_len);
/* Name, architecture, memory and PCI bus id of a GPU, for gshmem-info. */
int gshmemi_gpu_describe(int dev, char *buf, size_t len);
/* What a NIC can do with a GPU's memory (dma-buf, GPUDirect RDMA), for
 * gshmem-info. */
int gshmemi_gpu_describe_rdma(int dev, char *buf, size_t len);
/* Whether the peer-memory module (nvidia_peermem) is loaded: a NIC can then
 * register GPU addresses with ibv_reg_mr. */
int gshmemi_gpu_peermem_loaded(void);

/* Chooses the GPU (GSHMEM_DEVICE; else the device the application made
 * current; else local rank modulo the count) and makes it current.
 * Returns GSHMEM_ERR_NOT_SUPPORTED, quietly, where there is no usable GPU. */
int gshmemi_gpu_open(int local_rank, char *why, size_t why_len);
void gshmemi_gpu_close(void);
int gshmemi_gpu_device(void); /* -1 when closed */
/* 1 where gshmem's stream kernels are launched to overlap the end of the
 * kernel before them (GSHMEM_STREAM_PDL on a GPU of compute capability 9.0
 * or later; gpu/stream_launch.cuh). */
int gshmemi_gpu_overlap_launches(void);
/* The PCI bus id of this PE's GPU, in lower case as sysfs has it
 * ("0000:1a:00.0"). */
int gshmemi_gpu_bus_id(char *buf, size_t len);
/* Makes this PE's GPU current in the calling (helper) thread, with CUDA's
 * relaxed stream capture mode (its work may run while the application
 * captures a stream), and runs the thread on the GPU's NUMA node where it
 * is known; `who` names the thread in the log. */
void gshmemi_gpu_bind_thread(const char *who);
/* The NUMA node of this PE's GPU: the one sysfs gives, or the only node
 * there is; -1 where unknown (or without libnuma). */
int gshmemi_gpu_numa_node(void);
/* The driver entry point of `name` (cuMemCreate, ...), or NULL. */
void *gshmemi_gpu_driver_symbol(const char *name);
/* Loads every kernel of the module holding `function` (a CUfunction) when
 * CUDA loads lazily; 0, or a gshmem status. */
int gshmemi_gpu_load_module_of(void *function);
/* The same for a module (a CUmodule). */
int gshmemi_gpu_load_module(void *module);
/* The length of the prefix -rdc gave a unit's internal name (a symbol of
 * a module), or 0 where it has none. */
size_t gshmemi_gpu_rdc_prefix_len(const char *name);
/* The addresses of the objects named `state` (of `bytes` bytes each) in a
 * module the application loaded: one per translation unit in it, found
 * by name, with the help of each unit's kernel whose name ends in
 * `anchor` where -rdc gave the unit's names a prefix.  How many there are
 * (the first max written), or a negative gshmem status (ASYMMETRIC: one
 * of another size). */
int gshmemi_gpu_module_states(void *module, const char *state, const char *anchor,
                              size_t bytes, void **addrs, int max);
/* The module of a library (a CUlibrary) in the calling thread's current
 * context; a status, with the reason in why. */
int gshmemi_gpu_library_module(void *library, void **module, char *why, size_t why_len);
/* Starts a copy of n bytes of host memory into such an object on stream;
 * a CUDA status (0: started). */
int gshmemi_gpu_copy_to_module(void *addr, const void *src, size_t n, void *stream);
/* Whether CUDA loads kernels lazily (its default since 12.2). */
int gshmemi_gpu_lazy_loading(void);
/* UUID of a visible device (16 bytes), and the ordinal of a UUID (or -1). */
int gshmemi_gpu_uuid(int dev, unsigned char uuid[16]);
int gshmemi_gpu_ordinal_of(const unsigned char uuid[16]);
int gshmemi_gpu_can_access(int dev, int peer_dev);

/* Copies n bytes between any memories (host or GPU, local or peer
 * mapping); blocking waits until the copy is done. */
void gshmemi_gpu_copy(const char *call, void *dst, const void *src, size_t n, int blocking);
/* count elements of esize bytes at byte pitches dpitch and spitch;
 * blocking as for gshmemi_gpu_copy (else host memory on either side must
 * stay as it is until the next quiet, or until a mark recorded after the
 * copy is done). */
void gshmemi_gpu_copy_strided(const char *call, void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t esize, size_t count, int blocking);
void gshmemi_gpu_memset(const char *call, void *dst, int value, size_t n);
/* Reads GPU memory for a poll: not ordered after pending operations. */
void gshmemi_gpu_read(const char *call, void *dst, const void *src, size_t n);
/* An atomic of size 4 or 8 on GPU memory; returns the old value when
 * fetch, else returns 0 at once (it completes by the next quiet). */
uint64_t gshmemi_gpu_atomic(const char *call, void *addr, int op, size_t size, uint64_t a,
                            uint64_t b, int fetch);
/* Up to GSHMEMI_AMO_BATCH atomics applied in order by one kernel (a
 * launch and a wait cost far more than an atomic).  With `old`, waits and
 * returns each one's old value there; without, returns at once (they
 * complete by the next quiet). */
void gshmemi_gpu_atomics(const char *call, const struct gshmemi_amo_req *ops, size_t n,
                         uint64_t *old);
/* Whether gshmemi_gpu_signal's set is a stream memory operation (lands
 * with every SM busy). */
int gshmemi_gpu_sets_need_no_sm(void);
/* Signal set or add on a 64-bit word, after every earlier operation. */
void gshmemi_gpu_signal(const char *call, uint64_t *addr, uint64_t value, int op);
/* Sets of n 64-bit words, this GPU's or a mapped peer's, after every
 * earlier operation: where the driver has them, stream memory operations
 * in batches (one call, and no copy engine's trip across PCIe for each
 * word), else a signal each. */
void gshmemi_gpu_set_words(const char *call, uint64_t *const *addr, const uint64_t *value, size_t n);
/* Waits for every operation issued so far. */
void gshmemi_gpu_quiet(const char *call);
/* A fence among host calls on a GPU heap: the operations issued so far
 * (copies into GPU memory, not waited for) land before a later call
 * reaches static data (host memory) or this PE through the NIC; such a
 * call first calls gshmemi_gpu_fence_wait, which waits for the last fence
 * if no one has yet (else returns at once).  Writes into GPU memory are in
 * the stream's order anyway. */
void gshmemi_gpu_fence(const char *call);
void gshmemi_gpu_fence_wait(const char *call);
/* Makes a NIC's completed writes into this GPU's memory visible to it
 * (nothing where the device sees them in order anyway). */
void gshmemi_gpu_flush_rdma_writes(const char *call);
/* A point in the operations stream (a CUDA event): recorded after work,
 * waited for by the host.  Waiting for one never recorded returns at once. */
void *gshmemi_gpu_mark_new(void);
void gshmemi_gpu_mark(const char *call, void *mark);
void gshmemi_gpu_mark_wait(const char *call, void *mark);
/* Whether the work before the mark's last recording has completed (never
 * recorded: yes), without waiting. */
int gshmemi_gpu_mark_done(const char *call, void *mark);
void gshmemi_gpu_mark_free(void *mark);

/* n copies in one call, in the order of stream (NULL: the runtime's
 * operations stream), not ordered among themselves.  src_now[i] (NULL: all
 * 0): copy i's source is read before the call returns (it may be reused at
 * once); else in stream order. */
void gshmemi_gpu_copy_batch(const char *call, void *const *dsts, const void *const *srcs,
                            const size_t *sizes, size_t n, const unsigned char *src_now,
                            void *stream);
/* Makes this PE's GPU current in the calling thread (an application's
 * thread may have another, or CUDA's default, device 0): the device that
 * was current, to give gshmemi_gpu_leave, or -1 where it already was.
 * The copies, sets, atomics, signals, streams and allocations above and
 * below do it themselves: with two GPUs, a copy into the runtime's bounce
 * on a thread whose current device was the other one failed. */
int gshmemi_gpu_enter(void);
void gshmemi_gpu_leave(int prev);
/* A stream of the runtime's own (the proxy's staging); NULL on failure. */
void *gshmemi_gpu_stream_new(const char *call);
void gshmemi_gpu_stream_free(void *stream);
void gshmemi_gpu_stream_sync(const char *call, void *stream);
/* The same, returning CUDA's error (0: none) where stream_sync ends the job. */
int gshmemi_gpu_stream_finish(void *stream);

/* Copies n bytes in the order of a caller's stream. */
void gshmemi_gpu_copy_on(const char *call, void *dst, const void *src, size_t n, void *stream);
/* A copy of n host bytes in GPU memory (tables kernels read); free with gshmemi_gpu_free. */
void *gshmemi_gpu_table(const char *call, const void *host, size_t n);
void gshmemi_gpu_free(void *p);
/* Whether stream is being captured into a graph. */
int gshmemi_gpu_capturing(void *stream);
/* Lets this thread's blocking copies and synchronisations on gshmem's own
 * streams run while an application's stream is captured in CUDA's global
 * mode (this thread's capture mode becomes relaxed); returns the mode to
 * give back to gshmemi_gpu_capture_restore (-1: unchanged). */
int gshmemi_gpu_capture_relax(void);
void gshmemi_gpu_capture_restore(int mode);
/* Makes stream wait until *addr == value (eq) or >= value (!eq) with the
 * driver's stream memory operations; nonzero where they cannot be used. */
int gshmemi_gpu_wait_value(void *stream, const uint64_t *addr, uint64_t value, int eq);
/* A launcher's CUDA error: logged with the call, and the job ended. */
void gshmemi_gpu_launch_failed(const char *call, const char *what, int err)
    __attribute__((noreturn));

/* Host memory the GPU reads and writes too (mapped, pinned, zeroed); its
 * device address is the same (unified addressing).  NULL on failure. */
void *gshmemi_gpu_host_alloc(size_t n);
void gshmemi_gpu_host_free(void *p);
/* The same, with its pages on the GPU's NUMA node where that is known:
 * the service threads' buffers.  Freed with gshmemi_gpu_host_free. */
void *gshmemi_gpu_host_alloc_near(size_t n);
/* A service thread's staging buffer (the proxy's, a transport's): pinned
 * host memory on the GPU's NUMA node where a GPU is open (the copy engines
 * reach it at full speed, a NIC can register it), page-aligned host memory
 * elsewhere.  alloc logs, naming `who`, when it fails. */
struct gshmemi_staging {
    char *base;
    size_t size;
    int pinned;
};
int gshmemi_staging_alloc(struct gshmemi_staging *s, size_t size, const char *who);
void gshmemi_staging_free(struct gshmemi_staging *s);

/* Whether p is GPU memory (host code cannot read it); 0 where no GPU is open. */
int gshmemi_gpu_is_device_ptr(const void *p);
/* Copies n bytes between buffers of this process either of which may be
 * GPU memory: through the GPU where one is, with memcpy otherwise. */
void gshmemi_gpu_copy_local(const char *call, void *dst, const void *src, size_t n);
/* Whether kernels can read and write p at that address: GPU or managed
 * memory, or host memory pinned and mapped at the same address. */
int gshmemi_gpu_kernel_reachable(const void *p);
/* Zeroed GPU memory; NULL on failure. */
void *gshmemi_gpu_dev_alloc(size_t n);

/* Pins host memory for the copy engines: 0 when pinned, 1 when addr is GPU
 * memory (nothing to do), a negative status otherwise (logged). */
int gshmemi_gpu_pin(const char *call, void *addr, size_t len);
void gshmemi_gpu_unpin(void *addr);

/* Kernel launchers (host_kernels.cu). */
/* The on-stream barrier's partners, passed by value to its kernel: the
 * counters are the KBAR_ words of the GPU heaps' internal areas (enum
 * gshmemi_dev_area, gshmem/internal/device_state.h). */
struct gshmemi_stream_barrier {
    uint64_t *theirs[GSHMEMI_DEVICE_DBAR_MAX_ROUNDS]; /* round r's partner's counter r, mapped here */
    uint64_t *mine;                                   /* this PE's internal area */
    int rounds, me, n;
    uint64_t timeout_ns; /* GSHMEM_TIMEOUT, 0: none */
};
int gshmemi_launch_wait(void *stream, const uint64_t *addr, int cmp, uint64_t value,
                        uint64_t timeout_ns, int pe);
/* ordered: barrier_all (each arrival a release), else sync_all. */
int gshmemi_launch_barrier(void *stream, const struct gshmemi_stream_barrier *b, int ordered);
int gshmemi_launch_fence(void *stream);
int gshmemi_launch_amos(void *stream, const struct gshmemi_amo_req *ops, size_t n,
                        uint64_t *results);
int gshmemi_launch_signal(void *stream, uint64_t *addr, uint64_t value, int op);
/* A put of at most GSHMEMI_PUT_SIGNAL_KERNEL_MAX bytes to a mapped peer and
 * its signal (op 0: set, 1: add), copied by one block. */
#define GSHMEMI_PUT_SIGNAL_KERNEL_MAX (64u << 10)
int gshmemi_launch_put_signal(void *stream, void *dst, const void *src, size_t n, uint64_t *sig,
                              uint64_t value, int op);
/* Loads the kernels above (no lazy loading at first launch: see host_kernels.cu). */
int gshmemi_preload_kernels(void);
/* 1 where the kernels were built for compute capability 9.0 or later. */
int gshmemi_kernels_wait_previous(void);

#ifdef __cplusplus
}
#endif

#endif
