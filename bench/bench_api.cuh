// One source, two libraries: the device benchmarks are written once against
// the names below and built twice, for gshmem and (with BENCH_NVSHMEM
// defined, bench/nvshmem/) for NVSHMEM, so both run exactly the same
// kernels and timing.  A_(x) is the OpenSHMEM name (gshmem_x / nvshmem_x),
// AX_(x) the extension (gshmemx_x / nvshmemx_x).  Both are started by
// gshmrun; the NVSHMEM build takes only its rank and size from it and
// hands NVSHMEM's unique id to the other ranks through a file.
#ifndef GSHMEM_BENCH_API_CUH
#define GSHMEM_BENCH_API_CUH

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#ifdef BENCH_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>
#include "uid_file.h"
#define SYS "nvshmem"
#define A_(n) nvshmem_##n
#define AX_(n) nvshmemx_##n
#define CMP_EQ NVSHMEM_CMP_EQ
#define SIG_SET NVSHMEM_SIGNAL_SET
#define SIG_ADD NVSHMEM_SIGNAL_ADD
#else
#include <gshmem_device.cuh>
#define SYS "gshmem"
#define A_(n) gshmem_##n
#define AX_(n) gshmemx_##n
#define CMP_EQ GSHMEM_CMP_EQ
#define SIG_SET GSHMEM_SIGNAL_SET
#define SIG_ADD GSHMEM_SIGNAL_ADD
#endif

#define BENCH_GLOBAL_EXIT A_(global_exit)
#define BENCH_BARRIER_ALL A_(barrier_all)
#include "bench_cuda.cuh"
#include "bench_opts.h"

#ifdef BENCH_NVSHMEM
static void bench_init()
{
    int rank = bench_env_int("GSHMEM_LAUNCH_RANK"), size = bench_env_int("GSHMEM_LAUNCH_SIZE");
    int ngpu = 0;
    cudaGetDeviceCount(&ngpu);
    cudaSetDevice(rank % (ngpu > 0 ? ngpu : 1));
    char file[256];
    bench_job_file(file, sizeof(file), "nvshmem-uid");
    nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0)
        nvshmemx_get_uniqueid(&uid);
    if (twin_uid_exchange(rank, file, &uid, sizeof(uid)) != 0) {
        std::fprintf(stderr, "rank %d: no NVSHMEM unique id through %s\n", rank, file);
        std::exit(2);
    }
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, size, &uid, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    nvshmem_barrier_all();
    if (rank == 0)
        unlink(file);
}
#else
static void bench_init() { gshmem_init(); }
#endif

// Starts the library for a benchmark of two PEs; returns this PE.
static inline int bench_start(const char *prog)
{
    bench_init();
    if (A_(n_pes)() != 2) {
        std::fprintf(stderr, "%s: run with 2 PEs\n", prog);
        A_(global_exit)(2);
    }
    return A_(my_pe)();
}

// The device's name and the driver's version, for each program's header.
static inline void bench_header(const char *prog, const char *what)
{
    int dev, drv = 0;
    cudaDeviceProp prop;
    CUDA(cudaGetDevice(&dev));
    CUDA(cudaGetDeviceProperties(&prop, dev));
    CUDA(cudaDriverGetVersion(&drv));
    const char *loading = std::getenv("CUDA_MODULE_LOADING");
    std::printf("# %s %s: %s, CUDA driver %d.%d, CUDA_MODULE_LOADING=%s\n# %s\n", SYS, prog, prop.name,
                drv / 1000, drv % 1000 / 10, loading != nullptr ? loading : "(unset: LAZY)", what);
    std::fflush(stdout);
}

#endif
