/* gshmem device API, part of gshmem_device.cuh: a call's checks (PE,
 * heap, alignment; GSHMEM_DEBUG_CHECKS), the failure that stops the job
 * with a message, the address of a PE's object as mapped here, and the
 * deadline of waits (GSHMEM_TIMEOUT). */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/checks.cuh>"
#endif
#ifndef GSHMEM_DEVICE_CHECKS_CUH
#define GSHMEM_DEVICE_CHECKS_CUH

namespace {

/* The first failing thread of the PE records why (host-mapped memory), the
 * PE's watch thread ends the job with that message; this thread stops.
 * Another thread failing meanwhile waits until the record is complete:
 * its trap would end the kernel, the first thread with it, before the
 * record's `ready` reached the host, and the job would end with no
 * message.  A running claimer completes the record in microseconds; the
 * bound (about a second) is for one that is not scheduled again while
 * the waiters hold the SMs (a kernel of lower priority, preempted), where
 * the waiters then trap as before.  (Kept small: every kernel calls this
 * function, and ptxas fits its callers' registers around it.) */
__device__ __noinline__ void gshmemi_fail(const char *call, int reason, int pe, const void *addr,
                                          uint64_t size, int cmp = 0, uint64_t expected = 0,
                                          uint64_t found = 0)
{
    struct gshmemi_device_failure *f = gshmemi_dstate.failure;
    if (f != nullptr && atomicCAS_system(&f->claimed, 0u, 1u) == 0u) {
        f->reason = reason;
        f->pe = pe;
        f->block[0] = blockIdx.x, f->block[1] = blockIdx.y, f->block[2] = blockIdx.z;
        f->thread[0] = threadIdx.x, f->thread[1] = threadIdx.y, f->thread[2] = threadIdx.z;
        f->addr = reinterpret_cast<uint64_t>(addr);
        f->size = size;
        f->cmp = cmp;
        f->expected = expected;
        f->found = found;
        int i = 0;
        for (; call[i] != 0 && i < static_cast<int>(sizeof(f->call)) - 1; i++)
            f->call[i] = call[i];
        f->call[i] = 0;
        __threadfence_system();
        atomicExch_system(&f->ready, 1u);
    } else if (f != nullptr) {
#if __CUDA_ARCH__ >= 700 /* (before Volta a waiter could hold its warp's claimer) */
        for (unsigned spins = 0;
             *reinterpret_cast<volatile unsigned int *>(&f->ready) == 0u && spins < (1u << 20); spins++)
            __nanosleep(1000);
#endif
    }
    if (f == nullptr)
        printf("gshmem: %s called in a kernel while gshmem is not initialised\n", call);
    __trap();
}

__device__ __forceinline__ void gshmemi_check_pe(const char *call, int pe)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (!s.initialized)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_NOT_INIT, pe, nullptr, 0);
    if (pe < 0 || pe >= s.n_pes)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_PE_RANGE, pe, nullptr, 0);
}

__device__ __forceinline__ void gshmemi_check_heap(const char *call, int pe, const void *p,
                                                   size_t bytes)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    const char *c = static_cast<const char *>(p);
    if (c < s.heap_base || static_cast<uint64_t>(c - s.heap_base) > s.heap_size ||
        bytes > s.heap_size - static_cast<uint64_t>(c - s.heap_base))
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_NOT_HEAP, pe, p, bytes);
}

/* The address of symmetric object `sym` in PE pe's heap as mapped here, or
 * NULL where pe is reached through the proxy. */
__device__ __forceinline__ char *gshmemi_lookup(const char *call, const void *sym, size_t bytes,
                                                int pe)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (s.debug_checks) {
        gshmemi_check_pe(call, pe);
        gshmemi_check_heap(call, pe, sym, bytes);
    }
    char *base = gshmemi_peer_base(s, pe);
    return base == nullptr ? nullptr : base + (static_cast<const char *>(sym) - s.heap_base);
}

__device__ __forceinline__ uint64_t gshmemi_now_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* A wait's GSHMEM_TIMEOUT: the clock is read only once the wait is long
 * (every `passed` call after the first looks at it). */
struct gshmemi_deadline {
    uint64_t start = 0;
    __device__ __forceinline__ bool passed()
    {
        const uint64_t limit = gshmemi_s().timeout_ns;
        if (limit == 0)
            return false;
        const uint64_t now = gshmemi_now_ns();
        if (start == 0)
            start = now;
        return now - start > limit;
    }
};

/* The atomics' alignment, under GSHMEM_DEBUG_CHECKS. */
__device__ __forceinline__ void gshmemi_check_aligned(const char *call, int pe, const void *p,
                                                      size_t size)
{
    if (gshmemi_s().debug_checks && reinterpret_cast<uintptr_t>(p) % size != 0)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_MISALIGNED, pe, p, size);
}

} // namespace

#endif /* GSHMEM_DEVICE_CHECKS_CUH */
