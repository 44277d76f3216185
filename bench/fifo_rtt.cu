// fifo_rtt: the FIFO round trip: one GPU thread pushes a quiet request, the
// proxy thread takes and completes it, and the thread sees the completion;
// repeated, timed on the GPU's clock.  Run with 2 PEs and
// GSHMEM_DISABLE_P2P=1 (the proxy runs where a transport is up).
//   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/fifo_rtt [trips] [nocache]
// nocache: producers read the proxy's `taken` on every push instead of
// their copy in GPU memory.  A trip that takes over 2 s ends the run with
// the trip's number (a lost request shows as that, not as a hang).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <gshmem.h>

#include "proxy/proxy.h"

__device__ unsigned long long gtime()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void round_trips(gshmemi_fifo f, int to, int trips, unsigned long long *ns,
                            unsigned long long *push_ns, int *stalled)
{
    for (int i = 0; i < trips; i++) {
        const unsigned long long t0 = gtime();
        uint64_t n = gshmemi_fifo_push(&f, nullptr, 0, gshmemi_req_tag(GSHMEMI_REQ_QUIET, 0, 0, to));
        push_ns[i] = gtime() - t0;
        while (gshmemi_fifo_completed(&f, 0) <= n)
            if (gtime() - t0 > 2000000000ull) {
                *stalled = i;
                return;
            }
        ns[i] = gtime() - t0;
    }
}

int main(int argc, char **argv)
{
    const int trips = argc > 1 ? atoi(argv[1]) : 20000;
    const bool nocache = argc > 2 && std::strcmp(argv[2], "nocache") == 0;
    gshmem_init();
    int me = gshmem_my_pe(), rc = 0;
    gshmemi_fifo *f = gshmemi_proxy_fifo();
    if (f == nullptr) {
        if (me == 0)
            std::fprintf(stderr, "fifo_rtt: the proxy is not running (GSHMEM_DISABLE_P2P=1, 2 PEs)\n");
        gshmem_global_exit(2);
    }
    if (me == 0) {
        unsigned long long *ns, *push_ns;
        int *stalled;
        cudaMallocHost(&ns, trips * sizeof(*ns));
        cudaMallocHost(&push_ns, trips * sizeof(*push_ns));
        cudaMallocHost(&stalled, sizeof(*stalled));
        *stalled = -1;
        gshmemi_fifo copy = *f;
        if (nocache)
            copy.taken_cache = nullptr;
        round_trips<<<1, 1>>>(copy, 1, trips, ns, push_ns, stalled);
        cudaDeviceSynchronize();
        if (*stalled >= 0) {
            std::printf("RESULT op=fifo_round_trip%s stalled_at_trip=%d\n", nocache ? "_nocache" : "",
                        *stalled);
            rc = 1;
        } else {
            std::vector<unsigned long long> v(ns + trips / 10, ns + trips); // skip warm-up
            std::vector<unsigned long long> p(push_ns + trips / 10, push_ns + trips);
            std::sort(v.begin(), v.end());
            std::sort(p.begin(), p.end());
            double sum = 0;
            for (auto x : v)
                sum += x;
            std::printf("# FIFO round trip (push, proxy takes and completes, the GPU thread sees "
                        "it), %zu trips after warm-up%s\n", v.size(),
                        nocache ? ", producers read taken on every push" : "");
            std::printf("RESULT op=fifo_round_trip%s median_us=%.3f mean_us=%.3f p99_us=%.3f "
                        "push_median_us=%.3f\n",
                        nocache ? "_nocache" : "", v[v.size() / 2] * 1e-3, sum / v.size() * 1e-3,
                        v[v.size() * 99 / 100] * 1e-3, p[p.size() / 2] * 1e-3);
        }
        cudaFreeHost(ns);
        cudaFreeHost(push_ns);
        cudaFreeHost(stalled);
    }
    gshmem_barrier_all();
    gshmem_finalize();
    return rc;
}
