// sync_bench: synchronisation between PE 0 and PE 1 (two GPUs): the device
// barrier_all and sync_all, and barrier_all_on_stream / sync_all_on_stream.
// Built for NVSHMEM too (bench/nvshmem/sync_bench_nvshmem.cu).
//
//   gshmrun -n 2 ./bench/sync_bench
//
// Device: one block of 32 threads per PE, launched with collective_launch,
// runs DEV_ITERS barriers; us = kernel time / DEV_ITERS.  On stream:
// STREAM_ITERS calls enqueued behind a gate (a kernel that waits for the
// host), so the time between the two events is the GPUs' alone, not the
// host's enqueueing; a first call before the first event lines the PEs'
// streams up; us = time / STREAM_ITERS.  Each is the median of 7 runs
// (CUDA events) after a warm-up.  Checked once, untimed: a device
// barrier_all that let a thread through before its peer's atomic before the
// barrier had landed ends the run.  Beside them, the floor of anything a
// stream runs as a kernel: STREAM_ITERS empty one-thread kernels behind the
// same gate (op=empty_kernel_on_stream), and the same launched with
// programmatic dependent launch, each waiting for the one before
// (op=empty_kernel_pdl_on_stream: the floor of a kernel launched as gshmem
// launches its stream kernels on Hopper).  One RESULT line per point.
#include "bench_api.cuh"

#define RUNS 7
#define DEV_ITERS 20000
#define STREAM_ITERS 100

static int me;

__global__ void empty_kernel() {}
__global__ void empty_kernel_pdl()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

static void launch_pdl(cudaStream_t s)
{
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(1), c.blockDim = dim3(1), c.stream = s, c.attrs = &a, c.numAttrs = 1;
    CUDA(cudaLaunchKernelEx(&c, empty_kernel_pdl));
}

template <bool SYNC>
__global__ void barrier_loop(int iters)
{
    for (int i = 0; i < iters; i++) {
        if (SYNC)
            A_(sync_all)();
        else
            A_(barrier_all)();
    }
}

// The check, untimed: before each barrier thread 0 adds one to the peer's
// counter; barrier_all completes it, so after barrier i the own counter is
// at least base + i.
__global__ void barrier_check(int iters, int *count, int base, int *wrong)
{
    for (int i = 1; i <= iters; i++) {
        if (threadIdx.x == 0)
            A_(int_atomic_add)(count, 1, 1 - A_(my_pe)());
        A_(barrier_all)();
        if (threadIdx.x == 0 && A_(int_atomic_fetch)(count, A_(my_pe)()) < base + i)
            atomicAdd(wrong, 1);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    me = bench_start("sync_bench");
    int *count = (int *)A_(calloc)(1, sizeof(int)), *wrong;
    CUDA(cudaMalloc(&wrong, sizeof(int)));
    CUDA(cudaMemset(wrong, 0, sizeof(int)));
    if (me == 0)
        bench_header("sync_bench", "us per barrier; device: 1 block of 32 threads per PE; on stream: "
                                   "100 calls behind a gate; medians of 7 runs");
    for (int sync = 0; sync < 2; sync++) {
        int iters = DEV_ITERS;
        const double us = bench_median_us(RUNS, [](int) {}, [&](int) {
            void *args[] = {&iters};
            const void *k = sync ? (const void *)barrier_loop<true> : (const void *)barrier_loop<false>;
            if (AX_(collective_launch)(k, 1, 32, args, 0, 0) != 0) {
                std::fprintf(stderr, "sync_bench: pe %d: collective launch failed\n", me);
                A_(global_exit)(1);
            }
        });
        CUDA(cudaDeviceSynchronize());
        if (me == 0) {
            std::printf("RESULT bench=sync sys=%s op=device_%s blocks=1 threads=32 us=%.3f\n", SYS,
                        sync ? "sync_all" : "barrier_all", us / iters);
            std::fflush(stdout);
        }
        A_(barrier_all)();
    }
    {
        int iters = 1000, base = 0;
        void *args[] = {&iters, &count, &base, &wrong};
        if (AX_(collective_launch)((const void *)barrier_check, 1, 32, args, 0, 0) != 0)
            A_(global_exit)(1);
        CUDA(cudaDeviceSynchronize());
        int h = 0;
        CUDA(cudaMemcpy(&h, wrong, sizeof(int), cudaMemcpyDeviceToHost));
        if (h != 0) {
            std::fprintf(stderr, "sync_bench: pe %d: %d device barriers let a thread through early\n",
                         me, h);
            A_(global_exit)(1);
        }
        A_(barrier_all)();
    }
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    bench_gate gate;
    static const char *const stream_op[] = {"barrier_all", "sync_all", "empty_kernel",
                                            "empty_kernel_pdl"};
    int dev = 0, major = 0;
    CUDA(cudaGetDevice(&dev));
    CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    for (int op = 0; op < (major >= 9 ? 4 : 3); op++) {
        auto call = [&] {
            if (op == 1)
                AX_(sync_all_on_stream)(s);
            else if (op == 0)
                AX_(barrier_all_on_stream)(s);
            else if (op == 2)
                empty_kernel<<<1, 1, 0, s>>>();
            else
                launch_pdl(s);
        };
        const double us = bench_stream_median_us(RUNS, s, [&](int) {
            CUDA(cudaStreamSynchronize(s));
            A_(barrier_all)();
            gate.close(s);
            call(); // lines the two PEs' streams up
        }, [&](int) {
            for (int i = 0; i < STREAM_ITERS; i++)
                call();
        }, [&](int) { gate.open(); }) / STREAM_ITERS;
        if (me == 0) {
            std::printf("RESULT bench=sync sys=%s op=%s_on_stream calls=%d us=%.3f\n", SYS,
                        stream_op[op], STREAM_ITERS, us);
            std::fflush(stdout);
        }
    }
    CUDA(cudaStreamSynchronize(s));
    A_(barrier_all)();
    CUDA(cudaStreamDestroy(s));
    A_(finalize)();
    return 0;
}
