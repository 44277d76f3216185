// sync_floor: what the hardware charges for the device API's synchronizing
// operations, with no library code in the timed loop.  Two PEs on two GPUs;
// gshmem only allocates the words and maps the peer's copy (gshmem_ptr), the
// kernels are raw PTX over that mapping.  Each row names the accesses it
// times, so the device API's latencies (device_bench) can be read against
// the cheapest code that keeps the same ordering.
//
//   gshmrun -n 2 ./bench/sync_floor
//
// Ping-pongs: one thread per PE, 20000 round trips after 1000 warm-up ones,
// one-way = kernel time / (2 x all trips).  Barrier: both PEs add 1 to the
// other's counter and wait for their own to reach the round, time / rounds.
// Each row: medians of 7 runs (CUDA events) with the thread placed on 8 SMs
// (bench_placements), the median over the placements and the lowest and
// highest.  Every trip checks the value it waited for, and the put_signal
// rows check the data word the signal released.
#include <gshmem.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "bench_cuda.cuh"

#define ITERS 20000
#define WARM 1000
#define RUNS 7

enum store_kind {
    ST_WEAK,         // st.global flag (a weak store, as a plain C++ assignment)
    ST_RELAXED,      // st.relaxed.sys flag
    ST_RELEASE,      // st.release.sys flag
    ST_DATA_RELEASE, // st data word, st.release.sys flag (put_signal's order)
    ST_DATA_FENCE,   // st data word, fence.acq_rel.sys, st.relaxed.sys flag
    ST_DATA_SC,      // st data word, fence.sc.sys, st.relaxed.sys flag (a quiet)
    // Not orders that PTX's memory model promises for a peer GPU; timed to
    // show what the model's order costs over them:
    ST_DATA_READBACK, // st data word, ld.relaxed.sys of it back, st.relaxed.sys flag whose
                      // value depends on the load (so it leaves after the load returns)
    ST_DATA_FENCE_GPU, // st data word, fence.acq_rel.gpu, st.relaxed.sys flag
};
enum poll_kind {
    POLL_RELAXED,         // ld.relaxed.sys until the value is there
    POLL_ACQUIRE,         // ld.acquire.sys until the value is there
    POLL_RELAXED_ACQUIRE, // ld.relaxed.sys until there, then one ld.acquire.sys
};

template <int POLL>
__device__ __forceinline__ void wait_ge(const uint64_t *p, uint64_t v)
{
    if (POLL == POLL_ACQUIRE) {
        while (bench_ld_acquire(p) < v) {
        }
    } else {
        while (bench_ld_relaxed(p) < v) {
        }
        if (POLL == POLL_RELAXED_ACQUIRE)
            (void)bench_ld_acquire(p);
    }
}

// Zero, but not known to the compiler: ST_DATA_READBACK's flag value is
// v + (loaded & floor_zero), a data dependency on the load.
__device__ uint64_t floor_zero;

template <int ST>
__device__ __forceinline__ void send(uint64_t *flag, uint64_t *data, uint64_t v)
{
    if (ST != ST_WEAK && ST != ST_RELAXED && ST != ST_RELEASE)
        asm volatile("st.global.u64 [%0], %1;" ::"l"(data), "l"(v) : "memory");
    if (ST == ST_DATA_FENCE)
        asm volatile("fence.acq_rel.sys;" ::: "memory");
    if (ST == ST_DATA_SC)
        asm volatile("fence.sc.sys;" ::: "memory");
    if (ST == ST_DATA_FENCE_GPU)
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    if (ST == ST_DATA_READBACK)
        v += bench_ld_relaxed(data) & floor_zero;
    if (ST == ST_WEAK)
        asm volatile("st.global.u64 [%0], %1;" ::"l"(flag), "l"(v) : "memory");
    else if (ST == ST_RELEASE || ST == ST_DATA_RELEASE)
        asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(flag), "l"(v) : "memory");
    else
        asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(flag), "l"(v) : "memory");
}

// words: [0] my flag, [1] my data word (the peer's copies: peer + 0, + 1).
template <int ST, int POLL>
__global__ void pingpong(uint64_t *mine, uint64_t *peer, int me, int *bad, unsigned sm)
{
    if (!bench_placed(sm))
        return;
    int wrong = 0;
    for (uint64_t i = 1; i <= ITERS + WARM; i++) {
        if (me == 0)
            send<ST>(peer, peer + 1, i);
        wait_ge<POLL>(mine, i);
        if (ST != ST_WEAK && ST != ST_RELAXED && ST != ST_RELEASE)
            wrong += *(volatile uint64_t *)(mine + 1) != i;
        if (me == 1)
            send<ST>(peer, peer + 1, i);
    }
    wrong += bench_ld_relaxed(mine) != ITERS + WARM;
    *bad += wrong;
}

// Both PEs: a release add to the other's counter, then wait for their own.
// With 32 threads, thread 0 does it between two __syncthreads (a block's
// barrier_all).
template <int POLL>
__global__ void barrier(uint64_t *mine, uint64_t *peer, uint64_t base, int *bad, unsigned sm)
{
    if (!bench_placed(sm))
        return;
    for (uint64_t i = base + 1; i <= base + ITERS; i++) {
        if (blockDim.x > 1)
            __syncthreads();
        if (threadIdx.x == 0) {
            asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(peer) : "memory");
            wait_ge<POLL>(mine, i);
        }
        if (blockDim.x > 1)
            __syncthreads();
    }
    if (threadIdx.x == 0)
        *bad += bench_ld_relaxed(mine) != base + ITERS;
}

// The same, with the target kept in a word of this GPU's memory (a weak
// load after the add has left, a weak store), as a library that cannot keep
// it in a register between calls must.
template <int POLL>
__global__ void barrier_epoch(uint64_t *mine, uint64_t *peer, uint64_t *epoch, int *bad, unsigned sm)
{
    if (!bench_placed(sm))
        return;
    for (int i = 0; i < ITERS; i++) {
        __syncthreads();
        if (threadIdx.x == 0) {
            asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(peer) : "memory");
            const uint64_t target = *epoch + 1;
            *epoch = target;
            wait_ge<POLL>(mine, target);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *bad += bench_ld_relaxed(mine) != *epoch;
}

static int me;

// One RESULT line: the median over the placements, lowest and highest.
template <typename P, typename K>
static void result(const char *name, const char *unit, double per, P prepare, K kernel)
{
    double med, lo, hi;
    bench_placements(RUNS, prepare, kernel, &med, &lo, &hi);
    if (me == 0)
        std::printf("RESULT sys=hw op=%s %s=%.3f min=%.3f max=%.3f\n", name, unit, med / per,
                    lo / per, hi / per);
}

template <int ST, int POLL>
static void row(const char *name, uint64_t *words, uint64_t *peer, int *bad)
{
    // Each run starts from zero on both sides, before either kernel.
    result(name, "one_way_us", 2.0 * (ITERS + WARM), [&](int) { CUDA(cudaMemset(words, 0, 16)); },
           [&](int blocks, unsigned sm, int) {
               pingpong<ST, POLL><<<blocks, 1>>>(words, peer, me, bad, sm);
           });
}

// The counters only grow: launch k counts from k x ITERS.
template <int POLL>
static void barrier_row(const char *name, int threads, uint64_t *words, uint64_t *peer, int *bad)
{
    char full[128];
    std::snprintf(full, sizeof(full), "%s threads=%d", name, threads);
    CUDA(cudaMemset(words, 0, 16));
    result(full, "us", ITERS, [](int) {}, [&](int blocks, unsigned sm, int launch) {
        barrier<POLL><<<blocks, threads>>>(words, peer, (uint64_t)launch * ITERS, bad, sm);
    });
}

static void barrier_epoch_row(uint64_t *words, uint64_t *peer, uint64_t *epoch, int *bad)
{
    CUDA(cudaMemset(words, 0, 16));
    CUDA(cudaMemset(epoch, 0, 8));
    result("barrier_red_release/epoch_in_memory/poll_acquire threads=32", "us", ITERS, [](int) {},
           [&](int blocks, unsigned sm, int) {
               barrier_epoch<POLL_ACQUIRE><<<blocks, 32>>>(words, peer, epoch, bad, sm);
           });
}

int main()
{
    gshmem_init();
    me = gshmem_my_pe();
    if (gshmem_n_pes() != 2) {
        std::fprintf(stderr, "sync_floor: run with 2 PEs\n");
        gshmem_global_exit(2);
    }
    uint64_t *words = (uint64_t *)gshmem_calloc(2, sizeof(uint64_t));
    uint64_t *peer = (uint64_t *)gshmem_ptr(words, 1 - me);
    if (words == nullptr || peer == nullptr) {
        std::fprintf(stderr, "sync_floor: PE %d cannot map PE %d's heap (needs two mapped GPUs)\n",
                     me, 1 - me);
        gshmem_global_exit(2);
    }
    int *bad;
    CUDA(cudaMallocManaged(&bad, sizeof(int)));
    *bad = 0;
    if (me == 0) {
        cudaDeviceProp prop;
        int dev;
        CUDA(cudaGetDevice(&dev));
        CUDA(cudaGetDeviceProperties(&prop, dev));
        std::printf("# sync_floor: raw PTX over gshmem's mapping, PE 0 <-> PE 1, %s; medians of %d "
                    "runs on each of %d SMs\n", prop.name, RUNS, BENCH_PLACES);
    }
    row<ST_WEAK, POLL_ACQUIRE>("flag_weak/poll_acquire", words, peer, bad);
    row<ST_RELAXED, POLL_RELAXED>("flag_relaxed/poll_relaxed", words, peer, bad);
    row<ST_RELAXED, POLL_ACQUIRE>("flag_relaxed/poll_acquire", words, peer, bad);
    row<ST_RELAXED, POLL_RELAXED_ACQUIRE>("flag_relaxed/poll_relaxed+acquire", words, peer, bad);
    row<ST_RELEASE, POLL_ACQUIRE>("flag_release/poll_acquire", words, peer, bad);
    row<ST_RELEASE, POLL_RELAXED_ACQUIRE>("flag_release/poll_relaxed+acquire", words, peer, bad);
    row<ST_DATA_RELEASE, POLL_ACQUIRE>("data+flag_release/poll_acquire", words, peer, bad);
    row<ST_DATA_RELEASE, POLL_RELAXED_ACQUIRE>("data+flag_release/poll_relaxed+acquire", words, peer, bad);
    row<ST_DATA_FENCE, POLL_ACQUIRE>("data+fence_acq_rel+flag/poll_acquire", words, peer, bad);
    row<ST_DATA_SC, POLL_ACQUIRE>("data+fence_sc+flag/poll_acquire", words, peer, bad);
    row<ST_DATA_READBACK, POLL_ACQUIRE>("data+readback+dependent_flag/poll_acquire (outside PTX's model)",
                                        words, peer, bad);
    row<ST_DATA_FENCE_GPU, POLL_ACQUIRE>("data+fence_acq_rel_gpu+flag/poll_acquire (outside PTX's model)",
                                         words, peer, bad);
    barrier_row<POLL_ACQUIRE>("barrier_red_release/poll_acquire", 1, words, peer, bad);
    barrier_row<POLL_RELAXED_ACQUIRE>("barrier_red_release/poll_relaxed+acquire", 1, words, peer, bad);
    barrier_row<POLL_ACQUIRE>("barrier_red_release/poll_acquire", 32, words, peer, bad);
    barrier_row<POLL_RELAXED_ACQUIRE>("barrier_red_release/poll_relaxed+acquire", 32, words, peer, bad);
    uint64_t *epoch;
    CUDA(cudaMalloc(&epoch, 8));
    barrier_epoch_row(words, peer, epoch, bad);
    CUDA(cudaDeviceSynchronize());
    gshmem_barrier_all();
    const int wrong = *bad;
    if (wrong != 0)
        std::fprintf(stderr, "sync_floor: PE %d saw %d wrong value(s)\n", me, wrong);
    gshmem_finalize();
    return wrong != 0;
}
