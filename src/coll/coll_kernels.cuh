// What the collectives' stream kernels share: the barriers' and moves'
// (coll_on_stream_kernels.cu) and the reductions' (coll_reduce_kernels.cuh).
// All of it in an unnamed namespace: each translation unit is a CUDA
// module with its own copy.
#ifndef GSHMEMI_COLL_KERNELS_CUH
#define GSHMEMI_COLL_KERNELS_CUH

#include <cstdint>
#include <type_traits>

#include <gshmem_device.cuh>

#include "coll/coll_launch.h"
#include "gpu/stream_launch.cuh"

#define THREADS 512
/* The grid kernels are declared to run one block an SM (their grids, at
 * most 80 blocks, are smaller than the GPU): without that, ptxas fits two
 * and caps them at 64 registers, and most of them spill. */
#define GRID_THREADS 512

namespace {


// A stream call's team slot is still there: gshmem is initialised (a
// graph may be replayed after gshmem_finalize) and the slot is in the
// table.  Constant memory only.
__device__ __forceinline__ void team_slot(const char *call, gshmem_team_t team)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (!s.initialized)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_NOT_INIT, team, nullptr, 0);
    if (team < 0 || team >= s.n_teams)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_TEAM, team, nullptr, 0);
}

// A stream call checks that its team still holds the slot it was enqueued
// on (generation: the team's then, under GSHMEM_DEBUG_CHECKS; else 0, and
// these checks load nothing): a call in a CUDA graph replayed after
// gshmem_team_destroy stops the job instead of running on the slot's next
// team, in its areas.  (The flag packets and the pushes check once their
// own stores have gone, before they wait: gshmemi_ll_alive, push_alive;
// those stores may have reached the next team's areas by then.)
__device__ __forceinline__ void team_alive(const char *call, gshmem_team_t team, int generation)
{
    if (generation == 0)
        return;
    team_slot(call, team);
    if (gshmemi_s().teams[team].generation != generation)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_TEAM_GONE, team, nullptr, 0);
}

// A kernel's team check: team_alive, or, where the flag packets run
// (`packets`), the slot alone, since they compare the generation
// themselves once their stores have gone (gshmemi_ll_alive).
__device__ __forceinline__ void team_check(const char *call, gshmem_team_t team, int generation,
                                           bool packets)
{
    if (!packets)
        team_alive(call, team, generation);
    else if (generation != 0)
        team_slot(call, team);
}
// Flag packets where the host filled the members' areas run on a block per
// LL_BLOCK_PACKETS packets (4 KiB of payload a member), up to LL_BLOCKS:
// one block polls and stores them one after another.
constexpr size_t LL_BLOCK_PACKETS = 512, LL_BLOCKS = 32;
unsigned ll_blocks(const struct gshmemi_ll_areas *ll, size_t bytes)
{
    if (ll->n == 0)
        return 1;
    const size_t b = ((bytes + 7) / 8 + LL_BLOCK_PACKETS - 1) / LL_BLOCK_PACKETS;
    return static_cast<unsigned>(b < 1 ? 1 : b > LL_BLOCKS ? LL_BLOCKS : b);
}

// ---- grid algorithms --------------------------------------------------------
//
// Block b of every member works on piece b of the data and meets only the
// block b of the others: before (every member has started, so its source
// is ready and its dest free) and after (every store into this PE's dest
// has landed).  The counters are in the team slot's collective area.
// (fcollect's and alltoall's extra blocks, which copy this PE's own block
// into its own dest, meet no one: that block is only this PE's.)

__device__ void grid_sync(const char *call, const struct gshmemi_device_team &t, uint64_t area_off)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    const unsigned b = blockIdx.x;
    __syncthreads();
    for (int k = static_cast<int>(threadIdx.x); k < t.n - 1; k += static_cast<int>(blockDim.x)) {
        const int to = (t.my + 1 + k) % t.n;
        char *word = gshmemi_peer_base(s, t.pes[to]) + area_off + GSHMEMI_COLL_AREA_GRID_ARRIVE + 8 * b;
        asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(word) : "memory");
    }
    if (threadIdx.x == 0) {
        char *area = s.heap_base + area_off;
        unsigned long long *done =
            reinterpret_cast<unsigned long long *>(area + GSHMEMI_COLL_AREA_GRID_DONE + 8 * b);
        const unsigned long long n = *done + 1;
        *done = n;
        gshmemi_wait(call,
                     reinterpret_cast<unsigned long long *>(area + GSHMEMI_COLL_AREA_GRID_ARRIVE + 8 * b),
                     GSHMEM_CMP_GE, n * static_cast<unsigned long long>(t.n - 1));
    }
    __syncthreads();
}


template <typename T>
__device__ __forceinline__ T *at_member(const struct gshmemi_device_team &t, int m, T *sym)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (m == t.my)
        return sym;
    return reinterpret_cast<T *>(gshmemi_peer_base(s, t.pes[m]) +
                                 (reinterpret_cast<const char *>(sym) - s.heap_base));
}

// ---- push algorithms ----------------------------------------------------------
//
// Broadcasts and reductions of up to a push area's slots
// (GSHMEM_COLL_PUSH_MAX) on the teams that have one (the world's or the
// node's, and the first splits'), on GSHMEMI_PUSH_BLOCKS blocks: block b of
// every sender stores piece b of what each receiver needs into the
// receiver's slot for that sender (the collective's number's parity picks
// one of two), then the number into the receiver's flag for (sender, b);
// block b of the receiver waits for those flags and works from its own
// memory.  No meeting before the stores, no reads from peers, nothing to
// wait for after.  Before it stores into a slot, a sender waits until the
// receiver has finished the collective before the one before (each member
// says so when it starts the next), which it usually has, unless its last
// push took a flag from every receiver, which says so already (push_begin).

__device__ __forceinline__ char *push_slot(const struct gshmemi_push_area &p, int receiver,
                                           int sender, unsigned long long number)
{
    const int d = sender - receiver;
    const int k = (d < 0 ? d + p.n : d) - 1; /* the others, in team order after it */
    return p.area[receiver] + GSHMEMI_PUSH_DATA +
           ((number & 1) * static_cast<size_t>(p.n - 1) + static_cast<size_t>(k)) * p.cap;
}

__device__ __forceinline__ unsigned long long *push_word(const struct gshmemi_push_area &p, int at,
                                                         size_t off)
{
    return reinterpret_cast<unsigned long long *>(p.area[at] + off);
}

__device__ __forceinline__ unsigned long long *push_flag(const struct gshmemi_push_area &p,
                                                         int receiver, int sender)
{
    return push_word(p, receiver, GSHMEMI_PUSH_FLAGS) +
           static_cast<size_t>(sender) * GSHMEMI_PUSH_BLOCKS + blockIdx.x;
}

// A push's team still holds the slot it was enqueued on (team_alive's
// check, with the generation push_begin loaded): before the push waits for
// anyone or releases its flags (its data may already have gone; the job
// ends either way), so that the load costs no round trip before the stores.
__device__ __forceinline__ void push_alive(const char *call, const struct gshmemi_push_area &p,
                                           gshmem_team_t team, int seen)
{
    if (p.generation != 0 && seen != p.generation)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_TEAM_GONE, team, nullptr, 0);
}

// (asm with a memory clobber: the loads push_begin's meanwhile() issues
// stay after it)
__device__ __forceinline__ unsigned long long push_load(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// The collective's number (this block's count, the same in every block:
// every push runs on all of them), and in *seen its team's generation.
// Block 0 tells the others that this PE has finished the one before (a
// plain store: that one's kernel has ended); a block that sends waits
// until every receiver has finished the one before that, whose slots it
// is about to reuse, where its last collective did not show that
// already.  meanwhile() runs once the number's and the first
// acknowledgement's loads are issued (the block's first source vectors:
// their round trips overlap, and they do not queue ahead of the number).
template <typename F>
__device__ __forceinline__ unsigned long long push_begin(const char *call, const struct gshmemi_push_area &p,
                                                         gshmem_team_t team, bool sends, int *seen,
                                                         F &&meanwhile)
{
    const int tid = static_cast<int>(threadIdx.x), nt = static_cast<int>(blockDim.x);
    unsigned long long *const acks = push_word(p, p.my, GSHMEMI_PUSH_ACKS);
    if (p.generation != 0) {
        team_slot(call, team);
        *seen = *reinterpret_cast<const volatile int *>(&gshmemi_s().teams[team].generation);
    }
    // (the block's count of collectives, and in bit 0 whether the last one
    // took a flag from every other member: push_end)
    const unsigned long long word = push_load(push_word(p, p.my, GSHMEMI_PUSH_NUMBERS) + blockIdx.x);
    const unsigned long long n = (word >> 1) + 1;
    // Each thread's first member's acknowledgement is read together with
    // the number, not one round trip after it (acknowledgements only grow).
    // A plain load, as the flag packets' acknowledgements: the receiver's
    // reads of the slot returned before its kernel ended, before it stored
    // the value, and no thread here stores into the slot before this
    // thread has compared the value (and waited where it is too small) and
    // reached the block barrier below (there wherever a thread may wait;
    // elsewhere the value is not used).  That rests on the hardware not
    // making stores visible ahead of the loads they depend on, as the flag
    // packets do, not on the PTX model, which would want an acquire (and
    // its cost at the start of every push).
    const unsigned long long early =
        sends && tid < p.n - 1 ? push_load(acks + gshmemi_member_after(p.my, 1 + tid, p.n)) : 0;
    meanwhile();
    // Where this block took a flag from every other member in the
    // collective before (a reduction), each of them had finished the one
    // before that when it stored its flag (its kernel had passed the wait
    // for its previous one): the acknowledgements are implied.  That rests
    // on every push storing its flags only after gshmemi_wait_previous().
    const bool implied = (word & 1) != 0;
    if (blockIdx.x == 0)
        for (int k = tid; k < p.n - 1; k += nt)
            *reinterpret_cast<volatile unsigned long long *>(
                push_word(p, gshmemi_member_after(p.my, 1 + k, p.n), GSHMEMI_PUSH_ACKS) + p.my) = n - 1;
    // (the condition is the block's: every thread loaded the same word,
    // which only push_end stores, after a later block barrier)
    if (sends && n > 2 && !implied) {
        for (int k = tid; k < p.n - 1; k += nt) {
            const int m = gshmemi_member_after(p.my, 1 + k, p.n);
            if (k != tid || early < n - 2) {
                push_alive(call, p, team, *seen);
                gshmemi_wait(call, acks + m, GSHMEM_CMP_GE, n - 2, p.pes[m]);
            }
        }
        __syncthreads();
    }
    return n;
}

// The first vectors each thread of a push moves (at most four), loaded
// while push_begin's loads of the number and the acknowledgement are in
// flight; false (nothing loaded) where `from` is not 16-byte aligned.
struct push_head {
    uint4 v[4];
};
__device__ __forceinline__ bool push_head_load(push_head &h, const char *from, size_t len)
{
    if ((reinterpret_cast<uintptr_t>(from) & 15) != 0)
        return false;
    const size_t tid = threadIdx.x, nt = blockDim.x, nv = len / 16;
#pragma unroll
    for (int u = 0; u < 4; u++)
        if (tid + u * nt < nv)
            h.v[u] = reinterpret_cast<const uint4 *>(from)[tid + u * nt];
    return true;
}

// len bytes from `from` into `to` (a push slot: 16-byte aligned); where
// `headed`, the first vectors from `head` (push_head_load's of this
// `from`).
// One destination a call (each reads the source again, from L2): a loop
// over several would keep their addresses in an array on the stack.
__device__ __forceinline__ void push_copy(char *to, const char *from, size_t len, const push_head &head,
                                          bool headed)
{
    const unsigned tid = threadIdx.x, nt = blockDim.x;
    if ((reinterpret_cast<uintptr_t>(from) & 15) != 0) {
        gshmemi_copy(to, from, len, tid, nt);
        return;
    }
    const uint4 *src = reinterpret_cast<const uint4 *>(from);
    uint4 *dst = reinterpret_cast<uint4 *>(to);
    const size_t nv = len / 16;
    size_t i = tid;
    if (headed) {
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (i + u * nt < nv)
                dst[i + u * nt] = head.v[u];
        i += 4 * nt;
    }
    for (; i + 3 * nt < nv; i += 4 * nt) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = src[i + u * nt];
#pragma unroll
        for (int u = 0; u < 4; u++)
            dst[i + u * nt] = v[u];
    }
    for (; i < nv; i += nt)
        dst[i] = src[i];
    for (size_t e = nv * 16 + tid; e < len; e += nt)
        to[e] = from[e];
}

__device__ __forceinline__ void push_copy(char *to, const char *from, size_t len)
{
    const push_head none = {};
    push_copy(to, from, len, none, false);
}

// This block's stores into the other members' slots are visible before
// its flag there says so.
__device__ void push_flags(const struct gshmemi_push_area &p, unsigned long long n)
{
    __syncthreads();
    for (int k = static_cast<int>(threadIdx.x); k < p.n - 1; k += static_cast<int>(blockDim.x))
        asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(
                         push_flag(p, gshmemi_member_after(p.my, 1 + k, p.n), p.my)),
                     "l"(n)
                     : "memory");
}

// This block's pieces from every other member (from < 0) or from one have
// landed here.
__device__ void push_wait(const char *call, const struct gshmemi_push_area &p, unsigned long long n,
                          int from)
{
    if (from >= 0) {
        if (threadIdx.x == 0)
            gshmemi_wait(call, push_flag(p, p.my, from), GSHMEM_CMP_GE, n, p.pes[from]);
    } else {
        for (int k = static_cast<int>(threadIdx.x); k < p.n - 1; k += static_cast<int>(blockDim.x)) {
            const int m = gshmemi_member_after(p.my, 1 + k, p.n);
            gshmemi_wait(call, push_flag(p, p.my, m), GSHMEM_CMP_GE, n, p.pes[m]);
        }
    }
    __syncthreads();
}

// The block's count of collectives, for the next kernel in stream order,
// and whether this one took a flag from every other member (push_begin).
__device__ __forceinline__ void push_end(const struct gshmemi_push_area &p, unsigned long long n,
                                         bool from_all)
{
    if (threadIdx.x == 0)
        push_word(p, p.my, GSHMEMI_PUSH_NUMBERS)[blockIdx.x] = n << 1 | (from_all ? 1 : 0);
}

} // namespace

#endif
