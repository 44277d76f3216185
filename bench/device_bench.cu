// device_bench: device-initiated communication between PE 0 and PE 1 (two
// GPUs), for the targets of the device-API issue.  The same measurement
// code is built against NVSHMEM by bench/nvshmem/device_bench_nvshmem.cu
// (which defines BENCH_NVSHMEM), so both run exactly the same kernels.
//
//   gshmrun -n 2 ./bench/device_bench
//
// Bandwidth: PE 0 moves the bytes (put: to PE 1; get: from PE 1) with
// putmem_nbi_block / getmem_nbi_block over B blocks of 1024 threads, the
// whole transfer repeated in one kernel until 64 MiB have moved, then quiet;
// GB/s = bytes one side moved / kernel time (CUDA events), median of 7 runs
// after a warm-up; the data is checked once.  Next to it: a plain
// store kernel over the same mapping (the hardware reference).
// Latency: one thread per PE, 20000 round trips after 1000 warm-up ones;
// one-way = kernel time / (2 x round trips); fetch_add: PE 0 alone.  Which
// SM runs the thread moves these by up to 0.15 us (a word's L2 slice is
// near some SMs and far from others), so each is measured with the thread
// placed on 8 SMs spread over the GPU (the same SM number on both PEs) and
// reported as the median over the placements, with the lowest and highest.
// Next to them (sys=hw, gshmem's build only): the same ping-pongs in PTX on
// the same words and SMs, the hardware's floor for that order.
// Barriers: 1 block of 32 threads (collective launch), 20000 barriers; and
// barrier_all_on_stream enqueued 2000 times.  One RESULT line per point.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <vector>

#ifdef BENCH_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>
#include "nvshmem/uid_file.h"
#define SYS "nvshmem"
#define A_(n) nvshmem_##n
#define AX_(n) nvshmemx_##n
#define CMP_EQ NVSHMEM_CMP_EQ
#define SIG_SET NVSHMEM_SIGNAL_SET
#else
#include <gshmem_device.cuh>
#define SYS "gshmem"
#define A_(n) gshmem_##n
#define AX_(n) gshmemx_##n
#define CMP_EQ GSHMEM_CMP_EQ
#define SIG_SET GSHMEM_SIGNAL_SET
#endif

#define BENCH_GLOBAL_EXIT A_(global_exit)
#define BENCH_BARRIER_ALL A_(barrier_all)
#include "bench_cuda.cuh"

#define RUNS 7

static int me;

#ifdef BENCH_NVSHMEM
// Launched by gshmrun: the unique id travels through a file.
static void bench_init(const char *uid_file)
{
    int rank = atoi(getenv("GSHMEM_LAUNCH_RANK")), size = atoi(getenv("GSHMEM_LAUNCH_SIZE"));
    int ngpu = 0;
    cudaGetDeviceCount(&ngpu);
    cudaSetDevice(rank % ngpu);
    nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (twin_uid_exchange(rank, uid_file, &uid) != 0) {
        std::fprintf(stderr, "rank %d: no NVSHMEM unique id through %s\n", rank, uid_file);
        exit(2);
    }
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, size, &uid, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    nvshmem_barrier_all();
    if (rank == 0)
        unlink(uid_file);
}
#else
static void bench_init(const char *) { gshmem_init(); }
#endif


// Each block moves its contiguous slice, reps times (one launch: its
// overhead is not the transfer's).
__global__ void put_kernel(char *dst, const char *src, size_t n, int pe, int reps)
{
    const size_t per = (n / gridDim.x + 15) / 16 * 16, off = per * blockIdx.x;
    for (int r = 0; r < reps; r++)
        if (off < n)
            AX_(putmem_nbi_block)(dst + off, src + off, per < n - off ? per : n - off, pe);
    A_(quiet)();
}

__global__ void get_kernel(char *dst, const char *src, size_t n, int pe, int reps)
{
    const size_t per = (n / gridDim.x + 15) / 16 * 16, off = per * blockIdx.x;
    for (int r = 0; r < reps; r++)
        if (off < n)
            AX_(getmem_nbi_block)(dst + off, src + off, per < n - off ? per : n - off, pe);
    A_(quiet)();
}

// The hardware reference: 16-byte accesses over the whole grid through the
// peer's mapping, reps times.
__global__ void store_kernel(uint4 *dst, const uint4 *src, size_t n16, int reps)
{
    for (int r = 0; r < reps; r++)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
            dst[i] = src[i];
}

template <typename F>
static double median_us(F launch)
{
    return bench_median_us(RUNS, [](int) {}, [&](int) { launch(); });
}

static void bandwidth(char *sym_dst, char *sym_src, char *local, int *bad)
{
    struct point { const char *op; size_t bytes; int blocks; } pts[] = {
        {"put", 64 << 10, 4},  {"put", 4 << 20, 32},  {"put", 16 << 20, 32},
        {"put", 64 << 20, 32}, {"put", 256 << 20, 32}, {"get", 256 << 20, 32},
    };
    for (const point &p : pts) {
        const bool put = p.op[0] == 'p';
        const int reps = p.bytes >= (64u << 20) ? 1 : (int)((64u << 20) / p.bytes);
        double us = 0, us_store = 0;
        fill<<<256, 256>>>((unsigned *)sym_src, p.bytes / 4, 7u + me);
        fill<<<256, 256>>>((unsigned *)local, p.bytes / 4, 11u + me);
        CUDA(cudaMemset(sym_dst, 0, p.bytes));
        CUDA(cudaDeviceSynchronize());
        A_(barrier_all)();
        if (me == 0) {
            if (put)
                us = median_us([&] { put_kernel<<<p.blocks, 1024>>>(sym_dst, local, p.bytes, 1, reps); });
            else
                us = median_us([&] { get_kernel<<<p.blocks, 1024>>>(local, sym_src, p.bytes, 1, reps); });
        } else {
            for (int r = -1; r < RUNS; r++)
                A_(barrier_all)();
        }
        A_(barrier_all)();
        // check: put -> PE 1's sym_dst holds PE 0's local; get -> PE 0's local holds PE 1's sym_src
        *bad = 0;
        if (put && me == 1)
            verify<<<256, 256>>>((const unsigned *)sym_dst, p.bytes / 4, 11u, bad);
        if (!put && me == 0)
            verify<<<256, 256>>>((const unsigned *)local, p.bytes / 4, 8u, bad);
        CUDA(cudaDeviceSynchronize());
        if (*bad != 0) {
            std::fprintf(stderr, "pe %d: %s of %zu bytes: %d wrong words\n", me, p.op, p.bytes, *bad);
            A_(global_exit)(1);
        }
        A_(barrier_all)();
        // the reference: plain stores (put) or loads (get) through the peer mapping
        if (me == 0) {
            char *peer_dst = (char *)A_(ptr)(sym_dst, 1), *peer_src = (char *)A_(ptr)(sym_src, 1);
            if (put)
                us_store = median_us([&] {
                    store_kernel<<<p.blocks, 1024>>>((uint4 *)peer_dst, (const uint4 *)local, p.bytes / 16, reps);
                });
            else
                us_store = median_us([&] {
                    store_kernel<<<p.blocks, 1024>>>((uint4 *)local, (const uint4 *)peer_src, p.bytes / 16, reps);
                });
            std::printf("RESULT sys=%s op=%s_nbi_block bytes=%zu blocks=%d threads=1024 reps=%d "
                        "GBps=%.1f store_kernel_GBps=%.1f\n", SYS, p.op, p.bytes, p.blocks, reps,
                        (double)p.bytes * reps / us * 1e-3, (double)p.bytes * reps / us_store * 1e-3);
            std::fflush(stdout);
        } else {
            for (int r = -1; r < RUNS; r++)
                A_(barrier_all)();
        }
        A_(barrier_all)();
    }
}

#define ITERS 20000
#define WARM 1000

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

__global__ void signal_pingpong(char *data, const char *src, uint64_t *sig, int me_, unsigned sm,
                                uint64_t base)
{
    if (!bench_placed(sm))
        return;
    const int peer = 1 - me_;
    for (uint64_t i = base + 1; i <= base + ITERS + WARM; i++) {
        if (me_ == 0) {
            A_(putmem_signal)(data, src, 8, sig, i, SIG_SET, peer);
            A_(signal_wait_until)(sig, CMP_EQ, i);
        } else {
            A_(signal_wait_until)(sig, CMP_EQ, i);
            A_(putmem_signal)(data, src, 8, sig, i, SIG_SET, peer);
        }
    }
}

__global__ void fetch_add_loop(long *word, long *out, unsigned sm)
{
    if (!bench_placed(sm))
        return;
    long s = 0;
    for (int i = 0; i < ITERS; i++)
        s += A_(long_atomic_fetch_add)(word, 1, 1);
    *out = s;
}

template <typename K>
static void placements(K kernel, double *med, double *lo, double *hi)
{
    bench_placements(RUNS, [](int) {}, kernel, med, lo, hi);
}

#ifndef BENCH_NVSHMEM
// The hardware reference for the ping-pongs: the same words, placements
// and trips in PTX, no library.  p's order: a relaxed store to the peer,
// acquire polls.  put_signal's: the data word, then the signal with a
// release store (the signal's order to its data costs the most).
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

__global__ void raw_signal_pingpong(uint64_t *peer_data, uint64_t *sig, uint64_t *peer_sig, int me_,
                                    unsigned sm, uint64_t base)
{
    if (!bench_placed(sm))
        return;
    for (uint64_t i = base + 1; i <= base + ITERS + WARM; i++) {
        if (me_ == 0) {
            asm volatile("st.global.u64 [%0], %1;" ::"l"(peer_data), "l"(i) : "memory");
            asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(peer_sig), "l"(i) : "memory");
        }
        while (bench_ld_acquire(sig) != i) {
        }
        if (me_ == 1) {
            asm volatile("st.global.u64 [%0], %1;" ::"l"(peer_data), "l"(i) : "memory");
            asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(peer_sig), "l"(i) : "memory");
        }
    }
}
#endif

__global__ void barrier_loop(int iters)
{
    for (int i = 0; i < iters; i++)
        A_(barrier_all)();
}

static void latency(int *flag, char *data, char *src, uint64_t *sig, long *word, long *out)
{
    double us, lo, hi;
    const double trips = 2.0 * (ITERS + WARM);
    placements([&](int blocks, unsigned sm, int launch) {
        p_pingpong<<<blocks, 1>>>(flag, me, sm, launch * (ITERS + WARM));
    }, &us, &lo, &hi);
    if (me == 0)
        std::printf("RESULT sys=%s op=int_p_pingpong one_way_us=%.3f min=%.3f max=%.3f (over %d SMs; "
                    "incl. %d warm-up trips)\n", SYS, us / trips, lo / trips, hi / trips, BENCH_PLACES, WARM);
    A_(barrier_all)();
    placements([&](int blocks, unsigned sm, int launch) {
        signal_pingpong<<<blocks, 1>>>(data, src, sig, me, sm, (uint64_t)launch * (ITERS + WARM));
    }, &us, &lo, &hi);
    if (me == 0)
        std::printf("RESULT sys=%s op=putmem_signal_8B_pingpong one_way_us=%.3f min=%.3f max=%.3f "
                    "(over %d SMs)\n", SYS, us / trips, lo / trips, hi / trips, BENCH_PLACES);
#ifndef BENCH_NVSHMEM
    int *peer_flag = (int *)A_(ptr)(flag, 1 - me);
    uint64_t *peer_data = (uint64_t *)A_(ptr)(data, 1 - me), *peer_sig = (uint64_t *)A_(ptr)(sig, 1 - me);
    A_(barrier_all)();
    placements([&](int blocks, unsigned sm, int launch) {
        raw_p_pingpong<<<blocks, 1>>>(flag, peer_flag, me, sm, launch * (ITERS + WARM));
    }, &us, &lo, &hi);
    if (me == 0)
        std::printf("RESULT sys=hw op=int_p_pingpong one_way_us=%.3f min=%.3f max=%.3f (same flag and "
                    "SMs, PTX: relaxed store, acquire polls)\n", us / trips, lo / trips, hi / trips);
    A_(barrier_all)();
    placements([&](int blocks, unsigned sm, int launch) {
        raw_signal_pingpong<<<blocks, 1>>>(peer_data, sig, peer_sig, me, sm,
                                           (uint64_t)launch * (ITERS + WARM));
    }, &us, &lo, &hi);
    if (me == 0)
        std::printf("RESULT sys=hw op=putmem_signal_8B_pingpong one_way_us=%.3f min=%.3f max=%.3f (same "
                    "words and SMs, PTX: data store, release store of the signal, acquire polls)\n",
                    us / trips, lo / trips, hi / trips);
#endif
    A_(barrier_all)();
    if (me == 0) {
        placements([&](int blocks, unsigned sm, int) { fetch_add_loop<<<blocks, 1>>>(word, out, sm); },
                   &us, &lo, &hi);
        std::printf("RESULT sys=%s op=long_atomic_fetch_add latency_us=%.3f min=%.3f max=%.3f "
                    "(over %d SMs)\n", SYS, us / ITERS, lo / ITERS, hi / ITERS, BENCH_PLACES);
    } else {
        for (int r = 0; r < BENCH_PLACES * (RUNS + 1); r++)
            A_(barrier_all)();
    }
    A_(barrier_all)();
    int iters = 20000;
    void *args[] = {&iters};
    us = median_us([&] {
        if (AX_(collective_launch)((const void *)barrier_loop, 1, 32, args, 0, 0) != 0)
            A_(global_exit)(1);
    });
    if (me == 0)
        std::printf("RESULT sys=%s op=device_barrier_all us=%.3f\n", SYS, us / iters);
    A_(barrier_all)();
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CUDA(cudaEventCreate(&a));
    CUDA(cudaEventCreate(&b));
    std::vector<double> t;
    for (int r = -1; r < RUNS; r++) {
        A_(barrier_all)();
        CUDA(cudaEventRecord(a, s));
        for (int i = 0; i < 2000; i++)
            AX_(barrier_all_on_stream)(s);
        CUDA(cudaEventRecord(b, s));
        CUDA(cudaEventSynchronize(b));
        float ms;
        CUDA(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0)
            t.push_back(ms * 1e3 / 2000);
    }
    std::sort(t.begin(), t.end());
    if (me == 0)
        std::printf("RESULT sys=%s op=barrier_all_on_stream us=%.3f\n", SYS, t[t.size() / 2]);
}

int main(int argc, char **argv)
{
    bench_init(argc > 1 ? argv[1] : "/tmp/device_bench.uid");
    me = A_(my_pe)();
    if (A_(n_pes)() != 2) {
        std::fprintf(stderr, "device_bench: run with 2 PEs\n");
        A_(global_exit)(2);
    }
    const size_t max = 256 << 20;
    char *sym_dst = (char *)A_(malloc)(max), *sym_src = (char *)A_(malloc)(max), *local;
    int *flag = (int *)A_(calloc)(1, sizeof(int)), *bad;
    char *data = (char *)A_(calloc)(1, 64);
    uint64_t *sig = (uint64_t *)A_(calloc)(1, sizeof(uint64_t));
    long *word = (long *)A_(calloc)(1, sizeof(long)), *out;
    CUDA(cudaMalloc(&local, max));
    CUDA(cudaMalloc(&out, sizeof(long)));
    CUDA(cudaMallocManaged(&bad, sizeof(int)));
    if (me == 0) {
        int dev;
        cudaDeviceProp prop;
        cudaGetDevice(&dev);
        cudaGetDeviceProperties(&prop, dev);
        const char *loading = std::getenv("CUDA_MODULE_LOADING");
        std::printf("# %s device_bench: PE 0 -> PE 1, %s; GB/s = bytes one side moved / time "
                    "(1e9 B/s); medians of %d runs; CUDA_MODULE_LOADING=%s\n", SYS, prop.name,
                    RUNS, loading != nullptr ? loading : "(unset: LAZY)");
    }
    bandwidth(sym_dst, sym_src, local, bad);
    latency(flag, data, local, sig, word, out);
    A_(barrier_all)();
    A_(finalize)();
    return 0;
}
