// Kernels behind host-side atomics and signals on GPU memory: one thread,
// system-scope atomics (the word may be a peer's, written by other GPUs and
// processes at the same time).
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

#include <gshmem/internal/device_state.h>

#include "gpu/gpu.h"
#include "gpu/stream_launch.cuh"

namespace {

// The word's old value; the new one as core/amo.h defines it, by
// compare-and-swap (a fetch is an atomic read).
template <typename T>
__device__ T amo(T *p, int op, T a, T b)
{
    if (op == GSHMEMI_AMO_FETCH)
        return atomicAdd_system(p, T(0));
    T old = *static_cast<volatile T *>(p);
    for (;;) {
        const T seen = atomicCAS_system(p, old, T(gshmemi_amo_next(op, old, a, b, sizeof(T))));
        if (seen == old)
            return old;
        old = seen;
    }
}

// A batch travels as the kernel's parameter (2 KiB of the 4 KiB allowed),
// so no buffer is shared between launches and a batch needs no wait.
struct amo_batch {
    gshmemi_amo_req ops[GSHMEMI_AMO_BATCH];
    int n;
};

// One thread, in order: a batch holds one peer's requests as it sent them.
__global__ void amo_kernel(const amo_batch batch, unsigned long long *results)
{
    gshmemi_wait_previous();
    for (int i = 0; i < batch.n; i++) {
        const gshmemi_amo_req &o = batch.ops[i];
        unsigned long long old;
        if (o.size == 4)
            old = amo<unsigned>(static_cast<unsigned *>(o.addr), o.op, unsigned(o.a), unsigned(o.b));
        else
            old = amo<unsigned long long>(static_cast<unsigned long long *>(o.addr), o.op, o.a, o.b);
        if (results != nullptr)
            results[i] = old;
    }
    __threadfence_system();
}

__global__ void signal_kernel(unsigned long long *addr, unsigned long long value, int op)
{
    gshmemi_wait_previous();
    // Release: what this stream wrote before is visible before the signal.
    __threadfence_system();
    if (op == 0)
        atomicExch_system(addr, value);
    else
        atomicAdd_system(addr, value);
}

__device__ unsigned long long load_acquire(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ bool compare(unsigned long long v, int cmp, unsigned long long ref)
{
    switch (cmp) {
    case 0: return v == ref;  // GSHMEM_CMP_EQ
    case 1: return v != ref;  // NE
    case 2: return v > ref;   // GT
    case 3: return v <= ref;  // LE
    case 4: return v < ref;   // LT
    case 5: return v >= ref;  // GE
    }
    return false;
}

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The stream waits for a signal word; past the deadline the job's GPU work
// stops with a message rather than hanging for ever.
// A small stream-ordered put with its signal, in one launch: a copy-engine
// copy and then a signal kernel cost two launches, and the copy engine's
// start is most of a small put's time.  The block copies, meets, and one
// thread releases the signal at system scope (the block's stores, seen
// through the barrier, land before it).
__global__ void put_signal_kernel(char *dst, const char *src, size_t n, unsigned long long *sig,
                                  unsigned long long value, int op)
{
    gshmemi_wait_previous();
    if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0) {
        for (size_t i = threadIdx.x; i < n / 16; i += blockDim.x)
            reinterpret_cast<uint4 *>(dst)[i] = reinterpret_cast<const uint4 *>(src)[i];
        for (size_t i = n / 16 * 16 + threadIdx.x; i < n; i += blockDim.x)
            dst[i] = src[i];
    } else {
        for (size_t i = threadIdx.x; i < n; i += blockDim.x)
            dst[i] = src[i];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        if (op == 0)
            atomicExch_system(sig, value);
        else
            atomicAdd_system(sig, value);
    }
}

__global__ void wait_kernel(const unsigned long long *addr, int cmp, unsigned long long value,
                            unsigned long long timeout_ns, int pe)
{
    gshmemi_wait_previous();
    const unsigned long long start = now_ns();
    unsigned long long v;
    while (!compare(v = load_acquire(addr), cmp, value)) {
        if (timeout_ns != 0 && now_ns() - start > timeout_ns) {
            printf("gshmem pe %d: gshmemx_signal_wait_until_on_stream timed out (GSHMEM_TIMEOUT) "
                   "waiting at %p for cmp %d value %llu; it holds %llu\n",
                   pe, (const void *)addr, cmp, value, v);
            __trap();
        }
        __nanosleep(128);
    }
}

// Dissemination barrier among all PEs, one thread.  The partners' round
// counters come as mapped here in the launch's parameter, so the first
// store depends on no load; this PE's counters and barrier count live in
// its internal area of the GPU heap, so a graph replaying the kernel keeps
// counting.  ORDERED (barrier_all): each arrival is a release, so this
// PE's earlier work and what it learnt in earlier rounds are visible
// before the partner counts it; sync_all's arrivals are relaxed (it
// completes nothing, and a round still follows the wait before it).
template <bool ORDERED>
__global__ void barrier_kernel(const gshmemi_stream_barrier b)
{
    gshmemi_wait_previous();
    unsigned long long *mine = reinterpret_cast<unsigned long long *>(b.mine);
    unsigned long long target = 0;
    for (int r = 0; r < b.rounds; r++) {
        unsigned long long *theirs = reinterpret_cast<unsigned long long *>(b.theirs[r]);
        if (ORDERED)
            asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(theirs) : "memory");
        else
            asm volatile("red.relaxed.sys.global.add.u64 [%0], 1;" ::"l"(theirs) : "memory");
        if (r == 0) // read while the first signal is in flight
            mine[GSHMEMI_DEV_AREA_KBAR_EPOCH] = target = mine[GSHMEMI_DEV_AREA_KBAR_EPOCH] + 1;
        const unsigned long long start = now_ns();
        unsigned long long v;
        for (unsigned spins = 1;
             (v = load_acquire(&mine[GSHMEMI_DEV_AREA_KBAR_ROUNDS + r])) < target; spins++) {
            if (b.timeout_ns != 0 && (spins & 1023) == 0 && now_ns() - start > b.timeout_ns) {
                printf("gshmem pe %d: gshmemx_%s_on_stream timed out (GSHMEM_TIMEOUT) "
                       "in round %d waiting for pe %d: count %llu of %llu\n",
                       b.me, ORDERED ? "barrier_all" : "sync_all", r,
                       (b.me - (1 << r) % b.n + b.n) % b.n, v, target);
                __trap();
            }
        }
    }
}

__global__ void fence_kernel()
{
    gshmemi_wait_previous();
    __threadfence_system();
}

} // namespace

extern "C" int gshmemi_launch_wait(void *stream, const uint64_t *addr, int cmp, uint64_t value,
                                   uint64_t timeout_ns, int pe)
{
    return gshmemi_stream_launch(wait_kernel, 1, 1, stream,
                                 reinterpret_cast<const unsigned long long *>(addr), cmp, value,
                                 timeout_ns, pe);
}

extern "C" int gshmemi_launch_barrier(void *stream, const struct gshmemi_stream_barrier *b,
                                      int ordered)
{
    return gshmemi_stream_launch(ordered ? barrier_kernel<true> : barrier_kernel<false>, 1, 1,
                                 stream, *b);
}

extern "C" int gshmemi_launch_fence(void *stream)
{
    return gshmemi_stream_launch(fence_kernel, 1, 1, stream);
}

extern "C" int gshmemi_launch_amos(void *stream, const gshmemi_amo_req *ops, size_t n,
                                   uint64_t *results)
{
    amo_batch batch;
    batch.n = static_cast<int>(n);
    for (size_t i = 0; i < n; i++)
        batch.ops[i] = ops[i];
    return gshmemi_stream_launch(amo_kernel, 1, 1, stream, batch,
                                 reinterpret_cast<unsigned long long *>(results));
}

extern "C" int gshmemi_launch_signal(void *stream, uint64_t *addr, uint64_t value, int op)
{
    return gshmemi_stream_launch(signal_kernel, 1, 1, stream,
                                 reinterpret_cast<unsigned long long *>(addr),
                                 static_cast<unsigned long long>(value), op);
}

extern "C" int gshmemi_launch_put_signal(void *stream, void *dst, const void *src, size_t n,
                                         uint64_t *sig, uint64_t value, int op)
{
    // a warp per 512 bytes (one 16-byte word per thread), at most 1024 threads
    const size_t warps = (n + 511) / 512;
    const unsigned threads = warps >= 32 ? 1024u : 32u * static_cast<unsigned>(warps < 1 ? 1 : warps);
    return gshmemi_stream_launch(put_signal_kernel, 1, threads, stream, static_cast<char *>(dst),
                                 static_cast<const char *>(src), n,
                                 reinterpret_cast<unsigned long long *>(sig),
                                 static_cast<unsigned long long>(value), op);
}

// Whether gshmem's kernels were built for compute capability 9.0 or later
// and so begin with griddepcontrol.wait (gpu/stream_launch.cuh): a build
// for an older architecture runs on Hopper from PTX that lacks it, and must
// not be launched to overlap the kernel before it.
extern "C" int gshmemi_kernels_wait_previous(void)
{
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(fence_kernel)) == cudaSuccess &&
           a.ptxVersion >= 90;
}

// Loads every kernel above now.  With lazy loading (the default since CUDA
// 12.2) a kernel's first launch loads its module, and that may wait for the
// kernels running on the GPU to finish: when one of those is waiting for
// this very launch (a grid of application threads spinning on a signal or
// an atomic that one of these kernels applies), the job would hang.
extern "C" int gshmemi_preload_kernels(void)
{
    cudaFuncAttributes a;
    const void *kernels[] = {
        reinterpret_cast<const void *>(amo_kernel),    reinterpret_cast<const void *>(signal_kernel),
        reinterpret_cast<const void *>(wait_kernel),   reinterpret_cast<const void *>(barrier_kernel<true>),
        reinterpret_cast<const void *>(barrier_kernel<false>),
        reinterpret_cast<const void *>(fence_kernel),  reinterpret_cast<const void *>(put_signal_kernel),
    };
    for (const void *k : kernels) {
        cudaError_t err = cudaFuncGetAttributes(&a, k);
        if (err != cudaSuccess)
            return static_cast<int>(err);
    }
    return 0;
}
