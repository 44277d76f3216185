// latency: device-initiated latencies and message rates between PE 0 and
// PE 1 (two GPUs).  Built for NVSHMEM too (bench/nvshmem/latency_nvshmem.cu:
// the same kernels and timing).
//
//   gshmrun -n 2 ./bench/latency [--only p,g,put_signal,fetch_add,rate]
//
// Ping-pongs (int p; putmem_signal of 8 B to 4 KiB): one thread per PE,
// ITERS round trips after WARM warm-up ones in one kernel (a quarter of
// that for putmem_signal above 8 B); one-way = kernel time / (2 x all trips).  g and long fetch_add: PE 0 alone, each call
// waits for its value; latency = kernel time / calls.  Which SM runs the
// thread moves these by up to 0.15 us (a word's L2 slice is near some SMs
// and far from others), so each is measured with the thread placed on 8 SMs
// spread over the GPU (the same SM number on both PEs) and reported as the
// median over the placements, with the lowest and highest; each placement
// is the median of 7 runs (CUDA events).  Every trip checks the value it
// waited for, and a wrong value ends the run.
// Message rates: PE 0's grid (one block per SM, 256 threads) issues long
// atomic fetch_add, long atomic_add or signal_op(ADD) to PE 1, each thread
// RATE_OPS times on a word of its own; rate = operations / kernel time;
// PE 1 checks every word's sum.  gshmem's build also times the ping-pongs
// in PTX on the same words and SMs (sys=hw): the hardware's floor for the
// same order.  One RESULT line per point.
#include <cstdint>

#include "bench_api.cuh"

#define RUNS 7
#define ITERS 20000
#define WARM 1000
#define RATE_THREADS 256
#define RATE_OPS 64

static int me;

__device__ int lat_wrong; // trips that saw a value they did not wait for

__global__ void p_pingpong(int *flag, int me_, unsigned sm, int base)
{
    if (!bench_placed(sm))
        return;
    const int peer = 1 - me_;
    for (int i = base + 1; i <= base + ITERS + WARM; i++) {
        if (me_ == 0) {
            A_(int_p)(flag, i, peer);
            A_(int_wait_until)(flag, CMP_EQ, i);
        } else {
            A_(int_wait_until)(flag, CMP_EQ, i);
            A_(int_p)(flag, i, peer);
        }
    }
}

// PE 0 chases pointers through PE 1's memory: each g reads the index of
// the next word, CHASE_STRIDE ints (128 B) apart, so no g can start before
// the one before it returned and none is served from a cache line an
// earlier one brought in.  After `iters` steps the chase is back at 0.
#define CHASE_STRIDE 32
__global__ void g_chase(const int *chase, int iters, unsigned sm)
{
    if (!bench_placed(sm))
        return;
    int idx = 0;
    for (int i = 0; i < iters; i++)
        idx = A_(int_g)(chase + (size_t)idx * CHASE_STRIDE, 1);
    if (idx != 0)
        atomicAdd(&lat_wrong, 1);
}

__global__ void chase_init(int *chase, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        chase[(size_t)i * CHASE_STRIDE] = (i + 1) % n;
}

// The data of trip i is (i, i+1, ...) in 8-byte words; the receiver checks
// its first and last word once the signal says it is there.  RAW (gshmem's
// build, 8 B): the hardware's floor for the same trip, the library's
// put_signal and wait written out by hand on the same words (the source's
// words stored to the peer's data as plain stores, then the signal with a
// PTX release store; acquire polls), with the same source writes and
// checks around them.
template <bool RAW>
__global__ void signal_pingpong(uint64_t *data, uint64_t *src, size_t bytes, uint64_t *sig,
                                uint64_t *peer_data, uint64_t *peer_sig, int me_, unsigned sm,
                                uint64_t base, int trips)
{
    if (!bench_placed(sm))
        return;
    const int peer = 1 - me_;
    const size_t words = bytes / 8;
    int wrong = 0;
    auto wait = [&](uint64_t i) {
        if (RAW)
            while (bench_ld_acquire(sig) != i) {
            }
        else
            A_(signal_wait_until)(sig, CMP_EQ, i);
    };
    for (uint64_t i = base + 1; i <= base + trips; i++) {
        if (me_ == 1) {
            wait(i);
            wrong += data[0] != i || data[words - 1] != i + words - 1;
        }
        src[0] = i;
        src[words - 1] = i + words - 1;
        if (RAW) {
            for (size_t k = 0; k < words; k++)
                peer_data[k] = src[k];
            asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(peer_sig), "l"(i) : "memory");
        } else {
            A_(putmem_signal)(data, src, bytes, sig, i, SIG_SET, peer);
        }
        if (me_ == 0) {
            wait(i);
            wrong += data[0] != i || data[words - 1] != i + words - 1;
        }
    }
    if (wrong != 0)
        atomicAdd(&lat_wrong, wrong);
}

__global__ void fetch_add_loop(long *word, unsigned sm)
{
    if (!bench_placed(sm))
        return;
    long prev = -1;
    int wrong = 0;
    for (int i = 0; i < ITERS; i++) {
        const long v = A_(long_atomic_fetch_add)(word, 1, 1);
        wrong += prev >= 0 && v != prev + 1; // only this thread adds to it
        prev = v;
    }
    if (wrong != 0)
        atomicAdd(&lat_wrong, wrong);
}

enum { RATE_FETCH_ADD, RATE_ADD, RATE_SIGNAL_ADD };
static const char *const rate_name[] = {"long_atomic_fetch_add", "long_atomic_add", "signal_op_add"};

template <int KIND>
__global__ void rate_kernel(long *words, uint64_t *sigs)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    long sum = 0;
    for (int i = 0; i < RATE_OPS; i++) {
        if (KIND == RATE_FETCH_ADD)
            sum += A_(long_atomic_fetch_add)(words + t, 1, 1);
        else if (KIND == RATE_ADD)
            A_(long_atomic_add)(words + t, 1, 1);
        else
            AX_(signal_op)(sigs + t, 1, SIG_ADD, 1);
    }
    if (sum == -1) // keeps the fetches
        words[t] = 0;
    A_(quiet)();
}

__global__ void rate_check(const long *words, const uint64_t *sigs, size_t n, long want, int *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if ((words != nullptr && words[i] != want) || (sigs != nullptr && sigs[i] != (uint64_t)want))
            atomicAdd(bad, 1);
}

#ifndef BENCH_NVSHMEM
// The hardware's floor for the ping-pongs: the same words, placements and
// trips in PTX, no library: a relaxed store to the peer, acquire polls
// (put_signal's: signal_pingpong<true>).
__global__ void raw_p_pingpong(int *flag, int *peer_flag, int me_, unsigned sm, int base)
{
    if (!bench_placed(sm))
        return;
    for (int i = base + 1; i <= base + ITERS + WARM; i++) {
        if (me_ == 0)
            asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(peer_flag), "r"(i) : "memory");
        while (bench_ld_acquire(flag) != (unsigned)i) {
        }
        if (me_ == 1)
            asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(peer_flag), "r"(i) : "memory");
    }
}

#endif

static void check_wrong(const char *what)
{
    int wrong = 0;
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaMemcpyFromSymbol(&wrong, lat_wrong, sizeof(wrong)));
    if (wrong != 0) {
        std::fprintf(stderr, "latency: pe %d: %s: %d trips saw wrong data\n", me, what, wrong);
        A_(global_exit)(1);
    }
    A_(barrier_all)();
}

// Runs kernel(blocks, sm, launch) over the placements on both PEs (or on
// PE 0 alone: the other only keeps the barriers in step) and prints one
// line: per = what one result covers (trips x 2, or calls).
template <typename K>
static void placed(const char *op, const char *sys, bool both, double per, const char *extra, K kernel)
{
    double med, lo, hi;
    bench_placements(RUNS, [](int) {}, [&](int blocks, unsigned sm, int launch) {
        if (both || me == 0)
            kernel(blocks, sm, launch);
    }, &med, &lo, &hi);
    if (me == 0) {
        std::printf("RESULT bench=latency sys=%s op=%s %s us=%.3f min=%.3f max=%.3f placements=%d\n", sys,
                    op, extra, med / per, lo / per, hi / per, BENCH_PLACES);
        std::fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    me = bench_start("latency");
    int dev, nsm;
    CUDA(cudaGetDevice(&dev));
    CUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
    const size_t max_msg = 4096, rate_n = (size_t)nsm * RATE_THREADS;
    int *flag = (int *)A_(calloc)(1, sizeof(int));
    int *chase = (int *)A_(calloc)((size_t)ITERS * CHASE_STRIDE, sizeof(int));
    uint64_t *data = (uint64_t *)A_(calloc)(1, max_msg), *sig = (uint64_t *)A_(calloc)(1, 8);
    uint64_t *sigs = (uint64_t *)A_(calloc)(rate_n, sizeof(uint64_t));
    long *word = (long *)A_(calloc)(1, sizeof(long)), *words = (long *)A_(calloc)(rate_n, sizeof(long));
    uint64_t *src;
    int *bad;
    CUDA(cudaMalloc(&src, max_msg));
    CUDA(cudaMalloc(&bad, sizeof(int)));
    if (me == 0)
        bench_header("latency", "one-way us = time / (2 x round trips); g, fetch_add: us per call; "
                                "rates: operations per second from PE 0's grid");
    const double trips = 2.0 * (ITERS + WARM);
    if (bench_pick(argc, argv, "--only", "p")) {
        placed("int_p_pingpong", SYS, true, trips, "bytes=4", [&](int blocks, unsigned sm, int launch) {
            p_pingpong<<<blocks, 1>>>(flag, me, sm, launch * (ITERS + WARM));
        });
#ifndef BENCH_NVSHMEM
        int *peer_flag = (int *)A_(ptr)(flag, 1 - me);
        placed("int_p_pingpong", "hw", true, trips, "bytes=4", [&](int blocks, unsigned sm, int launch) {
            raw_p_pingpong<<<blocks, 1>>>(flag, peer_flag, me, sm, launch * (ITERS + WARM));
        });
#endif
    }
    if (bench_pick(argc, argv, "--only", "g")) {
        chase_init<<<64, 256>>>(chase, ITERS);
        CUDA(cudaDeviceSynchronize());
        A_(barrier_all)();
        placed("int_g", SYS, false, ITERS, "bytes=4", [&](int blocks, unsigned sm, int) {
            g_chase<<<blocks, 1>>>(chase, ITERS, sm);
        });
        check_wrong("int_g");
    }
    if (bench_pick(argc, argv, "--only", "put_signal")) {
        uint64_t base = 0;
        for (size_t bytes = 8; bytes <= max_msg; bytes *= 8) {
            // 8 B is the target's point: the full count; the larger sizes a quarter
            const int n = bytes == 8 ? ITERS + WARM : (ITERS + WARM) / 4;
            char extra[32];
            std::snprintf(extra, sizeof(extra), "bytes=%zu", bytes);
            placed("putmem_signal_pingpong", SYS, true, 2.0 * n, extra, [&](int blocks, unsigned sm, int) {
                signal_pingpong<false><<<blocks, 1>>>(data, src, bytes, sig, nullptr, nullptr, me, sm,
                                                      base, n);
                base += n;
            });
            check_wrong("putmem_signal_pingpong");
        }
#ifndef BENCH_NVSHMEM
        uint64_t *peer_data = (uint64_t *)A_(ptr)(data, 1 - me), *peer_sig = (uint64_t *)A_(ptr)(sig, 1 - me);
        placed("putmem_signal_pingpong", "hw", true, trips, "bytes=8", [&](int blocks, unsigned sm, int) {
            signal_pingpong<true><<<blocks, 1>>>(data, src, 8, sig, peer_data, peer_sig, me, sm, base,
                                                 ITERS + WARM);
            base += ITERS + WARM;
        });
        check_wrong("putmem_signal_pingpong (PTX floor)");
#endif
    }
    if (bench_pick(argc, argv, "--only", "fetch_add")) {
        placed("long_atomic_fetch_add", SYS, false, ITERS, "bytes=8", [&](int blocks, unsigned sm, int) {
            fetch_add_loop<<<blocks, 1>>>(word, sm);
        });
        check_wrong("long_atomic_fetch_add");
    }
    if (bench_pick(argc, argv, "--only", "rate")) {
        for (int kind = RATE_FETCH_ADD; kind <= RATE_SIGNAL_ADD; kind++) {
            // Each run adds RATE_OPS per word; PE 1 starts each from zero, once
            // PE 0's run before has ended (the barrier).
            const double us = bench_median_us(RUNS, [&](int) {
                A_(barrier_all)();
                CUDA(cudaMemset(words, 0, rate_n * sizeof(long)));
                CUDA(cudaMemset(sigs, 0, rate_n * sizeof(uint64_t)));
            }, [&](int) {
                if (me != 0)
                    return;
                if (kind == RATE_FETCH_ADD)
                    rate_kernel<RATE_FETCH_ADD><<<nsm, RATE_THREADS>>>(words, sigs);
                else if (kind == RATE_ADD)
                    rate_kernel<RATE_ADD><<<nsm, RATE_THREADS>>>(words, sigs);
                else
                    rate_kernel<RATE_SIGNAL_ADD><<<nsm, RATE_THREADS>>>(words, sigs);
            });
            CUDA(cudaGetLastError());
            CUDA(cudaDeviceSynchronize());
            A_(barrier_all)();
            if (me == 1) {
                CUDA(cudaMemset(bad, 0, sizeof(int)));
                rate_check<<<64, 256>>>(kind == RATE_SIGNAL_ADD ? nullptr : words,
                                        kind == RATE_SIGNAL_ADD ? sigs : nullptr, rate_n, RATE_OPS, bad);
                int h = 0;
                CUDA(cudaMemcpy(&h, bad, sizeof(int), cudaMemcpyDeviceToHost));
                if (h != 0) {
                    std::fprintf(stderr, "latency: %s rate: %d of %zu words have the wrong sum\n",
                                 rate_name[kind], h, rate_n);
                    A_(global_exit)(1);
                }
            }
            A_(barrier_all)();
            if (me == 0) {
                std::printf("RESULT bench=latency sys=%s op=%s_rate blocks=%d threads=%d ops=%zu us=%.2f "
                            "Mops=%.2f\n", SYS, rate_name[kind], nsm, RATE_THREADS, rate_n * RATE_OPS, us,
                            rate_n * RATE_OPS / us);
                std::fflush(stdout);
            }
        }
    }
    A_(barrier_all)();
    CUDA(cudaFree(src));
    A_(finalize)();
    return 0;
}
