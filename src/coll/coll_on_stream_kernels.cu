// The collectives in stream order: for small payloads one block on the
// caller's stream runs the device API's block form (flag packets where
// the team is all mapped, else barrier, move, barrier); for large ones on
// teams whose members are all mapped, the grid algorithms below spread the
// work over many blocks.  Either way the collective takes its place in
// the stream, and every count lives in GPU memory: a captured graph
// replays correctly.
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
#define GRID_MEMBERS 64 /* members whose addresses a grid block keeps in shared memory */

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

__global__ void team_sync_kernel(gshmem_team_t team, int generation, int quiet)
{
    gshmemi_wait_previous();
    team_alive(quiet ? "gshmemx_barrier_on_stream" : "gshmemx_team_sync_on_stream", team, generation);
    if (quiet)
        gshmemx_barrier_block(team);
    else
        gshmemx_team_sync_block(team);
}

// The calls' names for kernels' messages: tables in device memory (a host
// string's address means nothing to a kernel).
__device__ const char *const move_names[] = {GSHMEMI_FOR_COLL_MOVES(GSHMEMI_COLL_MOVE_CALL)};

// Flag packets on the members' areas the host passed (ll.n > 0: the host
// checked the team and chose them for broadcast, fcollect or alltoall), a
// share of them a block, else, on one block, the block form.
__global__ void move_kernel(int shape, gshmem_team_t team, void *dest, const void *src,
                            size_t nbytes, int root, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                            size_t esize, struct gshmemi_ll_areas ll)
{
    gshmemi_wait_previous();
    const char *call = move_names[shape];
    const bool packets = ll.n > 0 && (shape == GSHMEMI_COLL_SHAPE_BROADCAST ||
                                      shape == GSHMEMI_COLL_SHAPE_FCOLLECT ||
                                      shape == GSHMEMI_COLL_SHAPE_ALLTOALL);
    team_check(call, team, ll.generation, packets);
    if (packets) {
        const int form = shape == GSHMEMI_COLL_SHAPE_BROADCAST  ? GSHMEMI_LL_BROADCAST
                         : shape == GSHMEMI_COLL_SHAPE_FCOLLECT ? GSHMEMI_LL_FCOLLECT
                                                                : GSHMEMI_LL_ALLTOALL;
        if (gridDim.x == 1) // (the shares' arithmetic compiled out)
            gshmemi_ll_move<GSHMEMI_BLOCK, false>(call, team, gshmemi_s().teams[team], form, dest,
                                                  src, nbytes, root, &ll);
        else
            gshmemi_ll_move<GSHMEMI_BLOCK, true>(call, team, gshmemi_s().teams[team], form, dest,
                                                 src, nbytes, root, &ll);
        return;
    }
    switch (shape) {
    case GSHMEMI_COLL_SHAPE_BROADCAST:
        gshmemi_coll_broadcast<GSHMEMI_BLOCK>(call, team, dest, src, nbytes, root);
        break;
    case GSHMEMI_COLL_SHAPE_COLLECT:
        gshmemi_coll_collect<GSHMEMI_BLOCK>(call, team, dest, src, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_FCOLLECT:
        gshmemi_coll_fcollect<GSHMEMI_BLOCK>(call, team, dest, src, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_ALLTOALL:
        gshmemi_coll_alltoall<GSHMEMI_BLOCK>(call, team, dest, src, nbytes);
        break;
    default:
        gshmemi_coll_alltoalls<GSHMEMI_BLOCK>(call, team, dest, src, dst, sst, nelems, esize);
    }
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

// ---- reductions ---------------------------------------------------------------

// Their names, by id (RED_int_sum_reduce ...), for kernels' messages.
#define RED_ID(STEM, TAIL, SHAPE, OP, NAME, TYPE) RED_##NAME##_##STEM##TAIL,
#define RED_IDS_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(RED_ID, NAME, TYPE)
#define RED_IDS_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(RED_ID, NAME, TYPE)
enum { GSHMEM_FOR_REDUCE_BITWISE_TYPES(RED_IDS_BITWISE) GSHMEM_FOR_REDUCE_ARITH_TYPES(RED_IDS_ARITH) };
#define RED_NAME(STEM, TAIL, SHAPE, OP, NAME, TYPE) "gshmemx_" #NAME "_" #STEM #TAIL "_on_stream",
#define RED_NAMES_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(RED_NAME, NAME, TYPE)
#define RED_NAMES_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(RED_NAME, NAME, TYPE)
__device__ const char *const reduce_names[] = {
    GSHMEM_FOR_REDUCE_BITWISE_TYPES(RED_NAMES_BITWISE) GSHMEM_FOR_REDUCE_ARITH_TYPES(RED_NAMES_ARITH)};

// The type a reduction's kernels are built for: integers by width and
// signedness (the same arithmetic), the others as they are.
template <size_t BYTES, bool SIGNED> struct int_of;
template <> struct int_of<1, true> { typedef int8_t type; };
template <> struct int_of<2, true> { typedef int16_t type; };
template <> struct int_of<4, true> { typedef int32_t type; };
template <> struct int_of<8, true> { typedef int64_t type; };
template <> struct int_of<1, false> { typedef uint8_t type; };
template <> struct int_of<2, false> { typedef uint16_t type; };
template <> struct int_of<4, false> { typedef uint32_t type; };
template <> struct int_of<8, false> { typedef uint64_t type; };
template <typename T, bool INTEGRAL = std::is_integral<T>::value> struct canon { typedef T type; };
template <typename T> struct canon<T, true> {
    typedef typename int_of<sizeof(T), std::is_signed<T>::value>::type type;
};

#define OP_FUNCTOR(OP)                                                                             \
    struct op_##OP {                                                                               \
        template <typename T>                                                                      \
        __device__ __forceinline__ T operator()(T a, T b) const                                    \
        {                                                                                          \
            return gshmemi_arith<T>::OP(a, b);                                                     \
        }                                                                                          \
    };
OP_FUNCTOR(AND)
OP_FUNCTOR(OR)
OP_FUNCTOR(XOR)
OP_FUNCTOR(MIN)
OP_FUNCTOR(MAX)
OP_FUNCTOR(SUM)
OP_FUNCTOR(PROD)
#undef OP_FUNCTOR

enum { SHAPE_REDUCE, SHAPE_REDUCESCATTER, SHAPE_INSCAN, SHAPE_EXSCAN };

// Flag packets on the members' areas the host passed (ll.n > 0), a share
// of them a block, else, on one block, the device API's block form (flag packets, barrier-
// move-barrier, or gets from members through the proxy).
// (GSHMEM_DEBUG_CHECKS' argument check is the host's, before the launch.)
template <typename T, typename OP, int SHAPE>
__global__ void block_reduce_kernel(int name, gshmem_team_t team, T *dest, const T *src, size_t n,
                                    struct gshmemi_ll_areas ll)
{
    gshmemi_wait_previous();
    const char *call = reduce_names[name];
    const bool packets = (SHAPE == SHAPE_REDUCE || SHAPE == SHAPE_REDUCESCATTER) && ll.n > 0;
    team_check(call, team, ll.generation, packets);
    if (packets)
        if (gridDim.x == 1)
            gshmemi_ll_reduce<GSHMEMI_BLOCK, T, OP, false>(call, team, gshmemi_s().teams[team], dest,
                                                           src, n, SHAPE == SHAPE_REDUCESCATTER,
                                                           OP(), &ll);
        else
            gshmemi_ll_reduce<GSHMEMI_BLOCK, T, OP, true>(call, team, gshmemi_s().teams[team], dest,
                                                          src, n, SHAPE == SHAPE_REDUCESCATTER,
                                                          OP(), &ll);
    else if (SHAPE == SHAPE_REDUCE)
        gshmemi_coll_reduce<GSHMEMI_BLOCK>(call, team, dest, src, n, OP());
    else if (SHAPE == SHAPE_REDUCESCATTER)
        gshmemi_coll_reducescatter<GSHMEMI_BLOCK>(call, team, dest, src, n, OP());
    else
        gshmemi_coll_scan<GSHMEMI_BLOCK>(call, team, dest, src, n, OP(), SHAPE == SHAPE_INSCAN);
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

// Piece k of P of n elements, cut at multiples of v elements (16 bytes,
// so that every piece of an aligned buffer stays aligned):
// [*first, *first + *len).
__device__ __forceinline__ void piece(size_t n, size_t v, size_t P, size_t k, size_t *first,
                                      size_t *len)
{
    const size_t units = (n + v - 1) / v, q = units / P, r = units % P;
    const size_t u0 = k * q + (k < r ? k : r), ul = q + (k < r ? 1 : 0);
    *first = u0 * v < n ? u0 * v : n;
    *len = ul * v < n - *first ? ul * v : n - *first;
}

// The members' copies of src and dest as mapped here, in team order, read
// once a block into shared memory (teams of up to GRID_MEMBERS;
// larger ones look them up each time): the loops below then load no team
// state, which the compiler would otherwise reload after every store
// (dest might alias it).
struct grid_members {
    const char *src[GRID_MEMBERS];
    char *dst[GRID_MEMBERS];
    const struct gshmemi_device_team *t;
    const char *src_sym;
    char *dst_sym;
};

__device__ __forceinline__ void grid_members_load(grid_members &g, const struct gshmemi_device_team &t,
                                                  const void *dest, const void *src)
{
    const int cached = t.n < GRID_MEMBERS ? t.n : GRID_MEMBERS;
    for (int m = static_cast<int>(threadIdx.x); m < cached; m += static_cast<int>(blockDim.x)) {
        g.src[m] = at_member(t, m, static_cast<const char *>(src));
        g.dst[m] = at_member(t, m, static_cast<char *>(const_cast<void *>(dest)));
    }
    if (threadIdx.x == 0) {
        g.t = &t;
        g.src_sym = static_cast<const char *>(src);
        g.dst_sym = static_cast<char *>(const_cast<void *>(dest));
    }
    // (grid_sync, next, starts with the block barrier that publishes g)
}

__device__ __forceinline__ const char *member_src(const grid_members &g, int m)
{
    return m < GRID_MEMBERS ? g.src[m] : at_member(*g.t, m, g.src_sym);
}
__device__ __forceinline__ char *member_dst(const grid_members &g, int m)
{
    return m < GRID_MEMBERS ? g.dst[m] : at_member(*g.t, m, g.dst_sym);
}

// Elements [first, first + len) of every member's source (at element
// offset src_off), combined in team order, into every member's dest
// (reduce) or this PE's only (reducescatter): 16-byte vectors where both
// are aligned, four in flight a thread (the loads from peers are NVLink
// round trips; one at a time leaves the link idle).
template <typename T, typename OP>
__device__ void grid_combine(const grid_members &g, int n, int my, size_t src_off, size_t first,
                             size_t len, bool everywhere, OP op)
{
    constexpr size_t V = 16 / sizeof(T);
    const size_t tid = threadIdx.x, nt = blockDim.x;
    const int first_copy = everywhere ? 1 : n; // (my + n) % n: this PE last
    const T *src0 = reinterpret_cast<const T *>(member_src(g, 0)) + src_off + first;
    T *own = reinterpret_cast<T *>(member_dst(g, my)) + first;
    // (this PE's source: its alignment is the others' where they are its
    // copies, not where they are push slots)
    const T *mine = reinterpret_cast<const T *>(member_src(g, my)) + src_off + first;
    const bool vec = ((reinterpret_cast<uintptr_t>(own) | reinterpret_cast<uintptr_t>(src0) |
                       reinterpret_cast<uintptr_t>(mine)) & 15) == 0;
    const size_t nv = vec ? len / V : 0;
    size_t i = tid;
    for (; i + 3 * nt < nv; i += 4 * nt) {
        uint4 acc[4], in[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc[u] = reinterpret_cast<const uint4 *>(src0)[i + u * nt];
        for (int m = 1; m < n; m++) {
            const uint4 *from = reinterpret_cast<const uint4 *>(reinterpret_cast<const T *>(member_src(g, m)) + src_off + first);
#pragma unroll
            for (int u = 0; u < 4; u++)
                in[u] = from[i + u * nt];
#pragma unroll
            for (int u = 0; u < 4; u++)
                acc[u] = gshmemi_combine_packed<T>(acc[u], in[u], op);
        }
        for (int k = first_copy; k <= n; k++) {
            uint4 *to = reinterpret_cast<uint4 *>(reinterpret_cast<T *>(member_dst(g, (my + k) % n)) + first);
#pragma unroll
            for (int u = 0; u < 4; u++)
                to[i + u * nt] = acc[u];
        }
    }
    for (; i < nv; i += nt) {
        uint4 acc = reinterpret_cast<const uint4 *>(src0)[i];
        for (int m = 1; m < n; m++)
            acc = gshmemi_combine_packed<T>(
                acc, reinterpret_cast<const uint4 *>(reinterpret_cast<const T *>(member_src(g, m)) + src_off + first)[i], op);
        for (int k = first_copy; k <= n; k++)
            reinterpret_cast<uint4 *>(reinterpret_cast<T *>(member_dst(g, (my + k) % n)) + first)[i] = acc;
    }
    for (size_t e = nv * V + tid; e < len; e += nt) {
        T acc = src0[e];
        for (int m = 1; m < n; m++)
            acc = op(acc, reinterpret_cast<const T *>(member_src(g, m))[src_off + first + e]);
        for (int k = first_copy; k <= n; k++)
            reinterpret_cast<T *>(member_dst(g, (my + k) % n))[first + e] = acc;
    }
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

// Elements [0, len) of the members' contributions from[0..n) (this PE's
// memory), combined in team order, into dest: 16-byte vectors where all
// are aligned, four in flight a thread; two members (the common case)
// without the loop over them.
template <typename T, typename OP>
__device__ void push_combine(const T *const *from, int n, T *dest, size_t len, OP op)
{
    constexpr size_t V = 16 / sizeof(T);
    const size_t tid = threadIdx.x, nt = blockDim.x;
    uintptr_t bits = reinterpret_cast<uintptr_t>(dest);
    for (int m = 0; m < n; m++)
        bits |= reinterpret_cast<uintptr_t>(from[m]);
    const size_t nv = (bits & 15) == 0 ? len / V : 0;
    uint4 *const to = reinterpret_cast<uint4 *>(dest);
    size_t i = tid;
    if (n == 2) {
        const uint4 *const a = reinterpret_cast<const uint4 *>(from[0]);
        const uint4 *const b = reinterpret_cast<const uint4 *>(from[1]);
        for (; i + 3 * nt < nv; i += 4 * nt) {
            uint4 x[4], y[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                x[u] = a[i + u * nt];
#pragma unroll
            for (int u = 0; u < 4; u++)
                y[u] = b[i + u * nt];
#pragma unroll
            for (int u = 0; u < 4; u++)
                to[i + u * nt] = gshmemi_combine_packed<T>(x[u], y[u], op);
        }
    } else {
        for (; i + 3 * nt < nv; i += 4 * nt) {
            uint4 acc[4], in[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                acc[u] = reinterpret_cast<const uint4 *>(from[0])[i + u * nt];
            for (int m = 1; m < n; m++) {
#pragma unroll
                for (int u = 0; u < 4; u++)
                    in[u] = reinterpret_cast<const uint4 *>(from[m])[i + u * nt];
#pragma unroll
                for (int u = 0; u < 4; u++)
                    acc[u] = gshmemi_combine_packed<T>(acc[u], in[u], op);
            }
#pragma unroll
            for (int u = 0; u < 4; u++)
                to[i + u * nt] = acc[u];
        }
    }
    for (; i < nv; i += nt) {
        uint4 acc = reinterpret_cast<const uint4 *>(from[0])[i];
        for (int m = 1; m < n; m++)
            acc = gshmemi_combine_packed<T>(acc, reinterpret_cast<const uint4 *>(from[m])[i], op);
        to[i] = acc;
    }
    for (size_t e = nv * V + tid; e < len; e += nt) {
        T acc = from[0][e];
        for (int m = 1; m < n; m++)
            acc = op(acc, from[m][e]);
        dest[e] = acc;
    }
}

// Reduce and reducescatter by pushing: piece b of what each member gets
// (the whole source; its block of it) into its slot for this PE, then
// piece b of every member's contribution, combined in team order from
// this PE's memory into dest.  `from`: the block's shared room for the
// contributions' addresses.
template <typename T, typename OP>
__device__ void push_reduce(const char *call, const struct gshmemi_push_area &p, gshmem_team_t team,
                            const T **from, T *dest, const T *src, size_t count, int scatter, OP op)
{
    const int n = p.n, my = p.my;
    size_t first, len;
    // (the push's block count as a constant, as every push is launched:
    // no 64-bit division before the first store)
    piece(count, 16 / sizeof(T), GSHMEMI_PUSH_BLOCKS, blockIdx.x, &first, &len);
    // (reducescatter: member my + 1's block first)
    const T *const first_src =
        src + (scatter ? static_cast<size_t>(gshmemi_member_after(my, 1, p.n)) * count : 0) + first;
    push_head head;
    bool headed = false;
    int seen = 0;
    const unsigned long long number = push_begin(call, p, team, true, &seen, [&] {
        headed = push_head_load(head, reinterpret_cast<const char *>(first_src), len * sizeof(T));
    });
    for (int k = 1; k < n; k++) {
        const int m = gshmemi_member_after(my, k, p.n);
        push_copy(push_slot(p, m, my, number) + first * sizeof(T),
                  reinterpret_cast<const char *>(scatter ? src + static_cast<size_t>(m) * count + first
                                                         : first_src),
                  len * sizeof(T), head, k == 1 && headed);
    }
    push_alive(call, p, team, seen);
    push_flags(p, number);
    if (threadIdx.x < static_cast<unsigned>(n)) {
        const int m = static_cast<int>(threadIdx.x);
        from[m] = (m == my ? src + (scatter ? static_cast<size_t>(my) * count : 0)
                           : reinterpret_cast<const T *>(push_slot(p, my, m, number))) +
                  first;
    }
    push_wait(call, p, number, -1); /* (its block barrier publishes from) */
    push_combine<T>(from, n, dest + first, len, op);
    push_end(p, number, true);
}

// Broadcast by pushing: the root's piece b into every other member's slot
// for it (then its own dest, where that is not its source); the others'
// from their slots into dest.
__device__ void push_broadcast(const char *call, const struct gshmemi_push_area &p, gshmem_team_t team,
                               char *dest, const char *src, size_t nbytes, int root)
{
    const int n = p.n, my = p.my;
    // (the push's block count as a constant, as push_reduce)
    const size_t step = ((nbytes + GSHMEMI_PUSH_BLOCKS - 1) / GSHMEMI_PUSH_BLOCKS + 15) / 16 * 16;
    const size_t off = step * blockIdx.x;
    const size_t len = off < nbytes ? (nbytes - off < step ? nbytes - off : step) : 0;
    int seen = 0;
    const unsigned long long number = push_begin(call, p, team, my == root, &seen, [] {});
    if (my == root) {
        for (int k = 1; k < n; k++)
            push_copy(push_slot(p, gshmemi_member_after(my, k, p.n), my, number) + off, src + off, len);
        push_alive(call, p, team, seen);
        push_flags(p, number);
        if (dest != src)
            gshmemi_copy(dest + off, src + off, len, threadIdx.x, blockDim.x);
    } else {
        push_alive(call, p, team, seen);
        push_wait(call, p, number, root);
        gshmemi_copy(dest + off, push_slot(p, my, root, number) + off, len, threadIdx.x, blockDim.x);
    }
    push_end(p, number, false);
}

// Push reductions run in a kernel of their own, not as a branch of the
// grid algorithm's: ptxas then fits the push alone, its registers and
// stack, not the larger kernel's.
template <typename T, typename OP>
__global__ void __launch_bounds__(GRID_THREADS, 1) push_reduce_kernel(int name, gshmem_team_t team, T *dest,
                                                                      const T *src, size_t count, int scatter,
                                                                      OP op, struct gshmemi_push_area push)
{
    __shared__ const T *from[GSHMEMI_LL_AREAS_MEMBERS];
    gshmemi_wait_previous_start_next();
    push_reduce<T>(reduce_names[name], push, team, from, dest, src, count, scatter, op);
}

template <typename T, typename OP>
__global__ void __launch_bounds__(GRID_THREADS, 1) grid_reduce_kernel(int name, gshmem_team_t team, T *dest, const T *src,
                                   size_t count, int scatter, OP op, struct gshmemi_push_area push)
{
    __shared__ grid_members g;
    gshmemi_wait_previous_start_next();
    const char *call = reduce_names[name];
    team_alive(call, team, push.generation);
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    const int n = t.n, my = t.my;
    const uint64_t area = gshmemi_coll_area_off(team);
    const size_t G = gridDim.x, V = 16 / sizeof(T);
    size_t first, len;
    grid_members_load(g, t, dest, src);
    grid_sync(call, t, area);
    if (!scatter) {
        // Two-shot: piece b of this PE's part, read from every member,
        // combined and stored into every member's dest.
        piece(count, V, static_cast<size_t>(n) * G, static_cast<size_t>(my) * G + blockIdx.x, &first,
              &len);
        grid_combine<T>(g, n, my, 0, first, len, true, op);
    } else {
        // Piece b of this PE's block of every member's source, into this
        // PE's dest.
        piece(count, V, G, blockIdx.x, &first, &len);
        grid_combine<T>(g, n, my, static_cast<size_t>(my) * count, first, len, false, op);
    }
    // Every member's stores into this PE's dest have landed, and no member
    // reads this PE's source any more.
    grid_sync(call, t, area);
}

// Moves: piece b (16-byte aligned bytes) of each block, straight into the
// members' dests (fcollect, alltoall: pushed; broadcast: pulled from the
// root by every member, so that every GPU's SMs share the work).  The
// first G blocks move between PEs; in fcollect and alltoall the blocks
// past them copy this PE's own block into its dest meanwhile (it needs
// only this GPU's memory, so it takes no part in the grid barriers and
// no longer adds its time to the pushes').
__global__ void __launch_bounds__(GRID_THREADS, 1) grid_move_kernel(int shape, gshmem_team_t team, char *dest, const char *src,
                                 size_t nbytes, int root, unsigned G, struct gshmemi_push_area push)
{
    gshmemi_wait_previous_start_next();
    const char *call = move_names[shape];
    if (push.n > 0) /* (broadcast) */
        return push_broadcast(call, push, team, dest, src, nbytes, root);
    team_alive(call, team, push.generation);
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    const int n = t.n, my = t.my;
    if (blockIdx.x >= G) {
        const size_t L = gridDim.x - G, b = blockIdx.x - G;
        const size_t step = ((nbytes + L - 1) / L + 15) / 16 * 16;
        const size_t off = step * b;
        const size_t len = off < nbytes ? (nbytes - off < step ? nbytes - off : step) : 0;
        const char *own = shape == GSHMEMI_COLL_SHAPE_ALLTOALL ? src + static_cast<size_t>(my) * nbytes : src;
        char *mine = dest + static_cast<size_t>(my) * nbytes;
        if (len > 0 && mine != own)
            gshmemi_copy(mine + off, own + off, len, threadIdx.x, blockDim.x);
        return;
    }
    const bool own_apart = gridDim.x > G;
    const uint64_t area = gshmemi_coll_area_off(team);
    const size_t step = ((nbytes + G - 1) / G + 15) / 16 * 16; /* G pieces cover every byte */
    const size_t off = step * blockIdx.x;
    const size_t len = off < nbytes ? (nbytes - off < step ? nbytes - off : step) : 0;
    grid_sync(call, t, area);
    for (int k = 1; k <= n && len > 0; k++) {
        const int m = (my + k) % n;
        switch (shape) {
        case GSHMEMI_COLL_SHAPE_FCOLLECT:
            if (m != my || !own_apart)
                gshmemi_copy(at_member(t, m, dest) + static_cast<size_t>(my) * nbytes + off, src + off,
                             len, threadIdx.x, blockDim.x);
            break;
        case GSHMEMI_COLL_SHAPE_ALLTOALL:
            if (m != my || !own_apart)
                gshmemi_copy(at_member(t, m, dest) + static_cast<size_t>(my) * nbytes + off,
                             src + static_cast<size_t>(m) * nbytes + off, len, threadIdx.x, blockDim.x);
            break;
        default: // broadcast: once, from the root's source into mine
            if (m == my && (my != root || dest != src))
                gshmemi_copy(dest + off, at_member(t, root, src) + off, len, threadIdx.x, blockDim.x);
        }
    }
    grid_sync(call, t, area);
}

} // namespace

extern "C" int gshmemi_launch_team_sync(void *stream, gshmem_team_t team, int generation, int quiet)
{
    return gshmemi_stream_launch(team_sync_kernel, 1, 32, stream, team, generation, quiet);
}

extern "C" int gshmemi_launch_coll_move(void *stream, int shape, gshmem_team_t team, void *dest,
                                        const void *source, size_t nbytes, int root, ptrdiff_t dst,
                                        ptrdiff_t sst, size_t nelems, size_t esize, int blocks,
                                        const struct gshmemi_ll_areas *ll,
                                        const struct gshmemi_push_area *push)
{
    if (blocks > 0)
    {
        if (push->n > 0) /* a broadcast's push: its area's blocks, which it cuts by */
            blocks = GSHMEMI_PUSH_BLOCKS;
        // fcollect and alltoall: a quarter more blocks for this PE's own block
        const int own = shape == GSHMEMI_COLL_SHAPE_BROADCAST ? 0 : (blocks + 3) / 4;
        return gshmemi_stream_launch(grid_move_kernel, blocks + own, GRID_THREADS, stream, shape,
                                     team, static_cast<char *>(dest),
                                     static_cast<const char *>(source), nbytes, root,
                                     static_cast<unsigned>(blocks), *push);
    }
    return gshmemi_stream_launch(move_kernel, ll_blocks(ll, nbytes), THREADS, stream, shape, team,
                                 dest, source, nbytes, root, dst, sst, nelems, esize, *ll);
}

// One launcher per typed reduction (gshmemi_launch_int_sum_reduce ...);
// the kernels are built per representation (integers by width and
// signedness: int, int32 and int32_t share theirs), which halves the
// kernels to compile without changing any result.
#define REDUCE_LAUNCHER(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                         \
    extern "C" int gshmemi_launch_##NAME##_##STEM##TAIL(void *stream, gshmem_team_t team,         \
                                                        void *dest, const void *src, size_t n,     \
                                                        int blocks,                                \
                                                        const struct gshmemi_ll_areas *ll,         \
                                                        const struct gshmemi_push_area *push)      \
    {                                                                                              \
        typedef canon<TYPE>::type T;                                                               \
        GRID_##SHAPE(OP, T, RED_##NAME##_##STEM##TAIL)                                             \
        return gshmemi_stream_launch(block_reduce_kernel<T, op_##OP, SHAPE_##SHAPE>,               \
                                     ll_blocks(ll, n * sizeof(T)), THREADS, stream,                \
                                     static_cast<int>(RED_##NAME##_##STEM##TAIL), team,            \
                                     static_cast<T *>(dest), static_cast<const T *>(src), n, *ll); \
    }
#define GRID_REDUCE_SHAPE(OP, T, ID, SCATTER)                                                      \
    if (blocks > 0)                                                                                \
        return gshmemi_stream_launch(push->n > 0 ? push_reduce_kernel<T, op_##OP>                   \
                                                 : grid_reduce_kernel<T, op_##OP>,                  \
                                     push->n > 0 ? GSHMEMI_PUSH_BLOCKS : blocks, GRID_THREADS,      \
                                     stream, static_cast<int>(ID), team,                            \
                                     static_cast<T *>(dest), static_cast<const T *>(src), n,        \
                                     SCATTER, op_##OP(), *push);
#define GRID_REDUCE(OP, T, ID) GRID_REDUCE_SHAPE(OP, T, ID, 0)
#define GRID_REDUCESCATTER(OP, T, ID) GRID_REDUCE_SHAPE(OP, T, ID, 1)
#define GRID_INSCAN(OP, T, ID) (void)blocks, (void)push;
#define GRID_EXSCAN(OP, T, ID) (void)blocks, (void)push;
#define REDUCE_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(REDUCE_LAUNCHER, NAME, TYPE)
#define REDUCE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(REDUCE_LAUNCHER, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(REDUCE_ARITH)
