/* Each PE writes its number into the next PE's symmetric buffer with a
 * signal, waits for its own, and checks what it got. */
#include <gshmem.h>
#include <stdio.h>

int main(void)
{
    gshmem_init();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int *box = gshmem_malloc(sizeof(int));
    uint64_t *sig = gshmem_calloc(1, sizeof(uint64_t));

    gshmem_int_put_signal(box, &me, 1, sig, 1, GSHMEM_SIGNAL_SET, (me + 1) % n);
    gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, 1);
    printf("pe %d of %d got %d from pe %d\n", me, n, *box, (me + n - 1) % n);
    int ok = *box == (me + n - 1) % n;

    gshmem_free(sig);
    gshmem_free(box);
    gshmem_finalize();
    return ok ? 0 : 1;
}
