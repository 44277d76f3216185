// coll: collectives on the world team, at any number of PEs from 2, in the
// three forms: on a stream, inside a running kernel and from the host; and
// the time a team split and destroy take.  Built for NVSHMEM too
// (bench/nvshmem/coll_nvshmem.cu: the same source); NCCL's counterpart is
// bench/nccl/nccl_coll.cu.
//
//   gshmrun -n 2 ./bench/coll [--ops allreduce,allgather,reducescatter,broadcast,alltoall,device,host,team]
//       [--dtype float,bfloat16] [--min BYTES] [--max 268435456] [--iters N] [--dev-threads 512]
//       [--team world|split]
//
// On stream (op=allreduce, allgather, reducescatter, broadcast, alltoall):
// the *_on_stream forms (sum_reduce, fcollect, sum_reducescatter,
// broadcast from PE 0, alltoall) in float, allreduce in bfloat16 too, from
// the element size (or --min) to --max bytes (default 256 MiB) in powers of
// 2.  `iters` calls (100, fewer from 4 MiB up: coll_iters) go back to back
// on one stream behind a gate (a kernel that waits for the host), so the
// time between the two events is the GPUs' alone; one call before the
// first event lines the PEs' streams up; us = time / iters.  The gate opens
// itself after 5 s if the host could not come back to open it (enqueueing
// that waits for the GPU); the line then says gate=deadline.
//
// --team split runs the on-stream forms on a split of the world with every
// PE in world order instead (a team in a split's slot, as tensor-parallel
// groups are); the lines then say team=split.
//
// `bytes` follows nccl-tests: allreduce and broadcast the buffer size,
// allgather the output size (n x the block each PE gives), reducescatter
// the input size (n x the block each PE gets), alltoall the buffer size
// (source and destination alike).  algbw = bytes / us (GB/s, 1e9 B/s);
// busbw = algbw x 2(n-1)/n for allreduce, (n-1)/n for allgather,
// reducescatter and alltoall, 1 for broadcast (bench/coll_common.cuh).
//
// In a kernel (op=allreduce_block): one block of --dev-threads threads per
// PE, started with collective_launch, calls float_sum_reduce_block on the
// world team `iters` times (1000) back to back; us = kernel time / iters;
// 8 B, 256 B, 4 KiB and 64 KiB.  From the host (op=allreduce_host): the
// blocking float_sum_reduce, 8 B, 4 KiB, 64 KiB and 1 MiB, us per call on
// the host's clock.  Team (op=team_split_strided, team_destroy):
// team_split_strided of the world from PE 0 with stride 1 (every PE) and
// stride 2, and team_destroy of the new team, each on PE 0's host clock.
//
// Each point is the median of 7 runs after a warm-up.  Every point is
// checked once more, untimed: the destination poisoned (NaN), every PE
// past a barrier, one call, then every element of every PE's destination
// compared with a reference the host computes from every PE's inputs
// (coll_common.cuh: inputs made so that sums are exact in any order); a
// wrong element ends the job naming the PE, the operation and the size.
// The NVSHMEM twin instead leaves such a point out with a WRONG line and
// exits 3 at the end, so that NVSHMEM's other points are still measured.
// The kernel form's block is --dev-threads or the most the kernel allows.
// A team split is checked by its size and this PE's index in it.  The
// NVSHMEM twin started with NVSHMEM_DISABLE_NCCL set reports
// sys=nvshmem-own (NVSHMEM's own collective kernels, not NCCL's).  PE 0
// prints one RESULT line per point.
#include <cstdarg>
#include <cstring>
#include <ctime>
#include <strings.h>
#include <type_traits>
#include <vector>

#include "bench_api.cuh"
#include "coll_common.cuh"

#ifdef BENCH_NVSHMEM
typedef nvshmem_team_t team_t;
#define TEAM_WORLD NVSHMEM_TEAM_WORLD
#define TEAM_INVALID NVSHMEM_TEAM_INVALID
#else
typedef gshmem_team_t team_t;
#define TEAM_WORLD GSHMEM_TEAM_WORLD
#define TEAM_INVALID GSHMEM_TEAM_INVALID
#endif

#define RUNS 7
#define GATE_DEADLINE_MS 5000
#define DEV_ITERS 1000

static int me, npes;
static const char *sys_name = SYS;
static int wrong_points; // the twin's points left out for wrong answers (PE 0)
#ifdef BENCH_NVSHMEM
static int *wrong_word; // symmetric: set on PE 0 by a PE that saw a wrong answer
#endif

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "coll (%s): pe %d: %s\n", sys_name, me, msg);
    std::fflush(stderr);
    A_(global_exit)(1);
    std::exit(1); // global_exit does not return; this says so to the compiler
}

#ifdef BENCH_NVSHMEM
// NVSHMEM reads NVSHMEM_DISABLE_NCCL as a boolean: anything but empty or a
// "no" word turns NCCL off.
static bool nccl_disabled()
{
    const char *v = std::getenv("NVSHMEM_DISABLE_NCCL");
    if (v == nullptr || *v == '\0')
        return false;
    for (const char *no : {"0", "false", "no", "n", "off"})
        if (strcasecmp(v, no) == 0)
            return false;
    return true;
}
#endif

static double now_us()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static team_t coll_team = TEAM_WORLD; /* the on-stream forms' (--team) */

// One on-stream call of `op` on element type T (bfloat16: allreduce only).
template <typename T>
static int issue(int op, T *dst, const T *src, const coll_shape &s, cudaStream_t st)
{
    if constexpr (std::is_same<T, __nv_bfloat16>::value) {
        return AX_(bfloat16_sum_reduce_on_stream)(coll_team, dst, src, s.block, st);
    } else {
        switch (op) {
        case COLL_ALLREDUCE:
            return AX_(float_sum_reduce_on_stream)(coll_team, dst, src, s.block, st);
        case COLL_ALLGATHER:
            return AX_(float_fcollect_on_stream)(coll_team, dst, src, s.block, st);
        case COLL_REDUCESCATTER:
            return AX_(float_sum_reducescatter_on_stream)(coll_team, dst, src, s.block, st);
        case COLL_BROADCAST:
            return AX_(float_broadcast_on_stream)(coll_team, dst, src, s.block, COLL_ROOT, st);
        default:
            return AX_(float_alltoall_on_stream)(coll_team, dst, src, s.block, st);
        }
    }
}

// The untimed check of one point: poisons this PE's destination, meets the
// others (so nobody writes a destination before it is poisoned), runs
// call() once and compares every element with the reference.  False where
// an element was wrong (the NVSHMEM twin only: gshmem's build ends the job).
template <typename C>
static bool check(const char *what, int op, int dtype, const coll_shape &s, void *dst, unsigned salt,
                  std::vector<unsigned char> &host, C call)
{
    const size_t out = s.out_elems * coll_dtype_size[dtype];
    CUDA(cudaDeviceSynchronize());
    A_(barrier_all)(); // every PE done with the timed calls
    CUDA(cudaMemset(dst, 0xFF, out));
    CUDA(cudaDeviceSynchronize());
    A_(barrier_all)();
    call();
    CUDA(cudaDeviceSynchronize());
    host.resize(out);
    CUDA(cudaMemcpy(host.data(), dst, out, cudaMemcpyDeviceToHost));
    char why[256] = "";
    const size_t wrong = coll_check(host.data(), op, dtype, s, me, npes, salt, why, sizeof(why));
#ifdef BENCH_NVSHMEM
    // A baseline's wrong answer is its own fault: say so, leave the point
    // out and go on, so that its other points are still measured.
    // PE 0 prints the results, so it learns of any PE's wrong answer
    // through a word of its heap.
    if (wrong != 0) {
        std::fprintf(stderr, "coll (%s): pe %d: WRONG %s %s, %zu bytes: %zu of %zu elements wrong; %s\n", sys_name,
                     me, what, coll_dtype_name[dtype], s.bytes, wrong, s.out_elems, why);
        std::fflush(stderr);
        A_(int_p)(wrong_word, 1, 0);
        A_(quiet)();
    }
    A_(barrier_all)();
    int any = 0;
    if (me == 0) {
        CUDA(cudaMemcpy(&any, wrong_word, sizeof(int), cudaMemcpyDeviceToHost));
        CUDA(cudaMemset(wrong_word, 0, sizeof(int)));
        wrong_points += any;
    }
    A_(barrier_all)();
    return any == 0;
#else
    if (wrong != 0)
        fail("%s %s, %zu bytes: %zu of %zu elements wrong; %s", what, coll_dtype_name[dtype], s.bytes, wrong,
             s.out_elems, why);
    A_(barrier_all)();
    return true;
#endif
}

static void result(const char *op, int dtype, const coll_shape &s, int iters, double us, double factor,
                   const char *extra)
{
    if (me != 0)
        return;
    const double algbw = (double)s.bytes / us * 1e-3;
    std::printf("RESULT bench=coll sys=%s op=%s dtype=%s bytes=%zu pes=%d iters=%d us=%.3f algbw=%.3f "
                "busbw=%.3f%s\n",
                sys_name, op, coll_dtype_name[dtype], s.bytes, npes, iters, us, algbw, algbw * factor, extra);
    std::fflush(stdout);
}

template <typename T>
static void on_stream_point(int op, int dtype, const coll_shape &s, T *dst, const T *src, int iters,
                            cudaStream_t st, bench_gate &gate, std::vector<unsigned char> &host)
{
    auto call = [&] {
        const int rc = issue(op, dst, src, s, st);
        if (rc != 0)
            fail("%s_on_stream %s, %zu bytes: returned %d", coll_op_name[op], coll_dtype_name[dtype], s.bytes, rc);
    };
    bool late = false;
    const double us = bench_stream_median_us(
                          RUNS, st,
                          [&](int r) {
                              CUDA(cudaStreamSynchronize(st));
                              if (r > -1)
                                  late |= gate.timed_out();
                              A_(barrier_all)();
                              gate.close(st, GATE_DEADLINE_MS);
                              call(); // lines the PEs' streams up
                          },
                          [&](int) {
                              for (int i = 0; i < iters; i++)
                                  call();
                          },
                          [&](int) { gate.open(); }) /
                      iters;
    late |= gate.timed_out();
    if (check(coll_op_name[op], op, dtype, s, dst, coll_salt(op, dtype), host, call))
        result(coll_op_name[op], dtype, s, iters, us, coll_bus_factor(op, npes),
               late ? (coll_team != TEAM_WORLD ? " gate=deadline team=split" : " gate=deadline")
                    : (coll_team != TEAM_WORLD ? " team=split" : ""));
}

__global__ void reduce_block_loop(team_t team, float *dst, const float *src, size_t n, int iters)
{
    for (int i = 0; i < iters; i++)
        AX_(float_sum_reduce_block)(team, dst, src, n);
}

static void device_points(float *dst, float *src, size_t max, int iters_opt, int threads,
                          std::vector<unsigned char> &host)
{
    // A library's block reduction may need more registers than a block of
    // `threads` has (NVSHMEM's does at 512): take what the kernel allows,
    // which the RESULT line then names.
    cudaFuncAttributes fa;
    CUDA(cudaFuncGetAttributes(&fa, reduce_block_loop));
    if (threads > fa.maxThreadsPerBlock)
        threads = fa.maxThreadsPerBlock / 32 * 32;
    const unsigned salt = coll_salt(COLL_NOPS, COLL_FLOAT);
    coll_fill<float><<<256, 256>>>(src, max / sizeof(float), COLL_FLOAT, me, salt, npes);
    CUDA(cudaDeviceSynchronize());
    for (size_t bytes : {(size_t)8, (size_t)256, (size_t)4096, (size_t)65536}) {
        if (bytes > max)
            break;
        const coll_shape s = coll_geometry(COLL_ALLREDUCE, bytes, sizeof(float), npes);
        const int iters = iters_opt > 0 ? iters_opt : DEV_ITERS;
        auto launch = [&](int k) {
            team_t team = TEAM_WORLD;
            size_t count = s.block;
            const float *sp = src;
            void *args[] = {&team, &dst, &sp, &count, &k};
            if (AX_(collective_launch)((const void *)reduce_block_loop, 1, threads, args, 0, 0) != 0)
                fail("float_sum_reduce_block, %zu bytes: collective launch of 1 x %d threads failed", bytes,
                     threads);
        };
        const double us = bench_median_us(RUNS, [](int) {}, [&](int) { launch(iters); }) / iters;
        if (!check("float_sum_reduce_block", COLL_ALLREDUCE, COLL_FLOAT, s, dst, salt, host, [&] { launch(1); }))
            continue;
        char extra[64];
        std::snprintf(extra, sizeof(extra), " blocks=1 threads=%d", threads);
        result("allreduce_block", COLL_FLOAT, s, iters, us, coll_bus_factor(COLL_ALLREDUCE, npes), extra);
    }
}

static void host_points(float *dst, float *src, size_t max, int iters_opt, std::vector<unsigned char> &host)
{
    const unsigned salt = coll_salt(COLL_NOPS + 1, COLL_FLOAT);
    coll_fill<float><<<256, 256>>>(src, max / sizeof(float), COLL_FLOAT, me, salt, npes);
    CUDA(cudaDeviceSynchronize());
    for (size_t bytes : {(size_t)8, (size_t)4096, (size_t)65536, (size_t)1 << 20}) {
        if (bytes > max)
            break;
        const coll_shape s = coll_geometry(COLL_ALLREDUCE, bytes, sizeof(float), npes);
        const size_t k = ((size_t)64 << 20) / bytes;
        const int iters = iters_opt > 0 ? iters_opt : k > 100 ? 100 : k < 5 ? 5 : (int)k;
        auto call = [&] {
            const int rc = A_(float_sum_reduce)(TEAM_WORLD, dst, src, s.block);
            if (rc != 0)
                fail("float_sum_reduce (host), %zu bytes: returned %d", bytes, rc);
        };
        std::vector<double> t;
        for (int r = -1; r < RUNS; r++) {
            A_(barrier_all)();
            const double t0 = now_us();
            for (int i = 0; i < iters; i++)
                call();
            const double us = (now_us() - t0) / iters;
            if (r >= 0)
                t.push_back(us);
        }
        check("float_sum_reduce (host)", COLL_ALLREDUCE, COLL_FLOAT, s, dst, salt, host, call);
        result("allreduce_host", COLL_FLOAT, s, iters, median(t), coll_bus_factor(COLL_ALLREDUCE, npes), "");
    }
}

static void team_points()
{
    for (int stride : {1, 2}) {
        const int size = (npes + stride - 1) / stride;
        const bool member = me % stride == 0;
        std::vector<double> split, destroy;
        for (int r = -1; r < RUNS; r++) {
            A_(barrier_all)();
            team_t t = TEAM_INVALID;
            const double t0 = now_us();
            const int rc = A_(team_split_strided)(TEAM_WORLD, 0, stride, size, nullptr, 0, &t);
            const double t1 = now_us();
            if (rc != 0)
                fail("team_split_strided(world, 0, %d, %d): returned %d", stride, size, rc);
            if (member != (t != TEAM_INVALID))
                fail("team_split_strided(world, 0, %d, %d): %s team for a PE %s of it", stride, size,
                     t == TEAM_INVALID ? "no" : "a", member ? "in" : "not in");
            if (member && (A_(team_n_pes)(t) != size || A_(team_my_pe)(t) != me / stride))
                fail("team_split_strided(world, 0, %d, %d): the team says %d PEs, this one %d; want %d, %d", stride,
                     size, A_(team_n_pes)(t), A_(team_my_pe)(t), size, me / stride);
            const double t2 = now_us();
            if (t != TEAM_INVALID)
                A_(team_destroy)(t);
            const double t3 = now_us();
            if (r >= 0) {
                split.push_back(t1 - t0);
                destroy.push_back(t3 - t2);
            }
        }
        if (me == 0) {
            std::printf("RESULT bench=coll sys=%s op=team_split_strided stride=%d size=%d pes=%d us=%.3f\n", sys_name,
                        stride, size, npes, median(split));
            std::printf("RESULT bench=coll sys=%s op=team_destroy stride=%d size=%d pes=%d us=%.3f\n", sys_name,
                        stride, size, npes, median(destroy));
            std::fflush(stdout);
        }
    }
    A_(barrier_all)();
}

int main(int argc, char **argv)
{
    bench_init();
    me = A_(my_pe)();
    npes = A_(n_pes)();
#ifdef BENCH_NVSHMEM
    if (nccl_disabled())
        sys_name = "nvshmem-own";
#endif
    if (npes < 2) {
        std::fprintf(stderr, "coll: run with 2 PEs or more\n");
        A_(global_exit)(2);
    }
    const char *team_opt = bench_opt(argc, argv, "--team", "world");
    if (std::strcmp(team_opt, "world") != 0 && std::strcmp(team_opt, "split") != 0) {
        std::fprintf(stderr, "coll: --team is world or split, not %s\n", team_opt);
        A_(global_exit)(2);
    }
    if (std::strcmp(team_opt, "split") == 0 &&
        A_(team_split_strided)(TEAM_WORLD, 0, 1, npes, nullptr, 0, &coll_team) != 0)
        fail("team_split_strided(world, 0, 1, %d) for --team split failed", npes);
    const size_t max = bench_opt_size(argc, argv, "--max", (size_t)256 << 20);
    const size_t min = bench_opt_size(argc, argv, "--min", 0);
    const int iters_opt = (int)bench_opt_size(argc, argv, "--iters", 0);
    const int threads = (int)bench_opt_size(argc, argv, "--dev-threads", 512);
    if (max < 8 || threads < 1 || threads > 1024) {
        std::fprintf(stderr, "coll: --max must be at least 8, --dev-threads 1 to 1024\n");
        A_(global_exit)(2);
    }
    // Big enough for every point: no point's source or destination is
    // larger than its bytes, which rounding makes at most n floats more.
    const size_t cap = (std::max(max, (size_t)npes * sizeof(float)) + 15) / 16 * 16;
    void *src = A_(malloc)(cap), *dst = A_(malloc)(cap);
    if (src == nullptr || dst == nullptr)
        fail("malloc of 2 x %zu bytes failed (try a smaller --max)", cap);
#ifdef BENCH_NVSHMEM
    wrong_word = (int *)A_(malloc)(sizeof(int));
    if (wrong_word == nullptr)
        fail("malloc of a word failed");
    CUDA(cudaMemset(wrong_word, 0, sizeof(int)));
    CUDA(cudaDeviceSynchronize());
    A_(barrier_all)();
#endif
    if (me == 0) {
        char what[256];
        std::snprintf(what, sizeof(what), "%d PEs; us per call; on stream: calls back to back behind a gate; "
                                          "in a kernel: 1 block of up to %d threads; medians of %d runs",
                      npes, threads, RUNS);
        bench_header(std::strcmp(sys_name, "nvshmem-own") == 0 ? "coll (NVSHMEM_DISABLE_NCCL: its own kernels)"
                                                               : "coll",
                     what);
    }
    cudaStream_t st;
    CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    bench_gate gate;
    std::vector<unsigned char> host;
    for (int op = 0; op < COLL_NOPS; op++) {
        if (!bench_pick(argc, argv, "--ops", coll_op_name[op]))
            continue;
        for (int dtype : {COLL_FLOAT, COLL_BFLOAT16}) {
            if ((dtype == COLL_BFLOAT16 && op != COLL_ALLREDUCE) ||
                !bench_pick(argc, argv, "--dtype", coll_dtype_name[dtype]))
                continue;
            const size_t es = coll_dtype_size[dtype];
            const unsigned salt = coll_salt(op, dtype);
            if (dtype == COLL_FLOAT)
                coll_fill<float><<<256, 256, 0, st>>>((float *)src, cap / es, dtype, me, salt, npes);
            else
                coll_fill<__nv_bfloat16><<<256, 256, 0, st>>>((__nv_bfloat16 *)src, cap / es, dtype, me, salt, npes);
            CUDA(cudaStreamSynchronize(st));
            size_t last = 0;
            for (size_t b = min > es ? min : es; b <= max; b = coll_next_size(b, max)) {
                const coll_shape s = coll_geometry(op, b, es, npes);
                if (s.bytes == last)
                    continue; // rounded to the previous point
                last = s.bytes;
                const int iters = iters_opt > 0 ? iters_opt : coll_iters(s.bytes);
                if (dtype == COLL_FLOAT)
                    on_stream_point(op, dtype, s, (float *)dst, (const float *)src, iters, st, gate, host);
                else
                    on_stream_point(op, dtype, s, (__nv_bfloat16 *)dst, (const __nv_bfloat16 *)src, iters, st,
                                    gate, host);
            }
        }
    }
    if (bench_pick(argc, argv, "--ops", "device"))
        device_points((float *)dst, (float *)src, max, iters_opt, threads, host);
    if (bench_pick(argc, argv, "--ops", "host"))
        host_points((float *)dst, (float *)src, max, iters_opt, host);
    if (bench_pick(argc, argv, "--ops", "team"))
        team_points();
    CUDA(cudaStreamSynchronize(st));
    A_(barrier_all)();
    CUDA(cudaStreamDestroy(st));
    A_(free)(src);
    A_(free)(dst);
#ifdef BENCH_NVSHMEM
    A_(free)(wrong_word);
#endif
    A_(finalize)();
    if (wrong_points != 0 && me == 0)
        std::fprintf(stderr, "coll (%s): %d point(s) left out for wrong answers\n", sys_name, wrong_points);
    return wrong_points != 0 ? 3 : 0;
}
