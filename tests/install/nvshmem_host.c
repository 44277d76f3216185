/*
 * Host code of an NVSHMEM program, in C: built with
 * `cc $(pkg-config --cflags --libs nvshmem)` against gshmem's nvshmem.pc
 * (NVSHMEM's library names, libnvshmem_host and libnvshmem_device) and run
 * with nvshmrun.  Each PE puts its number into the next PE's symmetric
 * int and adds one to PE 0's counter; after a barrier every value is
 * checked.
 */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
    int *box = (int *)nvshmem_malloc(sizeof(int));
    int *count = (int *)nvshmem_calloc(1, sizeof(int));
    int failed = box == NULL || count == NULL;

    if (!failed) {
        nvshmem_int_p(box, me, (me + 1) % npes);
        nvshmem_int_atomic_add(count, 1, 0);
        nvshmem_barrier_all();
        if (*box != (me + npes - 1) % npes) {
            fprintf(stderr, "nvshmem_host: pe %d: box is %d, want %d\n", me, *box,
                    (me + npes - 1) % npes);
            failed = 1;
        }
        if (me == 0 && *count != npes) {
            fprintf(stderr, "nvshmem_host: pe 0: count is %d, want %d\n", *count, npes);
            failed = 1;
        }
        nvshmem_free(count);
        nvshmem_free(box);
    }
    nvshmem_finalize();
    return failed;
}
