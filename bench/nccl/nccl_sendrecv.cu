// nccl_sendrecv: NCCL's send/recv between rank 0 and rank 1 (two GPUs), the
// baseline for put bandwidth, 8 B to 256 MiB, one way and both ways.
//
//   gshmrun -n 2 ./bench/nccl_sendrecv [--max 268435456]
//
// gshmrun only starts the processes (rank and size from GSHMEM_LAUNCH_*);
// rank 0 hands NCCL's unique id to rank 1 through a file.  libnccl.so.2 is
// opened at run time (only nccl.h is needed to build), from the library
// path.  Per size: one untimed exchange lines the two ranks up, then `reps`
// exchanges (256 MiB in all, 1 to 1000) between two events on one stream;
// GB/s = bytes rank 0 sent (bytes x reps) / time (1e9 B/s; in dir=bi each
// direction moves that much), median of 7 runs after a warm-up.  The
// receiver checks every size's data.  One RESULT line per point.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nccl.h>

static void die(int code) { std::exit(code); }
#define BENCH_GLOBAL_EXIT die
#define BENCH_BARRIER_ALL() die(3)
#include "../bench_cuda.cuh"
#include "../bench_opts.h"
#include "../uid_file.h"

#define RUNS 7

static struct {
    decltype(&ncclGetUniqueId) get_unique_id;
    decltype(&ncclCommInitRank) comm_init_rank;
    decltype(&ncclCommDestroy) comm_destroy;
    decltype(&ncclSend) send;
    decltype(&ncclRecv) recv;
    decltype(&ncclGroupStart) group_start;
    decltype(&ncclGroupEnd) group_end;
    decltype(&ncclGetErrorString) error_string;
} nccl;

static int rank;

#define NCCL(x)                                                                            \
    do {                                                                                   \
        ncclResult_t r_ = (x);                                                             \
        if (r_ != ncclSuccess) {                                                           \
            std::fprintf(stderr, "rank %d: %s: %s\n", rank, #x, nccl.error_string(r_));    \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

static void load_nccl()
{
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (h == nullptr) {
        std::fprintf(stderr, "nccl_sendrecv: %s (put NCCL's lib folder on LD_LIBRARY_PATH)\n", dlerror());
        std::exit(2);
    }
    void **slot = (void **)&nccl;
    const char *names[] = {"ncclGetUniqueId", "ncclCommInitRank", "ncclCommDestroy", "ncclSend",
                           "ncclRecv",        "ncclGroupStart",   "ncclGroupEnd",    "ncclGetErrorString"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if ((slot[i] = dlsym(h, names[i])) == nullptr) {
            std::fprintf(stderr, "nccl_sendrecv: libnccl.so.2 has no %s\n", names[i]);
            std::exit(2);
        }
}

int main(int argc, char **argv)
{
    load_nccl();
    rank = bench_env_int("GSHMEM_LAUNCH_RANK");
    const int size = bench_env_int("GSHMEM_LAUNCH_SIZE");
    if (size != 2) {
        std::fprintf(stderr, "nccl_sendrecv: run with 2 ranks\n");
        return 2;
    }
    const int peer = 1 - rank;
    const size_t max = bench_opt_size(argc, argv, "--max", (size_t)256 << 20);
    int ngpu = 0;
    CUDA(cudaGetDeviceCount(&ngpu));
    CUDA(cudaSetDevice(rank % (ngpu > 0 ? ngpu : 1)));
    char file[256];
    bench_job_file(file, sizeof(file), "nccl-uid");
    ncclUniqueId id;
    if (rank == 0)
        NCCL(nccl.get_unique_id(&id));
    if (twin_uid_exchange(rank, file, &id, sizeof(id)) != 0) {
        std::fprintf(stderr, "rank %d: no NCCL unique id through %s\n", rank, file);
        return 2;
    }
    ncclComm_t comm;
    NCCL(nccl.comm_init_rank(&comm, 2, id, rank));
    if (rank == 0)
        unlink(file);
    char *src, *dst;
    int *bad;
    CUDA(cudaMalloc(&src, max));
    CUDA(cudaMalloc(&dst, max));
    CUDA(cudaMalloc(&bad, sizeof(int)));
    fill<<<256, 256>>>((unsigned *)src, max / 4, 41u + rank);
    CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (rank == 0) {
        cudaDeviceProp prop;
        int dev;
        CUDA(cudaGetDevice(&dev));
        CUDA(cudaGetDeviceProperties(&prop, dev));
        std::printf("# nccl nccl_sendrecv: %s; GBps = bytes rank 0 sent / time (1e9 B/s); medians of %d runs\n",
                    prop.name, RUNS);
    }
    for (int bi = 0; bi < 2; bi++) {
        for (size_t n = 8; n <= max; n = n * 2 > max && n < max ? max : n * 2) {
            const int reps = (int)std::min<size_t>(1000, std::max<size_t>(1, ((size_t)256 << 20) / n));
            auto exchange = [&] {
                NCCL(nccl.group_start());
                if (rank == 0 || bi)
                    NCCL(nccl.send(src, n, ncclChar, peer, comm, s));
                if (rank == 1 || bi)
                    NCCL(nccl.recv(dst, n, ncclChar, peer, comm, s));
                NCCL(nccl.group_end());
            };
            CUDA(cudaMemsetAsync(dst, 0xEE, n, s));
            const double us = bench_stream_median_us(RUNS, s, [&](int) { exchange(); /* lines the ranks up */ },
                                                     [&](int) {
                                                         for (int i = 0; i < reps; i++)
                                                             exchange();
                                                     },
                                                     [](int) {});
            if (rank == 1 || bi) {
                const int h = bench_wrong_words((const unsigned *)dst, n, 41u + peer, bad, s);
                if (h != 0) {
                    std::fprintf(stderr, "nccl_sendrecv: rank %d: %zu bytes: %d wrong words\n", rank, n, h);
                    return 1;
                }
            }
            if (rank == 0) {
                std::printf("RESULT bench=nccl sys=nccl op=sendrecv dir=%s bytes=%zu reps=%d us=%.2f GBps=%.3f\n",
                            bi ? "bi" : "uni", n, reps, us, (double)n * reps / us * 1e-3);
                std::fflush(stdout);
            }
        }
    }
    CUDA(cudaStreamSynchronize(s));
    nccl.comm_destroy(comm);
    return 0;
}
