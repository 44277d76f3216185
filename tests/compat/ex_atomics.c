/* OpenSHMEM programs in the style of the specification's examples, for
 * atomics, locks, waits and contexts: tickets from a fetch-and-increment
 * on PE 0, a lock around a read-modify-write, a swap, wait_until_any on
 * flags set by every PE, and puts on a private context completed by that
 * context's quiet. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), errors = 0;

    /* Tickets: every PE draws one; together they are 0 .. npes-1. */
    int *next = shmem_calloc(1, sizeof(int));
    int *seen = shmem_calloc((size_t)npes, sizeof(int));
    int ticket = shmem_int_atomic_fetch_inc(next, 0);
    shmem_int_atomic_inc(&seen[ticket], 0);
    shmem_barrier_all();
    if (me == 0)
        for (int i = 0; i < npes; i++)
            errors += seen[i] != 1;

    /* A lock makes a get-then-put on PE 0 atomic. */
    long *lock = shmem_calloc(1, sizeof(long));
    long *total = shmem_calloc(1, sizeof(long));
    shmem_set_lock(lock);
    long t = shmem_long_g(total, 0);
    shmem_long_p(total, t + me + 1, 0);
    shmem_clear_lock(lock);
    shmem_barrier_all();
    if (me == 0)
        errors += *total != (long)npes * (npes + 1) / 2;

    /* Swap my number into the right neighbour's word, getting what was there. */
    long *word = shmem_malloc(sizeof(long));
    *word = -1;
    shmem_barrier_all();
    errors += shmem_long_atomic_swap(word, me, (me + 1) % npes) != -1;
    shmem_barrier_all();
    errors += *word != (me + npes - 1) % npes;

    /* Flags: every PE raises its flag on PE 0, which waits for any, then all. */
    long *flags = shmem_calloc((size_t)npes, sizeof(long));
    int *status = calloc((size_t)npes, sizeof(int));
    shmem_barrier_all();
    shmem_long_atomic_set(&flags[me], 1, 0);
    if (me == 0) {
        size_t got = 0;
        for (int k = 0; k < npes; k++) {
            size_t i = shmem_long_wait_until_any(flags, (size_t)npes, status, SHMEM_CMP_EQ, 1);
            errors += i >= (size_t)npes || status[i];
            if (i < (size_t)npes)
                status[i] = 1; /* not waited on again */
            got++;
        }
        errors += got != (size_t)npes;
    }

    /* A private context: its puts completed by its own quiet. */
    shmem_ctx_t ctx;
    int *box = shmem_calloc((size_t)npes, sizeof(int));
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0)
        ctx = SHMEM_CTX_DEFAULT;
    for (int pe = 0; pe < npes; pe++)
        shmem_ctx_int_put_nbi(ctx, &box[me], &me, 1, pe);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        errors += box[pe] != pe;
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);

    shmem_barrier_all();
    free(status);
    shmem_free(box);
    shmem_free(flags);
    shmem_free(word);
    shmem_free(total);
    shmem_free(lock);
    shmem_free(seen);
    shmem_free(next);
    if (errors != 0) {
        fprintf(stderr, "pe %d: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("ex_atomics: %d PEs, no errors\n", npes);
    shmem_finalize();
    return 0;
}
