// nccl_coll: NCCL's collectives, the baseline of bench/coll.cu: the same
// operations, sizes, inputs, timing, check and RESULT lines (sys=nccl), at
// any number of ranks from 2.
//
//   gshmrun -n 2 ./bench/nccl_coll [--ops allreduce,allgather,reducescatter,broadcast,alltoall]
//       [--dtype float,bfloat16] [--min BYTES] [--max 268435456] [--iters N]
//
// ncclAllReduce (sum; float, and bfloat16), ncclAllGather, ncclReduceScatter
// (sum), ncclBroadcast (root 0), and alltoall as one group of ncclSend and
// ncclRecv to and from every rank (itself too), each on cudaMalloc'd
// buffers.  gshmrun only starts the processes (rank and size from
// GSHMEM_LAUNCH_*); rank 0 hands NCCL's unique id to the others through a
// file.  libnccl.so.2 is opened at run time (only nccl.h is needed to
// build), from the library path.
//
// `bytes`, algbw and busbw follow nccl-tests (bench/coll_common.cuh):
// allreduce and broadcast the buffer size, allgather the output size,
// reducescatter the input size, alltoall the buffer size; busbw = algbw x
// 2(n-1)/n (allreduce), (n-1)/n (allgather, reducescatter, alltoall), 1
// (broadcast).  Per point: `iters` calls back to back on one stream behind
// a gate (bench_gate, opened by the host once all are enqueued, or by
// itself after 5 s: gate=deadline), after one call that lines the ranks up;
// us = time / iters, median of 7 runs after a warm-up (CUDA events).  Then,
// untimed: the destination poisoned, a one-element all-reduce as a barrier,
// one call, and every element compared with the host's reference; a wrong
// element ends the run naming the rank.  Rank 0 prints one RESULT line per
// point.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>

static void die(int code) { std::exit(code); }
#define BENCH_GLOBAL_EXIT die
#define BENCH_BARRIER_ALL() die(3)
#include "../bench_cuda.cuh"
#include "../bench_opts.h"
#include "../coll_common.cuh"
#include "../uid_file.h"

#define RUNS 7
#define GATE_DEADLINE_MS 5000

static struct {
    decltype(&ncclGetUniqueId) get_unique_id;
    decltype(&ncclCommInitRank) comm_init_rank;
    decltype(&ncclCommDestroy) comm_destroy;
    decltype(&ncclAllReduce) all_reduce;
    decltype(&ncclAllGather) all_gather;
    decltype(&ncclReduceScatter) reduce_scatter;
    decltype(&ncclBroadcast) broadcast;
    decltype(&ncclSend) send;
    decltype(&ncclRecv) recv;
    decltype(&ncclGroupStart) group_start;
    decltype(&ncclGroupEnd) group_end;
    decltype(&ncclGetErrorString) error_string;
    decltype(&ncclGetVersion) get_version;
} nccl;

static int rank, nranks;

#define NCCL(x)                                                                            \
    do {                                                                                   \
        ncclResult_t r_ = (x);                                                             \
        if (r_ != ncclSuccess) {                                                           \
            std::fprintf(stderr, "rank %d: %s: %s\n", rank, #x, nccl.error_string(r_));    \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

// ncclBfloat16 is 9; older nccl.h names it only where CUDA's bf16 type
// exists, so the number is used.
static const ncclDataType_t nccl_type[] = {ncclFloat32, (ncclDataType_t)9};

static void load_nccl()
{
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (h == nullptr) {
        std::fprintf(stderr, "nccl_coll: %s (put NCCL's lib folder on LD_LIBRARY_PATH)\n", dlerror());
        std::exit(2);
    }
    void **slot = (void **)&nccl;
    const char *names[] = {"ncclGetUniqueId", "ncclCommInitRank", "ncclCommDestroy", "ncclAllReduce",
                           "ncclAllGather",   "ncclReduceScatter", "ncclBroadcast",  "ncclSend",
                           "ncclRecv",        "ncclGroupStart",   "ncclGroupEnd",    "ncclGetErrorString",
                           "ncclGetVersion"};
    static_assert(sizeof(names) / sizeof(names[0]) == sizeof(nccl) / sizeof(void *), "one name a slot");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if ((slot[i] = dlsym(h, names[i])) == nullptr) {
            std::fprintf(stderr, "nccl_coll: libnccl.so.2 has no %s\n", names[i]);
            std::exit(2);
        }
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "nccl_coll: rank %d: %s\n", rank, msg);
    std::exit(1);
}

// One call of `op` on stream s.
static void issue(int op, int dtype, char *dst, const char *src, const coll_shape &sh, ncclComm_t comm,
                  cudaStream_t s)
{
    const ncclDataType_t t = nccl_type[dtype];
    switch (op) {
    case COLL_ALLREDUCE:
        NCCL(nccl.all_reduce(src, dst, sh.block, t, ncclSum, comm, s));
        break;
    case COLL_ALLGATHER:
        NCCL(nccl.all_gather(src, dst, sh.block, t, comm, s));
        break;
    case COLL_REDUCESCATTER:
        NCCL(nccl.reduce_scatter(src, dst, sh.block, t, ncclSum, comm, s));
        break;
    case COLL_BROADCAST:
        NCCL(nccl.broadcast(src, dst, sh.block, t, COLL_ROOT, comm, s));
        break;
    default: {
        const size_t blk = sh.block * coll_dtype_size[dtype];
        NCCL(nccl.group_start());
        for (int p = 0; p < nranks; p++) {
            NCCL(nccl.send(src + p * blk, sh.block, t, p, comm, s));
            NCCL(nccl.recv(dst + p * blk, sh.block, t, p, comm, s));
        }
        NCCL(nccl.group_end());
    }
    }
}

int main(int argc, char **argv)
{
    load_nccl();
    rank = bench_env_int("GSHMEM_LAUNCH_RANK");
    nranks = bench_env_int("GSHMEM_LAUNCH_SIZE");
    if (nranks < 2) {
        std::fprintf(stderr, "nccl_coll: run with 2 ranks or more\n");
        return 2;
    }
    const size_t max = bench_opt_size(argc, argv, "--max", (size_t)256 << 20);
    const size_t min = bench_opt_size(argc, argv, "--min", 0);
    const int iters_opt = (int)bench_opt_size(argc, argv, "--iters", 0);
    if (max < 8) {
        std::fprintf(stderr, "nccl_coll: --max must be at least 8\n");
        return 2;
    }
    int ngpu = 0;
    CUDA(cudaGetDeviceCount(&ngpu));
    CUDA(cudaSetDevice(rank % (ngpu > 0 ? ngpu : 1)));
    char file[256];
    bench_job_file(file, sizeof(file), "nccl-coll-uid");
    ncclUniqueId id;
    if (rank == 0)
        NCCL(nccl.get_unique_id(&id));
    if (twin_uid_exchange(rank, file, &id, sizeof(id)) != 0) {
        std::fprintf(stderr, "rank %d: no NCCL unique id through %s\n", rank, file);
        return 2;
    }
    ncclComm_t comm;
    NCCL(nccl.comm_init_rank(&comm, nranks, id, rank));
    // every rank has read the file once the communicator exists
    if (rank == 0)
        unlink(file);
    // as coll.cu: no point's buffers exceed its bytes, rounded up to n floats at most
    const size_t cap = (std::max(max, (size_t)nranks * sizeof(float)) + 15) / 16 * 16;
    char *src, *dst;
    float *one;
    CUDA(cudaMalloc(&src, cap));
    CUDA(cudaMalloc(&dst, cap));
    CUDA(cudaMalloc(&one, sizeof(float)));
    CUDA(cudaMemset(one, 0, sizeof(float)));
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (rank == 0) {
        cudaDeviceProp prop;
        int dev, version = 0;
        CUDA(cudaGetDevice(&dev));
        CUDA(cudaGetDeviceProperties(&prop, dev));
        NCCL(nccl.get_version(&version));
        std::printf("# nccl nccl_coll: %s, NCCL %d.%d.%d, %d ranks; us per call, back to back behind a gate; "
                    "medians of %d runs\n",
                    prop.name, version / 10000, version / 100 % 100, version % 100, nranks, RUNS);
        std::fflush(stdout);
    }
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
                coll_fill<float><<<256, 256, 0, s>>>((float *)src, cap / es, dtype, rank, salt, nranks);
            else
                coll_fill<__nv_bfloat16><<<256, 256, 0, s>>>((__nv_bfloat16 *)src, cap / es, dtype, rank, salt,
                                                             nranks);
            CUDA(cudaStreamSynchronize(s));
            size_t last = 0;
            for (size_t b = min > es ? min : es; b <= max; b = coll_next_size(b, max)) {
                const coll_shape sh = coll_geometry(op, b, es, nranks);
                if (sh.bytes == last)
                    continue; // rounded to the previous point
                last = sh.bytes;
                const int iters = iters_opt > 0 ? iters_opt : coll_iters(sh.bytes);
                bool late = false;
                const double us = bench_stream_median_us(
                                      RUNS, s,
                                      [&](int r) {
                                          CUDA(cudaStreamSynchronize(s));
                                          if (r > -1)
                                              late |= gate.timed_out();
                                          gate.close(s, GATE_DEADLINE_MS);
                                          issue(op, dtype, dst, src, sh, comm, s); // lines the ranks up
                                      },
                                      [&](int) {
                                          for (int i = 0; i < iters; i++)
                                              issue(op, dtype, dst, src, sh, comm, s);
                                      },
                                      [&](int) { gate.open(); }) /
                                  iters;
                late |= gate.timed_out();
                // the check: nobody writes a destination before its rank
                // has poisoned it and joined the barrier
                const size_t out = sh.out_elems * es;
                CUDA(cudaMemsetAsync(dst, 0xFF, out, s));
                NCCL(nccl.all_reduce(one, one, 1, ncclFloat32, ncclSum, comm, s));
                issue(op, dtype, dst, src, sh, comm, s);
                CUDA(cudaStreamSynchronize(s));
                host.resize(out);
                CUDA(cudaMemcpy(host.data(), dst, out, cudaMemcpyDeviceToHost));
                char why[256] = "";
                const size_t wrong = coll_check(host.data(), op, dtype, sh, rank, nranks, salt, why, sizeof(why));
                if (wrong != 0)
                    fail("%s %s, %zu bytes: %zu of %zu elements wrong; %s", coll_op_name[op],
                         coll_dtype_name[dtype], sh.bytes, wrong, sh.out_elems, why);
                if (rank == 0) {
                    const double algbw = (double)sh.bytes / us * 1e-3;
                    std::printf("RESULT bench=coll sys=nccl op=%s dtype=%s bytes=%zu pes=%d iters=%d us=%.3f "
                                "algbw=%.3f busbw=%.3f%s\n",
                                coll_op_name[op], coll_dtype_name[dtype], sh.bytes, nranks, iters, us, algbw,
                                algbw * coll_bus_factor(op, nranks), late ? " gate=deadline" : "");
                    std::fflush(stdout);
                }
            }
        }
    }
    CUDA(cudaStreamSynchronize(s));
    nccl.comm_destroy(comm);
    return 0;
}
