/* One case of the fault matrix (tests/fault/run_matrix.py): every PE runs
 * PHASE over and over; PE `victim` commits FAULT the moment it has entered
 * the phase's operation for the 50th time, or just before, so the others are
 * inside the operation or about to be.
 *
 *   fault PHASE FAULT VICTIM
 *
 * PHASE:  init     the victim faults before gshmem_init, the others are in
 *                  the bootstrap
 *         malloc   a gshmem_malloc that grows the heap (every call grows it)
 *         barrier  gshmem_barrier_all
 *         coll     a host collective (a float sum reduction on the world)
 *         wait     gshmem_long_wait_until on a word the victim's left
 *                  neighbour would set
 *         transfer a put of 1 MiB to the next PE, then quiet (through the
 *                  transport where GSHMEM_DISABLE_P2P=1)
 * FAULT:  kill     SIGKILL to itself
 *         stop     SIGSTOP to itself (alive and silent)
 *         exit0    exit(0) without gshmem_finalize
 *         global   gshmem_global_exit(7)
 *         none     no fault: the PEs run until something else ends them
 *                  (the launcher killed)
 *
 * A PE that is not the victim never ends on its own: it loops until the
 * runtime ends it, so its exit status and messages are the runtime's. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "fault_commit.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fault PHASE FAULT VICTIM\n");
        return 2;
    }
    const char *phase = argv[1];
    fault = argv[2];
    victim = atoi(argv[3]);
    const char *rank = getenv("GSHMEM_LAUNCH_RANK");
    if (rank == NULL)
        rank = getenv("OMPI_COMM_WORLD_RANK");
    if (strcmp(phase, "init") == 0 && rank != NULL && atoi(rank) == victim) {
        me = victim;
        if (strcmp(fault, "global") == 0) /* needs gshmem: the first thing after init */
            gshmem_init();
        commit();
    }
    gshmem_init();
    me = gshmem_my_pe();
    const int n = gshmem_n_pes();
    if (victim < 0 || victim >= n) {
        fprintf(stderr, "fault: victim %d is not a PE of %d\n", victim, n);
        return 2;
    }
    size_t big = (size_t)1 << 20;
    float *src = gshmem_malloc(64 * sizeof(float)), *dst = gshmem_malloc(64 * sizeof(float));
    long *word = gshmem_calloc(1, sizeof(long));
    char *buf = gshmem_malloc(big);
    for (int i = 0; i < 64; i++)
        src[i] = (float)(me + i);
    printf("fault: pe %d of %d up, phase %s\n", me, n, phase);
    fflush(stdout);
    gshmem_barrier_all();
    for (long i = 0;; i++) {
        const int now = me == victim && i == FAULT_AT && strcmp(fault, "none") != 0;
        if (strcmp(phase, "malloc") == 0) {
            if (now)
                commit();
            /* each call asks for more than the heap has left, so it grows */
            void *p = gshmem_malloc(((size_t)8 << 20) + (size_t)i * 4096);
            gshmem_free(p);
        } else if (strcmp(phase, "barrier") == 0 || strcmp(phase, "init") == 0) {
            if (now)
                commit();
            gshmem_barrier_all();
        } else if (strcmp(phase, "coll") == 0) {
            if (now)
                commit();
            gshmem_float_sum_reduce(GSHMEM_TEAM_WORLD, dst, src, 64);
        } else if (strcmp(phase, "wait") == 0) {
            /* each PE waits for its left neighbour's count, then sets its
             * right neighbour's: a ring of waits the victim breaks */
            if (now)
                commit();
            const long want = me == 0 ? i : i + 1;
            if (want > 0)
                gshmem_long_wait_until(word, GSHMEM_CMP_GE, want);
            gshmem_long_atomic_set(word, i + 1, (me + 1) % n);
        } else if (strcmp(phase, "transfer") == 0) {
            gshmem_putmem_nbi(buf, buf, big, (me + 1) % n);
            if (now)
                commit();
            gshmem_quiet();
            gshmem_barrier_all();
        } else {
            fprintf(stderr, "fault: unknown phase %s\n", phase);
            return 2;
        }
    }
}
