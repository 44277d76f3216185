/* single bootstrap: one PE, no launcher. */
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/util.h"

static int single_allgather(struct gshmemi_bootstrap *bs, const void *in, void *out, size_t len)
{
    (void)bs;
    memcpy(out, in, len);
    return 0;
}

static int single_barrier(struct gshmemi_bootstrap *bs)
{
    (void)bs;
    return 0;
}

static void single_abort(struct gshmemi_bootstrap *bs, int status, const char *msg)
{
    (void)bs;
    (void)status;
    (void)msg;
}

static void single_finalize(struct gshmemi_bootstrap *bs) { free(bs); }

static const struct gshmemi_bootstrap_ops single_ops = {
    .name = "single",
    .allgather = single_allgather,
    .barrier = single_barrier,
    .abort = single_abort,
    .finalize = single_finalize,
};

int gshmemi_bootstrap_single_open(struct gshmemi_bootstrap **out)
{
    struct gshmemi_bootstrap *bs = calloc(1, sizeof(*bs));
    if (bs == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    bs->ops = &single_ops;
    bs->size = 1;
    bs->local_rank = 0;
    bs->local_size = 1;
    bs->n_nodes = 1;
    bs->launcher_ctrl_fd = -1;
    if (gshmemi_random_bytes(bs->secret, sizeof(bs->secret)) != 0) {
        free(bs);
        return GSHMEM_ERR_IO;
    }
    bs->job_id = gshmemi_hash64(bs->secret, sizeof(bs->secret), 0x6a6f62);
    *out = bs;
    return 0;
}
