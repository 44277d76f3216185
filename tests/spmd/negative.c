/* Bad input, one case per run: `negative CASE`.  PE 0 makes the bad call
 * while the others wait in a barrier; check_negative.py runs each case and
 * asserts the exact message and how the job ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>

static int me, npes;

/* The call that must fail is made on PE 0; the job must end (or, for the
 * collective heap calls, go on) as the driver expects. */
int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    int local = 7;
    char *heap_ptr;

    if (strcmp(c, "before-init") == 0) {
        gshmem_putmem(&local, &local, sizeof(local), 0);
        return 0;
    }
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    heap_ptr = gshmem_malloc(1024);
    uint64_t *sig = gshmem_calloc(1, sizeof(uint64_t));

    /* Collective heap calls: every PE takes part and the job goes on. */
    if (strcmp(c, "malloc-asymmetric") == 0) {
        void *p = gshmem_malloc(me == 0 ? 64 : 128);
        if (p != NULL)
            return 3;
        printf("pe %d: asymmetric malloc returned NULL\n", me);
    } else if (strcmp(c, "align-not-power-of-two") == 0) {
        if (gshmem_align(3, 10) != NULL)
            return 3;
    } else if (strcmp(c, "free-not-heap") == 0) {
        gshmem_free(me == 0 ? (void *)&local : (void *)heap_ptr);
    } else if (strcmp(c, "free-interior") == 0) {
        gshmem_free(heap_ptr + 8);
    } else if (strcmp(c, "free-twice") == 0) {
        gshmem_free(heap_ptr);
        gshmem_free(heap_ptr);
        heap_ptr = NULL;
    } else if (me == 0) {
        /* One-sided calls: the job ends with the message. */
        if (strcmp(c, "put-pe-range") == 0)
            gshmem_int_put((int *)heap_ptr, &local, 1, npes);
        else if (strcmp(c, "put-pe-negative") == 0)
            gshmem_putmem(heap_ptr, &local, 4, -1);
        else if (strcmp(c, "put-not-heap") == 0)
            gshmem_int_put(&local, &local, 1, 0);
        else if (strcmp(c, "get-not-heap") == 0)
            gshmem_getmem(&local, &local, 4, 0);
        else if (strcmp(c, "put-crosses-end") == 0)
            ; /* below: it needs a collective allocation first */
        else if (strcmp(c, "put-null-dest") == 0)
            gshmem_putmem(NULL, &local, 8, 0);
        else if (strcmp(c, "put-null-source") == 0)
            gshmem_putmem(heap_ptr, NULL, 8, 0);
        else if (strcmp(c, "atomic-misaligned") == 0)
            gshmem_int_atomic_add((int *)(heap_ptr + 1), 1, 0);
        else if (strcmp(c, "signal-misaligned") == 0)
            gshmemx_signal_op((uint64_t *)(heap_ptr + 4), 1, GSHMEM_SIGNAL_SET, 0);
        else if (strcmp(c, "bad-sig-op") == 0)
            gshmem_putmem_signal(heap_ptr, &local, 4, sig, 1, 7, 0);
        else if (strcmp(c, "bad-cmp") == 0)
            gshmem_int_wait_until((int *)heap_ptr, 99, 0);
        else if (strcmp(c, "iput-bad-stride") == 0)
            gshmem_int_iput((int *)heap_ptr, &local, 0, 1, 2, 0);
        else if (strcmp(c, "wait-not-heap") == 0)
            gshmem_int_wait_until(&local, GSHMEM_CMP_EQ, 7);
        else if (strcmp(c, "on-stream-host-heap") == 0)
            gshmemx_putmem_on_stream(heap_ptr, &local, 4, 0, NULL);
        else if (strcmp(c, "register-overlap") == 0) {
            static char buf[4096];
            if (gshmemx_buffer_register(buf, sizeof(buf)) != 0 ||
                gshmemx_buffer_register(buf + 100, 64) == 0 || gshmemx_buffer_unregister(buf) != 0)
                gshmem_global_exit(3);
        } else if (strcmp(c, "register-heap") == 0) {
            if (gshmemx_buffer_register(heap_ptr, 16) == 0)
                gshmem_global_exit(3);
        } else if (strcmp(c, "register-empty") == 0) {
            if (gshmemx_buffer_register(NULL, 0) == 0)
                gshmem_global_exit(3);
        } else if (strcmp(c, "unregister-unknown") == 0) {
            if (gshmemx_buffer_unregister(&local) == 0)
                gshmem_global_exit(3);
        } else if (strcmp(c, "timeout") == 0)
            gshmem_long_wait_until((long *)heap_ptr, GSHMEM_CMP_EQ, 1);
        else {
            fprintf(stderr, "negative: unknown case '%s'\n", c);
            gshmem_global_exit(2);
        }
    }
    if (strcmp(c, "put-crosses-end") == 0) {
        /* GSHMEM_SYMMETRIC_SIZE=2m; heap_ptr and sig
         * come first: this block ends exactly where the heap ends. */
        char *last = gshmem_malloc((2 << 20) - 1024 - 256);
        if (me == 0)
            gshmem_putmem(last + (2 << 20) - 1024 - 256 - 8, &local, 16, 0);
    }
    /* Only PE 0's wait may time out. */
    if (strcmp(c, "timeout") == 0 && me != 0)
        sleep(20);
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(heap_ptr);
    gshmem_finalize();
    return 0;
}
