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

__global__ void pwait_kernel(gshmemx_prequest_t req)
{
    gshmemi_wait_previous();
    gshmemi_pwait("gshmemx_pwait_on_stream", req);
}

} // namespace

extern "C" int gshmemi_launch_pstart(void *stream, gshmemx_prequest_t req)
{
    return gshmemi_stream_launch(pstart_kernel, 1, 1, stream, req);
}

extern "C" int gshmemi_launch_pwait(void *stream, gshmemx_prequest_t req)
{
    return gshmemi_stream_launch(pwait_kernel, 1, 1, stream, req);
}
