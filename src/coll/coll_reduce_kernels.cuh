// The reductions in stream order (reduce, reducescatter and the scans), for
// the operations that the including translation unit keeps: meson writes
// the units from coll_reduce_op.cu.in, each defining GSHMEMI_COLL_KEEP_<OP>(x)
// as x for its operation (coll_reduce_sum.cu ...), or GSHMEMI_COLL_KEEP_ALL
// for all of them in one (src/meson.build says when); every other
// operation's names, kernels and launchers expand to nothing there.
#ifndef GSHMEMI_COLL_REDUCE_KERNELS_CUH
#define GSHMEMI_COLL_REDUCE_KERNELS_CUH

#include "coll/coll_kernels.cuh"

#ifdef GSHMEMI_COLL_KEEP_ALL
#define GSHMEMI_COLL_KEEP_AND(x) x
#define GSHMEMI_COLL_KEEP_OR(x) x
#define GSHMEMI_COLL_KEEP_XOR(x) x
#define GSHMEMI_COLL_KEEP_MIN(x) x
#define GSHMEMI_COLL_KEEP_MAX(x) x
#define GSHMEMI_COLL_KEEP_SUM(x) x
#define GSHMEMI_COLL_KEEP_PROD(x) x
#endif
#ifndef GSHMEMI_COLL_KEEP_AND
#define GSHMEMI_COLL_KEEP_AND(x)
#endif
#ifndef GSHMEMI_COLL_KEEP_OR
#define GSHMEMI_COLL_KEEP_OR(x)
#endif
#ifndef GSHMEMI_COLL_KEEP_XOR
#define GSHMEMI_COLL_KEEP_XOR(x)
#endif
#ifndef GSHMEMI_COLL_KEEP_MIN
#define GSHMEMI_COLL_KEEP_MIN(x)
#endif
#ifndef GSHMEMI_COLL_KEEP_MAX
#define GSHMEMI_COLL_KEEP_MAX(x)
#endif
#ifndef GSHMEMI_COLL_KEEP_SUM
#define GSHMEMI_COLL_KEEP_SUM(x)
#endif
#ifndef GSHMEMI_COLL_KEEP_PROD
#define GSHMEMI_COLL_KEEP_PROD(x)
#endif
/* X(STEM, TAIL, SHAPE, OP, NAME, TYPE) where this unit keeps OP */
#define KEPT(X, STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    GSHMEMI_COLL_KEEP_##OP(X(STEM, TAIL, SHAPE, OP, NAME, TYPE))

#define GRID_MEMBERS 64 /* members whose addresses a grid block keeps in shared memory */

namespace {

// Their names, by id (RED_int_sum_reduce ...), for kernels' messages (the
// operations this unit keeps).
#define RED_ID(STEM, TAIL, SHAPE, OP, NAME, TYPE) RED_##NAME##_##STEM##TAIL,
#define KEPT_ID(STEM, TAIL, SHAPE, OP, NAME, TYPE) KEPT(RED_ID, STEM, TAIL, SHAPE, OP, NAME, TYPE)
#define RED_IDS_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(KEPT_ID, NAME, TYPE)
#define RED_IDS_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(KEPT_ID, NAME, TYPE)
enum { GSHMEM_FOR_REDUCE_BITWISE_TYPES(RED_IDS_BITWISE) GSHMEM_FOR_REDUCE_ARITH_TYPES(RED_IDS_ARITH) };
#define RED_NAME(STEM, TAIL, SHAPE, OP, NAME, TYPE) "gshmemx_" #NAME "_" #STEM #TAIL "_on_stream",
#define KEPT_NAME(STEM, TAIL, SHAPE, OP, NAME, TYPE) KEPT(RED_NAME, STEM, TAIL, SHAPE, OP, NAME, TYPE)
#define RED_NAMES_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(KEPT_NAME, NAME, TYPE)
#define RED_NAMES_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(KEPT_NAME, NAME, TYPE)
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

} // namespace

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
#define KEPT_LAUNCHER(STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    KEPT(REDUCE_LAUNCHER, STEM, TAIL, SHAPE, OP, NAME, TYPE)
#define REDUCE_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(KEPT_LAUNCHER, NAME, TYPE)
#define REDUCE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(KEPT_LAUNCHER, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(REDUCE_ARITH)

#endif
