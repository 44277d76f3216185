/* OpenSHMEM programs in the style of the specification's examples whose
 * symmetric objects are global and static variables, not shmem_malloc'd:
 * a put into a static array, a fetch-and-add on a static counter, a lock
 * and the word it guards as file-scope statics, a wait on a global flag
 * raised by the left neighbour, and shmem_ptr stores into a static array
 * where the neighbour is mapped. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

long dest[10];                            /* a global, in .bss */
long source[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; /* a global, in .data */
static int counter;
static long lock;
static int guarded;
int flag;

int main(void)
{
    static double near[64]; /* a function-scope static */
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), errors = 0;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* Every PE puts its source, scaled by its number, into its right
     * neighbour's dest. */
    long mine[10];
    for (int i = 0; i < 10; i++)
        mine[i] = source[i] * (me + 1);
    shmem_long_put(dest, mine, 10, right);
    shmem_barrier_all();
    for (int i = 0; i < 10; i++)
        errors += dest[i] != source[i] * (left + 1);

    /* Every PE adds its number plus one to PE 0's counter. */
    int old = shmem_int_atomic_fetch_add(&counter, me + 1, 0);
    errors += old < 0 || old > npes * (npes + 1) / 2;
    shmem_barrier_all();
    if (me == 0)
        errors += counter != npes * (npes + 1) / 2;

    /* A lock around a get-then-put of a word on the last PE. */
    for (int r = 0; r < 10; r++) {
        shmem_set_lock(&lock);
        int v = shmem_int_g(&guarded, npes - 1);
        shmem_int_p(&guarded, v + 1, npes - 1);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == npes - 1)
        errors += guarded != 10 * npes;

    /* The left neighbour raises my flag after putting into my near[]. */
    double vals[64];
    for (int i = 0; i < 64; i++)
        vals[i] = me * 1000.0 + i / 8.0;
    shmem_double_put(near, vals, 64, right);
    shmem_fence();
    shmem_int_atomic_set(&flag, 1, right);
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < 64; i++)
        errors += near[i] != left * 1000.0 + i / 8.0;
    shmem_barrier_all();

    /* Stores through shmem_ptr where the right neighbour is mapped. */
    double *there = shmem_ptr(near, right);
    errors += !shmem_addr_accessible(near, right);
    if (there != NULL)
        for (int i = 0; i < 64; i++)
            there[i] = -(double)me - i;
    else
        for (int i = 0; i < 64; i++)
            shmem_double_p(&near[i], -(double)me - i, right);
    shmem_barrier_all();
    for (int i = 0; i < 64; i++)
        errors += near[i] != -(double)left - i;

    if (errors != 0)
        fprintf(stderr, "ex_static: pe %d: %d errors\n", me, errors);
    else if (me == 0)
        printf("ex_static: %d PEs, passed\n", npes);
    shmem_finalize();
    return errors != 0;
}
