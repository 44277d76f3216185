/*
 * host_scale: what gshmem costs as the PE count grows, on the host heap:
 * gshmem_init, then each synchronisation and each collective on a small
 * payload (8 bytes a PE), on the world and on a strided half of it; and
 * the runtime's own bootstrap barrier and all-gather (8 bytes a PE), which
 * init, allocation and finalize call (team "runtime").
 *
 *   gshmrun -n N ./bench/host_scale          (GSHMEM_HEAP=host)
 *
 * init: from just before gshmem_init to just after, the slowest PE's (the
 * launch itself, before main, is not in it).  Each operation: checked once
 * (dest poisoned, every element compared with values computed from every
 * PE's inputs), then timed: batches of calls, doubled until a batch takes
 * BATCH_S on the slowest PE, three such batches, the median's time a call.
 * A wrong value ends the run with exit 1, naming the PE, the operation and
 * the element.  One line a point:
 * "RESULT bench=host_scale op=... team=world|half|runtime pes=N us=...".
 * bench/scale runs it at 2 to 64 PEs and prints the table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "bench_util.h"
#include "bootstrap/bootstrap.h"
#include "core/runtime.h"

#define BATCH_S 0.05
#define RUNS 3
#define POISON 0x5a

enum op {
    OP_BARRIER_ALL,
    OP_BARRIER,
    OP_SYNC,
    OP_BROADCAST,
    OP_FCOLLECT,
    OP_COLLECT,
    OP_ALLTOALL,
    OP_ALLTOALLS,
    OP_REDUCE,
    OP_REDUCESCATTER,
    OP_INSCAN,
    OP_EXSCAN,
    OP_BS_BARRIER, /* the bootstrap's, on every PE: from here on, the world only */
    OP_BS_ALLGATHER,
    N_OPS
};

static const char *const op_names[N_OPS] = {
    "barrier_all", "barrier",        "team_sync",         "broadcastmem",
    "fcollectmem", "collectmem",     "alltoallmem",       "alltoallsmem",
    "long_sum_reduce", "long_sum_reducescatter", "long_sum_inscan", "long_sum_exscan",
    "bootstrap_barrier", "bootstrap_allgather"};

static int me, npes;
static int64_t *src, *dst;     /* symmetric, 2 * npes elements each */
static double *t_mine, *t_max; /* symmetric scratch for the slowest PE's time */

/* PE pe's i-th input element. */
static int64_t in(int pe, int i) { return (int64_t)pe * 1000003 + i * 7 + 1; }

static int call(enum op op, gshmem_team_t t)
{
    switch (op) {
    case OP_BARRIER_ALL:
        gshmem_barrier_all();
        return 0;
    case OP_BARRIER:
        return gshmem_barrier(t);
    case OP_SYNC:
        return gshmem_team_sync(t);
    case OP_BROADCAST:
        return gshmem_broadcastmem(t, dst, src, sizeof(int64_t), 0);
    case OP_FCOLLECT:
        return gshmem_fcollectmem(t, dst, src, sizeof(int64_t));
    case OP_COLLECT:
        return gshmem_collectmem(t, dst, src, sizeof(int64_t));
    case OP_ALLTOALL:
        return gshmem_alltoallmem(t, dst, src, sizeof(int64_t));
    case OP_ALLTOALLS:
        return gshmem_alltoallsmem(t, dst, src, 1, 1, sizeof(int64_t));
    case OP_REDUCE:
        return gshmem_long_sum_reduce(t, (long *)dst, (const long *)src, 1);
    case OP_REDUCESCATTER:
        return gshmem_long_sum_reducescatter(t, (long *)dst, (const long *)src, 1);
    case OP_INSCAN:
        return gshmem_long_sum_inscan(t, (long *)dst, (const long *)src, 1);
    case OP_EXSCAN:
        return gshmem_long_sum_exscan(t, (long *)dst, (const long *)src, 1);
    case OP_BS_BARRIER:
        return gshmemi_rt.bs->ops->barrier(gshmemi_rt.bs);
    case OP_BS_ALLGATHER:
        return gshmemi_rt.bs->ops->allgather(gshmemi_rt.bs, src, dst, sizeof(int64_t));
    default:
        return -1;
    }
}

/* The element dest[i] must hold after one call of op on team t (member
 * `my` of n, world PE of member k: pe_of[k]); -1: nothing to check there. */
static int64_t expected(enum op op, int my, int n, const int *pe_of, int i)
{
    int64_t s = 0;
    switch (op) {
    case OP_BROADCAST:
        return i == 0 ? in(pe_of[0], 0) : -1;
    case OP_FCOLLECT:
    case OP_COLLECT:
    case OP_BS_ALLGATHER:
        return i < n ? in(pe_of[i], 0) : -1;
    case OP_ALLTOALL:
    case OP_ALLTOALLS:
        return i < n ? in(pe_of[i], my) : -1;
    case OP_REDUCE:
        for (int k = 0; k < n; k++)
            s += in(pe_of[k], 0);
        return i == 0 ? s : -1;
    case OP_REDUCESCATTER:
        for (int k = 0; k < n; k++)
            s += in(pe_of[k], my);
        return i == 0 ? s : -1;
    case OP_INSCAN:
    case OP_EXSCAN:
        for (int k = 0; k < my + (op == OP_INSCAN); k++)
            s += in(pe_of[k], 0);
        return i == 0 ? s : -1;
    default:
        return -1;
    }
}

static void check(enum op op, gshmem_team_t t, const char *team_name, const int *pe_of, int n)
{
    const int my = gshmem_team_my_pe(t);
    for (int i = 0; i < 2 * npes; i++)
        src[i] = in(me, i);
    memset(dst, POISON, 2 * (size_t)npes * sizeof(int64_t));
    gshmem_team_sync(t);
    if (call(op, t) != 0) {
        fprintf(stderr, "host_scale: pe %d: %s on %s returned an error\n", me, op_names[op], team_name);
        exit(1);
    }
    for (int i = 0; i < 2 * npes; i++) {
        const int64_t want = expected(op, my, n, pe_of, i);
        if (want != -1 && dst[i] != want) {
            fprintf(stderr, "host_scale: pe %d: %s on %s at %d PEs: dest[%d] = %lld, want %lld\n", me,
                    op_names[op], team_name, npes, i, (long long)dst[i], (long long)want);
            exit(1);
        }
    }
    gshmem_team_sync(t); /* dest and source are free again */
}

/* The slowest PE's time for `iters` calls of op on t (a PE outside t
 * calls nothing, but takes part in the world's reduction of the time). */
static double timed(enum op op, gshmem_team_t t, long iters)
{
    gshmem_barrier_all();
    const double t0 = bench_now_s();
    for (long k = 0; t != GSHMEM_TEAM_INVALID && k < iters; k++)
        (void)call(op, t);
    *t_mine = bench_now_s() - t0;
    gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, t_max, t_mine, 1);
    return *t_max;
}

/* Checks op on t, then prints its time a call. */
static void measure(enum op op, gshmem_team_t t, const char *team_name, const int *pe_of, int n)
{
    if (t != GSHMEM_TEAM_INVALID)
        check(op, t, team_name, pe_of, n);
    long iters = 1; /* every PE sees the same slowest time: they agree */
    while (timed(op, t, iters) < BATCH_S && iters < (1L << 24))
        iters *= 2;
    double runs[RUNS];
    for (int r = 0; r < RUNS; r++)
        runs[r] = timed(op, t, iters);
    if (me == 0)
        printf("RESULT bench=host_scale op=%s team=%s pes=%d us=%.2f\n", op_names[op], team_name,
               n, bench_median(runs, RUNS) / (double)iters * 1e6);
}

int main(void)
{
    const double t0 = bench_now_s();
    gshmem_init();
    const double t_init = bench_now_s() - t0;
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    src = gshmem_malloc(2 * (size_t)npes * sizeof(int64_t));
    dst = gshmem_malloc(2 * (size_t)npes * sizeof(int64_t));
    t_mine = gshmem_malloc(sizeof(double));
    t_max = gshmem_malloc(sizeof(double));
    int *world = malloc((size_t)npes * sizeof(int)), *half = malloc((size_t)npes * sizeof(int));
    if (src == NULL || dst == NULL || t_mine == NULL || t_max == NULL || world == NULL ||
        half == NULL) {
        fprintf(stderr, "host_scale: pe %d: out of memory\n", me);
        return 1;
    }
    *t_mine = t_init;
    gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, t_max, t_mine, 1);
    if (me == 0)
        printf("RESULT bench=host_scale op=init team=world pes=%d us=%.0f\n", npes, *t_max * 1e6);

    /* the even PEs: a team whose members are not all neighbours */
    gshmem_team_t even = GSHMEM_TEAM_INVALID;
    const int n_half = (npes + 1) / 2;
    double ts = bench_now_s();
    gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, n_half, NULL, 0, &even);
    *t_mine = bench_now_s() - ts;
    gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, t_max, t_mine, 1);
    if (me == 0)
        printf("RESULT bench=host_scale op=team_split_strided team=world pes=%d us=%.1f\n", npes,
               *t_max * 1e6);
    for (int k = 0; k < npes; k++) {
        world[k] = k;
        half[k] = 2 * k;
    }
    for (int op = 0; op < N_OPS; op++)
        measure((enum op)op, GSHMEM_TEAM_WORLD, op < OP_BS_BARRIER ? "world" : "runtime", world,
                npes);
    /* the even PEs (from 4 PEs: a team of two and more, not neighbours) */
    for (int op = OP_BARRIER; op < OP_BS_BARRIER && npes >= 4; op++)
        measure((enum op)op, even, "half", half, n_half);
    if (even != GSHMEM_TEAM_INVALID)
        gshmem_team_destroy(even);
    free(world);
    free(half);
    gshmem_finalize();
    return 0;
}
