// Launching gshmem's kernels in stream order so that each overlaps the end
// of the kernel before it (programmatic dependent launch, compute
// capability 9.0 and later).  A plain launch starts only once the previous
// kernel has finished and its stores have drained (for stores to a peer
// GPU, most of a microsecond); launched this way, the kernel's blocks are
// set up meanwhile, and its first statement, gshmemi_wait_previous(), holds
// them until that kernel's completion and memory are visible.  Nothing
// before that statement may read or write memory.  Under stream capture
// the launch becomes a programmatic edge of the graph, with the same
// meaning.  Where gshmemi_gpu_overlap_launches() is 0, the launch is plain
// and the wait returns at once.
#ifndef GSHMEMI_GPU_STREAM_LAUNCH_CUH
#define GSHMEMI_GPU_STREAM_LAUNCH_CUH

#include <utility>

#include <cuda_runtime.h>

#include "gpu/gpu.h"

namespace {

__device__ __forceinline__ void gshmemi_wait_previous()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The same, then lets the next kernel in the stream launch: its blocks are
// set up, and wait in gshmemi_wait_previous(), while this kernel works
// (otherwise that starts only as this kernel's blocks exit).  For the
// kernels of many blocks that run for microseconds; among short kernels
// of one or a few blocks it gained nothing measurable.
__device__ __forceinline__ void gshmemi_wait_previous_start_next()
{
    gshmemi_wait_previous();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Returns the launch's cudaError_t, as int.  A failed launch's error is
// taken off the runtime's last error, which belongs to the application.
template <typename... P, typename... A>
int gshmemi_stream_launch(void (*kernel)(P...), dim3 grid, dim3 block, void *stream, A &&...args)
{
    cudaLaunchAttribute overlap;
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.stream = static_cast<cudaStream_t>(stream);
    if (gshmemi_gpu_overlap_launches())
        config.attrs = &overlap, config.numAttrs = 1;
    const cudaError_t err = cudaLaunchKernelEx(&config, kernel, std::forward<A>(args)...);
    if (err != cudaSuccess)
        (void)cudaGetLastError();
    return static_cast<int>(err);
}

} // namespace

#endif
