/* OpenSHMEM programs in the style of the specification's examples, for
 * RMA and synchronisation: a block put from PE 0 to PE 1, a ring of p/g,
 * a strided iput, and a put with signal around the ring that each PE waits
 * on.  (Symmetric data comes from shmem_malloc: gshmem does not make
 * global and static variables symmetric.) */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), errors = 0;

    /* PE 0 copies ten longs into PE 1's dest. */
    long source[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    long *dest = shmem_malloc(10 * sizeof(long));
    for (int i = 0; i < 10; i++)
        dest[i] = -1;
    shmem_barrier_all();
    if (me == 0 && npes > 1)
        shmem_long_put(dest, source, 10, 1);
    shmem_barrier_all();
    if (me == 1)
        for (int i = 0; i < 10; i++)
            errors += dest[i] != source[i];

    /* Each PE writes its number into its right neighbour, then reads the
     * left neighbour's copy back. */
    int *ring = shmem_malloc(sizeof(int));
    shmem_int_p(ring, me, (me + 1) % npes);
    shmem_barrier_all();
    errors += *ring != (me + npes - 1) % npes;
    errors += shmem_int_g(ring, (me + npes - 1) % npes) != (me + npes - 2 + npes) % npes;

    /* Every other element of source into the target's consecutive slots. */
    short ssrc[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    short *sdst = shmem_calloc(4, sizeof(short));
    shmem_short_iput(sdst, ssrc, 1, 2, 4, (me + 1) % npes);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        errors += sdst[i] != ssrc[2 * i];

    /* A message passed around the ring: each PE waits for the signal from
     * its left, then forwards the data with its own signal. */
    int *msg = shmem_calloc(4, sizeof(int));
    uint64_t *flag = shmem_calloc(1, sizeof(uint64_t));
    int hello[4] = {42, 43, 44, 45};
    shmem_barrier_all();
    if (me == 0) {
        shmem_int_put_signal(msg, hello, 4, flag, 1, SHMEM_SIGNAL_SET, (me + 1) % npes);
        shmem_signal_wait_until(flag, SHMEM_CMP_EQ, 1);
    } else {
        shmem_signal_wait_until(flag, SHMEM_CMP_EQ, 1);
        shmem_int_put_signal(msg, msg, 4, flag, 1, SHMEM_SIGNAL_SET, (me + 1) % npes);
    }
    for (int i = 0; i < 4; i++)
        errors += msg[i] != hello[i];
    shmem_quiet();
    shmem_barrier_all();

    shmem_free(flag);
    shmem_free(msg);
    shmem_free(sdst);
    shmem_free(ring);
    shmem_free(dest);
    if (errors != 0) {
        fprintf(stderr, "pe %d: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("ex_rma: %d PEs, no errors\n", npes);
    shmem_finalize();
    return 0;
}
