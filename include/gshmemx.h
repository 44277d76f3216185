/*
 * gshmem extensions: initialisation attributes and application-held unique
 * ids (as NVSHMEM has), init status, signal operations.
 */
#ifndef GSHMEMX_H
#define GSHMEMX_H

#include "gshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bootstrap choice for gshmemx_init_attr. */
enum {
    GSHMEMX_INIT_DEFAULT = 0,       /* as GSHMEM_BOOTSTRAP says (auto by default) */
    GSHMEMX_INIT_WITH_UNIQUEID = 1, /* the unique id in attr, rank and size from attr */
    GSHMEMX_INIT_WITH_PMIX = 2,     /* PMIx, wherever GSHMEM_BOOTSTRAP points */
    GSHMEMX_INIT_WITH_MPI_COMM = 4, /* the MPI communicator at attr.mpi_comm (the MPI
                                     * library found in the process: Open MPI or one of
                                     * MPICH's family) */
    /* or'ed with one of the above: where GSHMEM_HEAP is auto, the heap goes
     * in host memory even on a machine with a GPU (the OpenSHMEM layer's
     * choice: its programs load and store symmetric memory on the host) */
    GSHMEMX_INIT_HOST_HEAP = 8,
};

#define GSHMEMX_UNIQUEID_BYTES 128

/* An opaque, copyable job identity: the root's address and the job secret.
 * Made by one process with gshmemx_get_uniqueid and sent by the application
 * (MPI_Bcast, a file, ...) to all others. */
typedef struct {
    unsigned char internal[GSHMEMX_UNIQUEID_BYTES];
} gshmemx_uniqueid_t;

#define GSHMEMX_UNIQUEID_INITIALIZER {{0}}

typedef struct {
    int rank;
    int nranks;
    gshmemx_uniqueid_t uniqueid;
    int has_uniqueid;
} gshmemx_uniqueid_args_t;

typedef struct {
    gshmemx_uniqueid_args_t uid_args;
    void *mpi_comm; /* GSHMEMX_INIT_WITH_MPI_COMM: the address of an MPI_Comm */
} gshmemx_init_attr_t;

#define GSHMEMX_INIT_ATTR_INITIALIZER {{0, 0, GSHMEMX_UNIQUEID_INITIALIZER, 0}, 0}

enum {
    GSHMEMX_STATUS_NOT_INITIALIZED = 0,
    GSHMEMX_STATUS_IS_BOOTSTRAPPED = 1, /* never answered: init is one step (NVSHMEM's order) */
    GSHMEMX_STATUS_IS_INITIALIZED = 2,
};

/* Makes a unique id and starts, in this process, the root service that the
 * ranks meet at.  Call it in exactly one process of the job. */
GSHMEM_API int gshmemx_get_uniqueid(gshmemx_uniqueid_t *uid);
GSHMEM_API int gshmemx_set_attr_uniqueid_args(int rank, int nranks,
                                              const gshmemx_uniqueid_t *uid,
                                              gshmemx_init_attr_t *attr);
GSHMEM_API int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr);
GSHMEM_API int gshmemx_init_status(void);

GSHMEMI_HD_API void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/* ---- stream-ordered forms (the symmetric heap in GPU memory) ------------
 * Each is enqueued on a CUDA stream (a cudaStream_t is a struct CUstream_st
 * pointer) and runs in stream order; all can be captured into a CUDA graph
 * and replayed.  Completion follows stream order: work enqueued after a
 * put on the same stream sees it done. */
struct CUstream_st;

/* The put, get, p, g and put_signal of GSHMEM_FOR_RMA_OPS and their nbi forms,
 * for each type (gshmemx_int_put_on_stream, gshmemx_int_put_nbi_on_stream)
 * and in their mem forms (gshmemx_putmem_signal_on_stream); see
 * GSHMEMI_RMA_ON_STREAM_<SHAPE>.  An nbi form is its blocking one: in
 * stream order, both are done before the stream's next work. */
#define GSHMEMI_DECL_ON_STREAM_PUT(F, T)                                                \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, int pe,                  \
                      struct CUstream_st *stream);
#define GSHMEMI_DECL_ON_STREAM_GET(F, T) GSHMEMI_DECL_ON_STREAM_PUT(F, T)
/* p takes value when called; g waits for the stream's work, then reads. */
#define GSHMEMI_DECL_ON_STREAM_P(F, T) \
    GSHMEM_API void F(T *dest, T value, int pe, struct CUstream_st *stream);
#define GSHMEMI_DECL_ON_STREAM_G(F, T) \
    GSHMEM_API T F(const T *source, int pe, struct CUstream_st *stream);
#define GSHMEMI_DECL_ON_STREAM_PUT_SIGNAL(F, T)                                         \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                      uint64_t signal, int sig_op, int pe, struct CUstream_st *stream);

#define GSHMEMI_DECL_ON_STREAM_MEM(STEM, TAIL, SHAPE, NBI, A, B)                           \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, GSHMEMI_RMA_ON_STREAM_##SHAPE(                            \
        NBI, GSHMEMI_DECL_ON_STREAM_##SHAPE(gshmemx_##STEM##mem##TAIL##_on_stream, void)))
GSHMEM_FOR_RMA_OPS(GSHMEMI_DECL_ON_STREAM_MEM, , )

#define GSHMEMI_DECL_ON_STREAM_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE)                 \
    GSHMEMI_RMA_ON_STREAM_##SHAPE(                                                      \
        NBI, GSHMEMI_DECL_ON_STREAM_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_on_stream, TYPE))
#define GSHMEMI_DECL_ON_STREAM(NAME, TYPE, G) \
    GSHMEM_FOR_RMA_OPS(GSHMEMI_DECL_ON_STREAM_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DECL_ON_STREAM)
#undef GSHMEMI_DECL_ON_STREAM
#undef GSHMEMI_DECL_ON_STREAM_TYPED
#undef GSHMEMI_DECL_ON_STREAM_MEM

GSHMEM_API void gshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op,
                                            int pe, struct CUstream_st *stream);
/* The stream waits (the host does not) until *sig_addr compares true. */
GSHMEM_API void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp,
                                                    uint64_t cmp_value,
                                                    struct CUstream_st *stream);
GSHMEM_API void gshmemx_quiet_on_stream(struct CUstream_st *stream);
GSHMEM_API void gshmemx_barrier_all_on_stream(struct CUstream_st *stream);
GSHMEM_API void gshmemx_sync_all_on_stream(struct CUstream_st *stream);

/* Teams and collectives in stream order (the heap in GPU memory): a kernel
 * on the stream runs the block form; capturable in graphs and replayable. */
GSHMEM_API int gshmemx_team_sync_on_stream(gshmem_team_t team, struct CUstream_st *stream);
GSHMEM_API int gshmemx_barrier_on_stream(gshmem_team_t team, struct CUstream_st *stream);
#define GSHMEMI_DECL_COLL_ON_STREAM_BROADCAST(F, T)                                          \
    GSHMEM_API int F(gshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root, \
                     struct CUstream_st *stream);
#define GSHMEMI_DECL_COLL_ON_STREAM_FCOLLECT(F, T)                                           \
    GSHMEM_API int F(gshmem_team_t team, T *dest, const T *source, size_t nelems,           \
                     struct CUstream_st *stream);
#define GSHMEMI_DECL_COLL_ON_STREAM_COLLECT(F, T) GSHMEMI_DECL_COLL_ON_STREAM_FCOLLECT(F, T)
#define GSHMEMI_DECL_COLL_ON_STREAM_ALLTOALL(F, T) GSHMEMI_DECL_COLL_ON_STREAM_FCOLLECT(F, T)
#define GSHMEMI_DECL_COLL_ON_STREAM_ALLTOALLS(F, T)                                          \
    GSHMEM_API int F(gshmem_team_t team, T *dest, const T *source, ptrdiff_t dst,           \
                     ptrdiff_t sst, size_t nelems, struct CUstream_st *stream);
#define GSHMEMI_DECL_COLL_ON_STREAM_TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    GSHMEMI_DECL_COLL_ON_STREAM_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_on_stream, TYPE)
#define GSHMEMI_DECL_COLL_ON_STREAM(NAME, TYPE, G) \
    GSHMEM_FOR_COLL_OPS(GSHMEMI_DECL_COLL_ON_STREAM_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DECL_COLL_ON_STREAM)
#define GSHMEMI_DECL_COLL_ON_STREAM_MEM(STEM, TAIL, SHAPE, V, A, B) \
    GSHMEMI_DECL_COLL_ON_STREAM_##SHAPE(gshmemx_##STEM##mem##TAIL##_on_stream, void)
GSHMEM_FOR_COLL_OPS(GSHMEMI_DECL_COLL_ON_STREAM_MEM, , )
#define GSHMEMI_DECL_REDUCE_ON_STREAM(STEM, TAIL, SHAPE, OP, NAME, TYPE)                      \
    GSHMEM_API int gshmemx_##NAME##_##STEM##TAIL##_on_stream(                                \
        gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems,                   \
        struct CUstream_st *stream);
#define GSHMEMI_DECL_REDUCE_ON_STREAM_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(GSHMEMI_DECL_REDUCE_ON_STREAM, NAME, TYPE)
#define GSHMEMI_DECL_REDUCE_ON_STREAM_ARITH(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(GSHMEMI_DECL_REDUCE_ON_STREAM, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(GSHMEMI_DECL_REDUCE_ON_STREAM_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(GSHMEMI_DECL_REDUCE_ON_STREAM_ARITH)
#undef GSHMEMI_DECL_COLL_ON_STREAM
#undef GSHMEMI_DECL_COLL_ON_STREAM_MEM
#undef GSHMEMI_DECL_REDUCE_ON_STREAM_BITWISE
#undef GSHMEMI_DECL_REDUCE_ON_STREAM_ARITH

/* Local buffers (host or GPU memory, outside the heap) used as sources or
 * targets of copies: host memory is pinned for the copy engines.  A range
 * may be registered once; unregister takes the address registered. */
GSHMEM_API int gshmemx_buffer_register(void *addr, size_t length);
GSHMEM_API int gshmemx_buffer_unregister(void *addr);

/* A GPU buffer of the program's own made symmetric: every PE passes its
 * buffer of the same size, and the return (NULL on every PE where one
 * fails, with the reason) is the symmetric address at which every gshmem
 * call, host and device, reaches the same memory.  The buffer is one whole
 * allocation the program made with cuMemCreate on this PE's GPU (cuMemMap
 * maps no part of one),
 * with the heap's handle type (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
 * FABRIC under GSHMEM_CUMEM_HANDLE=fabric) where peers map the heap; the
 * size a multiple of the heap's granularity (gshmem-info); flags 0.
 * Collective; the GPU heap only.  Unregistering (collective, the address
 * and size registered) drops the heap's mappings, so the program's
 * cuMemRelease returns the memory; the address range is not used again. */
GSHMEM_API void *gshmemx_buffer_register_symmetric(void *buf, size_t size, int flags);
GSHMEM_API int gshmemx_buffer_unregister_symmetric(void *addr, size_t size);

/* Kernels in a CUDA module the program loads itself (cuModuleLoad*, a
 * cubin, fatbin or PTX of sources that include gshmem_device.cuh):
 * gshmemx_cumodule_init gives the module the device state, now and at
 * each later change, and loads its kernels where CUDA loads lazily.  Not
 * collective: each PE that launches the module's kernels calls it, after
 * each gshmem_init; gshmemx_cumodule_finalize (or gshmem_finalize) before
 * the module is unloaded.
 * (A CUmodule is a struct CUmod_st *.) */
struct CUmod_st;
GSHMEM_API int gshmemx_cumodule_init(struct CUmod_st *module);
GSHMEM_API int gshmemx_cumodule_finalize(struct CUmod_st *module);
/* The same for a library (cuLibraryLoad*; a CUlibrary is a struct
 * CUlib_st *): its module in the calling thread's current context. */
struct CUlib_st;
GSHMEM_API int gshmemx_culibrary_init(struct CUlib_st *library);
GSHMEM_API int gshmemx_culibrary_finalize(struct CUlib_st *library);

/* ---- partitioned transfers (MPI 4.0's partitioned communication) -------
 * A sender PE and a receiver PE set up a pair once over a buffer split into
 * `partitions` equal partitions of `bytes_per_partition` bytes; then, round
 * after round, the sender marks partitions ready as they are produced and
 * each one moves at once, and the receiver tests each for arrival.
 * - Requests match in call order per ordered pair, as MPI's do: the k-th
 *   gshmemx_psend_init on S with pe = R matches the k-th gshmemx_precv_init
 *   on R with pe = S.  Both inits are local: neither waits for the other
 *   side, so the two may be made in either order.  Both sides must give the
 *   same partitions, bytes_per_partition and dest (R's symmetric buffer).
 * - A round is gshmemx_pstart, the ready calls (sender) or arrival tests
 *   (receiver), then gshmemx_pwait.  The sender's data moves only once the
 *   receiver has started the same round, so a receiver reads a round's data
 *   undisturbed until it starts the next one.  Rounds need no reset.
 * - gshmemx_pwait on the sender returns once every partition was marked and
 *   source may be reused; on the receiver, once every partition has arrived.
 * - gshmemx_parrived is nonzero once the partition has arrived in the
 *   current round (after that round's pwait: always); it never waits for
 *   the peer.  The received partitions are then to be read, as MPI's, and
 *   not written before the round's pwait returns: partitions of 1-8 bytes
 *   travel as flag packets, and each test or wait that finds one puts its
 *   bytes in dest again.
 * - pready_range marks lo..hi inclusive; pready_list the n partitions listed.
 * Misuse (mismatched shapes or dest, a partition out of range, ready twice
 * in one round, a sender's pwait before every partition is ready, a call
 * outside a round, freeing a request with a round open) ends the job with a
 * message naming the PE and the call.  The inits return 0, or
 * GSHMEM_ERR_NO_MEMORY with the reason logged and *req NULL where the pool of
 * flags (GSHMEM_PARTITION_FLAGS) has no room; free returns 0 and sets the
 * handle to NULL. */
typedef struct gshmemi_preq *gshmemx_prequest_t;

GSHMEM_API int gshmemx_psend_init(void *dest, const void *source, int partitions,
                                  size_t bytes_per_partition, int pe, gshmemx_prequest_t *req);
GSHMEM_API int gshmemx_precv_init(void *dest, int partitions, size_t bytes_per_partition, int pe,
                                  gshmemx_prequest_t *req);
GSHMEM_API int gshmemx_prequest_free(gshmemx_prequest_t *req);
/* These also in kernels (gshmem_device.cuh; with _warp and _block forms of
 * the ready calls and parrived).  A round's partitions are marked either
 * from the host or from kernels, not both; the host's gshmemx_pwait of a
 * round kernels marked comes after those kernels have finished.  In a
 * kernel a ready call waits, under GSHMEM_TIMEOUT, for the receiver to
 * start the round; pstart and pwait are one thread's calls. */
GSHMEMI_HD_API void gshmemx_pstart(gshmemx_prequest_t req);
GSHMEMI_HD_API void gshmemx_pwait(gshmemx_prequest_t req);
GSHMEMI_HD_API void gshmemx_pready(gshmemx_prequest_t req, int partition);
GSHMEMI_HD_API void gshmemx_pready_range(gshmemx_prequest_t req, int lo, int hi);
GSHMEMI_HD_API void gshmemx_pready_list(gshmemx_prequest_t req, int n, const int *list);
GSHMEMI_HD_API int gshmemx_parrived(gshmemx_prequest_t req, int partition);
/* A round's start and wait in stream order (the heap in GPU memory): kernels
 * of one thread, capturable in CUDA graphs (each replay a round). */
GSHMEM_API void gshmemx_pstart_on_stream(gshmemx_prequest_t req, struct CUstream_st *stream);
GSHMEM_API void gshmemx_pwait_on_stream(gshmemx_prequest_t req, struct CUstream_st *stream);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEMX_H */
