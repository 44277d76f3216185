/* Bad input, one case per run: `negative CASE`.  PE 0 makes the bad call
 * while the others wait in a barrier; check_negative.py runs each case and
 * asserts the exact message and how the job ends. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>
#include <shmem.h> /* the OpenSHMEM names' own checks */
#include <gshmem/internal/device_state.h> /* a unit of another header version, faked */

#include "spmd_util.h"

static int me, npes;
static long static_word; /* symmetric unless GSHMEM_SYMMETRIC_DATA=0 */
static long psync[SHMEM_SYNC_SIZE]; /* the active-set collectives' */

/* What a CUDA unit's static initialiser registers; a unit built against
 * another gshmem_device.cuh passes another version or size. */
static int unit_update(const struct gshmemi_device_state *s, void *stream)
{
    (void)s, (void)stream;
    return 0;
}

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
    if (strcmp(c, "device-state") == 0) { /* what the messages below must name */
        printf("%u %zu\n", (unsigned)GSHMEMI_DEVICE_STATE_VERSION,
               sizeof(struct gshmemi_device_state));
        return 0;
    }
    if (strcmp(c, "unit-other-version") == 0 || strcmp(c, "units-other-version") == 0) {
        gshmemi_device_state_register(unit_update, GSHMEMI_DEVICE_STATE_VERSION + 1,
                                      sizeof(struct gshmemi_device_state));
        if (c[4] == 's')
            gshmemi_device_state_register(unit_update, GSHMEMI_DEVICE_STATE_VERSION,
                                          sizeof(struct gshmemi_device_state) - 8);
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
    } else if (strcmp(c, "split-mismatch") == 0) {
        gshmem_team_t t;
        if (gshmem_team_split_strided(GSHMEM_TEAM_WORLD, me == 0 ? 0 : 1, 1, 1, NULL, 0, &t) == 0 ||
            t != GSHMEM_TEAM_INVALID)
            return 3;
    } else if (strcmp(c, "split-null-team") == 0) { /* pe 1's new_team NULL: fails on both */
        gshmem_team_t t = 7;
        if (gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0,
                                      me == 1 ? NULL : &t) == 0 ||
            (me != 1 && t != GSHMEM_TEAM_INVALID))
            return 3;
    } else if (strcmp(c, "split-2d-null-team") == 0) { /* pe 1's yaxis_team NULL */
        gshmem_team_t x = 7, y = 7;
        if (gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0,
                                 me == 1 ? NULL : &y) == 0 ||
            x != GSHMEM_TEAM_INVALID || (me != 1 && y != GSHMEM_TEAM_INVALID))
            return 3;
    } else if (strncmp(c, "coll-collect-overlap", 20) == 0) {
        /* every PE: its own block misses source, pe 1's lands on it (seen
         * once the sizes are known; -simple: between barriers) */
        gshmem_long_collect(GSHMEM_TEAM_WORLD, (long *)heap_ptr, (long *)heap_ptr + 8, 8);
    } else if (strcmp(c, "too-many-teams") == 0) { /* GSHMEM_MAX_TEAMS=5: one split fits */
        gshmem_team_t t, u;
        if (gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) != 0 ||
            gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &u) == 0 ||
            u != GSHMEM_TEAM_INVALID)
            return 3;
        gshmem_team_destroy(t);
    } else if (strcmp(c, "team-destroy-predefined") == 0) { /* logged; the job goes on */
        gshmem_team_destroy(GSHMEM_TEAM_WORLD);
        if (gshmem_team_n_pes(GSHMEM_TEAM_WORLD) != npes)
            return 3;
    } else if (strcmp(c, "coll-team-destroyed") == 0) {
        gshmem_team_t t;
        if (gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) != 0)
            return 3;
        gshmem_team_destroy(t);
        if (me == 0)
            gshmem_int_sum_reduce(t, (int *)heap_ptr, (int *)heap_ptr + 64, 4);
    } else if (strcmp(c, "coll-not-member") == 0) { /* pe 1's team, pe 0 given its handle */
        gshmem_team_t t;
        int *handle = (int *)heap_ptr + 128;
        gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 1, 1, NULL, 0, &t);
        if (me == 1)
            gshmem_int_p(handle, (int)t, 0);
        gshmem_barrier_all();
        if (me == 0) /* (read through gshmem: on the GPU heap the host cannot load it) */
            gshmem_int_broadcast((gshmem_team_t)gshmem_int_g(handle, 0), (int *)heap_ptr,
                                 (int *)heap_ptr + 1, 1, 0);
    } else if (strcmp(c, "free-twice") == 0) {
        gshmem_free(heap_ptr);
        gshmem_free(heap_ptr);
        heap_ptr = NULL;
    } else if (strcmp(c, "coll-root-mismatch") == 0) { /* GSHMEM_DEBUG_CHECKS=1 from here */
        gshmem_int_broadcast(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 1, 1,
                             me == 0 ? 0 : 1);
    } else if (strcmp(c, "coll-count-mismatch") == 0) {
        gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 64,
                              me == 0 ? 8 : 9);
    } else if (strcmp(c, "coll-on-stream-count-mismatch") == 0) { /* checked at the call */
        gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 64,
                                         me == 0 ? 8 : 9, NULL);
    } else if (strcmp(c, "coll-type-mismatch") == 0) { /* the same size, another type */
        if (me == 0)
            gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 64, 4);
        else
            gshmem_float_sum_reduce(GSHMEM_TEAM_WORLD, (float *)heap_ptr, (float *)heap_ptr + 64, 4);
    } else if (strcmp(c, "coll-kind-mismatch") == 0) {
        if (me == 0)
            gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 64, 4);
        else
            gshmem_int_max_reduce(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 64, 4);
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
        else if (strcmp(c, "put-static-disabled") == 0)
            gshmem_long_p(&static_word, 1, 0);
        else if (strcmp(c, "on-stream-static") == 0) /* GPU heap: stream forms need the heap */
            gshmemx_putmem_on_stream(&static_word, &local, 4, 0, NULL);
        else if (strcmp(c, "put-static-crosses-end") == 0)
            gshmem_putmem(&static_word, &local, (size_t)1 << 40, 0);
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
        else if (strcmp(c, "clear-lock-not-held") == 0)
            gshmem_clear_lock((long *)heap_ptr);
        else if (strcmp(c, "set-lock-twice") == 0) {
            gshmem_set_lock((long *)heap_ptr);
            gshmem_set_lock((long *)heap_ptr);
        } else if (strcmp(c, "ctx-quiet-invalid") == 0)
            gshmem_ctx_quiet(GSHMEM_CTX_INVALID);
        else if (strcmp(c, "unit-other-version-after-init") == 0) /* a library dlopen'ed */
            gshmemi_device_state_register(unit_update, GSHMEMI_DEVICE_STATE_VERSION - 1,
                                          sizeof(struct gshmemi_device_state));
        else if (strcmp(c, "ctx-put-invalid") == 0)
            shmem_ctx_int_put(SHMEM_CTX_INVALID, (int *)heap_ptr, &local, 1, 0);
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
        } else if (strcmp(c, "coll-team-invalid") == 0) {
            gshmem_int_sum_reduce(GSHMEM_TEAM_INVALID, (int *)heap_ptr, (int *)heap_ptr + 1, 1);
        } else if (strcmp(c, "coll-on-stream-team-invalid") == 0) {
            gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_INVALID, (int *)heap_ptr,
                                             (int *)heap_ptr + 1, 1, NULL);
        } else if (strcmp(c, "coll-on-stream-host-heap") == 0) {
            gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, (int *)heap_ptr,
                                             (int *)heap_ptr + 64, 4, NULL);
        } else if (strcmp(c, "coll-on-stream-overlap") == 0) {
            gshmemx_int_alltoall_on_stream(GSHMEM_TEAM_WORLD, (int *)heap_ptr + 1, (int *)heap_ptr,
                                           2, NULL);
        } else if (strcmp(c, "coll-on-stream-not-heap") == 0) {
            gshmemx_int_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, &local, (int *)heap_ptr, 1, NULL);
        } else if (strcmp(c, "coll-on-stream-bad-root") == 0) {
            gshmemx_int_broadcast_on_stream(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 1,
                                            1, npes, NULL);
        } else if (strcmp(c, "coll-team-unknown") == 0) {
            gshmem_fcollectmem(12345, heap_ptr, heap_ptr + 512, 8);
        } else if (strcmp(c, "coll-bad-root") == 0) {
            gshmem_int_broadcast(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 1, 1, npes);
        } else if (strcmp(c, "coll-negative-root") == 0) {
            gshmem_int_broadcast(GSHMEM_TEAM_WORLD, (int *)heap_ptr, (int *)heap_ptr + 1, 1, -1);
        } else if (strcmp(c, "coll-overlap") == 0) {
            gshmem_int_alltoall(GSHMEM_TEAM_WORLD, (int *)heap_ptr + 1, (int *)heap_ptr, 2);
        } else if (strcmp(c, "coll-dest-not-heap") == 0) { /* small: the one-shot algorithm */
            gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, &local, (int *)heap_ptr, 1);
        } else if (strcmp(c, "coll-pipe-dest-not-heap") == 0) { /* GSHMEM_COLL_ALGO=ring */
            char block[64];
            gshmem_fcollectmem(GSHMEM_TEAM_WORLD, block, heap_ptr, 8);
        } else if (strcmp(c, "coll-overlap-strided") == 0) { /* the spans cross */
            gshmem_alltoallsmem(GSHMEM_TEAM_WORLD, heap_ptr + 8, heap_ptr, 2, 2, 4);
        } else if (strcmp(c, "coll-bad-stride") == 0) {
            gshmem_alltoallsmem(GSHMEM_TEAM_WORLD, heap_ptr, heap_ptr + 512, 0, 1, 1);
        } else if (strcmp(c, "as-past-last") == 0) { /* PEs 1 and 3 of 2 */
            shmem_barrier(1, 1, 2, psync);
        } else if (strcmp(c, "as-size-zero") == 0) {
            shmem_int_sum_to_all((int *)heap_ptr, (int *)heap_ptr + 1, 1, 0, 0, 0,
                                 (int *)heap_ptr + 2, psync);
        } else if (strcmp(c, "as-not-member") == 0) {
            shmem_broadcast64(heap_ptr, heap_ptr + 64, 1, 0, 1, 0, 1, psync);
        } else if (strcmp(c, "as-bad-root") == 0) {
            shmem_broadcast32(heap_ptr, heap_ptr + 64, 1, 2, 0, 0, 2, psync);
        } else if (strcmp(c, "as-psync-uninit") == 0) {
            psync[0] = 7;
            shmem_barrier(0, 0, 2, psync);
        } else if (strcmp(c, "as-timeout") == 0) { /* pe 1 never joins */
            shmem_long_sum_to_all((long *)heap_ptr, (long *)heap_ptr, 4, 0, 0, 2,
                                  (long *)heap_ptr + 8, psync);
        } else if (strcmp(c, "timeout") == 0) {
            char *lo, *hi;
            spmd_heap_bounds(heap_ptr, &lo, &hi);
            fprintf(stderr, "negative: heap_ptr at heap offset %zu\n", (size_t)(heap_ptr - lo));
            gshmem_long_wait_until((long *)heap_ptr, GSHMEM_CMP_EQ, 1);
        }
        else {
            fprintf(stderr, "negative: unknown case '%s'\n", c);
            gshmem_global_exit(2);
        }
    }
    if (strcmp(c, "put-crosses-end") == 0) {
        /* This block fills the heap after sig (the last block so far):
         * it ends exactly where the heap ends. */
        char *lo, *hi, *after_sig = (char *)sig + 256;
        spmd_heap_bounds(heap_ptr, &lo, &hi);
        char *last = gshmem_malloc((size_t)(hi - after_sig));
        if (last != after_sig)
            return 4;
        if (me == 0)
            gshmem_putmem(hi - 8, &local, 16, 0);
    }
    /* Only PE 0's wait may time out. */
    if ((strcmp(c, "timeout") == 0 || strcmp(c, "as-timeout") == 0) && me != 0)
        sleep(20);
    gshmem_barrier_all();
    gshmem_free(sig);
    gshmem_free(heap_ptr);
    gshmem_finalize();
    return 0;
}
