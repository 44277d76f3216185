// startup_nvshmem: the twin of bench/startup.cu on NVSHMEM's public API:
// nvshmem_init time (after the CUDA context exists), nvshmem_malloc of
// 1 MiB and of 2 GiB past the 1 GiB heap.  Rank and size come from
// GSHMEM_LAUNCH_RANK/SIZE (started by gshmrun, which plays no other part);
// the unique id travels through a file.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "../bench_opts.h"
#include "../uid_file.h"

static double now_ms()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main()
{
    int rank = bench_env_int("GSHMEM_LAUNCH_RANK"), size = bench_env_int("GSHMEM_LAUNCH_SIZE");
    char file[256];
    bench_job_file(file, sizeof(file), "nvshmem-uid");
    int ngpu = 0;
    cudaGetDeviceCount(&ngpu);
    cudaSetDevice(rank % ngpu);
    cudaFree(nullptr);

    nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0)
        nvshmemx_get_uniqueid(&uid);
    if (twin_uid_exchange(rank, file, &uid, sizeof(uid)) != 0)
        return 2;
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, size, &uid, &attr);
    double t0 = now_ms();
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    double t_init = now_ms() - t0;
    t0 = now_ms();
    void *small = nvshmem_malloc(1 << 20);
    double t_small = now_ms() - t0;
    t0 = now_ms();
    void *big = nvshmem_malloc((size_t)2 << 30);
    double t_grow = now_ms() - t0;
    if (rank == 0)
        unlink(file);
    // The slowest PE: each prints; bench/run takes the maximum.
    std::printf("RESULT bench=startup sys=nvshmem op=init pes=%d rank=%d ms=%.2f\n", size, rank, t_init);
    std::printf("RESULT bench=startup sys=nvshmem op=malloc_1MiB rank=%d ms=%.3f\n", rank, t_small);
    std::printf("RESULT bench=startup sys=nvshmem op=malloc_grow_2GiB rank=%d ms=%.3f ok=%d\n", rank, t_grow, big != nullptr);
    nvshmem_free(big);
    nvshmem_free(small);
    nvshmem_finalize();
    return 0;
}
