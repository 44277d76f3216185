/* The engine behind every wait_until / test family: integers of 2, 4 or 8
 * bytes, signed or not, compared as the OpenSHMEM cmp constants say. */
#ifndef GSHMEMI_SYNC_WAIT_H
#define GSHMEMI_SYNC_WAIT_H

#include <stddef.h>
#include <stdint.h>

struct gshmemi_heap_access;

struct gshmemi_wait {
    const char *call;
    void *ivars;
    size_t nelems;
    size_t esize;
    int is_signed;
    const int *status;     /* nonzero: excluded; may be NULL */
    int cmp;
    uint64_t value;        /* the cmp value, as its bits widened */
    const void *values;    /* vector forms: one cmp value per element */
    /* how ivars are read: the heap's access; NULL: host memory of the
     * runtime's own (the control segment), read in place */
    const struct gshmemi_heap_access *access;
};

enum gshmemi_wait_mode { GSHMEMI_WAIT_ALL, GSHMEMI_WAIT_ANY, GSHMEMI_WAIT_SOME };

/* Checks the arguments (always on); ends the job naming the call if bad. */
void gshmemi_wait_check(const struct gshmemi_wait *w);
/* Vector forms given no cmp_values: ends the job naming the call. */
const void *gshmemi_wait_no_values(const char *call) __attribute__((noreturn, cold));
/* One scan: ALL returns 1/0, ANY an index or SIZE_MAX, SOME a count (and
 * fills indices). */
size_t gshmemi_wait_test(const struct gshmemi_wait *w, enum gshmemi_wait_mode mode,
                         size_t *indices);
/* Waits until the scan succeeds, honouring GSHMEM_TIMEOUT and watching for
 * lost peers. */
size_t gshmemi_wait_until(const struct gshmemi_wait *w, enum gshmemi_wait_mode mode,
                          size_t *indices);

/* A layer above with a protocol of its own to move on while this PE waits
 * (partitioned transfers' matching): fn runs from every blocking wait's
 * slow path, on the waiting thread.  NULL removes it. */
void gshmemi_wait_progress_set(void (*fn)(const char *call));

/* Called from every blocking wait, cheaply and often: ends this PE with a
 * message naming the PE that died, if one did.  `op` is the user's call. */
void gshmemi_watch_peers(const char *op);
/* The core's wait hook (gshmemi_wait_hook_set): stopped peers and the
 * launcher at the watch's pace, and once the bootstrap's collective has
 * failed (`failed`), every node-local peer at once. */
void gshmemi_watch_hook(const char *op, int failed);
/* The watch thread, for processes using a GPU (kernels wait on peers while
 * the host thread is in CUDA): started at init, stopped before finalize's
 * last barrier, after which peers may leave. */
int gshmemi_watch_start(void);
void gshmemi_watch_stop(void);

#endif
