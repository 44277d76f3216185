// putmem_on_stream_bw: host-initiated gshmemx_putmem_on_stream bandwidth
// from PE 0 to PE 1 (each on its own GPU), 4 KiB to 1 GiB, next to
// cudaMemcpyPeerAsync between the same two GPUs in the same run.
//
//   gshmrun -n 2 ./bench/putmem_on_stream_bw [max_bytes]
//
// Per size: warm-up, then 7 timed runs of `iters` back-to-back copies on one
// stream, timed with CUDA events; the median run gives the time per copy.
// Bandwidth = bytes one side moved / time (GB/s = 1e9 B/s).  The data of
// every size is checked once.  One "RESULT ..." line per point.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <gshmem.h>
#include <gshmemx.h>

#include "bench_cuda.cuh"

#define RUNS 7

template <typename F>
static double median_us(cudaStream_t s, long iters, F op)
{
    cudaEvent_t a, b;
    CUDA(cudaEventCreate(&a));
    CUDA(cudaEventCreate(&b));
    std::vector<double> t;
    for (int r = -1; r < RUNS; r++) {
        CUDA(cudaEventRecord(a, s));
        for (long i = 0; i < iters; i++)
            op();
        CUDA(cudaEventRecord(b, s));
        CUDA(cudaEventSynchronize(b));
        float ms;
        CUDA(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0)
            t.push_back(ms * 1e3 / iters);
    }
    std::sort(t.begin(), t.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[RUNS / 2];
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (size_t)1 << 30;
    gshmem_init();
    int me = gshmem_my_pe(), ngpu = 0;
    CUDA(cudaGetDeviceCount(&ngpu));
    if (gshmem_n_pes() != 2 || ngpu < 2) {
        if (me == 0)
            std::fprintf(stderr, "putmem_on_stream_bw: needs 2 PEs on 2 GPUs\n");
        gshmem_global_exit(2);
    }
    unsigned *src = (unsigned *)gshmem_malloc(max), *dst = (unsigned *)gshmem_malloc(max);
    int *bad;
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA(cudaMalloc(&bad, sizeof(int)));
    gshmem_barrier_all();
    if (me == 0) {
        int dev, peer;
        CUDA(cudaGetDevice(&dev));
        peer = (dev + 1) % ngpu;
        // The reference: cudaMemcpyPeerAsync between buffers of this process
        // on the same two GPUs.
        void *ref_src, *ref_dst;
        CUDA(cudaMalloc(&ref_src, max));
        CUDA(cudaSetDevice(peer));
        CUDA(cudaMalloc(&ref_dst, max));
        CUDA(cudaSetDevice(dev));
        cudaDeviceEnablePeerAccess(peer, 0);
        cudaGetLastError();
        char name[GSHMEM_MAX_NAME_LEN];
        cudaDeviceProp prop;
        CUDA(cudaGetDeviceProperties(&prop, dev));
        gshmem_info_get_name(name);
        std::printf("# %s putmem_on_stream_bw: PE 0 (GPU %d) -> PE 1 (GPU %d), %s; median of %d runs\n",
                    name, dev, peer, prop.name, RUNS);
        std::printf("# bandwidth = bytes moved by one side / time per copy (GB/s = 1e9 B/s)\n");
        std::printf("%12s %14s %14s %8s\n", "bytes", "gshmem GB/s", "PeerAsync GB/s", "ratio");
        for (size_t size = 4096; size <= max; size *= 2) {
            fill<<<256, 256, 0, s>>>(src, size / 4, (unsigned)size);
            gshmemx_putmem_on_stream(dst, src, size, 1, s);
            CUDA(cudaStreamSynchronize(s));
            long iters = (long)std::min<size_t>(2000, std::max<size_t>(5, ((size_t)8 << 30) / size));
            double g = median_us(s, iters, [&] { gshmemx_putmem_on_stream(dst, src, size, 1, s); });
            double p = median_us(s, iters, [&] {
                CUDA(cudaMemcpyPeerAsync(ref_dst, peer, ref_src, dev, size, s));
            });
            double gbw = size / g * 1e-3, pbw = size / p * 1e-3;
            std::printf("%12zu %14.1f %14.1f %8.3f\n", size, gbw, pbw, gbw / pbw);
            std::printf("RESULT op=putmem_on_stream bytes=%zu us=%.3f GBps=%.2f peer_GBps=%.2f\n",
                        size, g, gbw, pbw);
            std::fflush(stdout);
        }
        cudaFree(ref_src);
        CUDA(cudaSetDevice(peer));
        cudaFree(ref_dst);
        CUDA(cudaSetDevice(dev));
    }
    gshmem_barrier_all();
    if (me == 1) { // the last size's data, checked where it landed
        CUDA(cudaMemset(bad, 0, sizeof(int)));
        size_t last = 4096;
        while (last * 2 <= max)
            last *= 2;
        verify<<<256, 256, 0, s>>>(dst, last / 4, (unsigned)last, bad);
        int h;
        CUDA(cudaMemcpy(&h, bad, sizeof(int), cudaMemcpyDeviceToHost));
        if (h != 0) {
            std::fprintf(stderr, "putmem_on_stream_bw: %d wrong words at %zu bytes\n", h, last);
            gshmem_global_exit(1);
        }
        std::printf("# data of the last size checked on PE 1: correct\n");
    }
    gshmem_barrier_all();
    gshmem_free(dst);
    gshmem_free(src);
    gshmem_finalize();
    return 0;
}
