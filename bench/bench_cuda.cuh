// What the CUDA benchmarks share: a pattern to fill a buffer with and the
// check of it (counts wrong words), so every benchmark checks the data it
// moved; CUDA(), which ends the job on a failed CUDA call (through
// BENCH_GLOBAL_EXIT: the NVSHMEM twins define it as theirs).
#ifndef GSHMEM_BENCH_CUDA_CUH
#define GSHMEM_BENCH_CUDA_CUH

#include <cstddef>
#include <cstdio>

#ifndef BENCH_GLOBAL_EXIT
#define BENCH_GLOBAL_EXIT gshmem_global_exit
#endif
#define CUDA(x)                                                                            \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                  \
            BENCH_GLOBAL_EXIT(1);                                                          \
        }                                                                                  \
    } while (0)

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
