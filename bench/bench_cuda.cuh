// What the CUDA benchmarks share: a pattern to fill a buffer with and the
// check of it (counts wrong words), so every benchmark checks the data it
// moved; CUDA(), which ends the job on a failed CUDA call; the median of
// timed runs.  BENCH_GLOBAL_EXIT and BENCH_BARRIER_ALL are gshmem's unless
// defined first (the NVSHMEM twins define them as theirs).
#ifndef GSHMEM_BENCH_CUDA_CUH
#define GSHMEM_BENCH_CUDA_CUH

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#ifndef BENCH_GLOBAL_EXIT
#define BENCH_GLOBAL_EXIT gshmem_global_exit
#endif
#ifndef BENCH_BARRIER_ALL
#define BENCH_BARRIER_ALL gshmem_barrier_all
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

// How many of the first n bytes at p (a device buffer) differ from fill's
// pattern for seed, counted on stream s into the device int *bad.
static inline int bench_wrong_words(const unsigned *p, size_t n, unsigned seed, int *bad, cudaStream_t s)
{
    CUDA(cudaMemsetAsync(bad, 0, sizeof(int), s));
    verify<<<256, 256, 0, s>>>(p, n / 4, seed, bad);
    int h = 0;
    CUDA(cudaMemcpyAsync(&h, bad, sizeof(int), cudaMemcpyDeviceToHost, s));
    CUDA(cudaStreamSynchronize(s));
    return h;
}

// Microseconds: the median of `runs` runs after a warm-up one (r = -1).
// before(r) runs untimed, work(r) between two events on stream s, then
// after(r) (which may let the stream go: see bench_gate), then the second
// event is waited for.
template <typename B, typename W, typename A>
static double bench_stream_median_us(int runs, cudaStream_t s, B before, W work, A after)
{
    cudaEvent_t a, b;
    CUDA(cudaEventCreate(&a));
    CUDA(cudaEventCreate(&b));
    std::vector<double> t;
    for (int r = -1; r < runs; r++) {
        before(r);
        CUDA(cudaEventRecord(a, s));
        work(r);
        CUDA(cudaEventRecord(b, s));
        after(r);
        CUDA(cudaEventSynchronize(b));
        float ms;
        CUDA(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0)
            t.push_back(ms * 1e3);
    }
    std::sort(t.begin(), t.end());
    CUDA(cudaEventDestroy(a));
    CUDA(cudaEventDestroy(b));
    return t[t.size() / 2];
}

// The same on the default stream, where before each run prepare(r) runs,
// the GPU goes idle and the PEs meet.
template <typename P, typename F>
static double bench_median_us(int runs, P prepare, F launch)
{
    return bench_stream_median_us(
        runs, 0,
        [&](int r) {
            prepare(r);
            CUDA(cudaDeviceSynchronize());
            BENCH_BARRIER_ALL();
        },
        launch, [](int) {});
}

// Holds a stream until the host opens it, so that work enqueued behind it
// runs at the GPU's pace, not at the pace the host enqueues it.  With a
// deadline (close(s, ms)), the gate also opens itself that long after it
// started waiting and says so (timed_out()): a library whose enqueueing
// waits for the GPU would otherwise never let the host come back to open it.
__global__ void bench_gate_wait(volatile int *gate, unsigned long long deadline_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (gate[0] == 0) {
        if (deadline_ns == 0)
            continue;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > deadline_ns) {
            gate[1] = 1;
            break;
        }
    }
}

struct bench_gate {
    int *host = nullptr, *dev = nullptr; // [0]: opened by the host, [1]: opened by the deadline
    void close(cudaStream_t s, unsigned deadline_ms = 0)
    {
        if (host == nullptr) {
            CUDA(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
            CUDA(cudaHostGetDevicePointer((void **)&dev, host, 0));
        }
        ((volatile int *)host)[0] = 0;
        ((volatile int *)host)[1] = 0;
        bench_gate_wait<<<1, 1, 0, s>>>(dev, deadline_ms * 1000000ull);
    }
    void open() { *(volatile int *)host = 1; }
    // After the stream has passed the gate: whether the deadline opened it.
    bool timed_out() const { return ((volatile int *)host)[1] != 0; }
};

// System-scope loads in PTX, for the hardware references (no library).
__device__ __forceinline__ uint64_t bench_ld_relaxed(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ uint64_t bench_ld_acquire(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned bench_ld_acquire(const int *p)
{
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// Latency depends on which SM runs the thread: a word's L2 slice is near
// some SMs and far from others.  A latency kernel is launched with blocks
// on every SM and starts with `if (!bench_placed(sm)) return;`: only the
// first block to reach SM `sm` goes on (every thread of it).
#define BENCH_PLACES 8
__device__ unsigned bench_placed_ticket;
__device__ __forceinline__ bool bench_placed(unsigned sm)
{
    __shared__ int won;
    if (threadIdx.x == 0) {
        unsigned id;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        won = id == sm && atomicAdd(&bench_placed_ticket, 1) == 0;
    }
    __syncthreads();
    return won;
}

// Runs kernel(blocks, sm, launch) on BENCH_PLACES SMs spread over the GPU
// (the same SM numbers on every PE), each the median of `runs`
// (bench_median_us, prepare(r) before each run); gives the median over the
// placements, the lowest and the highest.  `launch` counts the launches,
// the same on every PE.
template <typename P, typename K>
static void bench_placements(int runs, P prepare, K kernel, double *med, double *lo, double *hi)
{
    int dev, nsm;
    CUDA(cudaGetDevice(&dev));
    CUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
    std::vector<double> t;
    int launch = 0;
    for (int k = 0; k < BENCH_PLACES; k++) {
        const unsigned sm = (unsigned)(k * nsm / BENCH_PLACES);
        t.push_back(bench_median_us(
            runs,
            [&](int r) {
                const unsigned zero = 0;
                CUDA(cudaMemcpyToSymbol(bench_placed_ticket, &zero, sizeof(zero)));
                prepare(r);
            },
            [&](int) { kernel(4 * nsm, sm, launch++); }));
    }
    std::sort(t.begin(), t.end());
    *med = (t[BENCH_PLACES / 2 - 1] + t[BENCH_PLACES / 2]) / 2;
    *lo = t.front();
    *hi = t.back();
}

#endif
