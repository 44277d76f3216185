// on_stream: host-initiated, stream-ordered communication between PE 0 and
// PE 1 (two GPUs): putmem_on_stream bandwidth and putmem_signal_on_stream
// ping-pong latency.  Built for NVSHMEM too (bench/nvshmem/on_stream_nvshmem.cu).
//
//   gshmrun -n 2 ./bench/on_stream [--max 268435456]
//
// Bandwidth: PE 0 enqueues `iters` puts of `bytes` back to back on one
// stream (256 MiB in all, 5 to 1000 puts); GB/s = bytes one side moved /
// time between two events around them (1e9 B/s), median of 7 runs after a
// warm-up.  Next to it (gshmem's build): cudaMemcpyPeerAsync between two
// cudaMalloc buffers of PE 0's process on the same two GPUs, the copy
// engines' reference.  PE 1 checks every size's data.  Up to GATED_MAX
// bytes puts of the same size are also timed behind a gate (a kernel that waits for
// the host: GATED_CALLS calls enqueued before it opens), so that the time
// is the GPU's alone and not the host's enqueueing (op=
// putmem_on_stream_gated; us per call; gate=deadline where the gate opened
// itself because enqueueing waited for the GPU).  A small copy's time
// depends on where its source lies (docs/device-api.md), so the gated calls
// take their source and destination in turn from GATED_PLACES places
// GATED_SPREAD bytes apart, each as often: the figure is then an average
// over places, and where each library's allocator put the buffers weighs
// less.  PE 1 checks each place's data too.
// Latency: PE 0 puts with a signal and its stream waits for PE 1's reply,
// which PE 1's stream sends once the signal is there; TRIPS round trips are
// enqueued behind a gate (a kernel that waits for the host), after a first
// trip that lines the two streams up, so the time is the GPUs' alone;
// one-way = time / (2 x TRIPS), median of 7 runs.  The last message's data
// is checked on both PEs.  One RESULT line per point.
#include <algorithm>

#include "bench_api.cuh"

#define RUNS 7
#define TRIPS 100
#define GATED_MAX 8192
#define GATED_CALLS 100
#define GATE_DEADLINE_MS 5000
#define GATED_PLACES 20 /* GATED_CALLS is a multiple */
#define GATED_SPREAD 32768

static int me;

template <typename F>
static double stream_median_us(cudaStream_t s, long iters, F op)
{
    return bench_stream_median_us(RUNS, s, [](int) {}, [&](int) {
        for (long i = 0; i < iters; i++)
            op();
    }, [](int) {}) / iters;
}

static void check(const char *what, const unsigned *p, size_t n, unsigned seed, int *bad, cudaStream_t s)
{
    const int h = bench_wrong_words(p, n, seed, bad, s);
    if (h != 0) {
        std::fprintf(stderr, "on_stream: pe %d: %s of %zu bytes: %d wrong words\n", me, what, n, h);
        A_(global_exit)(1);
    }
}

int main(int argc, char **argv)
{
    me = bench_start("on_stream");
    int ngpu = 0;
    CUDA(cudaGetDeviceCount(&ngpu));
    if (ngpu < 2) {
        std::fprintf(stderr, "on_stream: needs 2 GPUs (its reference copies between them)\n");
        A_(global_exit)(2);
    }
    const size_t max = bench_opt_size(argc, argv, "--max", (size_t)256 << 20);
    char *src = (char *)A_(malloc)(max), *dst = (char *)A_(malloc)(max);
    uint64_t *sig = (uint64_t *)A_(calloc)(1, sizeof(uint64_t));
    int *bad;
    CUDA(cudaMalloc(&bad, sizeof(int)));
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    fill<<<256, 256, 0, s>>>((unsigned *)src, max / 4, 31u + me);
    CUDA(cudaStreamSynchronize(s));
    if (me == 0)
        bench_header("on_stream", "GBps = bytes one side moved / time (1e9 B/s); one-way us = time / "
                                  "(2 x round trips); medians of 7 runs");
    void *ref_src = nullptr, *ref_dst = nullptr;
    int dev = 0, peer_dev = 0;
#ifndef BENCH_NVSHMEM
    if (me == 0) { // the copy engines' reference, between this process's buffers on both GPUs
        CUDA(cudaGetDevice(&dev));
        peer_dev = (dev + 1) % ngpu;
        CUDA(cudaMalloc(&ref_src, max));
        CUDA(cudaSetDevice(peer_dev));
        CUDA(cudaMalloc(&ref_dst, max));
        CUDA(cudaSetDevice(dev));
        cudaDeviceEnablePeerAccess(peer_dev, 0);
        cudaGetLastError();
    }
#endif
    bench_gate gated;
    const int places = max >= (size_t)GATED_PLACES * GATED_SPREAD ? GATED_PLACES : 1;
    static_assert(GATED_CALLS % GATED_PLACES == 0, "each place as often");
    for (size_t n = 8; n <= max; n = n * 2 > max && n < max ? max : n * 2) {
        const int checked = n <= GATED_MAX ? places : 1;
        for (int k = 0; k < checked; k++)
            CUDA(cudaMemsetAsync(dst + (size_t)k * GATED_SPREAD, 0xEE, n, s));
        CUDA(cudaStreamSynchronize(s));
        A_(barrier_all)();
        const long iters = (long)std::min<size_t>(1000, std::max<size_t>(5, ((size_t)256 << 20) / n));
        double us = 0, ref_us = 0;
        if (me == 0) {
            us = stream_median_us(s, iters, [&] { AX_(putmem_on_stream)(dst, src, n, 1, s); });
            AX_(quiet_on_stream)(s);
            if (n <= GATED_MAX) {
                bool late = false;
                const double g = bench_stream_median_us(RUNS, s, [&](int) {
                    late |= gated.host != nullptr && gated.timed_out(); // the run before
                    gated.close(s, GATE_DEADLINE_MS);
                }, [&](int) {
                    for (int i = 0; i < GATED_CALLS; i++) {
                        const size_t at = (size_t)(i % places) * GATED_SPREAD;
                        AX_(putmem_on_stream)(dst + at, src + at, n, 1, s);
                    }
                }, [&](int) { gated.open(); }) / GATED_CALLS;
                late |= gated.timed_out();
                AX_(quiet_on_stream)(s);
                std::printf("RESULT bench=on_stream sys=%s op=putmem_on_stream_gated dir=uni bytes=%zu "
                            "calls=%d places=%d us=%.3f GBps=%.3f%s\n", SYS, n, GATED_CALLS, places, g,
                            n / g * 1e-3, late ? " gate=deadline" : "");
                std::fflush(stdout);
            }
            if (ref_src != nullptr)
                ref_us = stream_median_us(s, iters, [&] {
                    CUDA(cudaMemcpyPeerAsync(ref_dst, peer_dev, ref_src, dev, n, s));
                });
            CUDA(cudaStreamSynchronize(s));
        }
        A_(barrier_all)();
        for (int k = 0; me == 1 && k < checked; k++) { /* place k holds the source's words from k x spread */
            const size_t at = (size_t)k * GATED_SPREAD;
            check("putmem_on_stream", (const unsigned *)(dst + at), n, 31u + (unsigned)(at / 4) * 2654435761u,
                  bad, s);
        }
        A_(barrier_all)();
        if (me == 0) {
            std::printf("RESULT bench=on_stream sys=%s op=putmem_on_stream dir=uni bytes=%zu iters=%ld us=%.3f "
                        "GBps=%.3f", SYS, n, iters, us, n / us * 1e-3);
            if (ref_us > 0)
                std::printf(" ce_GBps=%.3f", n / ref_us * 1e-3);
            std::printf("\n");
            std::fflush(stdout);
        }
    }
#ifndef BENCH_NVSHMEM
    if (me == 0) {
        CUDA(cudaFree(ref_src));
        CUDA(cudaSetDevice(peer_dev));
        CUDA(cudaFree(ref_dst));
        CUDA(cudaSetDevice(dev));
    }
#endif
    bench_gate gate;
    uint64_t round = 0;
    for (size_t n = 8; n <= 65536 && n <= max; n *= 8192) {
        auto trip = [&] {
            round++;
            if (me == 0) {
                AX_(putmem_signal_on_stream)(dst, src, n, sig, round, SIG_SET, 1, s);
                AX_(signal_wait_until_on_stream)(sig, CMP_EQ, round, s);
            } else {
                AX_(signal_wait_until_on_stream)(sig, CMP_EQ, round, s);
                AX_(putmem_signal_on_stream)(dst, src, n, sig, round, SIG_SET, 0, s);
            }
        };
        CUDA(cudaMemsetAsync(dst, 0xEE, n, s));
        const double us = bench_stream_median_us(RUNS, s, [&](int) {
            CUDA(cudaStreamSynchronize(s));
            A_(barrier_all)();
            gate.close(s);
            trip(); // lines the two streams up
        }, [&](int) {
            for (int i = 0; i < TRIPS; i++)
                trip();
        }, [&](int) { gate.open(); }) / (2.0 * TRIPS);
        A_(barrier_all)();
        check("putmem_signal_on_stream", (const unsigned *)dst, n, 31u + (1 - me), bad, s);
        A_(barrier_all)();
        if (me == 0) {
            std::printf("RESULT bench=on_stream sys=%s op=putmem_signal_on_stream_pingpong bytes=%zu trips=%d "
                        "us=%.3f\n", SYS, n, TRIPS, us);
            std::fflush(stdout);
        }
    }
    CUDA(cudaStreamSynchronize(s));
    A_(barrier_all)();
    CUDA(cudaStreamDestroy(s));
    A_(free)(dst);
    A_(free)(src);
    A_(finalize)();
    return 0;
}
