/* Ordering: fence and quiet.  (The barriers are the teams', src/coll/.) */
#include <gshmem.h>

#include "gpu/gpu.h"
#include "proxy/proxy.h"
#include "rma/rma.h"
#include "transport/transport.h"


GSHMEM_API void gshmem_fence(void)
{
    /* Host heap: stores reach mapped peers in order once ordered here.
     * Device heap: one stream carries every operation on it in order, but
     * static data is host memory, written at once (and a peer's through
     * the transport): the stream's copies so far land before the next call
     * that reaches static data (or this PE through the NIC) goes on; at
     * once where gshmem_ptr gave out a peer's static data, whose stores
     * pass no call. */
    if (gshmemi_rt.initialized && !gshmemi_heap.access->host_direct) {
        gshmemi_gpu_fence(__func__);
        if (__atomic_load_n(&gshmemi_static.ptr_given, __ATOMIC_RELAXED))
            gshmemi_gpu_fence_wait(__func__);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    gshmemi_transport_fence(__func__);
}

GSHMEM_API void gshmem_quiet(void)
{
    if (!gshmemi_rt.initialized)
        return;
    gshmemi_heap.access->quiet(__func__);
    gshmemi_proxy_drain(__func__); /* kernels' requests, then the transport's completion */
    gshmemi_transport_quiet(__func__);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
