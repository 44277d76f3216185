// fifo_rtt: the FIFO round trip: one GPU thread pushes a quiet request, the
// proxy thread takes and completes it, and the thread sees the completion;
// repeated, timed on the GPU's clock.  Run with 2 PEs and
// GSHMEM_DISABLE_P2P=1 (the proxy runs where a transport is up).
//   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/fifo_rtt [trips] [nocache|parts|floor]
// nocache: producers read the proxy's `taken` on every push instead of
// their copy in GPU memory.  parts: what a round trip is made of (an
// atomic in GPU memory, a store to host memory with and without a
// system-scope fence, a load from host memory), the floor under any FIFO
// (a CPU thread echoing a GPU thread's store; with and without what a push
// adds), and round trips whose push publishes with or without a release
// and whose wait polls one load at a time or several in flight.  floor:
// the round trip and its floor with a push's claim (the echo through the
// FIFO's own slots and `completed`, and through fresh pinned memory),
// alternating over 7 rounds in this one process, and the median of each
// round's difference.  A trip that takes over 2 s ends the run with the
// trip's number (a lost request shows as that, not as a hang).
#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <gshmem.h>

#include "core/util.h"
#include "proxy/proxy.h"

__device__ unsigned long long gtime()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* push_ns: each push's own time (null: not timed, as the floor's echo is
 * not).  The wait is a device quiet's (gshmemi_fifo_wait_completed's looks
 * and backoff), with the clock read every 256 looks only, for the stall
 * check. */
__global__ void round_trips(gshmemi_fifo f, int to, int trips, unsigned long long *ns,
                            unsigned long long *push_ns, int *stalled)
{
    for (int i = 0; i < trips; i++) {
        const unsigned long long t0 = gtime();
        uint64_t n = gshmemi_fifo_push(&f, nullptr, 0, gshmemi_req_tag(GSHMEMI_REQ_QUIET, 0, 0, to));
        if (push_ns != nullptr)
            push_ns[i] = gtime() - t0;
        for (unsigned look = 0; gshmemi_fifo_completed(&f, look) <= n; look++) {
            if (look >= GSHMEMI_FIFO_DIRECT_LOOKS)
                GSHMEMI_FIFO_RELAX(look - GSHMEMI_FIFO_DIRECT_LOOKS);
            if (look % 256 == 255 && gtime() - t0 > 2000000000ull) {
                *stalled = i;
                return;
            }
        }
        ns[i] = gtime() - t0;
    }
}

// ---- parts -----------------------------------------------------------------

__device__ __forceinline__ uint64_t ld_relaxed_sys(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void spin_cycles(long long c)
{
    const long long t = clock64();
    while (clock64() - t < c)
        ;
}

enum { PART_ATOMIC, PART_STORE, PART_STORE_FENCE, PART_FENCE, PART_LOAD_ACQ, PART_LOAD_RELAXED, PART_N };
static const char *part_name[PART_N] = {
    "atomicAdd on a word of GPU memory", "relaxed store to pinned host memory",
    "relaxed store to pinned host memory, then fence.acq_rel.sys",
    "fence.acq_rel.sys alone (no store outstanding)",
    "ld.acquire.sys of pinned host memory", "ld.relaxed.sys of pinned host memory"};

__global__ void parts(int part, unsigned long long *gpu_word, uint64_t *host_word, int reps,
                      unsigned long long *ns)
{
    unsigned long long sink = 0;
    for (int i = 0; i < reps; i++) {
        const unsigned long long t0 = gtime();
        switch (part) {
        case PART_ATOMIC: sink += atomicAdd(gpu_word, 1); break;
        case PART_STORE:
            gshmemi_fifo_st_relaxed(host_word, (uint64_t)i);
            break;
        case PART_STORE_FENCE:
            gshmemi_fifo_st_relaxed(host_word, (uint64_t)i);
            asm volatile("fence.acq_rel.sys;" ::: "memory");
            break;
        case PART_FENCE: asm volatile("fence.acq_rel.sys;" ::: "memory"); break;
        case PART_LOAD_ACQ: sink += gshmemi_fifo_ld_acquire(host_word); break;
        case PART_LOAD_RELAXED: sink += ld_relaxed_sys(host_word); break;
        }
        /* the time includes the value's arrival */
        asm volatile("" ::"l"(sink));
        ns[i] = gtime() - t0 + (sink == ~0ull);
    }
}

/* Round trips of QUIET requests pushed by hand: published with a release
 * store (release = 1) or a relaxed one (a request without words needs no
 * order); completion polled one acquire load at a time (inflight = 0) or
 * with `inflight` relaxed loads in flight, one issued every `gap` cycles,
 * then (fence = 1) a fence.acq_rel.sys for the acquire. */
__global__ void rtt_variant(gshmemi_fifo f, int to, int trips, int release, int inflight, int gap,
                            int fence, unsigned long long *ns, int *stalled)
{
    for (int i = 0; i < trips; i++) {
        const unsigned long long t0 = gtime();
        const uint64_t n = atomicAdd((unsigned long long *)f.head, 1ull);
        if (n - gshmemi_fifo_ld_acquire(f.taken_cache) >= f.capacity) { /* as the library's push */
            uint64_t t;
            while (n - (t = gshmemi_fifo_ld_acquire(f.taken)) >= f.capacity)
                ;
            atomicMax((unsigned long long *)f.taken_cache, (unsigned long long)t);
        }
        const uint64_t ctrl = gshmemi_req_tag(GSHMEMI_REQ_QUIET, 0, 0, to) | gshmemi_fifo_parity(&f, n);
        uint64_t *c = &f.slots[n & (f.capacity - 1)].ctrl;
        if (release)
            gshmemi_fifo_st_release(c, ctrl);
        else
            gshmemi_fifo_st_relaxed(c, ctrl);
        if (inflight == 0) {
            while (gshmemi_fifo_ld_acquire(f.completed) <= n)
                if (gtime() - t0 > 2000000000ull) {
                    *stalled = i;
                    return;
                }
        } else {
            uint64_t v[4];
            for (int k = 0; k < inflight; k++) {
                v[k] = ld_relaxed_sys(f.completed);
                spin_cycles(gap);
            }
            for (int k = 0;; k = (k + 1) % inflight) {
                if (v[k] > n)
                    break;
                v[k] = ld_relaxed_sys(f.completed);
                spin_cycles(gap);
                if (gtime() - t0 > 2000000000ull) {
                    *stalled = i;
                    return;
                }
            }
            if (fence)
                asm volatile("fence.acq_rel.sys;" ::: "memory");
        }
        ns[i] = gtime() - t0;
    }
}

/* Where an echo's numbers go: the k-th (0 <= k < lines) of `lines`
 * cache lines from line `first` of a ring of `ring` lines at `ping`, the
 * next line each time (echo_next: no division on the timed path), and
 * back in *pong. */
struct echo_mem {
    uint64_t *ping;
    int ring, first, lines;
    uint64_t *pong;
};

__host__ __device__ inline uint64_t *echo_line(const echo_mem &m, int k)
{
    const int line = m.first + k;
    return m.ping + 8 * (line < m.ring ? line : line - m.ring);
}

__host__ __device__ inline int echo_next(const echo_mem &m, int k) { return k + 1 == m.lines ? 0 : k + 1; }

/* The floor under any FIFO: one GPU thread writes a number to host memory,
 * a CPU thread that spins on it writes it back (and demotes the line, as
 * the proxy does its `completed`), and the GPU thread polls
 * for it (copies = 1: one acquire load at a time; more: relaxed loads to
 * `copies` words a cache line apart in turn, `copies` in flight).  The
 * number goes to the next of m.lines cache lines each time, as requests go
 * to the next slot of a FIFO.  claim: the GPU first does what a push adds
 * (the claiming atomic and the look at taken's copy in GPU memory). */
__global__ void cpu_echo(echo_mem m, int copies, int trips, uint64_t *claim, unsigned long long *ns)
{
    for (int i = 1, k = 0; i <= trips; i++) {
        k = echo_next(m, k); // number i's line: i % lines
        const unsigned long long t0 = gtime();
        if (claim != nullptr) {
            const uint64_t n = atomicAdd((unsigned long long *)claim, 1ull);
            if (n - gshmemi_fifo_ld_acquire_gpu(claim + 16) > (1ull << 40))
                return;
        }
        gshmemi_fifo_st_relaxed(echo_line(m, k), (uint64_t)i);
        if (copies == 1) {
            while (gshmemi_fifo_ld_acquire(m.pong) != (uint64_t)i)
                ;
        } else {
            uint64_t v[8];
            for (int k = 0; k < copies; k++)
                v[k] = ld_relaxed_sys(m.pong + 8 * k);
            for (int k = 0; v[k] != (uint64_t)i; k = (k + 1) % copies)
                v[k] = ld_relaxed_sys(m.pong + 8 * k);
        }
        ns[i - 1] = gtime() - t0;
    }
}

static double median_after_warmup(const unsigned long long *ns, int n)
{
    std::vector<unsigned long long> v(ns + n / 10, ns + n);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2] * 1e-3;
}

enum { FIFO_LINES = 4096 }; /* the library's FIFO capacity */

/* cpu_echo's median: a CPU thread echoes the GPU thread's stores through
 * `lines` lines of fresh pinned memory, or through `in` (lines ignored;
 * one copy: its pong is one word, restored afterwards). */
static double echo_floor(int lines, int copies, int claim, int trips, unsigned long long *gpu_word,
                         unsigned long long *ns, const echo_mem *in = nullptr)
{
    assert(in == nullptr || copies == 1);
    echo_mem m = {nullptr, lines, 0, lines, nullptr};
    if (in != nullptr) {
        m = *in;
    } else {
        cudaMallocHost(&m.ping, 64 * lines);
        cudaMallocHost(&m.pong, 8 * 64);
    }
    for (int i = 0; i < m.lines; i++)
        *echo_line(m, i) = 0;
    const uint64_t pong_was = *m.pong;
    for (int k = 0; k < copies; k++)
        m.pong[8 * k] = 0;
    std::atomic<bool> stop{false};
    std::thread echo([&] {
        int k = echo_next(m, 0); // number 1's line
        for (uint64_t want = 1; !stop.load(std::memory_order_relaxed);) {
            if (__atomic_load_n(echo_line(m, k), __ATOMIC_ACQUIRE) != want)
                continue;
            for (int c = 0; c < copies; c++) { // published as the proxy publishes `completed`
                __atomic_store_n(m.pong + 8 * c, want, __ATOMIC_RELEASE);
                gshmemi_cache_demote(m.pong + 8 * c);
            }
            want++;
            k = echo_next(m, k);
        }
    });
    cudaMemset(gpu_word, 0, 256);
    cpu_echo<<<1, 1>>>(m, copies, trips, claim ? (uint64_t *)gpu_word : nullptr, ns);
    cudaDeviceSynchronize();
    stop = true;
    echo.join();
    if (in != nullptr) {
        *m.pong = pong_was;
    } else {
        cudaFreeHost(m.ping);
        cudaFreeHost(m.pong);
    }
    return median_after_warmup(ns, trips);
}

/* The FIFO's own memory as an echo's, while the proxy is idle and nothing
 * is pushed: the slots, clear of the one the idle proxy polls (next) by 64
 * (a batch's reach), the echo writing a slot's first word, which the proxy
 * reads only once the slot is published; and `completed`, where round
 * trips are polled, as the pong.  The proxy never reads `completed`. */
static echo_mem fifo_memory(const gshmemi_fifo &f)
{
    const uint64_t next = __atomic_load_n(f.completed, __ATOMIC_ACQUIRE);
    assert(__atomic_load_n(f.taken, __ATOMIC_ACQUIRE) == next); // idle: all taken are done
    const int ring = (int)f.capacity;
    return {(uint64_t *)f.slots, ring, (int)((next + 64) % f.capacity), ring - 64, f.completed};
}

/* The library's round trips (round_trips): the median, or -1 where a trip
 * stalled (its number in *stalled). */
static double library_rtt(const gshmemi_fifo &f, int trips, unsigned long long *ns,
                          unsigned long long *push_ns, int *stalled)
{
    *stalled = -1;
    round_trips<<<1, 1>>>(f, 1, trips, ns, push_ns, stalled);
    cudaDeviceSynchronize();
    return *stalled >= 0 ? -1 : median_after_warmup(ns, trips);
}

static int run_parts(gshmemi_fifo *f, int trips)
{
    unsigned long long *ns, *gpu_word;
    uint64_t *host_word;
    int *stalled;
    cudaMallocHost(&ns, trips * sizeof(*ns));
    cudaMallocHost(&host_word, 64);
    cudaMallocHost(&stalled, sizeof(*stalled));
    cudaMalloc(&gpu_word, 256);
    std::printf("# the parts of a FIFO round trip, medians of %d after warm-up, one GPU thread\n",
                trips - trips / 10);
    for (int p = 0; p < PART_N; p++) {
        parts<<<1, 1>>>(p, gpu_word, host_word, trips, ns);
        cudaDeviceSynchronize();
        std::printf("RESULT op=fifo_part part=%d median_us=%.3f  # %s\n", p,
                    median_after_warmup(ns, trips), part_name[p]);
    }
    {
        struct { int lines, copies, claim; } e[] = {
            {1, 1, 0}, {1, 2, 0}, {1, 4, 0}, {1, 1, 1}, {64, 1, 1}, {FIFO_LINES, 1, 0}, {FIFO_LINES, 1, 1}};
        for (auto &x : e)
            std::printf("RESULT op=gpu_cpu_echo lines=%d copies=%d claim=%d median_us=%.3f  # GPU "
                        "store to host memory, a CPU thread writes it back, the GPU polls\n",
                        x.lines, x.copies, x.claim,
                        echo_floor(x.lines, x.copies, x.claim, trips, gpu_word, ns));
    }
    struct { int release, inflight, gap, fence; } v[] = {
        {1, 0, 0, 0}, {0, 0, 0, 0}, {0, 4, 100, 0}, {0, 4, 200, 1}};
    for (auto &x : v) {
        *stalled = -1;
        rtt_variant<<<1, 1>>>(*f, 1, trips, x.release, x.inflight, x.gap, x.fence, ns, stalled);
        cudaDeviceSynchronize();
        if (*stalled >= 0) {
            std::printf("RESULT op=fifo_rtt_variant release=%d inflight=%d stalled_at_trip=%d\n",
                        x.release, x.inflight, *stalled);
            return 1;
        }
        std::printf("RESULT op=fifo_rtt_variant release=%d inflight=%d gap_cycles=%d fence=%d "
                    "median_us=%.3f\n",
                    x.release, x.inflight, x.gap, x.fence, median_after_warmup(ns, trips));
    }
    cudaFreeHost(ns);
    cudaFreeHost(host_word);
    cudaFreeHost(stalled);
    cudaFree(gpu_word);
    return 0;
}

/* The round trip against its floor, alternating, in this one process (the
 * host's drift moves both alike).  The floor is measured twice: through
 * the FIFO's own memory (fifo_memory) and through fresh pinned memory.  In
 * a virtual machine, one page of pinned memory reaches the GPU tenths of a
 * microsecond sooner than another (where the host placed it): the first
 * is the floor under this FIFO, the second shows by how much its memory
 * happened to differ. */
static int run_floor(const gshmemi_fifo &f, int trips)
{
    enum { ROUNDS = 7 };
    unsigned long long *ns, *gpu_word;
    int *stalled;
    cudaMallocHost(&ns, trips * sizeof(*ns));
    cudaMallocHost(&stalled, sizeof(*stalled));
    cudaMalloc(&gpu_word, 256);
    double rtt_us[ROUNDS], floor_us[ROUNDS], fresh_us[ROUNDS], above_us[ROUNDS], fresh_above_us[ROUNDS];
    int rc = 0;
    for (int r = 0; r < ROUNDS && rc == 0; r++) {
        // odd rounds measure the floors first, so that neither always goes first
        for (int k = 0; k < 2 && rc == 0; k++) {
            if ((k == 0) == (r % 2 == 1)) {
                const echo_mem own = fifo_memory(f);
                floor_us[r] = echo_floor(0, 1, 1, trips, gpu_word, ns, &own);
                fresh_us[r] = echo_floor(FIFO_LINES, 1, 1, trips, gpu_word, ns);
            } else if ((rtt_us[r] = library_rtt(f, trips, ns, nullptr, stalled)) < 0) {
                std::printf("RESULT op=fifo_round_trip stalled_at_trip=%d\n", *stalled);
                rc = 1;
            }
        }
        if (rc == 0) {
            above_us[r] = rtt_us[r] - floor_us[r];
            fresh_above_us[r] = rtt_us[r] - fresh_us[r];
            std::printf("# round %d: round trip %.3f us, floor %.3f us (in fresh memory %.3f)\n", r,
                        rtt_us[r], floor_us[r], fresh_us[r]);
        }
    }
    if (rc == 0) {
        for (double *v : {rtt_us, floor_us, fresh_us, above_us, fresh_above_us})
            std::sort(v, v + ROUNDS);
        std::printf("RESULT op=fifo_rtt_floor rounds=%d rtt_median_us=%.3f floor_median_us=%.3f "
                    "above_median_us=%.3f above_min_us=%.3f above_max_us=%.3f "
                    "fresh_floor_median_us=%.3f fresh_above_median_us=%.3f\n",
                    ROUNDS, rtt_us[ROUNDS / 2], floor_us[ROUNDS / 2], above_us[ROUNDS / 2], above_us[0],
                    above_us[ROUNDS - 1], fresh_us[ROUNDS / 2], fresh_above_us[ROUNDS / 2]);
    }
    cudaFreeHost(ns);
    cudaFreeHost(stalled);
    cudaFree(gpu_word);
    return rc;
}

int main(int argc, char **argv)
{
    const int trips = argc > 1 ? atoi(argv[1]) : 20000;
    const bool nocache = argc > 2 && std::strcmp(argv[2], "nocache") == 0;
    const bool want_parts = argc > 2 && std::strcmp(argv[2], "parts") == 0;
    const bool want_floor = argc > 2 && std::strcmp(argv[2], "floor") == 0;
    gshmem_init();
    int me = gshmem_my_pe(), rc = 0;
    gshmemi_fifo *f = gshmemi_proxy_fifo();
    if (f == nullptr) {
        if (me == 0)
            std::fprintf(stderr, "fifo_rtt: the proxy is not running (GSHMEM_DISABLE_P2P=1, 2 PEs)\n");
        gshmem_global_exit(2);
    }
    if (me == 0 && want_parts) {
        rc = run_parts(f, trips);
    } else if (me == 0 && want_floor) {
        rc = run_floor(*f, trips);
    } else if (me == 0) {
        unsigned long long *ns, *push_ns;
        int *stalled;
        cudaMallocHost(&ns, trips * sizeof(*ns));
        cudaMallocHost(&push_ns, trips * sizeof(*push_ns));
        cudaMallocHost(&stalled, sizeof(*stalled));
        gshmemi_fifo copy = *f;
        if (nocache)
            copy.taken_cache = nullptr;
        if (library_rtt(copy, trips, ns, push_ns, stalled) < 0) {
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
