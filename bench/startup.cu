// startup: gshmem_init time (after the CUDA context exists) and the time of
// gshmem_malloc with and without heap growth, on the GPU heap.
//
//   gshmrun -n 2 ./bench/startup
//
// Init: each PE times its gshmem_init; the slowest PE's time is reported.
// Malloc: a 1 MiB allocation (no growth), then one that grows the heap by
// 2 GiB past GSHMEM_SYMMETRIC_SIZE (1 GiB by default): the slowest PE's time.
// Each is one cold measurement of a collective call; the run repeats the
// whole program to get several (see bench/run).
#include <chrono>
#include <cstdio>

#include <cuda_runtime.h>
#include <gshmem.h>

static double now_ms()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main()
{
    // The CUDA context first, as an application would have it.
    const char *lr = getenv("GSHMEM_LAUNCH_RANK");
    int ngpu = 0;
    cudaGetDeviceCount(&ngpu);
    cudaSetDevice(lr != nullptr && ngpu > 0 ? atoi(lr) % ngpu : 0);
    cudaFree(nullptr);

    double t0 = now_ms();
    gshmem_init();
    double t_init = now_ms() - t0;
    double *times = (double *)gshmem_malloc(3 * sizeof(double) * 64);

    t0 = now_ms();
    void *small = gshmem_malloc(1 << 20);
    double t_small = now_ms() - t0;
    t0 = now_ms();
    void *big = gshmem_malloc((size_t)2 << 30);
    double t_grow = now_ms() - t0;

    double mine[3] = {t_init, t_small, t_grow};
    gshmem_putmem(times + 3 * gshmem_my_pe(), mine, sizeof(mine), 0);
    gshmem_barrier_all();
    if (gshmem_my_pe() == 0) {
        double all[3 * 64], worst[3] = {0, 0, 0};
        gshmem_getmem(all, times, sizeof(double) * 3 * gshmem_n_pes(), 0);
        for (int pe = 0; pe < gshmem_n_pes(); pe++)
            for (int k = 0; k < 3; k++)
                worst[k] = all[3 * pe + k] > worst[k] ? all[3 * pe + k] : worst[k];
        std::printf("RESULT bench=startup sys=gshmem op=init pes=%d ms=%.2f\n", gshmem_n_pes(), worst[0]);
        std::printf("RESULT bench=startup sys=gshmem op=malloc_1MiB ms=%.3f\n", worst[1]);
        std::printf("RESULT bench=startup sys=gshmem op=malloc_grow_2GiB ms=%.3f ok=%d\n", worst[2], big != nullptr);
    }
    gshmem_free(big);
    gshmem_free(small);
    gshmem_free(times);
    gshmem_finalize();
    return big != nullptr ? 0 : 1;
}
