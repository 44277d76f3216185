// Kernels behind host-side atomics and signals on GPU memory: one thread,
// system-scope atomics (the word may be a peer's, written by other GPUs and
// processes at the same time).
#include <cstdint>

#include <cuda_runtime.h>

#include "device/gpu.h"

namespace {

template <typename T>
__device__ T amo(T *p, int op, T a, T b)
{
    switch (op) {
    case GSHMEMI_AMO_FETCH: return atomicAdd_system(p, T(0));
    case GSHMEMI_AMO_SET:
    case GSHMEMI_AMO_SWAP: return atomicExch_system(p, a);
    case GSHMEMI_AMO_CSWAP: return atomicCAS_system(p, a, b);
    case GSHMEMI_AMO_ADD: return atomicAdd_system(p, a);
    case GSHMEMI_AMO_AND: return atomicAnd_system(p, a);
    case GSHMEMI_AMO_OR: return atomicOr_system(p, a);
    case GSHMEMI_AMO_XOR: return atomicXor_system(p, a);
    }
    return T(0);
}

__global__ void amo_kernel(void *addr, int op, int size, unsigned long long a,
                           unsigned long long b, unsigned long long *result)
{
    unsigned long long old;
    if (size == 4)
        old = amo<unsigned>(static_cast<unsigned *>(addr), op, unsigned(a), unsigned(b));
    else
        old = amo<unsigned long long>(static_cast<unsigned long long *>(addr), op, a, b);
    __threadfence_system();
    if (result != nullptr)
        *result = old;
}

__global__ void signal_kernel(unsigned long long *addr, unsigned long long value, int op)
{
    // Release: what this stream wrote before is visible before the signal.
    __threadfence_system();
    if (op == 0)
        atomicExch_system(addr, value);
    else
        atomicAdd_system(addr, value);
}

} // namespace

extern "C" int gshmemi_launch_amo(void *stream, void *addr, int op, int size, uint64_t a,
                                  uint64_t b, uint64_t *result)
{
    amo_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(
        addr, op, size, a, b, reinterpret_cast<unsigned long long *>(result));
    return static_cast<int>(cudaGetLastError());
}

extern "C" int gshmemi_launch_signal(void *stream, uint64_t *addr, uint64_t value, int op)
{
    signal_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(
        reinterpret_cast<unsigned long long *>(addr), value, op);
    return static_cast<int>(cudaGetLastError());
}
