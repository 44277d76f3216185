// Every typed collective of the stream forms and a third of the device
// API's, from the library's own type and operation tables, on the world in
// reverse order: every reduction, reducescatter and scan of every type on
// a stream, and every move of every type and as *mem; in kernels, entry
// points rotating over the types, operations, shapes and the thread, warp
// and block forms (see below), and every *mem move.  Sizes 0, 1, 7, 1000
// and 20011 elements in kernels (the last past the flag packets for every
// element size), 0, 7, 1000 and 70001 on a stream.  Then a graph of every
// stream collective shape replayed 100 times with new inputs each time, on
// each team (the world, the world in reverse order and a stride-2 split);
// and 1000 collectives back to back in one kernel, alternating teams,
// shapes, sizes and scopes with no barrier between them, each result
// checked in the kernel.  Inputs come from the PE and the call's number,
// so every PE computes every result itself, in the element type's own
// arithmetic (integers wrap); dest is poisoned before each call and the
// element after it checked; a reduce of 7 and the scans of 1000 run in
// place.
//
//   gshmrun -n 2 ./device_coll_types          (exit 77 without a GPU)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <type_traits>
#include <vector>

#include <gshmem_device.cuh>

#include "coll_inputs.h"
#include "gpu_check.h"

static int me, npes;

enum op { O_SUM, O_PROD, O_MIN, O_MAX, O_AND, O_OR, O_XOR };
enum shape { SH_REDUCE, SH_REDUCESCATTER, SH_INSCAN, SH_EXSCAN };
static const char *const shape_names[] = {"reduce", "reducescatter", "inscan", "exscan"};

/* The reference: a value of T from a small integer, and T's own
 * arithmetic (integers in their unsigned type, wrapping; 16-bit floats in
 * float, rounded once a step), written here apart from the library's. */
template <typename T, bool INTEGRAL = std::is_integral<T>::value>
struct ref {
    typedef typename std::common_type<typename std::make_unsigned<T>::type, unsigned>::type U;
    static T from(int v) { return (T)v; }
    static T op(T a, T b, int o)
    {
        switch (o) {
        case O_SUM: return (T)(U(a) + U(b));
        case O_PROD: return (T)(U(a) * U(b));
        case O_MIN: return b < a ? b : a;
        case O_MAX: return b > a ? b : a;
        case O_AND: return (T)(a & b);
        case O_OR: return (T)(a | b);
        default: return (T)(a ^ b);
        }
    }
    static double show(T v) { return (double)v; }
};
template <typename T>
struct ref<T, false> {
    static T from(int v) { return (T)v; }
    static T op(T a, T b, int o)
    {
        return o == O_SUM ? a + b : o == O_PROD ? a * b : o == O_MIN ? (b < a ? b : a) : (b > a ? b : a);
    }
    static double show(T v) { return (double)v; }
};
#define REF_16(T, TO, FROM)                                                                   \
    template <>                                                                               \
    struct ref<T, false> {                                                                    \
        static T from(int v) { return FROM((float)v); }                                       \
        static T op(T a, T b, int o)                                                          \
        {                                                                                     \
            const float x = TO(a), y = TO(b);                                                 \
            return o == O_SUM ? FROM(x + y) : o == O_PROD ? FROM(x * y) : o == O_MIN ? (y < x ? b : a) \
                                                                                : (y > x ? b : a); \
        }                                                                                     \
        static double show(T v) { return (double)TO(v); }                                     \
    };
REF_16(__half, __half2float, __float2half_rn)
REF_16(__nv_bfloat16, __bfloat162float, __float2bfloat16_rn)
#undef REF_16

// ---- kernels, from the tables ----------------------------------------------------
// A kernel for a third of the typed entry points, calling one of its three
// forms.  Which entry points: those whose row of the table (ROT_<row>) and
// type (K_<type>) add up to a multiple of 3, so that every type runs
// several operations and shapes, and every operation and shape many types;
// which form: by the row and the type's SC_<type>, so that every form runs
// on many types, each operation in several forms.  (All of them in all
// three forms made 48 MB of PTX, minutes of compiling; the stream forms
// below run the block form of every entry point.)

#define CALL_TH(t, w, b) \
    if (threadIdx.x == 0) \
        t
#define CALL_WA(t, w, b) \
    if (threadIdx.x < 32) \
        w
#define CALL_BL(t, w, b) b
#define NAME_TH "thread"
#define NAME_WA "warp"
#define NAME_BL "block"
#define PICK(S, R) PICK_(S, R)
#define PICK_(S, R) PICK_##S##_##R
#define PICK_TH_0 TH
#define PICK_TH_1 WA
#define PICK_TH_2 BL
#define PICK_WA_0 WA
#define PICK_WA_1 BL
#define PICK_WA_2 TH
#define PICK_BL_0 BL
#define PICK_BL_1 TH
#define PICK_BL_2 WA
#define SC_half TH
#define SC_bfloat16 WA
#define SC_float BL
#define SC_double TH
#define SC_char WA
#define SC_schar BL
#define SC_short TH
#define SC_int WA
#define SC_long BL
#define SC_longlong TH
#define SC_uchar WA
#define SC_ushort BL
#define SC_uint TH
#define SC_ulong WA
#define SC_ulonglong BL
#define SC_int8 TH
#define SC_int16 WA
#define SC_int32 BL
#define SC_int64 TH
#define SC_uint8 WA
#define SC_uint16 BL
#define SC_uint32 TH
#define SC_uint64 WA
#define SC_size BL
#define SC_ptrdiff TH
#define SC_mem BL
#define K_half 0
#define K_bfloat16 0
#define K_float 0
#define K_double 1
#define K_char 1
#define K_schar 1
#define K_short 2
#define K_int 2
#define K_long 2
#define K_longlong 0
#define K_uchar 0
#define K_ushort 0
#define K_uint 1
#define K_ulong 1
#define K_ulonglong 1
#define K_int8 2
#define K_int16 2
#define K_int32 2
#define K_int64 0
#define K_uint8 0
#define K_uint16 0
#define K_uint32 1
#define K_uint64 1
#define K_size 1
#define K_ptrdiff 2
#define KEEP(K, R) KEEP_(K, R)
#define KEEP_(K, R) KEEP_##K##_##R
#define KEEP_0_0 1
#define KEEP_0_1 0
#define KEEP_0_2 0
#define KEEP_1_0 0
#define KEEP_1_1 0
#define KEEP_1_2 1
#define KEEP_2_0 0
#define KEEP_2_1 1
#define KEEP_2_2 0
#define IF(C, ...) IF_(C, __VA_ARGS__)
#define IF_(C, ...) IF_##C(__VA_ARGS__)
#define IF_1(...) __VA_ARGS__
#define IF_0(...)
#define ROT_and_reduce 0
#define ROT_or_reduce 1
#define ROT_xor_reduce 2
#define ROT_and_reducescatter 1
#define ROT_or_reducescatter 2
#define ROT_xor_reducescatter 0
#define ROT_min_reduce 0
#define ROT_max_reduce 1
#define ROT_min_reducescatter 2
#define ROT_max_reducescatter 0
#define ROT_sum_reduce 1
#define ROT_prod_reduce 2
#define ROT_sum_reducescatter 0
#define ROT_prod_reducescatter 1
#define ROT_sum_inscan 2
#define ROT_sum_exscan 0
#define ROT_broadcast 0
#define ROT_collect 1
#define ROT_fcollect 2
#define ROT_alltoall 1
#define ROT_alltoalls 2
#define STR(x) STR_(x)
#define STR_(x) #x
#define SCOPE_NAME(S) SCOPE_NAME_(S)
#define SCOPE_NAME_(S) NAME_##S

#define RED_KERNEL(STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    IF(KEEP(K_##NAME, ROT_##STEM##TAIL), RED_KERNEL_(PICK(SC_##NAME, ROT_##STEM##TAIL), NAME, TYPE, STEM##TAIL))
#define RED_KERNEL_(SC, NAME, TYPE, ST) RED_KERNEL__(SC, NAME, TYPE, ST)
#define RED_KERNEL__(SC, NAME, TYPE, ST)                                                     \
    __global__ void k_##NAME##_##ST(gshmem_team_t team, TYPE *d, const TYPE *s, size_t n)   \
    {                                                                                        \
        CALL_##SC(gshmem_##NAME##_##ST(team, d, s, n), gshmemx_##NAME##_##ST##_warp(team, d, s, n), \
                  gshmemx_##NAME##_##ST##_block(team, d, s, n));                             \
    }
#define RED_KERNELS_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(RED_KERNEL, NAME, TYPE)
#define RED_KERNELS_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(RED_KERNEL, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(RED_KERNELS_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(RED_KERNELS_ARITH)

/* Moves: one signature for all (team, dest, source, n, root); collect's n
 * is this member's, alltoalls strides dst 2 and sst 3. */
#define MV_ARGS_BROADCAST(F) F(team, d, s, n, root)
#define MV_ARGS_COLLECT(F) F(team, d, s, n)
#define MV_ARGS_FCOLLECT(F) F(team, d, s, n)
#define MV_ARGS_ALLTOALL(F) F(team, d, s, n)
#define MV_ARGS_ALLTOALLS(F) F(team, d, s, 2, 3, n)
#define MV_KERNEL(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    IF(KEEP(K_##NAME, ROT_##STEM), MV_KERNEL_(PICK(SC_##NAME, ROT_##STEM), NAME, TYPE, STEM, SHAPE))
#define MV_KERNEL_(SC, NAME, TYPE, STEM, SHAPE) MV_KERNEL__(SC, NAME, TYPE, STEM, SHAPE)
#define MV_KERNEL__(SC, NAME, TYPE, STEM, SHAPE)                                                  \
    __global__ void k_##NAME##_##STEM(gshmem_team_t team, TYPE *d, const TYPE *s, size_t n, int root) \
    {                                                                                             \
        (void)root;                                                                               \
        CALL_##SC(MV_ARGS_##SHAPE(gshmem_##NAME##_##STEM), MV_ARGS_##SHAPE(gshmemx_##NAME##_##STEM##_warp), \
                  MV_ARGS_##SHAPE(gshmemx_##NAME##_##STEM##_block));                              \
    }
#define MV_KERNELS(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(MV_KERNEL, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(MV_KERNELS)
/* the *mem forms: bytes (alltoallsmem's strides too) */
#define MV_MEM_KERNEL(STEM, TAIL, SHAPE, V, A, B) \
    MV_MEM_KERNEL_(PICK(SC_mem, ROT_##STEM), STEM, SHAPE)
#define MV_MEM_KERNEL_(SC, STEM, SHAPE) MV_MEM_KERNEL__(SC, STEM, SHAPE)
#define MV_MEM_KERNEL__(SC, STEM, SHAPE)                                                          \
    __global__ void k_mem_##STEM(gshmem_team_t team, char *d, const char *s, size_t n, int root) \
    {                                                                                             \
        (void)root;                                                                               \
        CALL_##SC(MV_ARGS_##SHAPE(gshmem_##STEM##mem), MV_ARGS_##SHAPE(gshmemx_##STEM##mem_warp), \
                  MV_ARGS_##SHAPE(gshmemx_##STEM##mem_block));                                    \
    }
GSHMEM_FOR_COLL_OPS(MV_MEM_KERNEL, , )

// ---- 1000 collectives back to back in one kernel -----------------------------------

#define MAXPES 8
struct b2b_team {
    gshmem_team_t t;
    int n, my; /* my < 0: not a member */
    int pes[MAXPES];
};
struct b2b_fail {
    int set, it, op, sc;
    unsigned long long elem;
    long long got, want;
};
enum { B_REDUCE, B_FCOLLECT, B_BROADCAST, B_ALLTOALL, B_REDUCESCATTER, B_EXSCAN, B_INSCAN, B_OPS };
static const char *const b2b_names[] = {"int_sum_reduce", "int_fcollect", "int_broadcast",
                                        "int_alltoall", "int_max_reducescatter", "int_sum_exscan",
                                        "int_sum_inscan in place"};
#define B2B_TAG 5000000ull

/* Iteration it: its team, shape, size and scope (the same on every PE). */
__host__ __device__ static void b2b_plan(int it, int nteams, int *team, int *op, size_t *n, int *sc)
{
    const int size = it * 7 / 3 % 4;
    *team = it % nteams;
    *op = it / nteams % B_OPS;
    *n = size == 0 ? 1 : size == 1 ? 7 : size == 2 ? 300 : 5000; /* 5000 ints: past the flag packets */
    *sc = it / 5 % 3;
}

__device__ static long long b2b_want(const b2b_team &tm, int op, int it, size_t n, size_t e)
{
    const uint64_t tag = B2B_TAG + (uint64_t)it;
    unsigned acc = 0;
    switch (op) {
    case B_REDUCE:
        for (int j = 0; j < tm.n; j++)
            acc += (unsigned)input_value(tm.pes[j], tag, e, false);
        return (int)acc;
    case B_FCOLLECT:
        return input_value(tm.pes[e / n], tag, e % n, false);
    case B_BROADCAST:
        return input_value(tm.pes[it % tm.n], tag, e, false);
    case B_ALLTOALL:
        return input_value(tm.pes[e / n], tag, (size_t)tm.my * n + e % n, false);
    case B_REDUCESCATTER: {
        int m = input_value(tm.pes[0], tag, (size_t)tm.my * n + e, false);
        for (int j = 1; j < tm.n; j++) {
            const int v = input_value(tm.pes[j], tag, (size_t)tm.my * n + e, false);
            m = v > m ? v : m;
        }
        return m;
    }
    default: /* the scans (exscan: member 0's is zero) */
        for (int j = 0; j < (op == B_INSCAN ? tm.my + 1 : tm.my); j++)
            acc += (unsigned)input_value(tm.pes[j], tag, e, false);
        return (int)acc;
    }
}

/* Collective NAME by the group of scope sc (0 thread, 1 warp, 2 block). */
#define B2B_CALL(sc, NAME, ...)                            \
    do {                                                   \
        if (sc == 0) {                                     \
            if (threadIdx.x == 0)                          \
                gshmem_##NAME(__VA_ARGS__);                \
        } else if (sc == 1) {                              \
            if (threadIdx.x < 32)                          \
                gshmemx_##NAME##_warp(__VA_ARGS__);        \
        } else {                                           \
            gshmemx_##NAME##_block(__VA_ARGS__);           \
        }                                                  \
    } while (0)

__global__ void k_back_to_back(const b2b_team *teams, int nteams, int iters, int *src, int *dst,
                               b2b_fail *fail)
{
    for (int it = 0; it < iters; it++) {
        int ti, op, sc;
        size_t n;
        b2b_plan(it, nteams, &ti, &op, &n, &sc);
        const b2b_team &tm = teams[ti];
        if (tm.my < 0)
            continue; /* the others go on without this PE */
        const gshmem_team_t t = tm.t;
        const int me_world = tm.pes[tm.my];
        const uint64_t tag = B2B_TAG + (uint64_t)it;
        const size_t in = op == B_ALLTOALL || op == B_REDUCESCATTER ? n * (size_t)tm.n : n;
        const size_t out = op == B_FCOLLECT || op == B_ALLTOALL ? n * (size_t)tm.n : n;
        int *d = op == B_INSCAN ? src : dst;
        for (size_t i = threadIdx.x; i < in; i += blockDim.x)
            src[i] = input_value(me_world, tag, i, false);
        for (size_t e = threadIdx.x; e < out && d == dst; e += blockDim.x)
            dst[e] = (int)0xa5a5a5a5; /* nobody writes this PE's dest before it calls */
        __syncthreads();
        switch (op) {
        case B_REDUCE: B2B_CALL(sc, int_sum_reduce, t, dst, src, n); break;
        case B_FCOLLECT: B2B_CALL(sc, int_fcollect, t, dst, src, n); break;
        case B_BROADCAST: B2B_CALL(sc, int_broadcast, t, dst, src, n, it % tm.n); break;
        case B_ALLTOALL: B2B_CALL(sc, int_alltoall, t, dst, src, n); break;
        case B_REDUCESCATTER: B2B_CALL(sc, int_max_reducescatter, t, dst, src, n); break;
        case B_EXSCAN: B2B_CALL(sc, int_sum_exscan, t, dst, src, n); break;
        default: B2B_CALL(sc, int_sum_inscan, t, src, src, n); /* in place */
        }
        __syncthreads();
        for (size_t e = threadIdx.x; e < out; e += blockDim.x) {
            const long long want = b2b_want(tm, op, it, n, e);
            if (d[e] != want && atomicCAS(&fail->set, 0, 1) == 0) {
                fail->it = it, fail->op = op, fail->sc = sc, fail->elem = e;
                fail->got = d[e], fail->want = want;
            }
        }
        __syncthreads();
    }
}

/* A graph's sources, filled for replay *round (then counted on). */
__global__ void k_fill_graph(int *src, size_t n, int pe, int *round)
{
    const int r = *round;
    for (size_t i = threadIdx.x + (size_t)blockIdx.x * blockDim.x; i < n; i += (size_t)blockDim.x * gridDim.x)
        src[i] = input_value(pe, 7000000ull + (uint64_t)r, i, false);
}
__global__ void k_count_round(int *round) { *round += 1; }

// ---- the host's side ------------------------------------------------------------

struct team_info {
    gshmem_team_t t;
    const char *name;
    int n, my;
    std::vector<int> pes;
};

static void *sym_src, *sym_dst;
#define BUF (4u << 20)

static double now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A call that took over a second (PEs that share a GPU take turns on it;
 * this shows where a slow run spends its time). */
static void note_slow(double t0, const char *what, const char *form, size_t n)
{
    const double took = now() - t0;
    if (took > 1.0)
        std::fprintf(stderr, "device_coll_types: pe %d: %s (%s, %zu elements) took %.1f s\n", me,
                     what, form, n, took);
}

static void store(void *sym, const void *p, size_t bytes) { gshmem_putmem(sym, p, bytes, me); }

template <typename T>
static std::vector<T> load(const void *sym, size_t n)
{
    std::vector<T> v(n);
    gshmem_getmem(v.data(), sym, n * sizeof(T), me);
    return v;
}

static void poison()
{
    CUDA(cudaMemset(sym_dst, 0xa5, BUF));
    CUDA(cudaDeviceSynchronize());
}

static void done_kernel()
{
    CUDA(cudaGetLastError());
    CUDA(cudaDeviceSynchronize());
}

/* got[0, n) == want[0, n) bytewise, and the element after stays poisoned
 * (unless dest was the source). */
template <typename T>
static void expect(const std::vector<T> &got, const std::vector<T> &want, size_t n, bool in_place,
                   const char *what, const char *form, const team_info &tm)
{
    for (size_t e = 0; e < n; e++)
        CHECK(std::memcmp(&got[e], &want[e], sizeof(T)) == 0,
              "%s (%s, %zu elements) on %s: element %zu is %g, expected %g", what, form, n, tm.name,
              e, ref<T>::show(got[e]), ref<T>::show(want[e]));
    if (!in_place) {
        unsigned char poisoned[sizeof(T)];
        std::memset(poisoned, 0xa5, sizeof(T));
        CHECK(std::memcmp(&got[n], poisoned, sizeof(T)) == 0,
              "%s (%s, %zu elements) on %s: the element after dest was written", what, form, n,
              tm.name);
    }
}

/* A reduction-shaped call of n elements (reducescatter: n a member) on T:
 * its source filled, dest poisoned; `call` runs it; then every element. */
template <typename T, typename CALL>
static void check_reduction(const team_info &tm, const char *what, int shape, int op, size_t n,
                            bool in_place, const char *form, CALL call)
{
    static uint64_t tag = 1;
    const size_t total = shape == SH_REDUCESCATTER ? n * (size_t)tm.n : n;
    if ((total + 1) * sizeof(T) > BUF)
        return;
    std::vector<T> src(total);
    for (size_t i = 0; i < total; i++)
        src[i] = ref<T>::from(input_value(tm.pes[tm.my], tag, i, op == O_PROD));
    std::vector<T> want(n);
    const int upto = shape == SH_INSCAN ? tm.my + 1 : shape == SH_EXSCAN ? tm.my : tm.n;
    for (size_t e = 0; e < n; e++) {
        const size_t at = shape == SH_REDUCESCATTER ? (size_t)tm.my * n + e : e;
        T acc = ref<T>::from(0);
        for (int i = 0; i < upto; i++) {
            const T v = ref<T>::from(input_value(tm.pes[i], tag, at, op == O_PROD));
            acc = i == 0 ? v : ref<T>::op(acc, v, op);
        }
        want[e] = acc;
    }
    store(sym_src, src.data(), total * sizeof(T));
    poison();
    if (!in_place) { /* each element the complement of its result: no result is the poison */
        /* bytewise, not memcpy: for n = 0 data() is null, and memcpy's
         * arguments must not be (GCC then drops the loop's empty check) */
        std::vector<unsigned char> bytes(n * sizeof(T));
        const unsigned char *w = (const unsigned char *)want.data();
        for (size_t i = 0; i < bytes.size(); i++)
            bytes[i] = (unsigned char)~w[i];
        store(sym_dst, bytes.data(), bytes.size());
    }
    T *d = (T *)(in_place ? sym_src : sym_dst);
    const double t0 = now();
    call(d, (const T *)sym_src, n);
    note_slow(t0, what, form, n);
    const std::vector<T> got = load<T>(d, n + 1);
    char full[160];
    std::snprintf(full, sizeof(full), "%s %s", what, shape_names[shape]);
    expect(got, want, n, in_place, full, form, tm);
    tag++;
}

static const size_t kernel_sizes[] = {0, 1, 7, 1000, 20011};
/* dest = source: a reduce of 7, the scans of 1000 and 70001 (many chunks
 * of what a group holds in place: 8 elements a thread) */
static bool in_place(int shape, size_t n)
{
    return (shape == SH_REDUCE && n == 7) ||
           ((shape == SH_INSCAN || shape == SH_EXSCAN) && (n == 1000 || n == 70001));
}
static const size_t stream_sizes[] = {0, 7, 1000, 70001};

template <typename T>
static void check_kernel_reduction(const team_info &tm, void (*k)(gshmem_team_t, T *, const T *, size_t),
                                   const char *what, int shape, int op, const char *scope)
{
    char form[32];
    std::snprintf(form, sizeof(form), "%s scope", scope);
    for (size_t n : kernel_sizes)
        check_reduction<T>(tm, what, shape, op, n, in_place(shape, n), form,
                           [&](T *d, const T *s, size_t m) {
                               k<<<1, 128>>>(tm.t, d, s, m);
                               done_kernel();
                           });
}

template <typename T>
static void check_stream_reduction(const team_info &tm,
                                   int (*fn)(gshmem_team_t, T *, const T *, size_t, cudaStream_t),
                                   const char *what, int shape, int op, cudaStream_t st)
{
    for (size_t n : stream_sizes)
        check_reduction<T>(tm, what, shape, op, n, in_place(shape, n), "on a stream",
                           [&](T *d, const T *s, size_t m) {
                               const int rc = fn(tm.t, d, s, m, st);
                               CHECK(rc == 0, "%s on a stream returned %d", what, rc);
                               CUDA(cudaStreamSynchronize(st));
                           });
}

enum move { M_BROADCAST, M_COLLECT, M_FCOLLECT, M_ALLTOALL, M_ALLTOALLS };
static const char *const move_names[] = {"broadcast", "collect", "fcollect", "alltoall", "alltoalls"};
#define MOVE_ID_BROADCAST M_BROADCAST
#define MOVE_ID_COLLECT M_COLLECT
#define MOVE_ID_FCOLLECT M_FCOLLECT
#define MOVE_ID_ALLTOALL M_ALLTOALL
#define MOVE_ID_ALLTOALLS M_ALLTOALLS

/* Move mv of n elements of T (collect: n + the member's index each; root
 * from the tag): source filled, dest poisoned, `call(d, s, n, root)`, then
 * every element of dest and the one after it. */
template <typename T, typename CALL>
static void check_move(const team_info &tm, const char *what, int mv, size_t n, const char *form,
                       CALL call)
{
    static uint64_t tag = 1000000;
    const size_t nt = (size_t)tm.n;
    const size_t src_n = mv == M_ALLTOALL ? n * nt : mv == M_ALLTOALLS ? 3 * n * nt
                       : mv == M_COLLECT ? n + (size_t)tm.my : n;
    const size_t dst_n = mv == M_BROADCAST ? n : mv == M_ALLTOALLS ? 2 * n * nt
                       : mv == M_COLLECT ? n * nt + nt * (nt - 1) / 2 : n * nt;
    if ((src_n + 1) * sizeof(T) > BUF || (dst_n + 1) * sizeof(T) > BUF)
        return;
    const int root = (int)(tag % nt);
    auto value = [&](int member, size_t i) { return ref<T>::from(input_value(tm.pes[member], tag, i, false)); };
    std::vector<T> src(src_n);
    for (size_t i = 0; i < src_n; i++)
        src[i] = value(tm.my, i);
    store(sym_src, src.data(), src_n * sizeof(T));
    poison();
    const double t0 = now();
    call((T *)sym_dst, (const T *)sym_src, mv == M_COLLECT ? n + (size_t)tm.my : n, root);
    note_slow(t0, what, form, n);
    std::vector<T> want(dst_n);
    if (dst_n > 0) /* memset's pointer must not be null, even for no bytes */
        std::memset((void *)want.data(), 0xa5, dst_n * sizeof(T)); /* alltoalls' gaps stay poisoned */
    size_t at = 0;
    for (int j = 0; j < tm.n; j++)
        for (size_t i = 0; i < (mv == M_COLLECT ? n + (size_t)j : n); i++) {
            if (mv == M_BROADCAST) {
                if (j == 0)
                    want[i] = value(root, i);
            } else if (mv == M_COLLECT || mv == M_FCOLLECT) {
                want[at++] = value(j, i);
            } else if (mv == M_ALLTOALL) {
                want[(size_t)j * n + i] = value(j, (size_t)tm.my * n + i);
            } else {
                want[((size_t)j * n + i) * 2] = value(j, ((size_t)tm.my * n + i) * 3);
            }
        }
    const std::vector<T> got = load<T>(sym_dst, dst_n + 1);
    char full[160];
    std::snprintf(full, sizeof(full), "%s %s (root %d)", what, move_names[mv], root);
    expect(got, want, dst_n, false, full, form, tm);
    tag++;
}

template <typename T>
static void check_kernel_move(const team_info &tm, void (*k)(gshmem_team_t, T *, const T *, size_t, int),
                              const char *what, int mv, const char *scope)
{
    char form[32];
    std::snprintf(form, sizeof(form), "%s scope", scope);
    for (size_t n : kernel_sizes)
        check_move<T>(tm, what, mv, n, form, [&](T *d, const T *s, size_t m, int root) {
            k<<<1, 128>>>(tm.t, d, s, m, root);
            done_kernel();
        });
}

/* The stream forms' moves: one signature per shape. */
template <typename T>
static int move_on_stream(int (*fn)(gshmem_team_t, T *, const T *, size_t, int, cudaStream_t),
                          gshmem_team_t t, T *d, const T *s, size_t n, int root, cudaStream_t st)
{
    return fn(t, d, s, n, root, st);
}
template <typename T>
static int move_on_stream(int (*fn)(gshmem_team_t, T *, const T *, size_t, cudaStream_t),
                          gshmem_team_t t, T *d, const T *s, size_t n, int, cudaStream_t st)
{
    return fn(t, d, s, n, st);
}
template <typename T>
static int move_on_stream(int (*fn)(gshmem_team_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t, cudaStream_t),
                          gshmem_team_t t, T *d, const T *s, size_t n, int, cudaStream_t st)
{
    return fn(t, d, s, 2, 3, n, st);
}

/* T: the elements; P: what the entry point takes (T, or void for *mem). */
template <typename T, typename P = T, typename F>
static void check_stream_move(const team_info &tm, F fn, const char *what, int mv, cudaStream_t st)
{
    for (size_t n : stream_sizes)
        check_move<T>(tm, what, mv, n, "on a stream", [&](T *d, const T *s, size_t m, int root) {
            const int rc = move_on_stream<P>(fn, tm.t, d, s, m, root, st);
            CHECK(rc == 0, "%s %s on a stream returned %d", what, move_names[mv], rc);
            CUDA(cudaStreamSynchronize(st));
        });
}

/* Every entry point of the tables, in kernels and on a stream. */
static void check_every_type(const team_info &tm)
{
    cudaStream_t st;
    CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
#define CHECK_RED(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                                \
    IF(KEEP(K_##NAME, ROT_##STEM##TAIL),                                                            \
       check_kernel_reduction<TYPE>(tm, k_##NAME##_##STEM##TAIL, #NAME "_" #STEM, SH_##SHAPE,       \
                                    O_##OP, SCOPE_NAME(PICK(SC_##NAME, ROT_##STEM##TAIL)));)        \
    check_stream_reduction<TYPE>(tm, gshmemx_##NAME##_##STEM##TAIL##_on_stream, #NAME "_" #STEM,    \
                                 SH_##SHAPE, O_##OP, st);
#define CHECK_RED_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(CHECK_RED, NAME, TYPE)
#define CHECK_RED_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(CHECK_RED, NAME, TYPE)
    GSHMEM_FOR_REDUCE_BITWISE_TYPES(CHECK_RED_BITWISE)
    GSHMEM_FOR_REDUCE_ARITH_TYPES(CHECK_RED_ARITH)
#define CHECK_MV(STEM, TAIL, SHAPE, V, NAME, TYPE)                                                  \
    IF(KEEP(K_##NAME, ROT_##STEM),                                                                  \
       check_kernel_move<TYPE>(tm, k_##NAME##_##STEM, #NAME, MOVE_ID_##SHAPE,                       \
                               SCOPE_NAME(PICK(SC_##NAME, ROT_##STEM)));)                           \
    check_stream_move<TYPE>(tm, gshmemx_##NAME##_##STEM##_on_stream, #NAME, MOVE_ID_##SHAPE, st);
#define CHECK_MV_TYPE(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(CHECK_MV, NAME, TYPE)
    GSHMEM_FOR_RMA_TYPES(CHECK_MV_TYPE)
#define CHECK_MV_MEM(STEM, TAIL, SHAPE, V, A, B)                                                    \
    check_kernel_move<char>(tm, k_mem_##STEM, "mem", MOVE_ID_##SHAPE,                               \
                            SCOPE_NAME(PICK(SC_mem, ROT_##STEM)));                                  \
    check_stream_move<char, void>(tm, gshmemx_##STEM##mem_on_stream, "mem", MOVE_ID_##SHAPE, st);
    GSHMEM_FOR_COLL_OPS(CHECK_MV_MEM, , )
    CUDA(cudaStreamDestroy(st));
}

/* 1000 collectives in one kernel over all the teams (the same kernel on
 * every PE, each skipping the teams it is not in). */
static void check_back_to_back(const std::vector<team_info> &all)
{
    std::vector<b2b_team> bt(all.size());
    for (size_t k = 0; k < all.size(); k++) {
        bt[k].t = all[k].t;
        bt[k].n = all[k].n;
        bt[k].my = all[k].my;
        for (int i = 0; i < all[k].n && i < MAXPES; i++)
            bt[k].pes[i] = all[k].pes[i];
    }
    b2b_team *bt_dev;
    b2b_fail *fail_dev, fail;
    CUDA(cudaMalloc(&bt_dev, bt.size() * sizeof(b2b_team)));
    CUDA(cudaMemcpy(bt_dev, bt.data(), bt.size() * sizeof(b2b_team), cudaMemcpyHostToDevice));
    CUDA(cudaMalloc(&fail_dev, sizeof(b2b_fail)));
    CUDA(cudaMemset(fail_dev, 0, sizeof(b2b_fail)));
    gshmem_barrier_all();
    k_back_to_back<<<1, 128>>>(bt_dev, (int)bt.size(), 1000, (int *)sym_src, (int *)sym_dst, fail_dev);
    done_kernel();
    CUDA(cudaMemcpy(&fail, fail_dev, sizeof(fail), cudaMemcpyDeviceToHost));
    if (fail.set) {
        int ti, op, sc;
        size_t n;
        b2b_plan(fail.it, (int)bt.size(), &ti, &op, &n, &sc);
        CHECK(!fail.set, "back to back: collective %d (%s of %zu, %s scope, on %s): element %llu is "
              "%lld, expected %lld", fail.it, b2b_names[fail.op], n,
              sc == 0 ? "thread" : sc == 1 ? "warp" : "block", all[ti].name, fail.elem, fail.got,
              fail.want);
    }
    CUDA(cudaFree(fail_dev));
    CUDA(cudaFree(bt_dev));
}

/* The graph's calls on a team of nt: each one's elements (a member's),
 * and where its source and dest lie in the graph's buffers, in elements
 * (collect's sources are all as long as the longest, so that the calls
 * after it take the same offsets on every PE: sources are symmetric). */
enum { G_RED, G_RS, G_IN, G_EX, G_BC, G_FC, G_CO, G_AA, G_AAS, G_CALLS };
struct graph_layout {
    size_t n[G_CALLS], out[G_CALLS], in_off[G_CALLS], out_off[G_CALLS], in_total, out_total;
};
static graph_layout graph_plan(size_t nt)
{
    static const size_t n[G_CALLS] = {100003, 20011, 777, 777, 5003, 30011, 100, 777, 100};
    const size_t in[G_CALLS] = {n[0], n[1] * nt, n[2], n[3], n[4], n[5], n[6] + nt - 1,
                                n[7] * nt, 3 * n[8] * nt};
    const size_t out[G_CALLS] = {n[0], n[1], n[2], n[3], n[4], n[5] * nt,
                                 n[6] * nt + nt * (nt - 1) / 2, n[7] * nt, 2 * n[8] * nt};
    graph_layout l;
    l.in_total = l.out_total = 0;
    for (int c = 0; c < G_CALLS; c++) {
        l.n[c] = n[c], l.out[c] = out[c];
        l.in_off[c] = l.in_total, l.out_off[c] = l.out_total;
        l.in_total += in[c], l.out_total += out[c] + 1;
    }
    return l;
}
static int *graph_src, *graph_dst; /* for the world's layout, the largest */

/* A graph of every stream collective shape on tm, replayed 100 times with
 * new sources each time, every result checked after each replay. */
static void check_graph(const team_info &tm)
{
    const size_t nt = (size_t)tm.n;
    const graph_layout l = graph_plan(nt);
    const size_t *n = l.n, *out = l.out, *in_off = l.in_off, *out_off = l.out_off;
    const size_t in_total = l.in_total, out_total = l.out_total;
    const int root = (int)nt - 1;
    int *gsrc = graph_src, *gdst = graph_dst;
    int *round;
    cudaStream_t st;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CUDA(cudaMalloc(&round, sizeof(int)));
    CUDA(cudaMemset(round, 0, sizeof(int)));
    CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    k_fill_graph<<<16, 256, 0, st>>>(gsrc, in_total, me, round);
    int *s[G_CALLS], *d[G_CALLS];
    for (int c = 0; c < G_CALLS; c++)
        s[c] = gsrc + in_off[c], d[c] = gdst + out_off[c];
    const int rc[] = {
        gshmemx_int_sum_reduce_on_stream(tm.t, d[G_RED], s[G_RED], n[G_RED], st),
        gshmemx_int_max_reducescatter_on_stream(tm.t, d[G_RS], s[G_RS], n[G_RS], st),
        gshmemx_int_sum_inscan_on_stream(tm.t, d[G_IN], s[G_IN], n[G_IN], st),
        gshmemx_int_sum_exscan_on_stream(tm.t, d[G_EX], s[G_EX], n[G_EX], st),
        gshmemx_team_sync_on_stream(tm.t, st),
        gshmemx_int_broadcast_on_stream(tm.t, d[G_BC], s[G_BC], n[G_BC], root, st),
        gshmemx_int_fcollect_on_stream(tm.t, d[G_FC], s[G_FC], n[G_FC], st),
        gshmemx_int_collect_on_stream(tm.t, d[G_CO], s[G_CO], n[G_CO] + (size_t)tm.my, st),
        gshmemx_int_alltoall_on_stream(tm.t, d[G_AA], s[G_AA], n[G_AA], st),
        gshmemx_int_alltoalls_on_stream(tm.t, d[G_AAS], s[G_AAS], 2, 3, n[G_AAS], st),
        gshmemx_barrier_on_stream(tm.t, st)};
    for (size_t c = 0; c < sizeof(rc) / sizeof(rc[0]); c++)
        CHECK(rc[c] == 0, "call %zu of the graph on %s returned %d while captured", c, tm.name, rc[c]);
    k_count_round<<<1, 1, 0, st>>>(round);
    CUDA(cudaStreamEndCapture(st, &g));
    CUDA(cudaGraphInstantiate(&ge, g, 0));
    std::vector<int> poison_all(out_total);
    std::memset(poison_all.data(), 0xa5, out_total * sizeof(int));
    for (int r = 0; r < 100; r++) {
        store(gdst, poison_all.data(), out_total * sizeof(int));
        gshmem_team_sync(tm.t); /* nobody's replay writes into a dest before it is poisoned */
        CUDA(cudaGraphLaunch(ge, st));
        CUDA(cudaStreamSynchronize(st));
        const std::vector<int> got = load<int>(gdst, out_total);
        const uint64_t tag = 7000000ull + (uint64_t)r;
        /* member j's source element i of call c */
        auto v = [&](int j, int c, size_t i) { return input_value(tm.pes[j], tag, in_off[c] + i, false); };
        for (int c = 0; c < G_CALLS; c++) {
            for (size_t e = 0; e <= out[c]; e++) {
                long long want;
                if (e == out[c]) {
                    int poisoned;
                    std::memset(&poisoned, 0xa5, sizeof(poisoned));
                    want = poisoned;
                } else {
                    switch (c) {
                    case G_RED: {
                        unsigned acc = 0;
                        for (int j = 0; j < tm.n; j++)
                            acc += (unsigned)v(j, c, e);
                        want = (int)acc;
                        break;
                    }
                    case G_RS: {
                        int m = v(0, c, (size_t)tm.my * n[c] + e);
                        for (int j = 1; j < tm.n; j++)
                            m = std::max(m, v(j, c, (size_t)tm.my * n[c] + e));
                        want = m;
                        break;
                    }
                    case G_IN:
                    case G_EX: {
                        const int upto = c == G_IN ? tm.my + 1 : tm.my; /* exscan: member 0's is zero */
                        unsigned acc = 0;
                        for (int j = 0; j < upto; j++)
                            acc += (unsigned)v(j, c, e);
                        want = (int)acc;
                        break;
                    }
                    case G_BC:
                        want = v(root, c, e);
                        break;
                    case G_FC:
                        want = v((int)(e / n[c]), c, e % n[c]);
                        break;
                    case G_CO: { /* member j's n + j elements after those of members before it */
                        size_t j = 0, at = e;
                        while (at >= n[c] + j)
                            at -= n[c] + j, j++;
                        want = v((int)j, c, at);
                        break;
                    }
                    case G_AA:
                        want = v((int)(e / n[c]), c, (size_t)tm.my * n[c] + e % n[c]);
                        break;
                    default: { /* alltoalls: dest stride 2, source stride 3 */
                        if (e % 2 != 0) {
                            int poisoned;
                            std::memset(&poisoned, 0xa5, sizeof(poisoned));
                            want = poisoned;
                            break;
                        }
                        const size_t k = e / 2, j = k / n[c], i = k % n[c];
                        want = v((int)j, c, ((size_t)tm.my * n[c] + i) * 3);
                    }
                    }
                }
                CHECK(got[out_off[c] + e] == want,
                      "replay %d of the graph on %s: call %d of %zu elements, element %zu of %zu is "
                      "%d, expected %lld", r, tm.name, c, n[c], e, out[c], got[out_off[c] + e], want);
            }
        }
        /* the next replay overwrites the sources: everybody has read these */
        gshmem_team_sync(tm.t);
    }
    CUDA(cudaGraphExecDestroy(ge));
    CUDA(cudaGraphDestroy(g));
    CUDA(cudaStreamDestroy(st));
    CUDA(cudaFree(round));
}

/* A part done: how long it took (pe 0), so that a slow run shows where. */
static void progress(const char *what, double *t0)
{
    const double t = now();
    if (me == 0)
        std::fprintf(stderr, "device_coll_types: %s: %.1f s\n", what, t - *t0);
    *t0 = t;
}

int main()
{
    if (gpu_count() == 0)
        return 77;
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    CHECK(npes <= MAXPES, "this test runs on up to %d PEs", MAXPES);
    sym_src = gshmem_malloc(BUF);
    sym_dst = gshmem_malloc(BUF);
    CHECK(sym_src != nullptr && sym_dst != nullptr, "gshmem_malloc of 2 x %u bytes", BUF);
    const graph_layout world = graph_plan((size_t)npes);
    graph_src = (int *)gshmem_malloc(world.in_total * sizeof(int));
    graph_dst = (int *)gshmem_malloc(world.out_total * sizeof(int));
    CHECK(graph_src != nullptr && graph_dst != nullptr, "gshmem_malloc of the graph's buffers");

    gshmem_team_t evens, reversed;
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed);
    /* every team, with this PE's place in it (-1 outside); the back-to-back
     * kernel takes them all, in the same order on every PE */
    std::vector<team_info> all, teams;
    const gshmem_team_t candidates[] = {reversed, GSHMEM_TEAM_WORLD, evens};
    const char *const names[] = {"world reversed", "world", "stride 2"};
    for (int k = 0; k < 3; k++) {
        team_info ti = {candidates[k], names[k], 0, -1, {}};
        if (k == 2) { /* evens: known on every PE, a member or not */
            ti.n = (npes + 1) / 2;
            for (int i = 0; i < ti.n; i++)
                ti.pes.push_back(2 * i);
            ti.my = me % 2 == 0 ? me / 2 : -1;
        } else {
            ti.n = gshmem_team_n_pes(ti.t);
            ti.my = gshmem_team_my_pe(ti.t);
            for (int i = 0; i < ti.n; i++)
                ti.pes.push_back(gshmem_team_translate_pe(ti.t, i, GSHMEM_TEAM_WORLD));
        }
        all.push_back(ti);
        if (ti.t != GSHMEM_TEAM_INVALID && ti.my >= 0)
            teams.push_back(ti);
    }
    /* Every entry point on one team, the reversed world (the types and
     * operations do not depend on the team, and PEs that share a GPU take
     * turns on it for every call: some 25 ms a call at 2 PEs); the graph on
     * every team. */
    double t0 = now();
    check_every_type(teams[0]);
    progress("every typed entry point on the reversed world", &t0);
    for (const team_info &tm : teams)
        check_graph(tm);
    progress("the graph of every shape on each team", &t0);
    check_back_to_back(all);
    progress("1000 collectives back to back in one kernel", &t0);
    gshmem_barrier_all();
    if (me == 0)
        std::printf("device_coll_types: %d PEs%s: every typed reduction, scan and move in kernels and "
                    "on a stream, 1000 collectives back to back in one kernel, and a graph of every "
                    "shape replayed 100 times, on %zu teams: all checked\n",
                    npes, gshmem_ptr(sym_src, (me + 1) % npes) == nullptr ? " (peers through the proxy)" : "",
                    all.size());
    if (evens != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(evens);
    gshmem_team_destroy(reversed);
    gshmem_free(graph_dst);
    gshmem_free(graph_src);
    gshmem_free(sym_dst);
    gshmem_free(sym_src);
    gshmem_finalize();
    return 0;
}
