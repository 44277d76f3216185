/*
 * host_putget: host-initiated putmem/getmem between two PEs of one machine
 * (host heap), 1 B to 64 MiB, next to a plain memcpy between two private
 * buffers of the same process, measured in the same run.
 *
 *   gshmrun -n 2 ./bench/host_putget [max_bytes]
 *
 * PE 0 issues the operations, PE 1 is the target.  Each point: warm-up, then
 * 7 timed runs of `iters` operations; the median run gives the time per
 * operation.  Bandwidth is the bytes one side moved divided by that time.
 * The data of every size is checked once (a wrong byte fails the run).
 * One machine-readable line per point: "RESULT op=... bytes=... us=... GBps=...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "bench_util.h"

#define RUNS 7

static void pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131u + seed * 17u + (i >> 9));
}

enum op { OP_PUT, OP_GET, OP_MEMCPY };
static const char *const op_names[] = {"put", "get", "memcpy"};

/* Median seconds per operation of `op` at `size` bytes. */
static double measure(enum op op, unsigned char *sym, unsigned char *local, unsigned char *other,
                      size_t size, long iters)
{
    double t[RUNS];
    for (int r = -1; r < RUNS; r++) { /* r = -1: warm-up */
        double t0 = bench_now_s();
        for (long i = 0; i < iters; i++) {
            switch (op) {
            case OP_PUT: gshmem_putmem(sym, local, size, 1); break;
            case OP_GET: gshmem_getmem(local, sym, size, 1); break;
            case OP_MEMCPY: memcpy(other, local, size); break;
            }
        }
        if (op == OP_PUT)
            gshmem_quiet();
        if (r >= 0)
            t[r] = (bench_now_s() - t0) / (double)iters;
        __asm__ __volatile__("" ::: "memory"); /* keep the memcpy loop */
    }
    return bench_median(t, RUNS);
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)64 << 20;
    gshmem_init();
    int me = gshmem_my_pe();
    if (gshmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "host_putget: run with 2 PEs (gshmrun -n 2)\n");
        gshmem_global_exit(2);
    }
    unsigned char *sym = gshmem_malloc(max);
    /* Page-aligned private buffers: with malloc's 16-byte offset, a get's
     * source and destination alias at 4 KiB and glibc's copy slows ~20x
     * from 4 KiB to 256 KiB (measured here; see the closing note). */
    unsigned char *local = aligned_alloc(4096, max), *other = aligned_alloc(4096, max);
    unsigned char *expect = malloc(max);
    int *bad = gshmem_calloc(1, sizeof(int));
    memset(local, 1, max);
    memset(other, 2, max);
    memset(sym, 3, max);
    if (me == 0) {
        char name[GSHMEM_MAX_NAME_LEN];
        gshmem_info_get_name(name);
        printf("# %s host_putget: PE 0 -> PE 1 on one machine, host heap; median of %d runs\n",
               name, RUNS);
        printf("# bandwidth = bytes moved by one side / time per operation (GB/s = 1e9 B/s)\n");
        printf("%10s %12s %10s %12s %10s %12s %10s\n", "bytes", "put us", "put GB/s", "get us",
               "get GB/s", "memcpy us", "memcpy GB/s");
    }
    gshmem_barrier_all();
    unsigned seed = 1;
    for (size_t size = 1; size <= max; size *= 2, seed++) {
        /* Check the data once per size: a put, then PE 1 verifies. */
        if (me == 0) {
            pattern(local, size, seed);
            gshmem_putmem(sym, local, size, 1);
        }
        gshmem_barrier_all();
        if (me == 1) {
            pattern(expect, size, seed);
            if (memcmp(sym, expect, size) != 0)
                gshmem_int_p(bad, 1, 0);
            pattern(sym, size, seed + 1000); /* what PE 0 will get */
        }
        gshmem_barrier_all();
        if (me == 0) {
            gshmem_getmem(local, sym, size, 1);
            pattern(expect, size, seed + 1000);
            if (*bad || memcmp(local, expect, size) != 0) {
                fprintf(stderr, "host_putget: wrong data at %zu bytes\n", size);
                gshmem_global_exit(1);
            }
            long iters = (long)((size_t)256 << 20) / (long)size;
            iters = iters < 20 ? 20 : iters > 200000 ? 200000 : iters;
            double put = measure(OP_PUT, sym, local, other, size, iters);
            double get = measure(OP_GET, sym, local, other, size, iters);
            double cpy = measure(OP_MEMCPY, sym, local, other, size, iters);
            printf("%10zu %12.3f %10.2f %12.3f %10.2f %12.3f %10.2f\n", size, put * 1e6,
                   (double)size / put * 1e-9, get * 1e6, (double)size / get * 1e-9, cpy * 1e6,
                   (double)size / cpy * 1e-9);
            for (int op = 0; op < 3; op++) {
                double t = op == 0 ? put : op == 1 ? get : cpy;
                printf("RESULT op=%s bytes=%zu us=%.4f GBps=%.4f\n", op_names[op], size, t * 1e6,
                       (double)size / t * 1e-9);
            }
            fflush(stdout);
        }
        gshmem_barrier_all();
    }
    free(expect);
    free(other);
    free(local);
    gshmem_free(bad);
    gshmem_free(sym);
    gshmem_finalize();
    return 0;
}
