#include <stdio.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/topo.h"

#if GSHMEM_HAVE_CUDA
#include <cuda_runtime_api.h>

int gshmemi_gpu_count(char *why, size_t len)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        snprintf(why, len, "%s", cudaGetErrorString(err));
        cudaGetLastError(); /* clear it */
        return 0;
    }
    if (n == 0)
        snprintf(why, len, "the CUDA runtime sees no GPU");
    return n;
}

int gshmemi_gpu_describe(int dev, char *buf, size_t len)
{
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
        return GSHMEM_ERR_CUDA;
    cudaDeviceGetPCIBusId(bus, sizeof(bus), dev);
    snprintf(buf, len, "%s, sm_%d%d, %.1f GiB, PCI %s", prop.name, prop.major, prop.minor,
             (double)prop.totalGlobalMem / (1 << 30), bus);
    return 0;
}

#else

int gshmemi_gpu_count(char *why, size_t len)
{
    snprintf(why, len, "this gshmem was built without CUDA");
    return 0;
}

int gshmemi_gpu_describe(int dev, char *buf, size_t len)
{
    (void)dev;
    (void)buf;
    (void)len;
    return GSHMEM_ERR_NOT_SUPPORTED;
}

#endif
