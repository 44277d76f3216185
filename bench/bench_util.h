/* Helpers the host benchmarks share: a monotonic clock and the median of
 * repeated runs. */
#ifndef GSHMEM_BENCH_UTIL_H
#define GSHMEM_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of the n values (sorts them in place). */
static inline double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), bench_cmp_double);
    return v[n / 2];
}

#endif
