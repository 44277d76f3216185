// Checks of the GPU tests: a failed one names the PE (the test's `me`) and
// the line, and ends the whole job; and the tests' start.
#ifndef GSHMEM_TESTS_GPU_CHECK_H
#define GSHMEM_TESTS_GPU_CHECK_H

#include <cstdio>

#include <cuda_runtime.h>
#include <gshmem.h>

#define CHECK(cond, ...)                                                                \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            std::fprintf(stderr, "FAIL pe %d line %d: %s: ", me, __LINE__, #cond);      \
            std::fprintf(stderr, __VA_ARGS__);                                          \
            std::fprintf(stderr, "\n");                                                 \
            gshmem_global_exit(1);                                                      \
        }                                                                               \
    } while (0)
#define CUDA(x) CHECK((x) == cudaSuccess, "%s", #x)

/* The GPUs the test sees; without one it is skipped:
 * `const int ngpu = gpu_count(); if (ngpu == 0) return 77;`. */
static inline int gpu_count()
{
    int ngpu = 0;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu == 0) {
        std::printf("no GPU: skipped\n");
        return 0;
    }
    return ngpu;
}

/* A driver entry point, without linking libcuda (the build needs no
 * driver): `auto load = DRIVER(cuModuleLoad);` (NULL where missing). */
template <typename F> static F driver_fn(const char *name)
{
    void *p = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        return nullptr;
    return reinterpret_cast<F>(p);
}
#define DRIVER(fn) driver_fn<decltype(&fn)>(#fn)

/* gshmem_init, then this PE, the PE count, and the next and previous PEs
 * around the ring. */
static inline void init_ring(int *me, int *npes, int *next, int *prev)
{
    gshmem_init();
    *me = gshmem_my_pe();
    *npes = gshmem_n_pes();
    *next = (*me + 1) % *npes;
    *prev = (*me + *npes - 1) % *npes;
}

#endif
