// Kernels the CUDA benchmarks share: a pattern to fill a buffer with and
// the check of it (counts wrong words), so every benchmark checks the data
// it moved.
#ifndef GSHMEM_BENCH_CUDA_CUH
#define GSHMEM_BENCH_CUDA_CUH

#include <cstddef>

__global__ void fill(unsigned *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (unsigned)i * 2654435761u + seed;
}

__global__ void verify(const unsigned *p, size_t n, unsigned seed, int *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (p[i] != (unsigned)i * 2654435761u + seed)
            atomicAdd(bad, 1);
}

#endif
