/* gshmem device API, part of gshmem_device.cuh: the copy to and from
 * mapped PEs, split over a group's threads, and the thread/warp/block
 * scopes (lanes, group size, group synchronisation). */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/copy.cuh>"
#endif
#ifndef GSHMEM_DEVICE_COPY_CUH
#define GSHMEM_DEVICE_COPY_CUH

namespace {

__device__ __forceinline__ unsigned gshmemi_lane()
{
    unsigned l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

__device__ __forceinline__ bool gshmemi_copy_joined(char *dst, const char *src, size_t n);

/* ---- copies: the widest accesses both addresses allow, split over the
 * group's threads (lane of n), four 16-byte vectors in flight per thread.
 * ONE: a thread-scope call's copy (nthreads 1), which its warp may join
 * (gshmemi_copy_joined).  BLOCK: a block-scope call's. */
template <bool ONE = false, bool BLOCK = false>
__device__ __forceinline__ void gshmemi_copy(char *dst, const char *src, size_t n, unsigned lane,
                                             unsigned nthreads)
{
    /* Both aligned, a few vectors per thread: the shortest path.  A small
     * call's time is its instructions, far fewer here than on the general
     * path below (docs/performance.md).  A block's call of exactly four
     * vectors a thread comes here too: with four loads in flight in every
     * thread of the block (the general path), its gets were slower than
     * this loop's one at a time. */
    const size_t vecs = n / 16, four = 4 * static_cast<size_t>(nthreads);
    if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15) == 0 &&
        (ONE ? n < 32 : BLOCK ? vecs <= four : vecs < four)) {
        const unsigned nv = static_cast<unsigned>(n / 16);
        if (ONE) {
            /* Under 32 bytes, at most one vector: from 32, a warp whose
             * threads all call may copy their pieces together (below). */
            if (nv != 0)
                *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(src);
        } else {
            for (unsigned i = lane; i < nv; i += nthreads)
                reinterpret_cast<uint4 *>(dst)[i] = reinterpret_cast<const uint4 *>(src)[i];
        }
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
    if (ONE && gshmemi_copy_joined(dst, src, n))
        return;
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

/* Thread-scope puts and gets that a whole warp calls at once with one size
 * on adjacent pieces (a grid splitting a buffer over its threads): a thread
 * copying its own piece puts a warp's accesses n bytes apart, which from 32
 * bytes a piece reach the peer at half the rate of the warp copying the
 * whole span together, as it does here.  False where the warp's calls are
 * not such: the thread copies its own piece.  Ends with the warp's barrier,
 * which orders every lane's stores before any lane's later fence or signal
 * (a lane's piece may have been stored by another lane). */
__device__ __forceinline__ bool gshmemi_copy_joined(char *dst, const char *src, size_t n)
{
    /* (a local address is the thread's own: never another lane's piece) */
    if (n < 32 || __isLocal(dst) || __isLocal(src) || __activemask() != 0xffffffffu)
        return false;
    /* where lane 0's pieces start if the warp's are adjacent; each match's
     * answer is the same in every lane */
    const unsigned lane = gshmemi_lane();
    const unsigned long long d0 = reinterpret_cast<uintptr_t>(dst) - lane * n;
    const unsigned long long s0 = reinterpret_cast<uintptr_t>(src) - lane * n;
    int same;
    __match_all_sync(0xffffffffu, static_cast<unsigned long long>(n), &same);
    if (!same)
        return false;
    __match_all_sync(0xffffffffu, d0, &same);
    if (!same)
        return false;
    __match_all_sync(0xffffffffu, s0, &same);
    if (!same)
        return false;
    __syncwarp(); /* each lane's writes of its source (reads of its destination) before the others' */
    gshmemi_copy(reinterpret_cast<char *>(d0), reinterpret_cast<const char *>(s0), 32 * n, lane, 32);
    __syncwarp();
    return true;
}

__device__ __forceinline__ unsigned gshmemi_block_rank()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ unsigned gshmemi_block_size() { return blockDim.x * blockDim.y * blockDim.z; }

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

/* v as the group's first thread (lane 0) has it, in every thread of the
 * group; all of them call it. */
template <int SCOPE, typename T>
__device__ __forceinline__ T gshmemi_group_broadcast(unsigned lane, T v)
{
    if (SCOPE == GSHMEMI_WARP) {
        v = __shfl_sync(0xffffffffu, v, 0);
    } else if (SCOPE == GSHMEMI_BLOCK) {
        __shared__ T shared;
        if (lane == 0)
            shared = v;
        __syncthreads();
        v = shared;
        __syncthreads(); /* before the next broadcast writes it */
    }
    return v;
}

/* Two words at once, as gshmemi_group_broadcast: in a block, one pair of
 * barriers, not two. */
template <int SCOPE>
__device__ __forceinline__ void gshmemi_group_broadcast2(unsigned lane, uint64_t *a, uint64_t *b)
{
    if (SCOPE == GSHMEMI_WARP) {
        *a = __shfl_sync(0xffffffffu, *a, 0);
        *b = __shfl_sync(0xffffffffu, *b, 0);
    } else if (SCOPE == GSHMEMI_BLOCK) {
        __shared__ uint64_t shared[2];
        if (lane == 0)
            shared[0] = *a, shared[1] = *b;
        __syncthreads();
        *a = shared[0];
        *b = shared[1];
        __syncthreads(); /* before the next broadcast writes it */
    }
}

/* ---- flag packets: up to 8 bytes of data and their flag in one 16-byte
 * store, {data low, t0, data high, t1}.  Each 8-byte half lands whole, so a
 * reader that finds both tags knows both halves are of the same write
 * (the collectives' LL algorithms and the partitioned transfers' small
 * partitions).  ---- */

__device__ __forceinline__ void gshmemi_packet_store(void *p, uint64_t data, uint32_t t0, uint32_t t1)
{
    asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
                 "r"(static_cast<uint32_t>(data)), "r"(t0), "r"(static_cast<uint32_t>(data >> 32)),
                 "r"(t1)
                 : "memory");
}

__device__ __forceinline__ bool gshmemi_packet_try(const void *p, uint32_t t0, uint32_t t1, uint64_t *data)
{
    uint32_t lo, f0, hi, f1;
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(lo), "=r"(f0), "=r"(hi), "=r"(f1)
                 : "l"(p)
                 : "memory");
    *data = static_cast<uint64_t>(lo) | static_cast<uint64_t>(hi) << 32;
    return f0 == t0 && f1 == t1;
}

/* Chunk k (8 bytes, zero-padded past nbytes) of a buffer of any alignment:
 * one load where it is whole and 8-byte aligned; where 4-byte aligned, a
 * tail (the small collectives' 4 bytes a member) in 4-, 2- and 1-byte
 * loads that are all in flight at once, not a byte loop. */
__device__ __forceinline__ uint64_t gshmemi_packet_chunk(const char *src, size_t nbytes, size_t k)
{
    const size_t at = k * 8;
    const char *p = src + at;
    const unsigned rem = at < nbytes ? (nbytes - at < 8 ? static_cast<unsigned>(nbytes - at) : 8) : 0;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if ((a & 7) == 0 && rem == 8)
        return *reinterpret_cast<const uint64_t *>(p);
    uint64_t v = 0;
    if ((a & 3) == 0) {
        if (rem == 8)
            return *reinterpret_cast<const uint32_t *>(p) |
                   static_cast<uint64_t>(*reinterpret_cast<const uint32_t *>(p + 4)) << 32;
        const unsigned two = rem & 4, one = two + (rem & 2);
        if (rem & 4)
            v = *reinterpret_cast<const uint32_t *>(p);
        if (rem & 2)
            v |= static_cast<uint64_t>(*reinterpret_cast<const uint16_t *>(p + two)) << (8 * two);
        if (rem & 1)
            v |= static_cast<uint64_t>(static_cast<unsigned char>(p[one])) << (8 * one);
        return v;
    }
    for (unsigned b = 0; b < rem; b++)
        v |= static_cast<uint64_t>(static_cast<unsigned char>(p[b])) << (8 * b);
    return v;
}

/* Chunk k's bytes that fall within nbytes, stored as gshmemi_packet_chunk
 * loads them. */
__device__ __forceinline__ void gshmemi_packet_unchunk(char *dst, size_t nbytes, size_t k, uint64_t v)
{
    const size_t at = k * 8;
    char *p = dst + at;
    const unsigned rem = at < nbytes ? (nbytes - at < 8 ? static_cast<unsigned>(nbytes - at) : 8) : 0;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if ((a & 7) == 0 && rem == 8) {
        *reinterpret_cast<uint64_t *>(p) = v;
        return;
    }
    if ((a & 3) == 0) {
        if (rem == 8) {
            *reinterpret_cast<uint32_t *>(p) = static_cast<uint32_t>(v);
            *reinterpret_cast<uint32_t *>(p + 4) = static_cast<uint32_t>(v >> 32);
            return;
        }
        const unsigned two = rem & 4, one = two + (rem & 2);
        if (rem & 4)
            *reinterpret_cast<uint32_t *>(p) = static_cast<uint32_t>(v);
        if (rem & 2)
            *reinterpret_cast<uint16_t *>(p + two) = static_cast<uint16_t>(v >> (8 * two));
        if (rem & 1)
            p[one] = static_cast<char>(v >> (8 * one));
        return;
    }
    for (unsigned b = 0; b < rem; b++)
        p[b] = static_cast<char>(v >> (8 * b));
}

} // namespace

#endif /* GSHMEM_DEVICE_COPY_CUH */
