// Checks of the GPU tests: a failed one names the PE (the test's `me`) and
// the line, and ends the whole job.
#ifndef GSHMEM_TESTS_GPU_CHECK_H
#define GSHMEM_TESTS_GPU_CHECK_H

#include <cstdio>

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

#endif
