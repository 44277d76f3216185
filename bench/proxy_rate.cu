// proxy_rate: how many requests per second one PE's proxy carries out when
// many warps push small puts for an unmapped peer (through the tcp
// transport here).  The first lane of each of `warps` warps pushes `per`
// 8-byte puts; each block then waits for completion as quiet does.  The
// time is the whole kernel, on CUDA events; the data is checked.
//   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/proxy_rate [warps] [per]
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <gshmem.h>

#include "heap/heap.h"
#include "proxy/proxy.h"

__global__ void push_puts(gshmemi_fifo f, uint64_t inbox_off, const uint64_t *src, int per, int to)
{
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (threadIdx.x % 32 == 0)
        for (int i = 0; i < per; i++) {
            const uint64_t k = (uint64_t)warp * per + i;
            uint64_t put[3] = {inbox_off + k * 8, (uint64_t)(uintptr_t)&src[k], 8};
            gshmemi_fifo_push(&f, put, 3, gshmemi_req_tag(GSHMEMI_REQ_PUT, 0, 0, to));
        }
    __syncthreads();
    if (threadIdx.x == 0) {
        uint64_t n = gshmemi_fifo_push(&f, nullptr, 0, gshmemi_req_tag(GSHMEMI_REQ_QUIET, 0, 0, to));
        while (*(volatile uint64_t *)f.completed <= n)
            __nanosleep(256);
    }
}

int main(int argc, char **argv)
{
    const int warps = argc > 1 ? atoi(argv[1]) : 1024, per = argc > 2 ? atoi(argv[2]) : 64;
    gshmem_init();
    const int me = gshmem_my_pe(), to = (me + 1) % gshmem_n_pes();
    gshmemi_fifo *f = gshmemi_proxy_fifo();
    if (f == nullptr || !gshmemi_heap.on_device) {
        if (me == 0)
            std::fprintf(stderr, "proxy_rate: needs the GPU heap, 2 PEs, GSHMEM_DISABLE_P2P=1\n");
        gshmem_global_exit(2);
    }
    const size_t total = (size_t)warps * per;
    uint64_t *inbox = (uint64_t *)gshmem_calloc(total, 8), *src, *host = new uint64_t[total];
    for (size_t k = 0; k < total; k++)
        host[k] = k * 2654435761ull + (uint64_t)me;
    cudaMalloc(&src, total * 8);
    cudaMemcpy(src, host, total * 8, cudaMemcpyHostToDevice);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    gshmem_barrier_all();
    if (me == 0) { // one PE pushes; the other serves
        cudaEventRecord(a);
        push_puts<<<warps / 8, 256>>>(*f, (uint64_t)((char *)inbox - gshmemi_heap.my_base), src, per, to);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        std::printf("# proxy_rate: %d warps x %d 8-byte puts through the proxy and tcp, "
                    "completion included\n", warps, per);
        std::printf("RESULT op=proxy_put_rate requests=%zu ms=%.2f Mreq_per_s=%.3f\n", total, ms,
                    total / (ms * 1e-3) * 1e-6);
    }
    gshmem_barrier_all();
    if (me == 1) {
        uint64_t *got = new uint64_t[total];
        gshmem_getmem(got, inbox, total * 8, me);
        for (size_t k = 0; k < total; k++)
            if (got[k] != k * 2654435761ull + 0) {
                std::fprintf(stderr, "proxy_rate: put %zu wrong\n", k);
                gshmem_global_exit(1);
            }
        std::printf("# all %zu puts checked on pe 1\n", total);
        delete[] got;
    }
    gshmem_barrier_all();
    cudaFree(src);
    delete[] host;
    gshmem_free(inbox);
    gshmem_finalize();
    return 0;
}
