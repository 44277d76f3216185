// The collectives across their algorithms (flag packets, barrier-move-
// barrier, the grid and push algorithms in stream order): the suite runs
// this under each GSHMEM_COLL_ALGO (auto, simple, ll, grid, push; auto
// pushes the world's reductions and broadcasts past the flag packets' edge,
// push at every size).
//  1. Each collective in stream order once, at sizes on both sides of every
//     threshold (the flag packets' largest payload, the grid's smallest,
//     the grid's block counts), aligned and 4 bytes off (3 for the 1-byte
//     shapes; in place for reductions and broadcasts), on the world and
//     on the world reversed (members not in world order); dest poisoned
//     and every element, and the one after, checked against a reference
//     each PE computes from every member's regenerated input.
//  2. The block and warp forms in a kernel at the flag packets' edge.
//  3. 1000 collectives back to back on one stream with no sync between,
//     alternating shapes, sizes and the two teams; each one's source is
//     the last one's dest, changed by a small kernel in between, so a
//     packet or a count reused too early changes the end result, which is
//     checked against a model of every PE's buffers kept on the host.
//  4. The reversed world destroyed and split again into its slot, then
//     pushed reductions and broadcasts on it.
//  5. From 3 PEs, a split slot taken over by other members (0 and 1, then
//     1 and 2): counts or flags left from the old team would hang it.
//  6. Where the world spans (simulated) nodes, the node team, which takes
//     the world's push area then.
//  7. Three splits alive at once, the third in slot 6: pushed with
//     GSHMEM_COLL_PUSH_TEAMS=3 (coll-algos-push-teams-3-*), on the grid
//     otherwise.
//
//   gshmrun -n 2 ./coll_algos          (exit 77 without a GPU)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gshmem_device.cuh>

#include "coll_inputs.h"
#include "gpu_check.h"

static int me, npes;

struct team_info {
    gshmem_team_t t;
    const char *name;
    int n, my;
    std::vector<int> pes; /* world PE of each member */
};

template <typename T> static T from_int(int v) { return (T)v; }
template <> __nv_bfloat16 from_int<__nv_bfloat16>(int v) { return __float2bfloat16((float)v); }
template <typename T> static double to_double(T v) { return (double)v; }
template <> double to_double<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

/* Every threshold's two sides, in 4-byte elements: 0, 1, odd, the flag
 * packets' 16 KiB in kernels (4 blocks of them in stream order), the grid's
 * 32 KiB and 2 blocks, 64 KiB (16 blocks), the stream's flag packets' edge
 * at 4 PEs (128 KiB, 32 blocks) and at 2 PEs (256 KiB), 12 grid blocks at
 * 4 PEs, 20 blocks whose 16-byte pieces must round up (327684 bytes), the
 * 64-block cap, pushed in 4-byte types and past the push slots (4 MiB at 2
 * PEs, 2.6 at 4) in 8-byte ones. */
static const size_t sizes[] = {0,     1,     3,     1000,  4095,  4096,  4097,  8191,  8192,
                               8193,  16383, 16384, 16385, 32767, 32768, 32769, 50001, 65535,
                               65536, 65537, 81921, 600007};
#define MAX_ELEMS 600007
#define BUF ((size_t)MAX_ELEMS * 8 * 8 + 64) /* up to 8 members' blocks of 8-byte elements */

static char *sym_a, *sym_b;
static cudaStream_t st;

/* All on the collectives' stream: a non-blocking stream does not wait
 * for the default stream's copies and memsets. */
static void fill(void *dst, const void *src, size_t bytes)
{
    CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
    CUDA(cudaStreamSynchronize(st));
}
template <typename T> static std::vector<T> fetch(const void *src, size_t n)
{
    std::vector<T> v(n);
    CUDA(cudaMemcpyAsync(v.data(), src, n * sizeof(T), cudaMemcpyDeviceToHost, st));
    CUDA(cudaStreamSynchronize(st));
    return v;
}
static void poison(void *p, size_t bytes) { CUDA(cudaMemsetAsync(p, 0xa5, bytes, st)); }

/* ---- 1. each collective once ------------------------------------------------- */

enum shape { SUM_REDUCE, MAX_REDUCESCATTER, XOR_REDUCE, BF16_REDUCE, FLOAT_REDUCESCATTER,
             FCOLLECT, ALLTOALL, BROADCAST, U8_SUM_REDUCE, U8_BROADCAST, N_SHAPES };
static const char *const shape_names[] = {
    "int_sum_reduce", "int_max_reducescatter", "uint64_xor_reduce", "bfloat16_sum_reduce",
    "float_sum_reducescatter", "int_fcollect", "int_alltoall", "int_broadcast",
    "uint8_sum_reduce", "uint8_broadcast"};

/* Source elements a member holds and dest elements it gets, for n elements. */
static size_t src_elems(int sh, size_t n, int members)
{
    return sh == MAX_REDUCESCATTER || sh == FLOAT_REDUCESCATTER || sh == ALLTOALL ? n * members : n;
}
static size_t dst_elems(int sh, size_t n, int members)
{
    return sh == FCOLLECT || sh == ALLTOALL ? n * members : n;
}

template <typename T>
static void check_values(const team_info &tm, const char *what, size_t n, size_t off,
                         bool in_place, const std::vector<T> &got, const std::vector<double> &want)
{
    for (size_t e = 0; e < want.size(); e++)
        CHECK(to_double(got[e]) == want[e],
              "%s of %zu elements (offset %zu%s) on %s: element %zu of %zu is %g, expected %g", what,
              n, off, in_place ? ", in place" : "", tm.name, e, want.size(), to_double(got[e]),
              want[e]);
}

template <typename T>
static void run_shape(const team_info &tm, int sh, size_t n, size_t off, bool in_place, uint64_t tag)
{
    const size_t ns = src_elems(sh, n, tm.n), nd = dst_elems(sh, n, tm.n);
    const int root = (int)(tag % (uint64_t)tm.n);
    T *src = (T *)(sym_a + off), *dst = in_place ? src : (T *)(sym_b + off);
    std::vector<T> in(ns);
    for (size_t i = 0; i < ns; i++)
        in[i] = from_int<T>(input_value(tm.pes[tm.my], tag, i));
    if (!in_place)
        poison(dst, (nd + 1) * sizeof(T));
    else
        poison(src + ns, sizeof(T));
    fill(src, in.data(), ns * sizeof(T));
    int rc = 0;
    switch (sh) {
    case SUM_REDUCE:
        rc = gshmemx_int_sum_reduce_on_stream(tm.t, (int *)dst, (const int *)src, n, st);
        break;
    case MAX_REDUCESCATTER:
        rc = gshmemx_int_max_reducescatter_on_stream(tm.t, (int *)dst, (const int *)src, n, st);
        break;
    case XOR_REDUCE:
        rc = gshmemx_uint64_xor_reduce_on_stream(tm.t, (uint64_t *)dst, (const uint64_t *)src, n, st);
        break;
    case BF16_REDUCE:
        rc = gshmemx_bfloat16_sum_reduce_on_stream(tm.t, (__nv_bfloat16 *)dst,
                                                   (const __nv_bfloat16 *)src, n, st);
        break;
    case FLOAT_REDUCESCATTER:
        rc = gshmemx_float_sum_reducescatter_on_stream(tm.t, (float *)dst, (const float *)src, n, st);
        break;
    case FCOLLECT:
        rc = gshmemx_int_fcollect_on_stream(tm.t, (int *)dst, (const int *)src, n, st);
        break;
    case ALLTOALL:
        rc = gshmemx_int_alltoall_on_stream(tm.t, (int *)dst, (const int *)src, n, st);
        break;
    case U8_SUM_REDUCE:
        rc = gshmemx_uint8_sum_reduce_on_stream(tm.t, (uint8_t *)dst, (const uint8_t *)src, n, st);
        break;
    case U8_BROADCAST:
        rc = gshmemx_uint8_broadcast_on_stream(tm.t, (uint8_t *)dst, (const uint8_t *)src, n, root, st);
        break;
    default:
        rc = gshmemx_int_broadcast_on_stream(tm.t, (int *)dst, (const int *)src, n, root, st);
    }
    CHECK(rc == 0, "%s returned %d", shape_names[sh], rc);
    CUDA(cudaStreamSynchronize(st));

    std::vector<double> want(nd);
    auto v = [&](int member, size_t i) { return (double)input_value(tm.pes[member], tag, i); };
    for (size_t e = 0; e < nd; e++) {
        switch (sh) {
        case SUM_REDUCE: case BF16_REDUCE: case FLOAT_REDUCESCATTER: {
            const size_t at = sh == FLOAT_REDUCESCATTER ? (size_t)tm.my * n + e : e;
            double s = 0;
            for (int j = 0; j < tm.n; j++)
                s += v(j, at);
            want[e] = s;
            break;
        }
        case MAX_REDUCESCATTER: {
            double m = v(0, (size_t)tm.my * n + e);
            for (int j = 1; j < tm.n; j++)
                m = std::max(m, v(j, (size_t)tm.my * n + e));
            want[e] = m;
            break;
        }
        case XOR_REDUCE: {
            uint64_t x = 0;
            for (int j = 0; j < tm.n; j++)
                x ^= (uint64_t)(int64_t)input_value(tm.pes[j], tag, e);
            want[e] = (double)x;
            break;
        }
        case U8_SUM_REDUCE: { /* modulo 256, as the bytes add */
            unsigned s = 0;
            for (int j = 0; j < tm.n; j++)
                s += (uint8_t)input_value(tm.pes[j], tag, e);
            want[e] = (double)(uint8_t)s;
            break;
        }
        case U8_BROADCAST: want[e] = (double)(uint8_t)input_value(tm.pes[root], tag, e); break;
        case FCOLLECT: want[e] = v((int)(e / n), e % n); break;
        case ALLTOALL: want[e] = v((int)(e / n), (size_t)tm.my * n + e % n); break;
        default: want[e] = v(root, e);
        }
    }
    std::vector<T> got = fetch<T>(dst, nd + 1);
    if (sh == XOR_REDUCE) { /* exact bits, not through double */
        for (size_t e = 0; e < nd; e++) {
            uint64_t x = 0;
            for (int j = 0; j < tm.n; j++)
                x ^= (uint64_t)(int64_t)input_value(tm.pes[j], tag, e);
            CHECK(std::memcmp(&got[e], &x, 8) == 0, "uint64_xor_reduce of %zu elements on %s: "
                  "element %zu is wrong", n, tm.name, e);
        }
    } else {
        check_values(tm, shape_names[sh], n, off, in_place, got, want);
    }
    unsigned char poisoned[sizeof(T)];
    std::memset(poisoned, 0xa5, sizeof(T));
    CHECK(std::memcmp(&got[nd], poisoned, sizeof(T)) == 0,
          "%s of %zu elements on %s: the element after dest was written", shape_names[sh], n,
          tm.name);
}

static void each_once(const team_info &tm)
{
    uint64_t tag = 1;
    for (int sh = 0; sh < N_SHAPES; sh++)
        for (size_t n : sizes)
            for (size_t off : {(size_t)0, (size_t)4}) {
                /* in place where the shape allows it (reductions, broadcasts), once per size */
                const bool in_place = (sh == SUM_REDUCE || sh == BF16_REDUCE || sh == BROADCAST ||
                                       sh == U8_SUM_REDUCE) && off == 4;
                if (sh == XOR_REDUCE && off != 0)
                    continue; /* 8-byte elements stay 8-aligned */
                if (sh == BF16_REDUCE)
                    run_shape<__nv_bfloat16>(tm, sh, n, off / 2, in_place, tag++);
                else if (sh == XOR_REDUCE)
                    run_shape<uint64_t>(tm, sh, n, off, in_place, tag++);
                else if (sh == U8_SUM_REDUCE || sh == U8_BROADCAST) /* bytes: 3 off */
                    run_shape<uint8_t>(tm, sh, n, off ? 3 : 0, in_place, tag++);
                else if (sh == FLOAT_REDUCESCATTER)
                    run_shape<float>(tm, sh, n, off, in_place, tag++);
                else
                    run_shape<int>(tm, sh, n, off, in_place, tag++);
            }
}

/* ---- 2. in a kernel --------------------------------------------------------- */

__global__ void k_group(int warp, gshmem_team_t team, int *dst, const int *src, size_t n, int root)
{
    if (warp) {
        if (threadIdx.x < 32) {
            gshmemx_int_sum_reduce_warp(team, dst, src, n);
            gshmemx_int_fcollect_warp(team, dst + n, src, n);
            gshmemx_int_broadcast_warp(team, dst + n * (1 + gshmem_team_n_pes(team)), src, n, root);
        }
    } else {
        gshmemx_int_sum_reduce_block(team, dst, src, n);
        gshmemx_int_fcollect_block(team, dst + n, src, n);
        gshmemx_int_broadcast_block(team, dst + n * (1 + gshmem_team_n_pes(team)), src, n, root);
    }
}

static void in_kernels(const team_info &tm)
{
    uint64_t tag = 50000;
    for (int warp = 0; warp < 2; warp++)
        for (size_t n : {(size_t)4095, (size_t)4096, (size_t)4097}) {
            const int root = (int)(tag % (uint64_t)tm.n);
            std::vector<int> in(n);
            for (size_t i = 0; i < n; i++)
                in[i] = input_value(tm.pes[tm.my], tag, i);
            fill(sym_a, in.data(), n * sizeof(int));
            const size_t nd = n * (2 + (size_t)tm.n);
            poison(sym_b, nd * sizeof(int));
            k_group<<<1, 256, 0, st>>>(warp, tm.t, (int *)sym_b, (const int *)sym_a, n, root);
            CUDA(cudaGetLastError());
            CUDA(cudaStreamSynchronize(st));
            std::vector<int> got = fetch<int>(sym_b, nd);
            for (size_t e = 0; e < n; e++) {
                int s = 0;
                for (int j = 0; j < tm.n; j++)
                    s += input_value(tm.pes[j], tag, e);
                CHECK(got[e] == s, "%s sum_reduce of %zu in a kernel on %s: element %zu is %d, "
                      "expected %d", warp ? "warp" : "block", n, tm.name, e, got[e], s);
                CHECK(got[n * (1 + tm.n) + e] == input_value(tm.pes[root], tag, e),
                      "%s broadcast of %zu in a kernel on %s: element %zu", warp ? "warp" : "block",
                      n, tm.name, e);
            }
            for (size_t e = 0; e < n * tm.n; e++)
                CHECK(got[n + e] == input_value(tm.pes[e / n], tag, e % n),
                      "%s fcollect of %zu in a kernel on %s: element %zu", warp ? "warp" : "block",
                      n, tm.name, e);
            tag++;
        }
}

/* ---- 3. back to back ----------------------------------------------------------- */

/* src[k] = src[k] * 3 + pe + i + k for k < n: every step changes every input. */
__global__ void k_mix(uint32_t *src, size_t n, uint32_t pe, uint32_t i)
{
    for (size_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
        src[k] = src[k] * 3u + pe + i + (uint32_t)k;
}

static void back_to_back(const std::vector<team_info> &teams)
{
    /* 70001 (280 KB): past the flag packets at 2 PEs, so that the world's
     * reductions and broadcasts push under auto too */
    static const size_t steps[] = {1, 1000, 4097, 8193, 50001, 7, 70001};
    const int N = 1000;
    const size_t cap = 70001 * (size_t)npes;
    /* model[p][0] is PE p's sym_a, [1] its sym_b; every PE models every PE. */
    std::vector<std::vector<std::vector<uint32_t>>> model(
        npes, std::vector<std::vector<uint32_t>>(2, std::vector<uint32_t>(cap)));
    for (int p = 0; p < npes; p++)
        for (int b = 0; b < 2; b++)
            for (size_t k = 0; k < cap; k++)
                model[p][b][k] = (uint32_t)input_value(p, 90000 + (uint64_t)b, k);
    for (int b = 0; b < 2; b++)
        fill(b ? sym_b : sym_a, model[me][b].data(), cap * 4);
    gshmem_barrier_all();
    for (int i = 0; i < N; i++) {
        const team_info &tm = teams[(size_t)(i / 5) % teams.size()];
        const size_t n = steps[(size_t)(i / 2) % (sizeof(steps) / sizeof(steps[0]))];
        const int sh = (i / 3) % 5, s = i % 2; /* source buffer s, dest 1 - s */
        const int root = i % tm.n;
        const size_t ns = sh == 1 || sh == 3 ? n * tm.n : n;
        uint32_t *src = (uint32_t *)(s ? sym_b : sym_a), *dst = (uint32_t *)(s ? sym_a : sym_b);
        k_mix<<<8, 256, 0, st>>>(src, ns, (uint32_t)me, (uint32_t)i);
        CUDA(cudaGetLastError());
        int rc;
        switch (sh) {
        case 0: rc = gshmemx_uint32_sum_reduce_on_stream(tm.t, dst, src, n, st); break;
        case 1: rc = gshmemx_uint32_sum_reducescatter_on_stream(tm.t, dst, src, n, st); break;
        case 2: rc = gshmemx_uint32_fcollect_on_stream(tm.t, dst, src, n, st); break;
        case 3: rc = gshmemx_uint32_alltoall_on_stream(tm.t, dst, src, n, st); break;
        default: rc = gshmemx_uint32_broadcast_on_stream(tm.t, dst, src, n, root, st);
        }
        CHECK(rc == 0, "step %d returned %d", i, rc);
        /* the model: every PE's mix, then the collective */
        for (int p = 0; p < npes; p++)
            for (size_t k = 0; k < ns; k++)
                model[p][s][k] = model[p][s][k] * 3u + (uint32_t)p + (uint32_t)i + (uint32_t)k;
        for (int m = 0; m < tm.n; m++) {
            std::vector<uint32_t> &out = model[tm.pes[m]][1 - s];
            auto in = [&](int j, size_t k) { return model[tm.pes[j]][s][k]; };
            for (size_t k = 0; k < n; k++) {
                switch (sh) {
                case 0: case 1: {
                    uint32_t acc = 0;
                    for (int j = 0; j < tm.n; j++)
                        acc += in(j, sh == 1 ? (size_t)m * n + k : k);
                    out[k] = acc;
                    break;
                }
                case 2:
                    for (int j = 0; j < tm.n; j++)
                        out[(size_t)j * n + k] = in(j, k);
                    break;
                case 3:
                    for (int j = 0; j < tm.n; j++)
                        out[(size_t)j * n + k] = in(j, (size_t)m * n + k);
                    break;
                default: out[k] = in(root, k);
                }
            }
        }
    }
    CUDA(cudaStreamSynchronize(st));
    for (int b = 0; b < 2; b++) {
        std::vector<uint32_t> got = fetch<uint32_t>(b ? sym_b : sym_a, cap);
        for (size_t k = 0; k < cap; k++)
            CHECK(got[k] == model[me][b][k], "after %d collectives back to back: buffer %c element "
                  "%zu is %u, expected %u", N, "ab"[b], k, got[k], model[me][b][k]);
    }
}

/* Team t as the checks see it: its members' world PEs from the team. */
static team_info info_of(gshmem_team_t t, const char *name)
{
    team_info ti = {t, name, gshmem_team_n_pes(t), gshmem_team_my_pe(t), {}};
    for (int i = 0; i < ti.n; i++)
        ti.pes.push_back(gshmem_team_translate_pe(t, i, GSHMEM_TEAM_WORLD));
    return ti;
}

/* Reductions, broadcasts and reducescatters past the flag packets (pushed
 * where the team has a push area). */
static void pushed_shapes(const team_info &tm, uint64_t &tag)
{
    for (size_t n : {(size_t)70001, (size_t)600007})
        for (int sh : {SUM_REDUCE, BROADCAST, FLOAT_REDUCESCATTER})
            if (sh == FLOAT_REDUCESCATTER)
                run_shape<float>(tm, sh, n, 0, false, tag++);
            else
                run_shape<int>(tm, sh, n, 0, false, tag++);
}

int main()
{
    if (gpu_count() == 0)
        return 77;
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    sym_a = (char *)gshmem_malloc(BUF);
    sym_b = (char *)gshmem_malloc(BUF);
    CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    gshmem_team_t reversed;
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed);
    CHECK(reversed != GSHMEM_TEAM_INVALID, "the reversed world could not be made");
    std::vector<team_info> teams;
    for (gshmem_team_t t : {GSHMEM_TEAM_WORLD, reversed})
        teams.push_back(info_of(t, t == GSHMEM_TEAM_WORLD ? "world" : "world reversed"));
    for (const team_info &tm : teams) {
        each_once(tm);
        in_kernels(tm);
    }
    back_to_back(teams);
    /* 4. The reversed world destroyed after hundreds of collectives and
     * split again into the same slot, its counts and flags (a push
     * area's too) started over. */
    CUDA(cudaStreamSynchronize(st));
    gshmem_team_destroy(reversed);
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed);
    CHECK(reversed != GSHMEM_TEAM_INVALID, "the reversed world could not be made again");
    teams[1].t = reversed;
    uint64_t tag = 90000;
    pushed_shapes(teams[1], tag);
    /* 5. From 3 PEs, a slot taken over by other members: PEs 0 and 1 push
     * in a split, destroy it, then PEs 1 and 2 split into the same slot.
     * PE 1's counts there would run ahead of PE 2's unless the split
     * started them over, and the two would wait for each other. */
    if (npes >= 3) {
        CUDA(cudaStreamSynchronize(st));
        gshmem_team_destroy(reversed);
        for (int first = 0; first < 2; first++) {
            gshmem_team_t pair;
            gshmem_team_split_strided(GSHMEM_TEAM_WORLD, first, 1, 2, NULL, 0, &pair);
            if (me == first || me == first + 1) {
                CHECK(pair != GSHMEM_TEAM_INVALID, "the pair from pe %d could not be made", first);
                const team_info ti = {pair, "a pair", 2, me - first, {first, first + 1}};
                uint64_t pair_tag = 91000 + 10 * (uint64_t)first; /* the members' own */
                for (int k = 0; k < 3; k++)
                    run_shape<int>(ti, SUM_REDUCE, 600007, 0, false, pair_tag++);
                run_shape<int>(ti, BROADCAST, 70001, 0, false, pair_tag++);
                CUDA(cudaStreamSynchronize(st));
            }
            gshmem_team_destroy(pair);
        }
        gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed);
    }
    /* 6. Where the world spans (simulated) nodes, the node team, which
     * takes the world's push area then. */
    const int node_n = gshmem_team_n_pes(GSHMEMX_TEAM_NODE);
    if (node_n >= 2 && node_n < npes)
        pushed_shapes(info_of(GSHMEMX_TEAM_NODE, "the node team"), tag);
    /* 7. A third split alive beside two others (slot 6): on the grid by
     * default, pushed with GSHMEM_COLL_PUSH_TEAMS=3 or more (the suite
     * runs both), through the third split area. */
    gshmem_team_t second, third;
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &second);
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &third);
    CHECK(second != GSHMEM_TEAM_INVALID && third != GSHMEM_TEAM_INVALID,
          "two more splits beside the reversed world could not be made");
    pushed_shapes(info_of(third, "a third split"), tag);
    pushed_shapes(info_of(second, "a second split"), tag);
    CUDA(cudaStreamSynchronize(st));
    gshmem_team_destroy(third);
    gshmem_team_destroy(second);
    gshmem_barrier_all();
    const char *algo = std::getenv("GSHMEM_COLL_ALGO");
    if (me == 0)
        std::printf("coll_algos: %d PEs, GSHMEM_COLL_ALGO=%s: %d shapes x %zu sizes on 2 teams, the "
                    "group forms at the flag packets' edge, 1000 back to back, teams split again "
                    "into a used slot, three splits alive: all checked\n",
                    npes, algo ? algo : "(unset)", N_SHAPES, sizeof(sizes) / sizeof(sizes[0]));
    gshmem_team_destroy(reversed);
    CUDA(cudaStreamDestroy(st));
    gshmem_free(sym_b);
    gshmem_free(sym_a);
    gshmem_finalize();
    return 0;
}
