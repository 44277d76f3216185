/*
 * gshmem device API: the OpenSHMEM / NVSHMEM families called from CUDA
 * kernels, header-only.  Include it in each .cu file whose kernels use
 * gshmem and build without relocatable device code:
 *
 *     nvcc -arch=sm_90 app.cu -lgshmem
 *
 * (-rdc=true works too.)  Each translation unit has its own copy of the
 * device state (a static __constant__ object) and registers, from a static
 * initialiser, a callback the library runs at gshmem_init, on heap growth
 * and at gshmem_finalize; a library loaded with dlopen after init is
 * brought up to date when it registers.
 *
 * Memory model (DESIGN.md section 5): puts to mapped PEs are weak stores;
 * gshmem_fence orders them per PE; gshmem_quiet completes all; signals are
 * release operations at system scope; waits spin with acquire loads
 * (relaxed polls with one acquire at the end measured slower in the
 * library).  Kernels reach mapped PEs (same GPU or P2P)
 * with loads and stores, and every other PE through the proxy: requests in
 * a FIFO that a CPU thread carries out on the network transport.  Without
 * a proxy (a single-node job with some pair unmapped and no transport) a
 * call on an unmapped PE stops the job with a message naming the call, the
 * PE and the block/thread.
 */
#ifndef GSHMEM_DEVICE_CUH
#define GSHMEM_DEVICE_CUH

#ifndef __CUDACC__
#error "gshmem_device.cuh is CUDA C++: compile this file with nvcc"
#endif

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "gshmem.h"
#include "gshmem/internal/device_state.h"
#include "gshmemx.h"

/* This translation unit's copy of the runtime's state. */
static __constant__ struct gshmemi_device_state gshmemi_dstate;

/* ---- registration (host) ------------------------------------------------ */

namespace {

/* A kernel of this unit's own, through which the library finds the unit's
 * module and loads all its kernels (gshmemi_device_load_unit). */
__global__ void gshmemi_tu_anchor() {}

int gshmemi_tu_update(const struct gshmemi_device_state *s, void *stream)
{
    static bool loaded;
    if (s->has_proxy && !loaded) {
        cudaFunction_t f;
        loaded = true;
        if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void *>(gshmemi_tu_anchor)) == cudaSuccess)
            gshmemi_device_load_unit(f);
        else
            gshmemi_device_load_unit(nullptr), (void)cudaGetLastError();
    }
    return static_cast<int>(cudaMemcpyToSymbolAsync(gshmemi_dstate, s, sizeof(*s), 0,
                                                    cudaMemcpyHostToDevice,
                                                    static_cast<cudaStream_t>(stream)));
}

struct gshmemi_tu_registrar {
    gshmemi_tu_registrar()
    {
        gshmemi_device_state_register(gshmemi_tu_update, GSHMEMI_DEVICE_STATE_VERSION,
                                      sizeof(struct gshmemi_device_state));
    }
    ~gshmemi_tu_registrar() { gshmemi_device_state_unregister(gshmemi_tu_update); }
};

gshmemi_tu_registrar gshmemi_tu_registrar_instance;

} // namespace

/* ---- collective launch (host) ------------------------------------------- */

/* Launches a kernel whose blocks all run at once (cooperative launch), as
 * the device barrier_all/sync_all need; refuses, with a message, a grid
 * that cannot be resident.  Returns 0 or a gshmem status. */
inline int gshmemx_collective_launch_query_gridsize(const void *func, dim3 block, void **args,
                                                    size_t shmem, int *gridsize)
{
    (void)args;
    int dev = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func,
                                                      static_cast<int>(block.x * block.y * block.z),
                                                      shmem) != cudaSuccess) {
        cudaGetLastError();
        return GSHMEM_ERR_CUDA;
    }
    *gridsize = per_sm * sms;
    return 0;
}

inline int gshmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args,
                                     size_t shmem, cudaStream_t stream)
{
    int most = 0;
    const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
    int st = gshmemx_collective_launch_query_gridsize(func, block, args, shmem, &most);
    if (st != 0) {
        std::fprintf(stderr, "gshmem pe %d: gshmemx_collective_launch: the occupancy of the "
                     "kernel could not be read\n", gshmem_my_pe());
        return st;
    }
    if (blocks > static_cast<unsigned long long>(most)) {
        std::fprintf(stderr, "gshmem pe %d: gshmemx_collective_launch: %llu blocks of %u threads "
                     "cannot all be resident on this GPU (at most %d), as a kernel calling "
                     "device barriers needs\n", gshmem_my_pe(), blocks,
                     block.x * block.y * block.z, most);
        return GSHMEM_ERR_INVALID_ARG;
    }
    cudaError_t err = cudaLaunchCooperativeKernel(func, grid, block, args, shmem, stream);
    if (err != cudaSuccess) {
        std::fprintf(stderr, "gshmem pe %d: gshmemx_collective_launch: %s\n", gshmem_my_pe(),
                     cudaGetErrorString(err));
        return GSHMEM_ERR_CUDA;
    }
    return 0;
}

/* ---- device internals --------------------------------------------------- */

namespace {

__device__ __forceinline__ const struct gshmemi_device_state &gshmemi_s() { return gshmemi_dstate; }

/* The first failing thread of the PE records why (host-mapped memory), the
 * PE's watch thread ends the job with that message; this thread stops. */
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

/* PE pe's heap base as mapped here (NULL: reached through the proxy): the
 * first PEs' from the constant state itself, one load. */
__device__ __forceinline__ char *gshmemi_peer_base(const struct gshmemi_device_state &s, int pe)
{
    return pe < GSHMEMI_DEVICE_NEAR_PES ? s.peer_base_near[pe] : s.peer_base[pe];
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

/* ---- the proxy: requests for PEs that are not mapped (gshmem/internal/fifo.h) */

__device__ __forceinline__ uint64_t gshmemi_heap_off(const void *sym)
{
    return static_cast<uint64_t>(static_cast<const char *>(sym) - gshmemi_s().heap_base);
}

__device__ __forceinline__ uint64_t gshmemi_push(const char *call, int pe, int kind, int op, int size,
                                              const uint64_t *w, int nw)
{
    if (!gshmemi_s().has_proxy)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_UNMAPPED, pe, nullptr, 0);
    return gshmemi_fifo_push(&gshmemi_s().fifo, w, nw, gshmemi_req_tag(kind, op, size, pe));
}

/* Until request n (and every one before it) has taken effect. */
__device__ __forceinline__ void gshmemi_proxy_wait(const char *call, uint64_t n)
{
    const struct gshmemi_fifo &f = gshmemi_s().fifo;
    gshmemi_deadline deadline;
    for (unsigned look = 0; gshmemi_fifo_completed(&f, look) <= n; look++) {
        if (look >= GSHMEMI_FIFO_DIRECT_LOOKS)
            GSHMEMI_FIFO_RELAX(look - GSHMEMI_FIFO_DIRECT_LOOKS);
        if ((look & 255) == 255 && deadline.passed())
            gshmemi_fail(call, GSHMEMI_DEV_FAIL_TIMEOUT, gshmemi_s().my_pe, f.completed, 8,
                         GSHMEM_CMP_GT, n, gshmemi_fifo_completed(&f, 0));
    }
}

/* A put for the proxy: small ones travel inside the request, and so does a
 * source the proxy cannot read (shared or local memory), a request for
 * each 48 bytes.  Returns the number of the request that reads the source
 * (when it is complete, the source may be reused), or GSHMEMI_REQ_NONE
 * where the bytes travelled inside the requests. */
#define GSHMEMI_REQ_NONE (~0ull)
__device__ __forceinline__ uint64_t gshmemi_proxy_put(const char *call, void *dest, const void *src,
                                                   size_t bytes, int pe)
{
    if (bytes > GSHMEMI_REQ_INLINE_MAX && __isGlobal(src)) {
        const uint64_t w[3] = {gshmemi_heap_off(dest), reinterpret_cast<uint64_t>(src), bytes};
        return gshmemi_push(call, pe, GSHMEMI_REQ_PUT, 0, 0, w, 3);
    }
    for (size_t done = 0; done < bytes; done += GSHMEMI_REQ_INLINE_MAX) {
        const size_t n = bytes - done < GSHMEMI_REQ_INLINE_MAX ? bytes - done : GSHMEMI_REQ_INLINE_MAX;
        uint64_t w[GSHMEMI_FIFO_WORDS] = {gshmemi_heap_off(static_cast<char *>(dest) + done)};
        unsigned char *b = reinterpret_cast<unsigned char *>(&w[1]);
        for (size_t i = 0; i < n; i++)
            b[i] = static_cast<const unsigned char *>(src)[done + i];
        gshmemi_push(call, pe, GSHMEMI_REQ_PUT_INLINE, 0, static_cast<int>(n), w,
                     1 + static_cast<int>((n + 7) / 8));
    }
    return GSHMEMI_REQ_NONE;
}

/* The answer to fetching request n (an atomic's old value, a g's bytes). */
__device__ __noinline__ uint64_t gshmemi_proxy_answer(const char *call, uint64_t n)
{
    gshmemi_proxy_wait(call, n);
    return gshmemi_fifo_take_answer(&gshmemi_s().fifo, n);
}


/* A get through the proxy into memory it cannot write (shared or local):
 * 8 bytes a request, answered in the requests' cells, 16 requests in
 * flight (a cell is answered again only once read). */
__device__ __forceinline__ void gshmemi_proxy_get_small(const char *call, void *dest, const void *src,
                                                     size_t bytes, int pe)
{
    const struct gshmemi_fifo &f = gshmemi_s().fifo;
    unsigned char *d = static_cast<unsigned char *>(dest);
    for (size_t done = 0; done < bytes;) {
        uint64_t number[16];
        int n = 0;
        for (size_t at = done; at < bytes && n < 16; at += 8, n++) {
            const uint64_t w[3] = {gshmemi_heap_off(static_cast<const char *>(src) + at),
                                   GSHMEMI_REQ_TO_CELL, bytes - at < 8 ? bytes - at : 8};
            number[n] = gshmemi_push(call, pe, GSHMEMI_REQ_GET, 0, 0, w, 3);
        }
        gshmemi_proxy_wait(call, number[n - 1]);
        for (int i = 0; i < n; i++, done += 8) {
            const uint64_t v = gshmemi_fifo_take_answer(&f, number[i]);
            for (size_t k = 0; k < 8 && done + k < bytes; k++)
                d[done + k] = static_cast<unsigned char>(v >> (8 * k));
        }
    }
}

/* Everything this thread pushed has taken effect (quiet's proxy half). */
__device__ __noinline__ void gshmemi_proxy_quiet_cold(const char *call)
{
    gshmemi_proxy_wait(call, gshmemi_push(call, gshmemi_s().my_pe, GSHMEMI_REQ_QUIET, 0, 0,
                                          nullptr, 0));
}
__device__ __forceinline__ void gshmemi_proxy_quiet(const char *call)
{
    if (gshmemi_s().has_proxy)
        gshmemi_proxy_quiet_cold(call);
}

/* One request of up to four words, out of line: single-word operations
 * (p, signals, atomics, fence) keep their mapped path short, which their
 * latency feels; a thread-scope call in a loop holds few registers. */
__device__ __noinline__ uint64_t gshmemi_push1(const char *call, int pe, int kind, int op, int size,
                                               uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3,
                                               int nw)
{
    const uint64_t w[4] = {w0, w1, w2, w3};
    return gshmemi_push(call, pe, kind, op, size, w, nw);
}

/* A fetching atomic or a g through the proxy: its answer. */
__device__ __noinline__ uint64_t gshmemi_proxy_fetch(const char *call, int pe, int kind, int op,
                                                     int size, uint64_t w0, uint64_t w1,
                                                     uint64_t w2, uint64_t w3, int nw)
{
    return gshmemi_proxy_answer(call, gshmemi_push1(call, pe, kind, op, size, w0, w1, w2, w3, nw));
}

/* Up to 8 bytes from pe's heap through the proxy (a g). */
__device__ __forceinline__ uint64_t gshmemi_proxy_g(const char *call, const void *src,
                                                    size_t bytes, int pe)
{
    return gshmemi_proxy_fetch(call, pe, GSHMEMI_REQ_GET, 0, 0, gshmemi_heap_off(src),
                               GSHMEMI_REQ_TO_CELL, bytes, 0, 3);
}



__device__ __forceinline__ void gshmemi_fence_acq_rel() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
__device__ __forceinline__ void gshmemi_fence_sc() { asm volatile("fence.sc.sys;" ::: "memory"); }

/* ---- copies: the widest accesses both addresses allow, split over the
 * group's threads (lane of n), four 16-byte vectors in flight per thread. */
__device__ __forceinline__ void gshmemi_copy(char *dst, const char *src, size_t n, unsigned lane,
                                             unsigned nthreads)
{
    /* Both aligned, a few vectors per thread: the shortest path.  A small
     * call's time is its instructions (measured on H200: 90-120 ns less per
     * block-scope call of 64 B-2 KiB than the general path below). */
    if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0 &&
        n / 16 < 4 * static_cast<size_t>(nthreads)) {
        const unsigned nv = static_cast<unsigned>(n / 16);
        for (unsigned i = lane; i < nv; i += nthreads)
            reinterpret_cast<uint4 *>(dst)[i] = reinterpret_cast<const uint4 *>(src)[i];
        if (lane == 0 && (n & 15) != 0) { /* the tail starts 16-byte aligned */
            size_t j = static_cast<size_t>(nv) * 16;
            if (n - j >= 8) {
                *reinterpret_cast<uint64_t *>(dst + j) = *reinterpret_cast<const uint64_t *>(src + j);
                j += 8;
            }
            if (n - j >= 4) {
                *reinterpret_cast<uint32_t *>(dst + j) = *reinterpret_cast<const uint32_t *>(src + j);
                j += 4;
            }
            for (; j < n; j++)
                dst[j] = src[j];
        }
        return;
    }
    const unsigned mis = static_cast<unsigned>(reinterpret_cast<uintptr_t>(dst) & 15);
    if (mis == (reinterpret_cast<uintptr_t>(src) & 15) && n >= 16) {
        const size_t head = mis != 0 ? 16 - mis : 0;
        for (size_t i = lane; i < head; i += nthreads)
            dst[i] = src[i];
        dst += head, src += head, n -= head;
        uint4 *d = reinterpret_cast<uint4 *>(dst);
        const uint4 *s = reinterpret_cast<const uint4 *>(src);
        const size_t nv = n / 16;
        if (nv < (1u << 28)) {
            /* Under 4 GiB: 32-bit indices, fewer instructions for each
             * vector (a group's call of a few KiB is mostly overhead). */
            const unsigned nv32 = static_cast<unsigned>(nv);
            unsigned i = lane;
            for (; i + 3 * nthreads < nv32; i += 4 * nthreads) {
                uint4 a = s[i], b = s[i + nthreads], c = s[i + 2 * nthreads], e = s[i + 3 * nthreads];
                d[i] = a, d[i + nthreads] = b, d[i + 2 * nthreads] = c, d[i + 3 * nthreads] = e;
            }
            for (; i < nv32; i += nthreads)
                d[i] = s[i];
        } else {
            size_t i = lane;
            for (; i + 3 * static_cast<size_t>(nthreads) < nv; i += 4 * static_cast<size_t>(nthreads)) {
                uint4 a = s[i], b = s[i + nthreads], c = s[i + 2 * nthreads], e = s[i + 3 * nthreads];
                d[i] = a, d[i + nthreads] = b, d[i + 2 * nthreads] = c, d[i + 3 * nthreads] = e;
            }
            for (; i < nv; i += nthreads)
                d[i] = s[i];
        }
        if ((n & 15) != 0)
            for (size_t j = nv * 16 + lane; j < n; j += nthreads)
                dst[j] = src[j];
        return;
    }
    const unsigned common = static_cast<unsigned>(
        (reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 7);
    if (common == 0) {
        uint64_t *d = reinterpret_cast<uint64_t *>(dst);
        const uint64_t *s = reinterpret_cast<const uint64_t *>(src);
        for (size_t i = lane; i < n / 8; i += nthreads)
            d[i] = s[i];
        for (size_t j = n / 8 * 8 + lane; j < n; j += nthreads)
            dst[j] = src[j];
    } else if ((common & 3) == 0) {
        uint32_t *d = reinterpret_cast<uint32_t *>(dst);
        const uint32_t *s = reinterpret_cast<const uint32_t *>(src);
        for (size_t i = lane; i < n / 4; i += nthreads)
            d[i] = s[i];
        for (size_t j = n / 4 * 4 + lane; j < n; j += nthreads)
            dst[j] = src[j];
    } else {
        for (size_t i = lane; i < n; i += nthreads)
            dst[i] = src[i];
    }
}

__device__ __forceinline__ unsigned gshmemi_lane()
{
    unsigned l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

__device__ __forceinline__ unsigned gshmemi_block_rank()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ unsigned gshmemi_block_size() { return blockDim.x * blockDim.y * blockDim.z; }

template <typename T>
__device__ __forceinline__ void gshmemi_p(const char *call, T *dest, T value, int pe)
{
    T *d = reinterpret_cast<T *>(gshmemi_lookup(call, dest, sizeof(T), pe));
    if (d != nullptr) {
        *d = value;
    } else {
        uint64_t bits = 0;
        memcpy(&bits, &value, sizeof(T));
        gshmemi_push1(call, pe, GSHMEMI_REQ_PUT_INLINE, 0, static_cast<int>(sizeof(T)),
                      gshmemi_heap_off(dest), bits, 0, 0, 2);
    }
}

enum gshmemi_scope { GSHMEMI_THREAD, GSHMEMI_WARP, GSHMEMI_BLOCK };

template <int SCOPE>
__device__ __forceinline__ void gshmemi_group(unsigned *lane, unsigned *n)
{
    if (SCOPE == GSHMEMI_THREAD)
        *lane = 0, *n = 1;
    else if (SCOPE == GSHMEMI_WARP)
        *lane = gshmemi_lane(), *n = 32;
    else
        *lane = gshmemi_block_rank(), *n = gshmemi_block_size();
}

template <int SCOPE>
__device__ __forceinline__ void gshmemi_group_sync()
{
    if (SCOPE == GSHMEMI_WARP)
        __syncwarp();
    else if (SCOPE == GSHMEMI_BLOCK)
        __syncthreads();
}

/* The proxy's half of a group's put: one request for the group, once the
 * group's source is written; a blocking put returns when the proxy has
 * read the source.  Inline, as the proxy's push and wait are: a call in a
 * kernel's loop costs it far more registers (84 instead of 48 for a block
 * put in a loop, past the 64 a 1024-thread block may have). */
template <int SCOPE, bool NBI>
__device__ __forceinline__ void gshmemi_proxy_put_group(const char *call, void *dest, const void *src,
                                                     size_t bytes, int pe)
{
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_group_sync<SCOPE>();
    if (lane == 0) {
        const uint64_t r = gshmemi_proxy_put(call, dest, src, bytes, pe);
        if (!NBI && r != GSHMEMI_REQ_NONE)
            gshmemi_proxy_wait(call, r);
    }
}

/* A blocking group call returns together (the source may then be reused
 * by any thread of the group); an nbi one does not wait for the group, so
 * its warps keep more stores in flight (completion is quiet's). */
template <int SCOPE, bool NBI = false>
__device__ __forceinline__ void gshmemi_put(const char *call, void *dest, const void *src,
                                            size_t bytes, int pe)
{
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    char *d = gshmemi_lookup(call, dest, bytes, pe);
    if (d != nullptr)
        gshmemi_copy(d, static_cast<const char *>(src), bytes, lane, n);
    else
        gshmemi_proxy_put_group<SCOPE, NBI>(call, dest, src, bytes, pe);
    if (!NBI)
        gshmemi_group_sync<SCOPE>();
}

template <int SCOPE, bool NBI = false>
__device__ __forceinline__ void gshmemi_get(const char *call, void *dest, const void *src,
                                            size_t bytes, int pe)
{
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    const char *s = gshmemi_lookup(call, src, bytes, pe);
    if (s != nullptr) {
        gshmemi_copy(static_cast<char *>(dest), s, bytes, lane, n);
    } else if (lane == 0 && !__isGlobal(dest)) {
        gshmemi_proxy_get_small(call, dest, src, bytes, pe); /* done at once, even nbi */
    } else if (lane == 0 && bytes > 0) {
        /* The proxy writes dest (global memory); a blocking get waits for it. */
        const uint64_t w[3] = {gshmemi_heap_off(src), reinterpret_cast<uint64_t>(dest), bytes};
        const uint64_t r = gshmemi_push(call, pe, GSHMEMI_REQ_GET, 0, 0, w, 3);
        if (!NBI)
            gshmemi_proxy_wait(call, r);
    }
    if (!NBI)
        gshmemi_group_sync<SCOPE>();
}

/* Returns the proxy request's number, or GSHMEMI_REQ_NONE for a mapped PE. */
__device__ __forceinline__ uint64_t gshmemi_signal(const char *call, uint64_t *sig, uint64_t value,
                                                   int op, int pe)
{
    gshmemi_check_aligned(call, pe, sig, 8);
    unsigned long long *p = reinterpret_cast<unsigned long long *>(gshmemi_lookup(call, sig, 8, pe));
    if (p == nullptr)
        return gshmemi_push1(call, pe, GSHMEMI_REQ_SIGNAL, op == GSHMEM_SIGNAL_ADD ? 1 : 0, 8,
                             gshmemi_heap_off(sig), value, 0, 0, 2);
    /* Release at system scope: the data written before lands first. */
    if (op == GSHMEM_SIGNAL_ADD)
        asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
    else
        asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
    return GSHMEMI_REQ_NONE;
}

template <int SCOPE, bool NBI = false>
__device__ __forceinline__ void gshmemi_put_signal(const char *call, void *dest, const void *src,
                                                   size_t bytes, uint64_t *sig, uint64_t value,
                                                   int op, int pe)
{
    /* Through the proxy the signal's request follows the data's, and the
     * target applies them in that order. */
    gshmemi_put<SCOPE, true>(call, dest, src, bytes, pe);
    gshmemi_group_sync<SCOPE>();
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    /* The release is cumulative: it covers the group's stores, which the
     * group barrier above ordered before it. */
    if (lane == 0) {
        const uint64_t r = gshmemi_signal(call, sig, value, op, pe);
        if (!NBI && r != GSHMEMI_REQ_NONE)
            gshmemi_proxy_wait(call, r); /* the source may be reused */
    }
    gshmemi_group_sync<SCOPE>();
}

/* A load that reaches memory every time (relaxed, system scope), for any
 * type up to 8 bytes (half and bfloat16 have no volatile copy). */
template <typename T>
__device__ __forceinline__ T gshmemi_vload(const T *p)
{
    typedef typename std::conditional<
        sizeof(T) == 1, uint8_t,
        typename std::conditional<sizeof(T) == 2, uint16_t,
                                  typename std::conditional<sizeof(T) == 4, uint32_t,
                                                            uint64_t>::type>::type>::type U;
    static_assert(sizeof(U) == sizeof(T), "gshmemi_vload: 1, 2, 4 or 8 bytes");
    U u = *reinterpret_cast<const volatile U *>(p);
    T v;
    memcpy(&v, &u, sizeof(T));
    return v;
}

/* g: a load of the mapped word, or the proxy's answer. */
template <typename T>
__device__ __forceinline__ T gshmemi_g(const char *call, const T *src, int pe)
{
    const T *p = reinterpret_cast<const T *>(gshmemi_lookup(call, src, sizeof(T), pe));
    if (p != nullptr)
        return gshmemi_vload(p);
    const uint64_t v = gshmemi_proxy_g(call, src, sizeof(T), pe);
    T t;
    memcpy(&t, &v, sizeof(T));
    return t;
}

/* Strided put and get: element by element (through the proxy, a request
 * each: the elements travel inside the requests, or come back in cells). */
template <typename T>
__device__ __forceinline__ void gshmemi_iput(const char *call, T *dest, const T *src, ptrdiff_t dst,
                                             ptrdiff_t sst, size_t nelems, int pe)
{
    if (nelems == 0)
        return;
    T *d = reinterpret_cast<T *>(gshmemi_lookup(call, dest, ((nelems - 1) * dst + 1) * sizeof(T), pe));
    for (size_t i = 0; i < nelems; i++) {
        if (d != nullptr)
            d[i * dst] = src[i * sst];
        else
            gshmemi_proxy_put(call, dest + i * dst, &src[i * sst], sizeof(T), pe);
    }
}

template <typename T>
__device__ __forceinline__ void gshmemi_iget(const char *call, T *dest, const T *src, ptrdiff_t dst,
                                             ptrdiff_t sst, size_t nelems, int pe)
{
    if (nelems == 0)
        return;
    const T *s = reinterpret_cast<const T *>(
        gshmemi_lookup(call, src, ((nelems - 1) * sst + 1) * sizeof(T), pe));
    for (size_t i = 0; i < nelems; i++) {
        if (s != nullptr) {
            dest[i * dst] = s[i * sst];
        } else {
            const uint64_t v = gshmemi_proxy_g(call, src + i * sst, sizeof(T), pe);
            memcpy(&dest[i * dst], &v, sizeof(T));
        }
    }
}

/* An acquire load at system scope: what the writer released before the
 * value is visible to this thread's later accesses, with no fence (a fence
 * would also wait for this thread's own outstanding stores). */
template <typename T>
__device__ __forceinline__ T gshmemi_load_acquire(const T *p)
{
    T v;
    if (sizeof(T) == 8) {
        uint64_t u;
        asm volatile("ld.acquire.sys.global.b64 %0, [%1];" : "=l"(u) : "l"(p) : "memory");
        memcpy(&v, &u, 8);
    } else if (sizeof(T) == 4) {
        uint32_t u;
        asm volatile("ld.acquire.sys.global.b32 %0, [%1];" : "=r"(u) : "l"(p) : "memory");
        memcpy(&v, &u, 4);
    } else {
        static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "2, 4 or 8 bytes");
        uint16_t u;
        asm volatile("ld.acquire.sys.global.b16 %0, [%1];" : "=h"(u) : "l"(p) : "memory");
        memcpy(&v, &u, 2);
    }
    return v;
}

template <typename T>
__device__ __forceinline__ bool gshmemi_compare(T v, int cmp, T ref)
{
    switch (cmp) {
    case GSHMEM_CMP_EQ: return v == ref;
    case GSHMEM_CMP_NE: return v != ref;
    case GSHMEM_CMP_GT: return v > ref;
    case GSHMEM_CMP_LE: return v <= ref;
    case GSHMEM_CMP_LT: return v < ref;
    case GSHMEM_CMP_GE: return v >= ref;
    }
    return false;
}

template <typename T>
__device__ __forceinline__ uint64_t gshmemi_bits(T v)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}

/* Spins with acquire loads (no fence: the ping-pong latency is the price
 * of ordering, DESIGN.md section 5).  Past GSHMEM_TIMEOUT the job ends
 * naming the call and the values. */
template <typename T>
__device__ __forceinline__ T gshmemi_wait(const char *call, T *ivar, int cmp, T value)
{
    T v;
    gshmemi_deadline deadline;
    for (unsigned spins = 1; !gshmemi_compare(v = gshmemi_load_acquire(ivar), cmp, value); spins++)
        if ((spins & 1023) == 0 && deadline.passed())
            gshmemi_fail(call, GSHMEMI_DEV_FAIL_TIMEOUT, gshmemi_s().my_pe, ivar, sizeof(T), cmp,
                         gshmemi_bits(value), gshmemi_bits(v));
    return v;
}

template <typename T>
__device__ __forceinline__ bool gshmemi_test(T *ivar, int cmp, T value)
{
    return gshmemi_compare(gshmemi_load_acquire(ivar), cmp, value);
}

/* Multi-word waits and tests: entries with status[i] != 0 are left out. */
template <typename T>
__device__ __forceinline__ bool gshmemi_entry(T *ivars, size_t i, int cmp, const T *values, T value)
{
    return gshmemi_compare(gshmemi_load_acquire(ivars + i), cmp,
                           values != nullptr ? values[i] : value);
}

template <typename T>
__device__ __forceinline__ int gshmemi_test_all(T *ivars, size_t n, const int *status, int cmp,
                                                const T *values, T value)
{
    for (size_t i = 0; i < n; i++)
        if ((status == nullptr || status[i] == 0) && !gshmemi_entry(ivars, i, cmp, values, value))
            return 0;
    return 1;
}

template <typename T>
__device__ __forceinline__ size_t gshmemi_test_any(T *ivars, size_t n, const int *status, int cmp,
                                                   const T *values, T value)
{
    for (size_t i = 0; i < n; i++)
        if ((status == nullptr || status[i] == 0) && gshmemi_entry(ivars, i, cmp, values, value))
            return i;
    return SIZE_MAX;
}

template <typename T>
__device__ __forceinline__ size_t gshmemi_test_some(T *ivars, size_t n, size_t *indices,
                                                    const int *status, int cmp, const T *values,
                                                    T value)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((status == nullptr || status[i] == 0) && gshmemi_entry(ivars, i, cmp, values, value))
            indices[k++] = i;
    return k;
}

__device__ __forceinline__ bool gshmemi_all_excluded(size_t n, const int *status)
{
    for (size_t i = 0; status != nullptr && i < n; i++)
        if (status[i] == 0)
            return false;
    return status != nullptr || n == 0;
}

/* Waits built on the tests; the deadline as for gshmemi_wait. */
template <typename F>
__device__ __forceinline__ void gshmemi_spin(const char *call, const void *at, F done)
{
    gshmemi_deadline deadline;
    for (unsigned spins = 1; !done(); spins++)
        if ((spins & 255) == 0 && deadline.passed())
            gshmemi_fail(call, GSHMEMI_DEV_FAIL_TIMEOUT, gshmemi_s().my_pe, at, 0);
}

/* Atomics on a PE's word, by size: the types' bits go through unsigned
 * words of the same size (two's complement makes add the same). */
template <typename T> struct gshmemi_word;
template <> struct gshmemi_word<uint32_t> { typedef unsigned int type; };
template <> struct gshmemi_word<uint64_t> { typedef unsigned long long type; };
template <typename T>
struct gshmemi_wordof {
    typedef typename gshmemi_word<typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type>::type type;
};

template <typename T>
__device__ __forceinline__ typename gshmemi_wordof<T>::type gshmemi_w(T v)
{
    typename gshmemi_wordof<T>::type w;
    memcpy(&w, &v, sizeof(T));
    return w;
}

template <typename T>
__device__ __forceinline__ T gshmemi_t(typename gshmemi_wordof<T>::type w)
{
    T v;
    memcpy(&v, &w, sizeof(T));
    return v;
}

/* Non-fetching atomics on a mapped word as reductions (red): relaxed at
 * system scope like atomic*_system, but the thread does not wait for the
 * old value, so one thread keeps several in flight (quiet completes them). */
#define GSHMEMI_RED(OP, PTXOP)                                                                     \
    __device__ __forceinline__ void gshmemi_red_##OP(unsigned *w, unsigned v)                      \
    {                                                                                              \
        asm volatile("red.relaxed.sys.global." PTXOP "32 [%0], %1;" ::"l"(w), "r"(v) : "memory");  \
    }                                                                                              \
    __device__ __forceinline__ void gshmemi_red_##OP(unsigned long long *w, unsigned long long v)  \
    {                                                                                              \
        asm volatile("red.relaxed.sys.global." PTXOP "64 [%0], %1;" ::"l"(w), "l"(v) : "memory");  \
    }
GSHMEMI_RED(add, "add.u")
GSHMEMI_RED(and, "and.b")
GSHMEMI_RED(or, "or.b")
GSHMEMI_RED(xor, "xor.b")
#undef GSHMEMI_RED

/* A fetching atomic: `on_word` applied to the mapped word, or the request
 * (op with a and b) through the proxy, answered in the request's cell. */
template <typename T, typename F>
__device__ __forceinline__ T gshmemi_amo_fetch(const char *call, const T *dest, int op, T a, T b,
                                               int pe, F on_word)
{
    using W = typename gshmemi_wordof<T>::type;
    gshmemi_check_aligned(call, pe, dest, sizeof(T));
    char *p = gshmemi_lookup(call, dest, sizeof(T), pe);
    if (p != nullptr)
        return gshmemi_t<T>(on_word(reinterpret_cast<W *>(p)));
    return gshmemi_t<T>(static_cast<W>(gshmemi_proxy_fetch(
        call, pe, GSHMEMI_REQ_AMO, op, static_cast<int>(sizeof(T)), gshmemi_heap_off(dest),
        static_cast<uint64_t>(gshmemi_w(a)), static_cast<uint64_t>(gshmemi_w(b)),
        GSHMEMI_REQ_TO_CELL, 4)));
}

/* A non-fetching atomic: the mapped word, or NULL once the request for the
 * proxy is pushed. */
template <typename T>
__device__ __forceinline__ typename gshmemi_wordof<T>::type *
gshmemi_amo_nf(const char *call, T *dest, int op, T a, int pe)
{
    gshmemi_check_aligned(call, pe, dest, sizeof(T));
    char *p = gshmemi_lookup(call, dest, sizeof(T), pe);
    if (p == nullptr)
        gshmemi_push1(call, pe, GSHMEMI_REQ_AMO, op, static_cast<int>(sizeof(T)),
                      gshmemi_heap_off(dest), static_cast<uint64_t>(gshmemi_w(a)), 0, 0, 4);
    return reinterpret_cast<typename gshmemi_wordof<T>::type *>(p);
}

/* ---- device-wide barrier: every thread of the grid (a collective launch)
 * on every PE.  Blocks meet at a counter in this PE's internal area (GPU
 * scope); the last to arrive runs a dissemination barrier with the other
 * PEs (one release add per round into the partner's area, acquire spins)
 * and releases the grid.  Release is cumulative over what the block's
 * threads wrote before __syncthreads, so the barrier also completes their
 * puts to mapped PEs (barrier_all's quiet) at no extra cost. */
__device__ __forceinline__ void gshmemi_pe_barrier(const char *call)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    unsigned long long *area = reinterpret_cast<unsigned long long *>(s.dev_area);
    unsigned long long target = 0;
    /* What the grid pushed for the proxy is done before anybody is told. */
    gshmemi_proxy_quiet(call);
    /* Everything from here to the wait is the barrier's latency: the
     * partners come from the state (init worked them out; a modulo here
     * cost ~80 ns) and the function is inlined (a call cost ~45 ns). */
    for (int r = 0; r < s.dbar_rounds; r++) {
        unsigned long long *w = reinterpret_cast<unsigned long long *>(s.dbar[r].word);
        if (w == nullptr)
            gshmemi_push1(call, s.dbar[r].pe, GSHMEMI_REQ_SIGNAL, 1 /* add */, 8,
                          s.dev_area_off + 8 * (GSHMEMI_DEV_AREA_DBAR_ROUNDS + r), 1, 0, 0, 2);
        else
            asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(w) : "memory");
        if (r == 0) /* read after the first signal left: the two latencies overlap */
            area[GSHMEMI_DEV_AREA_DBAR_EPOCH] = target = area[GSHMEMI_DEV_AREA_DBAR_EPOCH] + 1;
        gshmemi_wait(call, &area[GSHMEMI_DEV_AREA_DBAR_ROUNDS + r], GSHMEM_CMP_GE, target);
    }
}

__device__ __forceinline__ void gshmemi_grid_barrier(const char *call)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (s.debug_checks)
        gshmemi_check_pe(call, s.my_pe);
    __syncthreads();
    if (gshmemi_block_rank() == 0) {
        const unsigned long long blocks = 1ull * gridDim.x * gridDim.y * gridDim.z;
        if (blocks == 1) {
            gshmemi_pe_barrier(call);
        } else {
            unsigned long long *area = reinterpret_cast<unsigned long long *>(s.dev_area);
            unsigned long long *gen = &area[GSHMEMI_DEV_AREA_GRID_GEN], old, g;
            asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(g) : "l"(gen) : "memory");
            asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;"
                         : "=l"(old) : "l"(&area[GSHMEMI_DEV_AREA_GRID_ARRIVE]) : "memory");
            if (old + 1 == blocks) {
                area[GSHMEMI_DEV_AREA_GRID_ARRIVE] = 0;
                gshmemi_pe_barrier(call);
                asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(gen) : "memory");
            } else {
                gshmemi_wait(call, gen, GSHMEM_CMP_NE, g);
            }
        }
    }
    __syncthreads();
}

} // namespace

/* ---- the API ------------------------------------------------------------ */

#ifdef __CUDA_ARCH__
extern "C" {

__device__ inline int gshmem_my_pe(void) { return gshmemi_dstate.my_pe; }
__device__ inline int gshmem_n_pes(void) { return gshmemi_dstate.n_pes; }

__device__ inline void *gshmem_ptr(const void *dest, int pe)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (!s.initialized || pe < 0 || pe >= s.n_pes)
        return nullptr;
    char *base = gshmemi_peer_base(s, pe);
    return base == nullptr ? nullptr : base + (static_cast<const char *>(dest) - s.heap_base);
}

#define GSHMEMI_DEV_RMA(NAME, TYPE, G)                                                              \
    __device__ inline void gshmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems,      \
                                               int pe)                                             \
    {                                                                                              \
        gshmemi_put<GSHMEMI_THREAD>("gshmem_" #NAME "_put", dest, source, nelems * sizeof(TYPE), pe); \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems,  \
                                                   int pe)                                         \
    {                                                                                              \
        gshmemi_put<GSHMEMI_THREAD, true>("gshmem_" #NAME "_put_nbi", dest, source,                      \
                                    nelems * sizeof(TYPE), pe);                                    \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems,      \
                                               int pe)                                             \
    {                                                                                              \
        gshmemi_get<GSHMEMI_THREAD>("gshmem_" #NAME "_get", dest, source, nelems * sizeof(TYPE), pe); \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems,  \
                                                   int pe)                                         \
    {                                                                                              \
        gshmemi_get<GSHMEMI_THREAD, true>("gshmem_" #NAME "_get_nbi", dest, source,                      \
                                    nelems * sizeof(TYPE), pe);                                    \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_p(TYPE *dest, TYPE value, int pe)                       \
    {                                                                                              \
        gshmemi_p("gshmem_" #NAME "_p", dest, value, pe);                                          \
    }                                                                                              \
    __device__ inline TYPE gshmem_##NAME##_g(const TYPE *source, int pe)                           \
    {                                                                                              \
        return gshmemi_g("gshmem_" #NAME "_g", source, pe);                                        \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst,     \
                                                ptrdiff_t sst, size_t nelems, int pe)              \
    {                                                                                              \
        gshmemi_iput("gshmem_" #NAME "_iput", dest, source, dst, sst, nelems, pe);                 \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst,     \
                                                ptrdiff_t sst, size_t nelems, int pe)              \
    {                                                                                              \
        gshmemi_iget("gshmem_" #NAME "_iget", dest, source, dst, sst, nelems, pe);                 \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_put_signal(TYPE *dest, const TYPE *source,              \
                                                      size_t nelems, uint64_t *sig_addr,           \
                                                      uint64_t signal, int sig_op, int pe)         \
    {                                                                                              \
        gshmemi_put_signal<GSHMEMI_THREAD>("gshmem_" #NAME "_put_signal", dest, source,            \
                                           nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe);   \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source,          \
                                                          size_t nelems, uint64_t *sig_addr,       \
                                                          uint64_t signal, int sig_op, int pe)     \
    {                                                                                              \
        gshmemi_put_signal<GSHMEMI_THREAD, true>("gshmem_" #NAME "_put_signal_nbi", dest, source,        \
                                           nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe);   \
    }
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_RMA)
#undef GSHMEMI_DEV_RMA

#define GSHMEMI_DEV_RMA_SIZED(BITS, TYPE)                                                          \
    __device__ inline void gshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) \
    {                                                                                              \
        gshmemi_put<GSHMEMI_THREAD>("gshmem_put" #BITS, dest, source, nelems * sizeof(TYPE), pe);  \
    }                                                                                              \
    __device__ inline void gshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems,   \
                                                  int pe)                                          \
    {                                                                                              \
        gshmemi_put<GSHMEMI_THREAD, true>("gshmem_put" #BITS "_nbi", dest, source,                       \
                                    nelems * sizeof(TYPE), pe);                                    \
    }                                                                                              \
    __device__ inline void gshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) \
    {                                                                                              \
        gshmemi_get<GSHMEMI_THREAD>("gshmem_get" #BITS, dest, source, nelems * sizeof(TYPE), pe);  \
    }                                                                                              \
    __device__ inline void gshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems,   \
                                                  int pe)                                          \
    {                                                                                              \
        gshmemi_get<GSHMEMI_THREAD, true>("gshmem_get" #BITS "_nbi", dest, source,                       \
                                    nelems * sizeof(TYPE), pe);                                    \
    }                                                                                              \
    __device__ inline void gshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst,        \
                                             ptrdiff_t sst, size_t nelems, int pe)                 \
    {                                                                                              \
        gshmemi_iput("gshmem_iput" #BITS, static_cast<TYPE *>(dest),                               \
                     static_cast<const TYPE *>(source), dst, sst, nelems, pe);                     \
    }                                                                                              \
    __device__ inline void gshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst,        \
                                             ptrdiff_t sst, size_t nelems, int pe)                 \
    {                                                                                              \
        gshmemi_iget("gshmem_iget" #BITS, static_cast<TYPE *>(dest),                               \
                     static_cast<const TYPE *>(source), dst, sst, nelems, pe);                     \
    }                                                                                              \
    __device__ inline void gshmem_put##BITS##_signal(void *dest, const void *source,               \
                                                     size_t nelems, uint64_t *sig_addr,            \
                                                     uint64_t signal, int sig_op, int pe)          \
    {                                                                                              \
        gshmemi_put_signal<GSHMEMI_THREAD>("gshmem_put" #BITS "_signal", dest, source,             \
                                           nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe);   \
    }                                                                                              \
    __device__ inline void gshmem_put##BITS##_signal_nbi(void *dest, const void *source,           \
                                                         size_t nelems, uint64_t *sig_addr,        \
                                                         uint64_t signal, int sig_op, int pe)      \
    {                                                                                              \
        gshmemi_put_signal<GSHMEMI_THREAD, true>("gshmem_put" #BITS "_signal_nbi", dest, source,         \
                                           nelems * sizeof(TYPE), sig_addr, signal, sig_op, pe);   \
    }
GSHMEM_FOR_RMA_SIZES(GSHMEMI_DEV_RMA_SIZED)
#undef GSHMEMI_DEV_RMA_SIZED

__device__ inline void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_put<GSHMEMI_THREAD>("gshmem_putmem", dest, source, nelems, pe);
}
__device__ inline void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_put<GSHMEMI_THREAD, true>("gshmem_putmem_nbi", dest, source, nelems, pe);
}
__device__ inline void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_get<GSHMEMI_THREAD>("gshmem_getmem", dest, source, nelems, pe);
}
__device__ inline void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_get<GSHMEMI_THREAD, true>("gshmem_getmem_nbi", dest, source, nelems, pe);
}
__device__ inline void gshmem_putmem_signal(void *dest, const void *source, size_t nelems,
                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    gshmemi_put_signal<GSHMEMI_THREAD>("gshmem_putmem_signal", dest, source, nelems, sig_addr,
                                       signal, sig_op, pe);
}
__device__ inline void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                                uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                int pe)
{
    gshmemi_put_signal<GSHMEMI_THREAD, true>("gshmem_putmem_signal_nbi", dest, source, nelems, sig_addr,
                                       signal, sig_op, pe);
}

/* ---- signals ---- */
__device__ inline uint64_t gshmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(sig_addr) : "memory");
    return v;
}
__device__ inline uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return gshmemi_wait("gshmem_signal_wait_until", sig_addr, cmp, cmp_value);
}
__device__ inline void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    (void)gshmemi_signal("gshmemx_signal_op", sig_addr, signal, sig_op, pe);
}

/* ---- atomics ---- */
#define GSHMEMI_DEV_AMO_EXTENDED(NAME, TYPE, G)                                                    \
    __device__ inline TYPE gshmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_fetch", source, GSHMEMI_AMO_FETCH,       \
                                 static_cast<TYPE>(0), static_cast<TYPE>(0), pe, [](auto *w) {     \
            return *static_cast<volatile typename gshmemi_wordof<TYPE>::type *>(w);                \
        });                                                                                        \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)              \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf("gshmem_" #NAME "_atomic_set", dest, GSHMEMI_AMO_SET, value, pe)) \
            atomicExch_system(w, gshmemi_w(value));                                                \
    }                                                                                              \
    __device__ inline TYPE gshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)             \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_swap", dest, GSHMEMI_AMO_SWAP, value,    \
                                 static_cast<TYPE>(0), pe,                                         \
                                 [&](auto *w) { return atomicExch_system(w, gshmemi_w(value)); }); \
    }
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_DEV_AMO_EXTENDED)
#undef GSHMEMI_DEV_AMO_EXTENDED

/* An atomic with one operand, fetching and not: FN applies it to a mapped
 * word. */
#define GSHMEMI_DEV_AMO_RMW(NAME, TYPE, OP, KIND, FN)                                              \
    __device__ inline TYPE gshmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)       \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_fetch_" #OP, dest, KIND, value,          \
                                 static_cast<TYPE>(0), pe,                                         \
                                 [&](auto *w) { return FN(w, gshmemi_w(value)); });                \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)             \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf("gshmem_" #NAME "_atomic_" #OP, dest, KIND, value, pe))       \
            gshmemi_red_##OP(w, gshmemi_w(value));                                                 \
    }

#define GSHMEMI_DEV_AMO_STANDARD(NAME, TYPE, G)                                                    \
    __device__ inline TYPE gshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value,  \
                                                               int pe)                             \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_compare_swap", dest, GSHMEMI_AMO_CSWAP,  \
                                 cond, value, pe, [&](auto *w) {                                   \
            return atomicCAS_system(w, gshmemi_w(cond), gshmemi_w(value));                         \
        });                                                                                        \
    }                                                                                              \
    __device__ inline TYPE gshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                    \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_fetch_inc", dest, GSHMEMI_AMO_ADD,       \
                                 static_cast<TYPE>(1), static_cast<TYPE>(0), pe, [](auto *w) {     \
            return atomicAdd_system(w, gshmemi_w(static_cast<TYPE>(1)));                           \
        });                                                                                        \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_atomic_inc(TYPE *dest, int pe)                          \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf("gshmem_" #NAME "_atomic_inc", dest, GSHMEMI_AMO_ADD,         \
                                     static_cast<TYPE>(1), pe))                                    \
            gshmemi_red_add(w, gshmemi_w(static_cast<TYPE>(1)));                                   \
    }                                                                                              \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, add, GSHMEMI_AMO_ADD, atomicAdd_system)
GSHMEM_FOR_AMO_STANDARD_TYPES(GSHMEMI_DEV_AMO_STANDARD)
#undef GSHMEMI_DEV_AMO_STANDARD

#define GSHMEMI_DEV_AMO_BITWISE(NAME, TYPE, G)                                                     \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, and, GSHMEMI_AMO_AND, atomicAnd_system)                        \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, or, GSHMEMI_AMO_OR, atomicOr_system)                           \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, xor, GSHMEMI_AMO_XOR, atomicXor_system)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_DEV_AMO_BITWISE)
#undef GSHMEMI_DEV_AMO_BITWISE
#undef GSHMEMI_DEV_AMO_RMW

/* ---- point-to-point synchronisation ---- */
#define GSHMEMI_DEV_P2P_SYNC(NAME, TYPE, G)                                                        \
    __device__ inline void gshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)         \
    {                                                                                              \
        gshmemi_wait("gshmem_" #NAME "_wait_until", ivar, cmp, cmp_value);                         \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,              \
                                                          const int *status, int cmp,              \
                                                          TYPE cmp_value)                          \
    {                                                                                              \
        gshmemi_spin("gshmem_" #NAME "_wait_until_all", ivars, [&] {                               \
            return gshmemi_test_all(ivars, nelems, status, cmp, (const TYPE *)nullptr, cmp_value) != 0; \
        });                                                                                        \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,            \
                                                            const int *status, int cmp,            \
                                                            TYPE cmp_value)                        \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return SIZE_MAX;                                                                       \
        size_t r = SIZE_MAX;                                                                       \
        gshmemi_spin("gshmem_" #NAME "_wait_until_any", ivars, [&] {                               \
            return (r = gshmemi_test_any(ivars, nelems, status, cmp, (const TYPE *)nullptr,        \
                                         cmp_value)) != SIZE_MAX;                                  \
        });                                                                                        \
        return r;                                                                                  \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems,           \
                                                             size_t *indices, const int *status,   \
                                                             int cmp, TYPE cmp_value)              \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return 0;                                                                              \
        size_t k = 0;                                                                              \
        gshmemi_spin("gshmem_" #NAME "_wait_until_some", ivars, [&] {                              \
            return (k = gshmemi_test_some(ivars, nelems, indices, status, cmp,                     \
                                          (const TYPE *)nullptr, cmp_value)) != 0;                 \
        });                                                                                        \
        return k;                                                                                  \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_wait_until_all_vector(                                  \
        TYPE *ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values)            \
    {                                                                                              \
        gshmemi_spin("gshmem_" #NAME "_wait_until_all_vector", ivars, [&] {                        \
            return gshmemi_test_all(ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0)) != 0;          \
        });                                                                                        \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_wait_until_any_vector(                                \
        TYPE *ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values)            \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return SIZE_MAX;                                                                       \
        size_t r = SIZE_MAX;                                                                       \
        gshmemi_spin("gshmem_" #NAME "_wait_until_any_vector", ivars, [&] {                        \
            return (r = gshmemi_test_any(ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0))) !=       \
                   SIZE_MAX;                                                                       \
        });                                                                                        \
        return r;                                                                                  \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_wait_until_some_vector(                               \
        TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,                   \
        const TYPE *cmp_values)                                                                    \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return 0;                                                                              \
        size_t k = 0;                                                                              \
        gshmemi_spin("gshmem_" #NAME "_wait_until_some_vector", ivars, [&] {                       \
            return (k = gshmemi_test_some(ivars, nelems, indices, status, cmp, cmp_values,         \
                                          static_cast<TYPE>(0))) != 0;                                           \
        });                                                                                        \
        return k;                                                                                  \
    }                                                                                              \
    __device__ inline int gshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                \
    {                                                                                              \
        return gshmemi_test(ivar, cmp, cmp_value) ? 1 : 0;                                         \
    }                                                                                              \
    __device__ inline int gshmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status,  \
                                                   int cmp, TYPE cmp_value)                        \
    {                                                                                              \
        return gshmemi_test_all(ivars, nelems, status, cmp, (const TYPE *)nullptr, cmp_value);     \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_test_any(TYPE *ivars, size_t nelems,                  \
                                                      const int *status, int cmp, TYPE cmp_value)  \
    {                                                                                              \
        return gshmemi_test_any(ivars, nelems, status, cmp, (const TYPE *)nullptr, cmp_value);     \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_test_some(TYPE *ivars, size_t nelems,                 \
                                                       size_t *indices, const int *status,         \
                                                       int cmp, TYPE cmp_value)                    \
    {                                                                                              \
        return gshmemi_test_some(ivars, nelems, indices, status, cmp, (const TYPE *)nullptr,       \
                                 cmp_value);                                                       \
    }                                                                                              \
    __device__ inline int gshmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems,              \
                                                          const int *status, int cmp,              \
                                                          const TYPE *cmp_values)                  \
    {                                                                                              \
        return gshmemi_test_all(ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0));                   \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems,           \
                                                             const int *status, int cmp,           \
                                                             const TYPE *cmp_values)               \
    {                                                                                              \
        return gshmemi_test_any(ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0));                   \
    }                                                                                              \
    __device__ inline size_t gshmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems,          \
                                                              size_t *indices, const int *status,  \
                                                              int cmp, const TYPE *cmp_values)     \
    {                                                                                              \
        return gshmemi_test_some(ivars, nelems, indices, status, cmp, cmp_values, static_cast<TYPE>(0));         \
    }
GSHMEM_FOR_P2P_SYNC_TYPES(GSHMEMI_DEV_P2P_SYNC)
#undef GSHMEMI_DEV_P2P_SYNC

/* ---- ordering and synchronisation ---- */
__device__ inline void gshmem_fence(void)
{
    gshmemi_fence_acq_rel();
    if (gshmemi_s().has_proxy) /* the proxy's transport keeps later puts behind */
        gshmemi_push1("gshmem_fence", gshmemi_s().my_pe, GSHMEMI_REQ_FENCE, 0, 0, 0, 0, 0, 0, 0);
}
__device__ inline void gshmem_quiet(void)
{
    gshmemi_fence_sc();
    gshmemi_proxy_quiet("gshmem_quiet");
}
/* Every thread of the grid, on every PE, launched with gshmemx_collective_launch. */
__device__ inline void gshmem_barrier_all(void) { gshmemi_grid_barrier("gshmem_barrier_all"); }
__device__ inline void gshmem_sync_all(void) { gshmemi_grid_barrier("gshmem_sync_all"); }

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

/* ---- warp and block forms (device only) ---------------------------------
 * Every thread of the warp (block) calls with the same arguments; the copy
 * is split across them. */
#define GSHMEMI_DEV_GROUP(SCOPE, SUFFIX)                                                           \
    __device__ inline void gshmemx_putmem_##SUFFIX(void *dest, const void *source, size_t nelems,  \
                                                   int pe)                                         \
    {                                                                                              \
        gshmemi_put<SCOPE>("gshmemx_putmem_" #SUFFIX, dest, source, nelems, pe);                   \
    }                                                                                              \
    __device__ inline void gshmemx_putmem_nbi_##SUFFIX(void *dest, const void *source,             \
                                                       size_t nelems, int pe)                      \
    {                                                                                              \
        gshmemi_put<SCOPE, true>("gshmemx_putmem_nbi_" #SUFFIX, dest, source, nelems, pe);         \
    }                                                                                              \
    __device__ inline void gshmemx_getmem_##SUFFIX(void *dest, const void *source, size_t nelems,  \
                                                   int pe)                                         \
    {                                                                                              \
        gshmemi_get<SCOPE>("gshmemx_getmem_" #SUFFIX, dest, source, nelems, pe);                   \
    }                                                                                              \
    __device__ inline void gshmemx_getmem_nbi_##SUFFIX(void *dest, const void *source,             \
                                                       size_t nelems, int pe)                      \
    {                                                                                              \
        gshmemi_get<SCOPE, true>("gshmemx_getmem_nbi_" #SUFFIX, dest, source, nelems, pe);         \
    }                                                                                              \
    __device__ inline void gshmemx_putmem_signal_##SUFFIX(void *dest, const void *source,          \
                                                          size_t nelems, uint64_t *sig_addr,       \
                                                          uint64_t signal, int sig_op, int pe)     \
    {                                                                                              \
        gshmemi_put_signal<SCOPE>("gshmemx_putmem_signal_" #SUFFIX, dest, source, nelems,          \
                                  sig_addr, signal, sig_op, pe);                                   \
    }                                                                                              \
    __device__ inline void gshmemx_putmem_signal_nbi_##SUFFIX(void *dest, const void *source,      \
                                                              size_t nelems, uint64_t *sig_addr,   \
                                                              uint64_t signal, int sig_op, int pe) \
    {                                                                                              \
        gshmemi_put_signal<SCOPE, true>("gshmemx_putmem_signal_nbi_" #SUFFIX, dest, source,        \
                                        nelems, sig_addr, signal, sig_op, pe);                     \
    }
GSHMEMI_DEV_GROUP(GSHMEMI_WARP, warp)
GSHMEMI_DEV_GROUP(GSHMEMI_BLOCK, block)
#undef GSHMEMI_DEV_GROUP

#define GSHMEMI_DEV_GROUP_TYPED(NAME, TYPE, SCOPE, SUFFIX)                                         \
    __device__ inline void gshmemx_##NAME##_put_##SUFFIX(TYPE *d, const TYPE *s, size_t n, int pe) \
    {                                                                                              \
        gshmemi_put<SCOPE>("gshmemx_" #NAME "_put_" #SUFFIX, d, s, n * sizeof(TYPE), pe);          \
    }                                                                                              \
    __device__ inline void gshmemx_##NAME##_put_nbi_##SUFFIX(TYPE *d, const TYPE *s, size_t n,     \
                                                         int pe)                                   \
    {                                                                                              \
        gshmemi_put<SCOPE, true>("gshmemx_" #NAME "_put_nbi_" #SUFFIX, d, s, n * sizeof(TYPE),     \
                                 pe);                                                              \
    }                                                                                              \
    __device__ inline void gshmemx_##NAME##_get_##SUFFIX(TYPE *d, const TYPE *s, size_t n, int pe) \
    {                                                                                              \
        gshmemi_get<SCOPE>("gshmemx_" #NAME "_get_" #SUFFIX, d, s, n * sizeof(TYPE), pe);          \
    }                                                                                              \
    __device__ inline void gshmemx_##NAME##_get_nbi_##SUFFIX(TYPE *d, const TYPE *s, size_t n,     \
                                                         int pe)                                   \
    {                                                                                              \
        gshmemi_get<SCOPE, true>("gshmemx_" #NAME "_get_nbi_" #SUFFIX, d, s, n * sizeof(TYPE),     \
                                 pe);                                                              \
    }                                                                                              \
    __device__ inline void gshmemx_##NAME##_put_signal_##SUFFIX(TYPE *d, const TYPE *s, size_t n,  \
                                                            uint64_t *sig, uint64_t v, int op,     \
                                                            int pe)                                \
    {                                                                                              \
        gshmemi_put_signal<SCOPE>("gshmemx_" #NAME "_put_signal_" #SUFFIX, d, s,                   \
                                  n * sizeof(TYPE), sig, v, op, pe);                               \
    }                                                                                              \
    __device__ inline void gshmemx_##NAME##_put_signal_nbi_##SUFFIX(TYPE *d, const TYPE *s,        \
                                                                size_t n, uint64_t *sig,           \
                                                                uint64_t v, int op, int pe)        \
    {                                                                                              \
        gshmemi_put_signal<SCOPE, true>("gshmemx_" #NAME "_put_signal_nbi_" #SUFFIX, d, s,         \
                                        n * sizeof(TYPE), sig, v, op, pe);                         \
    }
#define GSHMEMI_DEV_GROUP_TYPED_WARP(NAME, TYPE, G)                                                \
    GSHMEMI_DEV_GROUP_TYPED(NAME, TYPE, GSHMEMI_WARP, warp)
#define GSHMEMI_DEV_GROUP_TYPED_BLOCK(NAME, TYPE, G)                                               \
    GSHMEMI_DEV_GROUP_TYPED(NAME, TYPE, GSHMEMI_BLOCK, block)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_GROUP_TYPED_WARP)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_GROUP_TYPED_BLOCK)
#undef GSHMEMI_DEV_GROUP_TYPED_BLOCK
#undef GSHMEMI_DEV_GROUP_TYPED_WARP
#undef GSHMEMI_DEV_GROUP_TYPED

#endif /* GSHMEM_DEVICE_CUH */
