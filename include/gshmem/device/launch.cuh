/* gshmem device API, part of gshmem_device.cuh: the host side's
 * collective launch (gshmemx_collective_launch and its grid-size query). */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/launch.cuh>"
#endif
#ifndef GSHMEM_DEVICE_LAUNCH_CUH
#define GSHMEM_DEVICE_LAUNCH_CUH

/* ---- collective launch (host) ------------------------------------------- */

/* Launches a kernel whose blocks all run at once (cooperative launch), as
 * the device barrier_all/sync_all need; refuses, with a message, a grid
 * that cannot be resident.  Returns 0 or a gshmem status. */
inline int gshmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args,
                                                    size_t shmem, int *gridsize)
{
    (void)args;
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func,
                                                      static_cast<int>(block.x * block.y * block.z),
                                                      shmem) != cudaSuccess) {
        cudaGetLastError();
        return GSHMEM_ERR_CUDA;
    }
    *gridsize = per_sm * sms;
    return 0;
}

inline int gshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args,
                                     size_t shmem, cudaStream_t stream)
{
    int most = 0;
    const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
    int st = gshmemx_collective_launch_query_gridsize(func, block, args, shmem, &most);
    if (st != 0) {
        gshmemi_device_api_error("gshmemx_collective_launch",
                                 "the occupancy of the kernel could not be read");
        return st;
    }
    if (blocks > static_cast<unsigned long long>(most)) {
        gshmemi_device_api_error("gshmemx_collective_launch",
                                 "%llu blocks of %u threads cannot all be resident on this GPU "
                                 "(at most %d), as a kernel calling device barriers needs",
                                 blocks, block.x * block.y * block.z, most);
        return GSHMEM_ERR_INVALID_ARG;
    }
    cudaError_t err = cudaLaunchCooperativeKernel(func, grid, block, args, shmem, stream);
    if (err != cudaSuccess) {
        gshmemi_device_api_error("gshmemx_collective_launch", "%s", cudaGetErrorString(err));
        return GSHMEM_ERR_CUDA;
    }
    return 0;
}

#endif /* GSHMEM_DEVICE_LAUNCH_CUH */
