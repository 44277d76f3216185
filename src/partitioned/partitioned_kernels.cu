// A partitioned round's start and wait in stream order: one thread runs
// the device form, so a captured graph starts (waits for) a new round at
// each replay.
#include <gshmem_device.cuh>

#include "gpu/stream_launch.cuh"
#include "partitioned/partitioned_launch.h"

namespace {

__global__ void pstart_kernel(gshmemx_prequest_t req)
{
    gshmemi_wait_previous();
    gshmemi_pstart("gshmemx_pstart_on_stream", req);
}

// A chunked send's wait has blocks beside the first that take chunks while
// the producer ends (gshmemi_phelp): they may start once every block of the
// producer has readied a partition or exited, before its end.  Unlike
// other stream kernels they read and write memory before
// gshmemi_wait_previous(): only the request's words, which the producer
// writes with fences before the entries that lead to them, and partitions
// its ready calls have released.
__global__ void __launch_bounds__(GSHMEMI_PHELP_THREADS) pwait_kernel(gshmemx_prequest_t req)
{
    if (blockIdx.x != 0) {
        gshmemi_phelp("gshmemx_pwait_on_stream", req);
        return;
    }
    if (threadIdx.x != 0)
        return;
    gshmemi_wait_previous();
    gshmemi_pwait("gshmemx_pwait_on_stream", req, gridDim.x - 1);
}

} // namespace

extern "C" int gshmemi_launch_pstart(void *stream, gshmemx_prequest_t req)
{
    return gshmemi_stream_launch(pstart_kernel, 1, 1, stream, req);
}

extern "C" int gshmemi_launch_pwait(void *stream, gshmemx_prequest_t req, int helpers)
{
    return gshmemi_stream_launch(pwait_kernel, 1 + helpers, helpers > 0 ? GSHMEMI_PHELP_THREADS : 1,
                                 stream, req);
}
