// GPU threads push requests into the proxy's FIFO at once: 128 blocks of
// 512 threads (2048 warps, 65536 threads: far more than the 4096 slots)
// push 256-byte puts from GPU memory for the next PE (not mapped: run with
// GSHMEM_DISABLE_P2P=1), one per warp, a 40-byte put carried inside the
// request (inline) per warp, and (with the argument `amo`) a
// fetching add each; each block then waits for its requests to complete as
// device quiet will.  Data and counters are checked on the host.  Exit 77
// without a GPU.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>
#include <gshmem.h>

#include "gshmem_config.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "proxy/proxy.h"
#if GSHMEM_HAVE_NUMA
#include <numaif.h>
#endif

#include "gpu_check.h"

/* One block per SM at most, so the target's atomic kernels find room while
 * these blocks wait for their requests (see the closing note of the session
 * that wrote this: host-side atomics on the GPU heap run as kernels). */
#define BLOCKS 128
#define THREADS 512
#define PUT_BYTES 256
#define INLINE_WORDS 5

__host__ __device__ uint64_t inline_word(uint64_t warp, int j, int me)
{
    return (warp * INLINE_WORDS + (uint64_t)j) * 0x9e3779b97f4a7c15ull ^ (uint64_t)me;
}

__global__ void push_requests(gshmemi_fifo f, uint64_t counter_off, uint64_t inbox_off,
                              uint64_t inline_off, const unsigned char *src,
                              unsigned long long *fetched, int me, int to, int amos)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t amo[4] = {counter_off, 1, 0, (uint64_t)(uintptr_t)&fetched[tid]};
    if (amos)
        gshmemi_fifo_push(&f, amo, 4, gshmemi_req_tag(GSHMEMI_REQ_AMO, GSHMEMI_AMO_ADD, 8, to));
    if (threadIdx.x % 32 == 0) {
        const unsigned warp = tid / 32;
        uint64_t put[3] = {inbox_off + (uint64_t)warp * PUT_BYTES,
                           (uint64_t)(uintptr_t)(src + (size_t)warp * PUT_BYTES), PUT_BYTES};
        gshmemi_fifo_push(&f, put, 3, gshmemi_req_tag(GSHMEMI_REQ_PUT, 0, 0, to));
    } else if (threadIdx.x % 32 == 1) {
        const unsigned warp = tid / 32;
        uint64_t w[1 + INLINE_WORDS] = {inline_off + (uint64_t)warp * INLINE_WORDS * 8};
        for (int j = 0; j < INLINE_WORDS; j++)
            w[1 + j] = inline_word(warp, j, me);
        gshmemi_fifo_push(&f, w, 1 + INLINE_WORDS,
                          gshmemi_req_tag(GSHMEMI_REQ_PUT_INLINE, 0, INLINE_WORDS * 8, to));
    }
    __syncthreads();
    if (threadIdx.x == 0) { // quiet: everything this block pushed is done at the target
        uint64_t n = gshmemi_fifo_push(&f, nullptr, 0, gshmemi_req_tag(GSHMEMI_REQ_QUIET, 0, 0, to));
        gshmemi_fifo_wait_completed(&f, n);
    }
}

__global__ void fill(unsigned char *p, size_t n, int me)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = (unsigned char)(i * 13 + me * 101);
}

int main(int argc, char **argv)
{
    /* Fetching atomics (`gpu_fifo amo`) hung in sessions 1 and 2: the target
     * applies them to its GPU heap with a kernel, and (likely cause, found
     * after the last GPU run of session 2) that kernel's first launch
     * loaded its module lazily, which waits for these blocks to end.  The
     * runtime now loads its kernels at init; not yet run on a GPU since:
     * make `amo` the default once it passes. */
    const int amos = argc > 1 && std::strcmp(argv[1], "amo") == 0;
    const int blocks = argc > 2 ? std::atoi(argv[2]) : BLOCKS; // fewer producers: a diagnosis
    const int ngpu = gpu_count();
    if (ngpu == 0)
        return 77;
    gshmem_init();
    const int me = gshmem_my_pe(), n = gshmem_n_pes(), to = (me + 1) % n, from = (me + n - 1) % n;
    gshmemi_fifo *f = gshmemi_proxy_fifo();
    if (n < 2 || f == nullptr || !gshmemi_heap.on_device) {
        std::fprintf(stderr, "gpu_fifo: needs 2+ PEs, the GPU heap and GSHMEM_DISABLE_P2P=1\n");
        gshmem_global_exit(2);
    }
#if GSHMEM_HAVE_NUMA
    /* The proxy's ring lies on its GPU's NUMA node (where that is known) */
    const int node = gshmemi_gpu_numa_node();
    int at = -1;
    if (node >= 0 &&
        (get_mempolicy(&at, nullptr, 0, f->slots, MPOL_F_NODE | MPOL_F_ADDR) != 0 || at != node)) {
        std::fprintf(stderr, "pe %d: the proxy's FIFO is on NUMA node %d, its GPU's is %d\n", me, at,
                     node);
        gshmem_global_exit(1);
    }
    if (me == 0)
        std::printf("the proxy's FIFO is on NUMA node %d (the GPU's: %d)\n", at, node);
#endif
    const size_t warps = (size_t)blocks * THREADS / 32, total = (size_t)blocks * THREADS;
    uint64_t *counter = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    unsigned char *inbox = (unsigned char *)gshmem_calloc(warps, PUT_BYTES);
    uint64_t *inline_box = (uint64_t *)gshmem_calloc(warps * INLINE_WORDS, 8);
    unsigned char *src;
    unsigned long long *fetched;
    cudaMalloc(&src, warps * PUT_BYTES);
    cudaMallocHost(&fetched, total * sizeof(*fetched));
    fill<<<64, 256>>>(src, warps * PUT_BYTES, me);
    cudaDeviceSynchronize();
    gshmem_barrier_all();
    const auto t0 = std::chrono::steady_clock::now();
    push_requests<<<blocks, THREADS>>>(*f, (uint64_t)((char *)counter - gshmemi_heap.my_base),
                                       (uint64_t)((char *)inbox - gshmemi_heap.my_base),
                                       (uint64_t)((char *)inline_box - gshmemi_heap.my_base), src,
                                       fetched, me, to, amos);
    cudaError_t err = cudaDeviceSynchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    gshmem_barrier_all();
    int bad = err != cudaSuccess;
    uint64_t c = 0;
    gshmem_getmem(&c, counter, sizeof(c), me);
    if (amos && c != total) {
        std::fprintf(stderr, "pe %d: counter %llu, expected %zu\n", me, (unsigned long long)c, total);
        bad = 1;
    }
    unsigned char *got = new unsigned char[warps * PUT_BYTES];
    gshmem_getmem(got, inbox, warps * PUT_BYTES, me);
    for (size_t i = 0; i < warps * PUT_BYTES && !bad; i++)
        if (got[i] != (unsigned char)(i * 13 + from * 101)) {
            std::fprintf(stderr, "pe %d: put byte %zu wrong\n", me, i);
            bad = 1;
        }
    uint64_t *got_inline = new uint64_t[warps * INLINE_WORDS];
    gshmem_getmem(got_inline, inline_box, warps * INLINE_WORDS * 8, me);
    for (size_t i = 0; i < warps * INLINE_WORDS && !bad; i++)
        if (got_inline[i] != inline_word(i / INLINE_WORDS, (int)(i % INLINE_WORDS), from)) {
            std::fprintf(stderr, "pe %d: inline put word %zu wrong\n", me, i);
            bad = 1;
        }
    delete[] got_inline;
    char *seen = new char[total]();
    for (size_t i = 0; amos && i < total && !bad; i++) {
        if (fetched[i] >= total || seen[fetched[i]]++) {
            std::fprintf(stderr, "pe %d: fetched value %llu repeated or out of range\n", me,
                         fetched[i]);
            bad = 1;
        }
    }
    if (bad)
        gshmem_global_exit(1);
    gshmem_barrier_all();
    if (me == 0)
        std::printf("gpu_fifo: %d PEs: %zu GPU threads (%zu warps) pushed %zu requests each PE "
                    "through the proxy in %.3f s, all checked\n", n, total, warps,
                    (amos ? total : 0) + 2 * warps + blocks, seconds);
    delete[] seen;
    delete[] got;
    cudaFreeHost(fetched);
    cudaFree(src);
    gshmem_free(inline_box);
    gshmem_free(inbox);
    gshmem_free(counter);
    gshmem_finalize();
    return 0;
}
