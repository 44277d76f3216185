/* Stream-ordered puts and gets on the GPU heap: copies enqueued on the
 * caller's stream (copy engines over NVLink or PCIe to mapped peers), and
 * the signal as a system-scope kernel after them.  A PE the GPU cannot
 * map is reached through the proxy by a one-thread kernel on the stream
 * (stream_proxy_kernels.cu).  Capturable in graphs. */
#include <string.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "device/stream_proxy.h"
#include "gpu/gpu.h"
#include "proxy/proxy.h"
#include "rma/rma.h"

/* pe is reached through the proxy (r NULL): the job ends where nothing does. */
static void need_proxy(const char *call, const char *r, int pe)
{
    if (GSHMEMI_UNLIKELY(r == NULL && gshmemi_proxy_fifo() == NULL))
        gshmemi_rma_fail(call, "pe %d's heap is not mapped here and no proxy reaches it", pe);
}

/* The target as mapped here; NULL where the proxy reaches it. */
static char *target(const char *call, const char *what, const void *addr, size_t len, int pe)
{
    char *r = gshmemi_rma_target(call, what, addr, len, pe);
    need_proxy(call, r, pe);
    return r;
}

/* The local buffer of a stream-ordered operation through the proxy: the
 * kernel reads or writes it, so it must be memory kernels can reach. */
static void kernel_reachable(const char *call, const char *what, const void *p, int pe)
{
    if (!gshmemi_gpu_kernel_reachable(p))
        gshmemi_rma_fail(call, "pe %d is reached through the proxy, and the %s of a stream-ordered "
                         "operation through it must be GPU memory or pinned host memory (%p is "
                         "neither)", pe, what, p);
}

static void launched(const char *call, int err)
{
    if (err != 0)
        gshmemi_gpu_launch_failed(call, "the stream's proxy kernel", err);
}

static inline void put_on(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                          struct CUstream_st *stream)
{
    char *r;
    gshmemi_rma_need_device_heap(call);
    if (!gshmemi_rma_resolve(call, "dest", dest, "source", src, nbytes, pe, &r, NULL))
        return;
    need_proxy(call, r, pe);
    if (r != NULL) {
        gshmemi_gpu_copy_on(call, r, src, nbytes, stream);
        return;
    }
    kernel_reachable(call, "source", src, pe);
    launched(call, gshmemi_launch_proxy_put(stream, dest, src, nbytes, pe));
}

static inline void get_on(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                          struct CUstream_st *stream)
{
    char *r;
    gshmemi_rma_need_device_heap(call);
    if (!gshmemi_rma_resolve(call, "source", src, "dest", dest, nbytes, pe, &r, NULL))
        return;
    need_proxy(call, r, pe);
    if (r != NULL) {
        gshmemi_gpu_copy_on(call, dest, r, nbytes, stream);
        return;
    }
    kernel_reachable(call, "dest", dest, pe);
    launched(call, gshmemi_launch_proxy_get(stream, dest, src, nbytes, pe));
}

static uint64_t *signal_target(const char *call, uint64_t *sig_addr, int sig_op, int pe)
{
    uint64_t *r = (uint64_t *)target(call, "sig_addr", sig_addr, sizeof(*sig_addr), pe);
    gshmemi_rma_check_aligned(call, "sig_addr", sig_addr, sizeof(*sig_addr));
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        gshmemi_rma_fail(call, "sig_op %d is neither GSHMEM_SIGNAL_SET nor GSHMEM_SIGNAL_ADD",
                         sig_op);
    return r;
}

static void signal_on(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                      struct CUstream_st *stream)
{
    gshmemi_rma_need_device_heap(call);
    uint64_t *r = signal_target(call, sig_addr, sig_op, pe);
    if (r == NULL) {
        launched(call, gshmemi_launch_proxy_signal(stream, sig_addr, signal, sig_op, pe));
        return;
    }
    int err = gshmemi_launch_signal(stream, r, signal, sig_op == GSHMEM_SIGNAL_SET ? 0 : 1);
    if (err != 0)
        gshmemi_gpu_launch_failed(call, "the signal kernel", err);
}

static inline void put_signal_on(const char *call, void *dest, const void *src, size_t nbytes,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                 struct CUstream_st *stream)
{
    gshmemi_rma_need_device_heap(call);
    if (signal_target(call, sig_addr, sig_op, pe) == NULL) {
        /* one kernel: the signal's request follows the data's */
        (void)target(call, "dest", dest, nbytes, pe);
        gshmemi_rma_check_local(call, "source", src, nbytes);
        if (nbytes > 0)
            kernel_reachable(call, "source", src, pe);
        launched(call, gshmemi_launch_proxy_put_signal(stream, dest, src, nbytes, sig_addr, signal,
                                                       sig_op, pe));
        return;
    }
    /* A small one in one launch, where a kernel can read the source. */
    char *r = nbytes > 0 ? target(call, "dest", dest, nbytes, pe) : NULL;
    if (r != NULL && nbytes <= GSHMEMI_PUT_SIGNAL_KERNEL_MAX) {
        gshmemi_rma_check_local(call, "source", src, nbytes);
        if (gshmemi_gpu_kernel_reachable(src)) {
            uint64_t *rs = signal_target(call, sig_addr, sig_op, pe);
            int err = gshmemi_launch_put_signal(stream, r, src, nbytes, rs, signal,
                                                sig_op == GSHMEM_SIGNAL_SET ? 0 : 1);
            if (err != 0)
                gshmemi_gpu_launch_failed(call, "the put-with-signal kernel", err);
            return;
        }
    }
    put_on(call, dest, src, nbytes, pe, stream);
    signal_on(call, sig_addr, signal, sig_op, pe, stream);
}

/* p: the value is taken now, into the kernel's arguments, and stored in
 * stream order by the device API (a store where pe is mapped, the proxy's
 * inline put elsewhere). */
static void p_on(const char *call, void *dest, const void *value, size_t size, int pe,
                 struct CUstream_st *stream)
{
    uint64_t bits = 0;
    gshmemi_rma_need_device_heap(call);
    (void)target(call, "dest", dest, size, pe);
    gshmemi_rma_check_aligned(call, "dest", dest, size);
    memcpy(&bits, value, size);
    launched(call, gshmemi_launch_p(stream, dest, bits, (int)size, pe));
}

/* g: returns a value, so it waits for the stream's work before it (through
 * the proxy, until that work is complete at its targets: the host's get
 * does not follow the proxy's puts), then reads as the host's g does.  A
 * stream being captured cannot be waited for. */
static void g_on(const char *call, void *value, const void *source, size_t size, int pe,
                 struct CUstream_st *stream)
{
    gshmemi_rma_need_device_heap(call);
    if (gshmemi_gpu_capturing(stream))
        gshmemi_rma_fail(call, "returns a value, so it cannot be captured in a graph");
    if (target(call, "source", source, size, pe) == NULL)
        launched(call, gshmemi_launch_proxy_quiet(stream));
    gshmemi_gpu_stream_sync(call, stream);
    gshmemi_rma_get(call, value, source, size, pe, 1);
}

/* ---- GSHMEM_FOR_RMA_OPS on a stream: the blocking put, get and put_signal
 * (GSHMEMI_RMA_ON_STREAM_<SHAPE>), typed and in the mem forms.  F the
 * function, T its pointers' type, E the element moved (mem forms: char). */

#define DEF_PUT(F, T, E)                                                                       \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, int pe,                         \
                      struct CUstream_st *stream)                                              \
    {                                                                                          \
        put_on(__func__, dest, source, gshmemi_rma_bytes(__func__, nelems, sizeof(E)), pe,     \
               stream);                                                                        \
    }
#define DEF_GET(F, T, E)                                                                       \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, int pe,                         \
                      struct CUstream_st *stream)                                              \
    {                                                                                          \
        get_on(__func__, dest, source, gshmemi_rma_bytes(__func__, nelems, sizeof(E)), pe,     \
               stream);                                                                        \
    }
#define DEF_PUT_SIGNAL(F, T, E)                                                                \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,             \
                      uint64_t signal, int sig_op, int pe, struct CUstream_st *stream)         \
    {                                                                                          \
        put_signal_on(__func__, dest, source, gshmemi_rma_bytes(__func__, nelems, sizeof(E)),  \
                      sig_addr, signal, sig_op, pe, stream);                                   \
    }

#define DEF_P(F, T, E)                                                                         \
    GSHMEM_API void F(T *dest, T value, int pe, struct CUstream_st *stream)                    \
    {                                                                                          \
        p_on(__func__, dest, &value, sizeof(T), pe, stream);                                   \
    }
#define DEF_G(F, T, E)                                                                         \
    GSHMEM_API T F(const T *source, int pe, struct CUstream_st *stream)                        \
    {                                                                                          \
        T value;                                                                               \
        g_on(__func__, &value, source, sizeof(T), pe, stream);                                 \
        return value;                                                                          \
    }

#define DEF_MEM(STEM, TAIL, SHAPE, NBI, A, B)                                  \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, GSHMEMI_RMA_ON_STREAM_##SHAPE(                 \
        NBI, DEF_##SHAPE(gshmemx_##STEM##mem##TAIL##_on_stream, void, char)))
GSHMEM_FOR_RMA_OPS(DEF_MEM, , )

#define DEF_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE)                                     \
    GSHMEMI_RMA_ON_STREAM_##SHAPE(NBI,                                                   \
                                  DEF_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_on_stream, \
                                              TYPE, TYPE))
#define DEF_ON_STREAM(NAME, TYPE, G) GSHMEM_FOR_RMA_OPS(DEF_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(DEF_ON_STREAM)

GSHMEM_API void gshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op,
                                            int pe, struct CUstream_st *stream)
{
    signal_on(__func__, sig_addr, signal, sig_op, pe, stream);
}
