// A CUDA program on the host heap: gshmem.h compiles as CUDA host code
// (half and bfloat16 as the CUDA types), a kernel writes into this PE's
// part of the symmetric heap (registered with CUDA), and the data travels
// to the next PE with gshmem_putmem.  Exit 77 (skipped) without a GPU.
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>
#include <gshmem.h>

#include "gpu_check.h"

static_assert(sizeof(gshmem_half) == 2 && sizeof(gshmem_bfloat16) == 2, "16-bit types");

__global__ void fill(unsigned *p, size_t n, unsigned tag)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = tag * 2654435761u + (unsigned)i;
}

int main()
{
    const int ngpu = gpu_count();
    if (ngpu == 0)
        return 77;
    gshmem_init();
    const int me = gshmem_my_pe(), n = gshmem_n_pes();
    const size_t count = 1 << 20, bytes = count * sizeof(unsigned);
    unsigned *src = (unsigned *)gshmem_malloc(bytes), *dst = (unsigned *)gshmem_malloc(bytes);
    cudaSetDevice(me % ngpu);
    if (cudaHostRegister(src, bytes, cudaHostRegisterDefault) != cudaSuccess) {
        std::fprintf(stderr, "pe %d: cudaHostRegister of the heap failed\n", me);
        gshmem_global_exit(1);
    }
    unsigned *dsrc;
    cudaHostGetDevicePointer((void **)&dsrc, src, 0);
    fill<<<64, 256>>>(dsrc, count, (unsigned)me + 1);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::fprintf(stderr, "pe %d: kernel failed\n", me);
        gshmem_global_exit(1);
    }
    gshmem_putmem(dst, src, bytes, (me + 1) % n);
    gshmem_barrier_all();
    const unsigned from = (unsigned)((me + n - 1) % n) + 1;
    for (size_t i = 0; i < count; i++) {
        if (dst[i] != from * 2654435761u + (unsigned)i) {
            std::fprintf(stderr, "pe %d: element %zu is %u\n", me, i, dst[i]);
            gshmem_global_exit(1);
        }
    }
    cudaHostUnregister(src);
    if (me == 0)
        std::printf("gpu_host_heap: %d PEs on %d GPU(s): kernel-written heap data moved and checked\n",
                    n, ngpu);
    gshmem_free(dst);
    gshmem_free(src);
    gshmem_finalize();
    return 0;
}
