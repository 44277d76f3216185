// fifo_rtt: the FIFO round trip: one GPU thread pushes a quiet request, the
// proxy thread takes and completes it, and the thread sees the completion;
// repeated, timed on the GPU's clock.  Run with 2 PEs and
// GSHMEM_DISABLE_P2P=1 (the proxy runs where a transport is up).
//   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/fifo_rtt
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <gshmem.h>

#include "proxy/proxy.h"

#define ITERS 20000

__global__ void round_trips(gshmemi_fifo f, int to, unsigned long long *ns)
{
    for (int i = 0; i < ITERS; i++) {
        unsigned long long t0, t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        uint64_t n = gshmemi_fifo_push(&f, nullptr, 0, gshmemi_req_tag(GSHMEMI_REQ_QUIET, 0, 0, to));
        while (*(volatile uint64_t *)f.completed <= n)
            ;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        ns[i] = t1 - t0;
    }
}

int main()
{
    gshmem_init();
    int me = gshmem_my_pe();
    gshmemi_fifo *f = gshmemi_proxy_fifo();
    if (f == nullptr) {
        if (me == 0)
            std::fprintf(stderr, "fifo_rtt: the proxy is not running (GSHMEM_DISABLE_P2P=1, 2 PEs)\n");
        gshmem_global_exit(2);
    }
    if (me == 0) {
        unsigned long long *ns;
        cudaMallocHost(&ns, ITERS * sizeof(*ns));
        round_trips<<<1, 1>>>(*f, 1, ns);
        cudaDeviceSynchronize();
        std::vector<unsigned long long> v(ns + ITERS / 10, ns + ITERS); // skip warm-up
        std::sort(v.begin(), v.end());
        double sum = 0;
        for (auto x : v)
            sum += x;
        std::printf("# FIFO round trip (push, proxy takes and completes, the GPU thread sees it), "
                    "%zu trips after warm-up\n", v.size());
        std::printf("RESULT op=fifo_round_trip median_us=%.3f mean_us=%.3f p99_us=%.3f\n",
                    v[v.size() / 2] * 1e-3, sum / v.size() * 1e-3, v[v.size() * 99 / 100] * 1e-3);
        cudaFreeHost(ns);
    }
    gshmem_barrier_all();
    gshmem_finalize();
    return 0;
}
