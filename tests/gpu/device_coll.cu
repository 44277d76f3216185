// Teams and collectives from kernels: team queries, team barriers carrying
// data, and every collective shape (broadcast, fcollect, collect,
// alltoall, alltoalls, reduce, reducescatter, the sum scans) at thread,
// warp and block scope on the world, a stride-2 split and the world in
// reverse order, for integer, float, double, half and bfloat16 elements,
// sizes 1, 7 and 1000; in place for a reduction and a scan.  The stream
// forms' entry points: every move typed and as *mem, and reductions and
// scans of more types and operations, at 0, 7, 1000 and 70001 elements.
// Stream forms in two CUDA graphs (a reduce, an fcollect and an in-place
// broadcast: small, and past the flag packets) replayed 100 times each.
// Inputs come from the PE and the call's
// number, so every PE computes every result itself; dest is poisoned
// before each call and every element checked.  The same through the proxy
// (GSHMEM_DISABLE_P2P=1) and on teams mixing both (GSHMEM_TEST_SIM_NODES).
//
//   gshmrun -n 2 ./device_coll          (exit 77 without a GPU)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gshmem_device.cuh>

#include "coll_inputs.h"
#include "gpu_check.h"

static int me, npes;

enum scope { S_THREAD, S_WARP, S_BLOCK };
static const char *const scope_names[] = {"thread", "warp", "block"};

template <typename T> static T from_int(int v) { return (T)v; }
template <> __half from_int<__half>(int v) { return __float2half((float)v); }
template <> __nv_bfloat16 from_int<__nv_bfloat16>(int v) { return __float2bfloat16((float)v); }
template <typename T> static int to_int(T v) { return (int)v; }
template <> int to_int<__half>(__half v) { return (int)__half2float(v); }
template <> int to_int<__nv_bfloat16>(__nv_bfloat16 v) { return (int)__bfloat162float(v); }

enum op { O_SUM, O_PROD, O_MIN, O_MAX, O_AND, O_OR, O_XOR };
static long long combine(long long a, long long b, int op)
{
    switch (op) {
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_MIN: return b < a ? b : a;
    case O_MAX: return b > a ? b : a;
    case O_AND: return a & b;
    case O_OR: return a | b;
    default: return a ^ b;
    }
}

// ---- kernels: one call of the collective by the scope's group of one block ----

#define CALL_SCOPE(sc, THREAD_CALL, WARP_CALL, BLOCK_CALL)                                    \
    do {                                                                                    \
        if (sc == S_THREAD) {                                                               \
            if (threadIdx.x == 0)                                                           \
                THREAD_CALL;                                                                \
        } else if (sc == S_WARP) {                                                          \
            if (threadIdx.x < 32)                                                           \
                WARP_CALL;                                                                  \
        } else {                                                                            \
            BLOCK_CALL;                                                                     \
        }                                                                                   \
    } while (0)

#define REDUCE_KERNEL(NAME, T, OPNAME)                                                      \
    __global__ void k_##NAME##_##OPNAME(int sc, int shape, gshmem_team_t team, T *d,       \
                                        const T *s, size_t n)                               \
    {                                                                                       \
        if (shape == 0)                                                                     \
            CALL_SCOPE(sc, gshmem_##NAME##_##OPNAME##_reduce(team, d, s, n),                \
                       gshmemx_##NAME##_##OPNAME##_reduce_warp(team, d, s, n),              \
                       gshmemx_##NAME##_##OPNAME##_reduce_block(team, d, s, n));            \
        else                                                                                \
            CALL_SCOPE(sc, gshmem_##NAME##_##OPNAME##_reducescatter(team, d, s, n),         \
                       gshmemx_##NAME##_##OPNAME##_reducescatter_warp(team, d, s, n),       \
                       gshmemx_##NAME##_##OPNAME##_reducescatter_block(team, d, s, n));     \
    }
REDUCE_KERNEL(int, int, sum)
REDUCE_KERNEL(int, int, prod)
REDUCE_KERNEL(int, int, min)
REDUCE_KERNEL(int, int, max)
REDUCE_KERNEL(uint64, uint64_t, and)
REDUCE_KERNEL(uint64, uint64_t, or)
REDUCE_KERNEL(uint64, uint64_t, xor)
REDUCE_KERNEL(float, float, sum)
REDUCE_KERNEL(double, double, max)
REDUCE_KERNEL(half, __half, sum)
REDUCE_KERNEL(half, __half, prod)
REDUCE_KERNEL(bfloat16, __nv_bfloat16, sum)
REDUCE_KERNEL(bfloat16, __nv_bfloat16, min)

__global__ void k_scan(int sc, int inclusive, gshmem_team_t team, float *d, const float *s, size_t n)
{
    if (inclusive)
        CALL_SCOPE(sc, gshmem_float_sum_inscan(team, d, s, n),
                   gshmemx_float_sum_inscan_warp(team, d, s, n),
                   gshmemx_float_sum_inscan_block(team, d, s, n));
    else
        CALL_SCOPE(sc, gshmem_float_sum_exscan(team, d, s, n),
                   gshmemx_float_sum_exscan_warp(team, d, s, n),
                   gshmemx_float_sum_exscan_block(team, d, s, n));
}

enum move { M_BROADCAST, M_FCOLLECT, M_COLLECT, M_ALLTOALL, M_ALLTOALLS, M_MOVES };
static const char *const move_names[] = {"broadcast", "fcollect", "collect", "alltoall",
                                         "alltoalls"};

__global__ void k_move(int sc, int mv, gshmem_team_t team, int *d, const int *s, size_t n,
                       int root)
{
    switch (mv) {
    case M_BROADCAST:
        CALL_SCOPE(sc, gshmem_int_broadcast(team, d, s, n, root),
                   gshmemx_int_broadcast_warp(team, d, s, n, root),
                   gshmemx_broadcastmem_block(team, d, s, n * sizeof(int), root));
        break;
    case M_FCOLLECT:
        CALL_SCOPE(sc, gshmem_int_fcollect(team, d, s, n), gshmemx_int_fcollect_warp(team, d, s, n),
                   gshmemx_fcollectmem_block(team, d, s, n * sizeof(int)));
        break;
    case M_COLLECT: /* n + my index elements each */
        n += (size_t)gshmem_team_my_pe(team);
        CALL_SCOPE(sc, gshmem_int_collect(team, d, s, n), gshmemx_int_collect_warp(team, d, s, n),
                   gshmemx_collectmem_block(team, d, s, n * sizeof(int)));
        break;
    case M_ALLTOALL:
        CALL_SCOPE(sc, gshmem_int_alltoall(team, d, s, n), gshmemx_int_alltoall_warp(team, d, s, n),
                   gshmemx_alltoallmem_block(team, d, s, n * sizeof(int)));
        break;
    default: /* dst 2, sst 3 */
        CALL_SCOPE(sc, gshmem_int_alltoalls(team, d, s, 2, 3, n),
                   gshmemx_int_alltoalls_warp(team, d, s, 2, 3, n),
                   gshmemx_int_alltoalls_block(team, d, s, 2, 3, n));
    }
}

// Team queries and a barrier carrying data: each member writes its number
// into the next member's box, meets, reads its own.
__global__ void k_ring(int sc, gshmem_team_t team, int *box, int *out)
{
    const int n = gshmem_team_n_pes(team), i = gshmem_team_my_pe(team);
    const int next = gshmem_team_translate_pe(team, (i + 1) % n, GSHMEM_TEAM_WORLD);
    if (threadIdx.x == 0)
        gshmem_int_p(box, gshmem_my_pe(), next);
    CALL_SCOPE(sc, gshmem_barrier(team), gshmemx_barrier_warp(team), gshmemx_barrier_block(team));
    __syncthreads();
    if (threadIdx.x == 0) {
        out[0] = n, out[1] = i, out[2] = *box;
        out[3] = gshmem_team_translate_pe(team, (i + n - 1) % n, GSHMEM_TEAM_WORLD);
        out[4] = gshmem_team_ptr(team, box, i) == gshmem_ptr(box, gshmem_my_pe());
    }
    CALL_SCOPE(sc, gshmem_team_sync(team), gshmemx_team_sync_warp(team), gshmemx_team_sync_block(team));
}

// Stream-ordered forms in a graph: each replay fills the sources from a
// counter in GPU memory (the replay's number), then reduces, fcollects,
// broadcasts in place and meets on the stream.
__global__ void k_fill_round(float *src, size_t n, int *fsrc, size_t nf, int pe, int *round)
{
    const int r = *round;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        src[i] = (float)((pe + 1) * (r + 1) + (int)(i % 7));
    for (size_t i = threadIdx.x; i < nf; i += blockDim.x)
        fsrc[i] = pe * 1000 + r * 10 + (int)(i % 5);
    __syncthreads();
    if (threadIdx.x == 0)
        *round = r + 1;
}

// ---- the host's side ------------------------------------------------------------

struct team_info {
    gshmem_team_t t;
    const char *name;
    int n, my;
    std::vector<int> pes;
    int box; /* its word of sym_box, the same on every PE */
};

static void *sym_src, *sym_dst;
static int *sym_box, *out_dev;
#define BUF (1u << 20)

template <typename T>
static void store(void *sym, const std::vector<T> &v)
{
    gshmem_putmem(sym, v.data(), v.size() * sizeof(T), me);
}

template <typename T>
static std::vector<T> load(const void *sym, size_t n)
{
    std::vector<T> v(n);
    gshmem_getmem(v.data(), sym, n * sizeof(T), me);
    return v;
}

static void poison() { CUDA(cudaMemset(sym_dst, 0xa5, BUF)); CUDA(cudaDeviceSynchronize()); }

/* total elements of this member's input to a reduction into sym_src, and
 * sym_dst poisoned. */
template <typename T>
static void reduce_source(const team_info &tm, size_t total, uint64_t tag, int op)
{
    std::vector<T> src(total);
    for (size_t i = 0; i < total; i++)
        src[i] = from_int<T>(input_value(tm.pes[tm.my], tag, i, op == O_PROD));
    store(sym_src, src);
    poison();
}

template <typename T>
static void check_reduce(const team_info &tm, void (*kernel)(int, int, gshmem_team_t, T *, const T *, size_t),
                         const char *what, int op, bool is_float16)
{
    static uint64_t tag = 1;
    for (int sc = S_THREAD; sc <= S_BLOCK; sc++)
        for (size_t n : {(size_t)1, (size_t)7, (size_t)1000})
            for (int shape = 0; shape < 2; shape++) {
                const bool in_place = shape == 0 && n == 7;
                reduce_source<T>(tm, shape == 0 ? n : n * (size_t)tm.n, tag, op);
                T *d = (T *)(in_place ? sym_src : sym_dst);
                kernel<<<1, 128>>>(sc, shape, tm.t, d, (const T *)sym_src, n);
                CUDA(cudaGetLastError());
                CUDA(cudaDeviceSynchronize());
                std::vector<T> got = load<T>(d, n);
                for (size_t e = 0; e < n; e++) {
                    const size_t at = shape == 0 ? e : (size_t)tm.my * n + e;
                    long long want = input_value(tm.pes[0], tag, at, op == O_PROD);
                    for (int i = 1; i < tm.n; i++)
                        want = combine(want, input_value(tm.pes[i], tag, at, op == O_PROD), op);
                    T w = from_int<T>((int)want);
                    if (!is_float16 && sizeof(T) == 8 && op >= O_AND) /* bits of uint64 */
                        w = (T)(uint64_t)want;
                    CHECK(std::memcmp(&got[e], &w, sizeof(T)) == 0,
                          "%s %s (%s scope, %zu elements%s) on %s: element %zu is %d, expected %lld",
                          what, shape == 0 ? "reduce" : "reducescatter", scope_names[sc], n,
                          in_place ? ", in place" : "", tm.name, e, to_int(got[e]), want);
                }
                tag++;
            }
}

static void check_scans(const team_info &tm)
{
    static uint64_t tag = 100000;
    for (int sc = S_THREAD; sc <= S_BLOCK; sc++)
        for (size_t n : {(size_t)1, (size_t)7, (size_t)1000})
            for (int inclusive = 0; inclusive < 2; inclusive++) {
                const bool in_place = n == 7;
                std::vector<float> src(n);
                for (size_t i = 0; i < n; i++)
                    src[i] = (float)input_value(tm.pes[tm.my], tag, i, false);
                store(sym_src, src);
                poison();
                float *d = (float *)(in_place ? sym_src : sym_dst);
                k_scan<<<1, 128>>>(sc, inclusive, tm.t, d, (const float *)sym_src, n);
                CUDA(cudaGetLastError());
                CUDA(cudaDeviceSynchronize());
                std::vector<float> got = load<float>(d, n);
                const int upto = inclusive ? tm.my + 1 : tm.my;
                for (size_t e = 0; e < n; e++) {
                    float want = 0;
                    for (int i = 0; i < upto; i++)
                        want = i == 0 ? (float)input_value(tm.pes[0], tag, e, false)
                                      : want + (float)input_value(tm.pes[i], tag, e, false);
                    CHECK(got[e] == want, "%s (%s scope, %zu elements) on %s: element %zu is %g, "
                          "expected %g", inclusive ? "inscan" : "exscan", scope_names[sc], n,
                          tm.name, e, got[e], want);
                }
                tag++;
            }
}

/* Move mv of n elements (int) from root: this member's source, and what
 * its dest must hold afterwards (then one poisoned element). */
static std::vector<int> move_source(const team_info &tm, int mv, size_t n, uint64_t tag)
{
    const size_t src_n = mv == M_ALLTOALL ? n * (size_t)tm.n
                       : mv == M_ALLTOALLS ? 3 * n * (size_t)tm.n
                       : mv == M_COLLECT ? n + (size_t)tm.my : n;
    std::vector<int> src(src_n);
    for (size_t i = 0; i < src_n; i++)
        src[i] = input_value(tm.pes[tm.my], tag, i, false);
    return src;
}

static std::vector<int> move_want(const team_info &tm, int mv, size_t n, int root, uint64_t tag)
{
    std::vector<int> want;
    int poisoned;
    std::memset(&poisoned, 0xa5, sizeof(poisoned));
    if (mv == M_BROADCAST) {
        for (size_t i = 0; i < n; i++)
            want.push_back(input_value(tm.pes[root], tag, i, false));
    } else if (mv == M_FCOLLECT || mv == M_COLLECT) {
        for (int j = 0; j < tm.n; j++)
            for (size_t i = 0; i < (mv == M_COLLECT ? n + (size_t)j : n); i++)
                want.push_back(input_value(tm.pes[j], tag, i, false));
    } else if (mv == M_ALLTOALL) {
        for (int j = 0; j < tm.n; j++)
            for (size_t i = 0; i < n; i++)
                want.push_back(input_value(tm.pes[j], tag, (size_t)tm.my * n + i, false));
    } else {
        want.assign(2 * n * (size_t)tm.n, poisoned);
        for (int j = 0; j < tm.n; j++)
            for (size_t k = 0; k < n; k++)
                want[((size_t)j * n + k) * 2] =
                    input_value(tm.pes[j], tag, ((size_t)tm.my * n + k) * 3, false);
    }
    want.push_back(poisoned); /* the element after dest stays poisoned */
    return want;
}

static void expect_move(const team_info &tm, int mv, size_t n, int root, uint64_t tag,
                        const char *form)
{
    const std::vector<int> want = move_want(tm, mv, n, root, tag);
    std::vector<int> got = load<int>(sym_dst, want.size());
    for (size_t e = 0; e < want.size(); e++)
        CHECK(got[e] == want[e], "%s (%s, %zu elements, root %d) on %s: element %zu of %zu is %d, "
              "expected %d", move_names[mv], form, n, root, tm.name, e, want.size(), got[e],
              want[e]);
}

static void check_moves(const team_info &tm)
{
    static uint64_t tag = 200000;
    for (int sc = S_THREAD; sc <= S_BLOCK; sc++)
        for (size_t n : {(size_t)1, (size_t)7, (size_t)1000})
            for (int mv = 0; mv < M_MOVES; mv++) {
                const int root = (int)(tag % (uint64_t)tm.n);
                store(sym_src, move_source(tm, mv, n, tag));
                poison();
                k_move<<<1, 128>>>(sc, mv, tm.t, (int *)sym_dst, (const int *)sym_src, n, root);
                CUDA(cudaGetLastError());
                CUDA(cudaDeviceSynchronize());
                char form[32];
                std::snprintf(form, sizeof(form), "%s scope", scope_names[sc]);
                expect_move(tm, mv, n, root, tag, form);
                tag++;
            }
}

/* The stream forms' entry points that the graphs below leave out: every
 * move typed and as *mem, at 0, 7, 1000 and 70001 elements (past the flag
 * packets), each on a stream of the test's. */
static void check_stream_moves(const team_info &tm)
{
    static uint64_t tag = 300000;
    cudaStream_t st;
    CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (size_t n : {(size_t)0, (size_t)7, (size_t)1000, (size_t)70001})
        for (int mem = 0; mem < 2; mem++)
            for (int mv = 0; mv < M_MOVES; mv++) {
                const int root = (int)(tag % (uint64_t)tm.n);
                if ((mv == M_ALLTOALLS ? 3 : 1) * n * (size_t)tm.n * sizeof(int) + 64 > BUF ||
                    (mem && mv == M_ALLTOALLS))
                    continue;
                store(sym_src, move_source(tm, mv, n, tag));
                poison();
                int *d = (int *)sym_dst;
                const int *s = (const int *)sym_src;
                const size_t nc = n + (mv == M_COLLECT ? (size_t)tm.my : 0), b = nc * sizeof(int);
                int rc;
                switch (mv) {
                case M_BROADCAST:
                    rc = mem ? gshmemx_broadcastmem_on_stream(tm.t, d, s, b, root, st)
                             : gshmemx_int_broadcast_on_stream(tm.t, d, s, nc, root, st);
                    break;
                case M_FCOLLECT:
                    rc = mem ? gshmemx_fcollectmem_on_stream(tm.t, d, s, b, st)
                             : gshmemx_int_fcollect_on_stream(tm.t, d, s, nc, st);
                    break;
                case M_COLLECT:
                    rc = mem ? gshmemx_collectmem_on_stream(tm.t, d, s, b, st)
                             : gshmemx_int_collect_on_stream(tm.t, d, s, nc, st);
                    break;
                case M_ALLTOALL:
                    rc = mem ? gshmemx_alltoallmem_on_stream(tm.t, d, s, b, st)
                             : gshmemx_int_alltoall_on_stream(tm.t, d, s, nc, st);
                    break;
                default: /* dst 2, sst 3 (alltoallsmem strides bytes: spmd_coll has it) */
                    rc = gshmemx_int_alltoalls_on_stream(tm.t, d, s, 2, 3, nc, st);
                }
                CHECK(rc == 0, "%s_on_stream returned %d", move_names[mv], rc);
                CUDA(cudaStreamSynchronize(st));
                expect_move(tm, mv, n, root, tag, mem ? "mem form on a stream" : "int on a stream");
                tag++;
            }
    CUDA(cudaStreamDestroy(st));
}

/* Reductions and scans through their stream entry points, for the types
 * and operations the graphs below leave out; shape 0 reduce (7 elements in
 * place), 1 reducescatter, 2 inscan, 3 exscan. */
template <typename T>
static void check_stream_reduce(const team_info &tm,
                                int (*fn)(gshmem_team_t, T *, const T *, size_t, cudaStream_t),
                                const char *what, int op, int shape)
{
    static uint64_t tag = 400000;
    static const char *const shapes[] = {"reduce", "reducescatter", "inscan", "exscan"};
    cudaStream_t st;
    CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (size_t n : {(size_t)0, (size_t)7, (size_t)1000, (size_t)70001}) {
        const size_t total = shape == 1 ? n * (size_t)tm.n : n;
        if (total * sizeof(T) + 64 > BUF)
            continue;
        const bool in_place = shape == 0 && n == 7;
        reduce_source<T>(tm, total, tag, op);
        T *d = (T *)(in_place ? sym_src : sym_dst);
        const int rc = fn(tm.t, d, (const T *)sym_src, n, st);
        CHECK(rc == 0, "%s %s on a stream returned %d", what, shapes[shape], rc);
        CUDA(cudaStreamSynchronize(st));
        std::vector<T> got = load<T>(d, n + 1);
        const int upto = shape == 2 ? tm.my + 1 : shape == 3 ? tm.my : tm.n;
        for (size_t e = 0; e < n; e++) {
            const size_t at = shape == 1 ? (size_t)tm.my * n + e : e;
            long long want = 0;
            for (int i = 0; i < upto; i++) {
                const int v = input_value(tm.pes[i], tag, at, op == O_PROD);
                want = i == 0 ? v : combine(want, v, op);
            }
            const T w = from_int<T>((int)want);
            CHECK(std::memcmp(&got[e], &w, sizeof(T)) == 0,
                  "%s %s on a stream (%zu elements%s) on %s: element %zu is %d, expected %lld",
                  what, shapes[shape], n, in_place ? ", in place" : "", tm.name, e,
                  to_int(got[e]), want);
        }
        if (!in_place) {
            unsigned char after[sizeof(T)], poisoned[sizeof(T)];
            std::memcpy(after, &got[n], sizeof(T));
            std::memset(poisoned, 0xa5, sizeof(T));
            CHECK(std::memcmp(after, poisoned, sizeof(T)) == 0,
                  "%s %s on a stream (%zu elements) on %s: the element after dest was written",
                  what, shapes[shape], n, tm.name);
        }
        tag++;
    }
    CUDA(cudaStreamDestroy(st));
}

static void check_stream_reductions(const team_info &tm)
{
    check_stream_reduce<int>(tm, gshmemx_int_sum_reduce_on_stream, "int_sum", O_SUM, 0);
    check_stream_reduce<int>(tm, gshmemx_int_sum_reducescatter_on_stream, "int_sum", O_SUM, 1);
    check_stream_reduce<int>(tm, gshmemx_int_sum_inscan_on_stream, "int_sum", O_SUM, 2);
    check_stream_reduce<int>(tm, gshmemx_int_sum_exscan_on_stream, "int_sum", O_SUM, 3);
    check_stream_reduce<int>(tm, gshmemx_int_prod_reduce_on_stream, "int_prod", O_PROD, 0);
    check_stream_reduce<int>(tm, gshmemx_int_min_reducescatter_on_stream, "int_min", O_MIN, 1);
    check_stream_reduce<uint64_t>(tm, gshmemx_uint64_and_reduce_on_stream, "uint64_and", O_AND, 0);
    check_stream_reduce<uint64_t>(tm, gshmemx_uint64_or_reducescatter_on_stream, "uint64_or", O_OR, 1);
    check_stream_reduce<double>(tm, gshmemx_double_sum_reduce_on_stream, "double_sum", O_SUM, 0);
    check_stream_reduce<double>(tm, gshmemx_double_max_reducescatter_on_stream, "double_max", O_MAX, 1);
    check_stream_reduce<__half>(tm, gshmemx_half_sum_reduce_on_stream, "half_sum", O_SUM, 0);
    check_stream_reduce<__half>(tm, gshmemx_half_prod_reducescatter_on_stream, "half_prod", O_PROD, 1);
    check_stream_reduce<__nv_bfloat16>(tm, gshmemx_bfloat16_max_reduce_on_stream, "bfloat16_max",
                                       O_MAX, 0);
    check_stream_reduce<float>(tm, gshmemx_float_sum_exscan_on_stream, "float_sum", O_SUM, 3);
}

/* box: the team's own word (a PE outside one team goes on to the next and
 * writes the boxes of that one's members meanwhile) */
static void check_ring(const team_info &tm, int *box)
{
    for (int sc = S_THREAD; sc <= S_BLOCK; sc++) {
        k_ring<<<1, 128>>>(sc, tm.t, box, out_dev);
        CUDA(cudaGetLastError());
        CUDA(cudaDeviceSynchronize());
        int out[5];
        CUDA(cudaMemcpy(out, out_dev, sizeof(out), cudaMemcpyDeviceToHost));
        const int prev = tm.pes[(tm.my + tm.n - 1) % tm.n];
        CHECK(out[0] == tm.n && out[1] == tm.my && out[2] == prev && out[3] == prev && out[4] == 1,
              "%s scope on %s: n %d my %d box %d prev %d ptr %d; expected %d %d %d", scope_names[sc],
              tm.name, out[0], out[1], out[2], out[3], out[4], tm.n, tm.my, prev);
    }
}

/* A graph of a reduce of n floats, an fcollect and an in-place broadcast
 * of the reduce's source, replayed 100 times with new inputs each time:
 * n small (flag packets) and past them (the grid or the push), so that
 * every count the stream kernels keep in GPU memory is exercised by
 * replays. */
static void check_on_stream(const team_info &tm, size_t n)
{
    const size_t nf = 777;
    const int root = tm.n - 1;
    float *src = (float *)sym_src, *dst = (float *)sym_dst;
    int *fsrc = (int *)((char *)sym_src + (BUF / 2)), *fdst = (int *)((char *)sym_dst + (BUF / 2));
    int *round;
    cudaStream_t st;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CUDA(cudaMalloc(&round, sizeof(int)));
    CUDA(cudaMemset(round, 0, sizeof(int)));
    CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    k_fill_round<<<1, 256, 0, st>>>(src, n, fsrc, nf, me, round);
    gshmemx_float_sum_reduce_on_stream(tm.t, dst, src, n, st);
    gshmemx_int_fcollect_on_stream(tm.t, fdst, fsrc, nf, st);
    gshmemx_float_broadcast_on_stream(tm.t, src, src, n, root, st);
    gshmemx_barrier_on_stream(tm.t, st);
    CUDA(cudaStreamEndCapture(st, &g));
    CUDA(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 100; r++) {
        CUDA(cudaGraphLaunch(ge, st));
        CUDA(cudaStreamSynchronize(st));
        std::vector<float> got = load<float>(dst, n), bcast = load<float>(src, n);
        std::vector<int> fgot = load<int>(fdst, nf * (size_t)tm.n);
        for (size_t i = 0; i < n; i++) {
            float want = 0;
            for (int j = 0; j < tm.n; j++)
                want = j == 0 ? (float)((tm.pes[0] + 1) * (r + 1) + (int)(i % 7))
                              : want + (float)((tm.pes[j] + 1) * (r + 1) + (int)(i % 7));
            CHECK(got[i] == want, "replay %d of a graph on %s: sum_reduce_on_stream of %zu, element "
                  "%zu is %g, expected %g", r, tm.name, n, i, got[i], want);
            const float from_root = (float)((tm.pes[root] + 1) * (r + 1) + (int)(i % 7));
            CHECK(bcast[i] == from_root, "replay %d of a graph on %s: broadcast_on_stream of %zu in "
                  "place, element %zu is %g, expected %g", r, tm.name, n, i, bcast[i], from_root);
        }
        for (int j = 0; j < tm.n; j++)
            for (size_t i = 0; i < nf; i++)
                CHECK(fgot[(size_t)j * nf + i] == tm.pes[j] * 1000 + r * 10 + (int)(i % 5),
                      "replay %d on %s: fcollect_on_stream block %d element %zu is %d", r, tm.name,
                      j, i, fgot[(size_t)j * nf + i]);
        /* the next replay overwrites src: everybody has read this one's */
        gshmemx_team_sync_on_stream(tm.t, st);
        CUDA(cudaStreamSynchronize(st));
    }
    CUDA(cudaGraphExecDestroy(ge));
    CUDA(cudaGraphDestroy(g));
    CUDA(cudaStreamDestroy(st));
    CUDA(cudaFree(round));
}

int main()
{
    if (gpu_count() == 0)
        return 77;
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    sym_src = gshmem_malloc(BUF);
    sym_dst = gshmem_malloc(BUF);
    sym_box = (int *)gshmem_calloc(8, sizeof(int)); /* one a team */
    CUDA(cudaMalloc(&out_dev, 8 * sizeof(int)));

    std::vector<team_info> teams;
    gshmem_team_t evens, reversed;
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed);
    const gshmem_team_t candidates[] = {reversed, GSHMEM_TEAM_WORLD, evens};
    for (int k = 0; k < 3; k++) {
        const gshmem_team_t t = candidates[k];
        if (t == GSHMEM_TEAM_INVALID)
            continue;
        team_info ti = {t, k == 0 ? "world reversed" : k == 1 ? "world" : "stride 2",
                        gshmem_team_n_pes(t), gshmem_team_my_pe(t), {}, k};
        for (int i = 0; i < ti.n; i++)
            ti.pes.push_back(gshmem_team_translate_pe(t, i, GSHMEM_TEAM_WORLD));
        teams.push_back(ti);
    }
    for (const team_info &tm : teams) {
        check_ring(tm, sym_box + tm.box);
        check_moves(tm);
        check_stream_moves(tm);
        check_stream_reductions(tm);
        check_on_stream(tm, 777);
        /* 400 KB: past the flag packets at 2 and 4 PEs (the world pushes) */
        check_on_stream(tm, 100003);
        check_scans(tm);
        check_reduce<int>(tm, k_int_sum, "int_sum", O_SUM, false);
        check_reduce<int>(tm, k_int_prod, "int_prod", O_PROD, false);
        check_reduce<int>(tm, k_int_min, "int_min", O_MIN, false);
        check_reduce<int>(tm, k_int_max, "int_max", O_MAX, false);
        check_reduce<uint64_t>(tm, k_uint64_and, "uint64_and", O_AND, false);
        check_reduce<uint64_t>(tm, k_uint64_or, "uint64_or", O_OR, false);
        check_reduce<uint64_t>(tm, k_uint64_xor, "uint64_xor", O_XOR, false);
        check_reduce<float>(tm, k_float_sum, "float_sum", O_SUM, false);
        check_reduce<double>(tm, k_double_max, "double_max", O_MAX, false);
        check_reduce<__half>(tm, k_half_sum, "half_sum", O_SUM, true);
        check_reduce<__half>(tm, k_half_prod, "half_prod", O_PROD, true);
        check_reduce<__nv_bfloat16>(tm, k_bfloat16_sum, "bfloat16_sum", O_SUM, true);
        check_reduce<__nv_bfloat16>(tm, k_bfloat16_min, "bfloat16_min", O_MIN, true);
    }
    if (evens != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(evens);
    if (reversed != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(reversed);
    gshmem_barrier_all();
    if (me == 0)
        std::printf("device_coll: %d PEs%s: team barriers and queries, the moves, reductions and "
                    "scans at thread, warp and block scope, the stream forms' entry points, and two "
                    "graphs (small, pushed) replayed 100 times each, on %zu teams: all checked\n",
                    npes,
                    gshmem_ptr(sym_src, (me + 1) % npes) == nullptr ? " (peers through the proxy)" : "",
                    teams.size());
    gshmem_free(sym_box);
    gshmem_free(sym_dst);
    gshmem_free(sym_src);
    cudaFree(out_dev);
    gshmem_finalize();
    return 0;
}
