// put_get_bw: device-initiated put and get bandwidth between PE 0 and PE 1
// (two GPUs), for every scope (thread, warp, block), blocking and nbi,
// one way and both ways, 8 B to 256 MiB.  Built for NVSHMEM too
// (bench/nvshmem/put_get_bw_nvshmem.cu: the same kernels and timing).
//
//   gshmrun -n 2 ./bench/put_get_bw [--op put,get] [--scope thread,warp,block]
//       [--mode blocking,nbi] [--dir uni,bi] [--blocks 32] [--threads 1024]
//       [--min 8] [--max 268435456] [--factor 2]
//
// One transfer of `bytes` is split into even, 16-byte aligned pieces over
// the grid's issuers (every thread, every warp or every block, by scope);
// each issuer puts or gets its piece with one call.  The kernel repeats the
// transfer `reps` times (256 MiB in all, between 1 and 1000 times) and ends
// with quiet.  uni: PE 0 puts to (gets from) PE 1; bi: both PEs at once, each
// to (from) the other.  GB/s = bytes PE 0 moved (bytes x reps) / kernel time,
// 1e9 B/s; in bi the two directions together move twice that.  Median of 7
// runs after a warm-up, timed with CUDA events.  The destination is
// poisoned before each point and checked after it: wrong data ends the run.
// gshmem's build also times two hardware references per point, on the same
// buffers: a plain kernel of the same grid copying 16-byte words through
// the same mapping (store_GBps; loads for get), and cudaMemcpyAsync over the
// mapping, done by the copy engines (ce_GBps).  One RESULT line per point.
#include <algorithm>
#include <map>
#include <tuple>

#include "bench_api.cuh"

#define RUNS 7

enum { SC_THREAD, SC_WARP, SC_BLOCK };
static const char *const scope_name[] = {"thread", "warp", "block"};

template <int SCOPE, bool NBI, bool PUT>
__device__ __forceinline__ void move(char *d, const char *s, size_t len, int pe)
{
    if constexpr (PUT && SCOPE == SC_THREAD) {
        if constexpr (NBI)
            A_(putmem_nbi)(d, s, len, pe);
        else
            A_(putmem)(d, s, len, pe);
    } else if constexpr (PUT && SCOPE == SC_WARP) {
        if constexpr (NBI)
            AX_(putmem_nbi_warp)(d, s, len, pe);
        else
            AX_(putmem_warp)(d, s, len, pe);
    } else if constexpr (PUT) {
        if constexpr (NBI)
            AX_(putmem_nbi_block)(d, s, len, pe);
        else
            AX_(putmem_block)(d, s, len, pe);
    } else if constexpr (SCOPE == SC_THREAD) {
        if constexpr (NBI)
            A_(getmem_nbi)(d, s, len, pe);
        else
            A_(getmem)(d, s, len, pe);
    } else if constexpr (SCOPE == SC_WARP) {
        if constexpr (NBI)
            AX_(getmem_nbi_warp)(d, s, len, pe);
        else
            AX_(getmem_warp)(d, s, len, pe);
    } else {
        if constexpr (NBI)
            AX_(getmem_nbi_block)(d, s, len, pe);
        else
            AX_(getmem_block)(d, s, len, pe);
    }
}

// The piece of issuer `id` among `count`: 16-byte aligned, the last ones
// may be shorter or empty.
__host__ __device__ inline size_t piece_bytes(size_t n, size_t count)
{
    return ((n + count - 1) / count + 15) / 16 * 16;
}

// Bounded for 1024-thread blocks: the compiler keeps to 64 registers.
template <int SCOPE, bool NBI, bool PUT>
__global__ void __launch_bounds__(1024) xfer(char *dst, const char *src, size_t n, int pe, int reps)
{
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t id = SCOPE == SC_THREAD ? tid : SCOPE == SC_WARP ? tid / 32 : blockIdx.x;
    const size_t count = SCOPE == SC_THREAD ? (size_t)gridDim.x * blockDim.x
                         : SCOPE == SC_WARP ? (size_t)gridDim.x * blockDim.x / 32
                                            : gridDim.x;
    const size_t per = piece_bytes(n, count), off = per * id;
    if (off < n) // the same for every thread of a warp or block
        for (int r = 0; r < reps; r++)
            move<SCOPE, NBI, PUT>(dst + off, src + off, per < n - off ? per : n - off, pe);
    A_(quiet)();
}

// The hardware reference: 16-byte words over the whole grid, the tail bytes
// by one thread, reps times.
__global__ void __launch_bounds__(1024) copy_words(char *dst, const char *src, size_t n, int reps)
{
    const size_t n16 = n / 16;
    for (int r = 0; r < reps; r++) {
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
             i += (size_t)gridDim.x * blockDim.x)
            ((uint4 *)dst)[i] = ((const uint4 *)src)[i];
        if (blockIdx.x == 0 && threadIdx.x == 0)
            for (size_t i = n16 * 16; i < n; i++)
                dst[i] = src[i];
    }
}

typedef void (*xfer_fn)(char *, const char *, size_t, int, int);

template <bool PUT>
static xfer_fn pick(int scope, bool nbi)
{
    if (scope == SC_THREAD)
        return nbi ? xfer<SC_THREAD, true, PUT> : xfer<SC_THREAD, false, PUT>;
    if (scope == SC_WARP)
        return nbi ? xfer<SC_WARP, true, PUT> : xfer<SC_WARP, false, PUT>;
    return nbi ? xfer<SC_BLOCK, true, PUT> : xfer<SC_BLOCK, false, PUT>;
}

struct bufs {
    char *sym_dst, *sym_src; // symmetric: put's target, get's source
    char *local, *local_dst; // this PE's own: put's source, get's target
    int *bad;
};

static int me, peer;

// Median microseconds of launch(), on the PEs that are active; the others
// only keep the barriers in step.
template <typename F>
static double timed(bool active, F launch)
{
    return bench_median_us(RUNS, [](int) {}, [&](int) {
        if (active)
            launch();
    });
}

static void check(const char *what, const unsigned *p, size_t n, unsigned seed, int *bad)
{
    const int h = bench_wrong_words(p, n, seed, bad, 0);
    if (h != 0) {
        std::fprintf(stderr, "put_get_bw: pe %d: %s of %zu bytes: %d wrong words\n", me, what, n, h);
        A_(global_exit)(1);
    }
}

static int reps_for(size_t n)
{
    return (int)std::min<size_t>(1000, std::max<size_t>(1, ((size_t)256 << 20) / n));
}

static void point(const bufs &b, bool put, int scope, bool nbi, bool bi, int blocks, int threads,
                  size_t n, std::map<std::tuple<bool, bool, size_t>, std::pair<double, double>> &refs)
{
    const bool active = me == 0 || bi;
    const int reps = reps_for(n);
    char *dst = put ? b.sym_dst : b.local_dst;
    CUDA(cudaMemset(dst, 0xEE, n));
    CUDA(cudaDeviceSynchronize());
    A_(barrier_all)();
    xfer_fn k = put ? pick<true>(scope, nbi) : pick<false>(scope, nbi);
    const double us = timed(active, [&] {
        if (put)
            k<<<blocks, threads>>>(b.sym_dst, b.local, n, peer, reps);
        else
            k<<<blocks, threads>>>(b.local_dst, b.sym_src, n, peer, reps);
    });
    CUDA(cudaGetLastError());
    A_(barrier_all)();
    char what[64];
    std::snprintf(what, sizeof(what), "%s %s %s %s", put ? "put" : "get", scope_name[scope],
                  nbi ? "nbi" : "blocking", bi ? "bi" : "uni");
    // put: the receiver holds its peer's `local`; get: the getter holds its peer's sym_src
    if (put && (bi || me == 1))
        check(what, (const unsigned *)b.sym_dst, n, 11u + peer, b.bad);
    if (!put && active)
        check(what, (const unsigned *)b.local_dst, n, 7u + peer, b.bad);
    A_(barrier_all)();
    double store_us = 0, ce_us = 0;
#ifndef BENCH_NVSHMEM
    auto key = std::make_tuple(put, bi, n);
    if (refs.count(key) == 0) {
        char *peer_dst = (char *)A_(ptr)(b.sym_dst, peer), *peer_src = (char *)A_(ptr)(b.sym_src, peer);
        store_us = timed(active, [&] {
            if (put)
                copy_words<<<blocks, threads>>>(peer_dst, b.local, n, reps);
            else
                copy_words<<<blocks, threads>>>(b.local_dst, peer_src, n, reps);
        });
        ce_us = timed(active, [&] {
            for (int r = 0; r < reps; r++)
                CUDA(put ? cudaMemcpyAsync(peer_dst, b.local, n, cudaMemcpyDefault)
                         : cudaMemcpyAsync(b.local_dst, peer_src, n, cudaMemcpyDefault));
        });
        A_(barrier_all)();
        refs[key] = std::make_pair(store_us, ce_us);
    }
    store_us = refs[key].first;
    ce_us = refs[key].second;
#else
    (void)refs;
#endif
    if (me == 0) {
        const double moved = (double)n * reps;
        std::printf("RESULT bench=put_get_bw sys=%s op=%s scope=%s mode=%s dir=%s blocks=%d threads=%d "
                    "bytes=%zu reps=%d us=%.2f GBps=%.3f",
                    SYS, put ? "put" : "get", scope_name[scope], nbi ? "nbi" : "blocking",
                    bi ? "bi" : "uni", blocks, threads, n, reps, us, moved / us * 1e-3);
        if (store_us > 0)
            std::printf(" store_GBps=%.3f ce_GBps=%.3f", moved / store_us * 1e-3, moved / ce_us * 1e-3);
        std::printf("\n");
        std::fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    me = bench_start("put_get_bw");
    peer = 1 - me;
    const int blocks = (int)bench_opt_size(argc, argv, "--blocks", 32);
    const int threads = (int)bench_opt_size(argc, argv, "--threads", 1024);
    const size_t lo = bench_opt_size(argc, argv, "--min", 8);
    const size_t hi = bench_opt_size(argc, argv, "--max", (size_t)256 << 20);
    const size_t factor = bench_opt_size(argc, argv, "--factor", 2);
    if (lo < 8 || lo % 8 != 0 || hi < lo || factor < 2 || threads % 32 != 0) {
        std::fprintf(stderr, "put_get_bw: --min must be a multiple of 8, --max >= --min, "
                             "--factor >= 2, --threads a multiple of 32\n");
        A_(global_exit)(2);
    }
    bufs b;
    b.sym_dst = (char *)A_(malloc)(hi);
    b.sym_src = (char *)A_(malloc)(hi);
    if (b.sym_dst == nullptr || b.sym_src == nullptr) {
        std::fprintf(stderr, "put_get_bw: pe %d: no symmetric memory for 2 x %zu bytes\n", me, hi);
        A_(global_exit)(1);
    }
    CUDA(cudaMalloc(&b.local, hi));
    CUDA(cudaMalloc(&b.local_dst, hi));
    CUDA(cudaMalloc(&b.bad, sizeof(int)));
    fill<<<256, 256>>>((unsigned *)b.local, hi / 4, 11u + me);
    fill<<<256, 256>>>((unsigned *)b.sym_src, hi / 4, 7u + me);
    CUDA(cudaDeviceSynchronize());
    if (me == 0)
        bench_header("put_get_bw", "GBps = bytes PE 0 moved / kernel time (1e9 B/s; in dir=bi each "
                                   "direction moves that much); medians of 7 runs");
    std::map<std::tuple<bool, bool, size_t>, std::pair<double, double>> refs;
    for (int op = 0; op < 2; op++) {
        if (!bench_pick(argc, argv, "--op", op == 0 ? "put" : "get"))
            continue;
        for (int bi = 0; bi < 2; bi++) {
            if (!bench_pick(argc, argv, "--dir", bi ? "bi" : "uni"))
                continue;
            for (int scope = SC_THREAD; scope <= SC_BLOCK; scope++) {
                if (!bench_pick(argc, argv, "--scope", scope_name[scope]))
                    continue;
                for (int nbi = 0; nbi < 2; nbi++) {
                    if (!bench_pick(argc, argv, "--mode", nbi ? "nbi" : "blocking"))
                        continue;
                    for (size_t n = lo; n <= hi; n = n * factor > hi && n < hi ? hi : n * factor)
                        point(b, op == 0, scope, nbi, bi, blocks, threads, n, refs);
                }
            }
        }
    }
    A_(barrier_all)();
    CUDA(cudaFree(b.local));
    CUDA(cudaFree(b.local_dst));
    A_(free)(b.sym_dst);
    A_(free)(b.sym_src);
    A_(finalize)();
    return 0;
}
