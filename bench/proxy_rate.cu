// proxy_rate: how many requests per second one PE's proxy carries out when
// many warps push small puts for an unmapped peer (through the tcp
// transport here).  The first lane of each of `warps` warps pushes `per`
// puts of `bytes` bytes; each block then waits for completion as quiet
// does.  Puts up to GSHMEMI_REQ_INLINE_MAX bytes travel inside the request
// (as the device API sends them); larger ones name a GPU source, which the
// proxy reads.  The time is the whole kernel, on CUDA events; the data is
// checked.
//   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/proxy_rate [warps] [per] [bytes]
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <gshmem.h>

#include "heap/heap.h"
#include "proxy/proxy.h"

__global__ void push_puts(gshmemi_fifo f, uint64_t inbox_off, const uint64_t *src, int per,
                          int bytes, int to)
{
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int words = bytes / 8;
    if (threadIdx.x % 32 == 0)
        for (int i = 0; i < per; i++) {
            const uint64_t k = (uint64_t)warp * per + i;
            uint64_t w[GSHMEMI_FIFO_WORDS] = {inbox_off + k * bytes};
            if (bytes <= GSHMEMI_REQ_INLINE_MAX) {
                for (int j = 0; j < words; j++)
                    w[1 + j] = src[k * words + j];
                gshmemi_fifo_push(&f, w, 1 + words,
                                  gshmemi_req_tag(GSHMEMI_REQ_PUT_INLINE, 0, bytes, to));
            } else {
                w[1] = (uint64_t)(uintptr_t)&src[k * words];
                w[2] = (uint64_t)bytes;
                gshmemi_fifo_push(&f, w, 3, gshmemi_req_tag(GSHMEMI_REQ_PUT, 0, 0, to));
            }
        }
    __syncthreads();
    if (threadIdx.x == 0) {
        uint64_t n = gshmemi_fifo_push(&f, nullptr, 0, gshmemi_req_tag(GSHMEMI_REQ_QUIET, 0, 0, to));
        gshmemi_fifo_wait_completed(&f, n);
    }
}

int main(int argc, char **argv)
{
    const int warps = argc > 1 ? atoi(argv[1]) : 1024, per = argc > 2 ? atoi(argv[2]) : 64;
    const int bytes = argc > 3 ? atoi(argv[3]) : 8;
    gshmem_init();
    const int me = gshmem_my_pe(), to = (me + 1) % gshmem_n_pes();
    gshmemi_fifo *f = gshmemi_proxy_fifo();
    if (f == nullptr || !gshmemi_heap.on_device || bytes < 8 || bytes % 8 != 0 || warps % 8 != 0) {
        if (me == 0)
            std::fprintf(stderr, "proxy_rate: needs the GPU heap, 2 PEs, GSHMEM_DISABLE_P2P=1; "
                         "warps a multiple of 8, bytes a multiple of 8\n");
        gshmem_global_exit(2);
    }
    const size_t total = (size_t)warps * per, words = total * (bytes / 8);
    uint64_t *inbox = (uint64_t *)gshmem_calloc(words, 8), *src, *host = new uint64_t[words];
    for (size_t k = 0; k < words; k++)
        host[k] = k * 2654435761ull + (uint64_t)me;
    cudaMalloc(&src, words * 8);
    cudaMemcpy(src, host, words * 8, cudaMemcpyHostToDevice);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    gshmem_barrier_all();
    if (me == 0) { // one PE pushes; the other serves
        cudaEventRecord(a);
        push_puts<<<warps / 8, 256>>>(*f, (uint64_t)((char *)inbox - gshmemi_heap.my_base), src, per,
                                      bytes, to);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        std::printf("# proxy_rate: %d warps x %d %d-byte puts (%s) through the proxy and tcp, "
                    "completion included\n", warps, per, bytes,
                    bytes <= GSHMEMI_REQ_INLINE_MAX ? "inline" : "GPU source");
        std::printf("RESULT op=proxy_put_rate bytes=%d requests=%zu ms=%.2f Mreq_per_s=%.3f\n",
                    bytes, total, ms, total / (ms * 1e-3) * 1e-6);
    }
    gshmem_barrier_all();
    if (me == 1) {
        uint64_t *got = new uint64_t[words];
        gshmem_getmem(got, inbox, words * 8, me);
        for (size_t k = 0; k < words; k++)
            if (got[k] != k * 2654435761ull + 0) {
                std::fprintf(stderr, "proxy_rate: word %zu wrong\n", k);
                gshmem_global_exit(1);
            }
        std::printf("# all %zu puts (%zu words) checked on pe 1\n", total, words);
        delete[] got;
    }
    gshmem_barrier_all();
    cudaFree(src);
    delete[] host;
    gshmem_free(inbox);
    gshmem_finalize();
    return 0;
}
