/* Bootstrap selection and the collectives every backend shares. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"

static int open_from_launcher(struct gshmemi_bootstrap **out)
{
    gshmemx_uniqueid_t uid;
    if (gshmemi_uid_decode(gshmemi_env.LAUNCH_UNIQUEID, &uid) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_LAUNCH_UNIQUEID does not hold a unique id");
        return GSHMEM_ERR_INVALID_ARG;
    }
    GSHMEMI_CHECK(gshmemi_bootstrap_uid_open(&uid, (int)gshmemi_env.LAUNCH_RANK,
                                             (int)gshmemi_env.LAUNCH_SIZE,
                                             gshmemi_env.BOOTSTRAP_TIMEOUT, out));
    (*out)->launcher_ctrl_fd = (int)gshmemi_env.LAUNCH_CTRL_FD;
    /* Programs this PE starts are not PEs: they must not inherit it. */
    if ((*out)->launcher_ctrl_fd >= 0)
        (void)fcntl((*out)->launcher_ctrl_fd, F_SETFD, FD_CLOEXEC);
    return 0;
}

static int open_backend(unsigned flags, const gshmemx_init_attr_t *attr,
                        struct gshmemi_bootstrap **out)
{
    const char *choice = gshmemi_env.BOOTSTRAP;
    const int launched = gshmemi_env.LAUNCH_UNIQUEID[0] != '\0';

    if (flags == GSHMEMX_INIT_WITH_UNIQUEID) {
        if (attr == NULL || !attr->uid_args.has_uniqueid) {
            GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_UNIQUEID needs attributes set by "
                          "gshmemx_set_attr_uniqueid_args");
            return GSHMEM_ERR_INVALID_ARG;
        }
        return gshmemi_bootstrap_uid_open(&attr->uid_args.uniqueid, attr->uid_args.rank,
                                          attr->uid_args.nranks, gshmemi_env.BOOTSTRAP_TIMEOUT,
                                          out);
    }
    if (flags == GSHMEMX_INIT_WITH_MPI_COMM) {
        if (attr == NULL) {
            GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM needs attributes with mpi_comm");
            return GSHMEM_ERR_INVALID_ARG;
        }
        return gshmemi_bootstrap_mpi_open(attr->mpi_comm, out);
    }
    if (flags == GSHMEMX_INIT_WITH_PMIX || strcmp(choice, "pmix") == 0)
        return gshmemi_bootstrap_pmix_open(gshmemi_env.BOOTSTRAP_TIMEOUT, out);
    if (flags != GSHMEMX_INIT_DEFAULT) {
        GSHMEMI_ERROR(BOOTSTRAP, "gshmemx_init_attr: unknown flags 0x%x", flags);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (strcmp(choice, "uid") == 0) {
        if (!launched) {
            GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_BOOTSTRAP=uid needs a unique id: launch with "
                          "gshmrun, or call gshmemx_init_attr with GSHMEMX_INIT_WITH_UNIQUEID");
            return GSHMEM_ERR_INVALID_ARG;
        }
        return open_from_launcher(out);
    }
    if (strcmp(choice, "mpi") == 0)
        return gshmemi_bootstrap_mpi_world_open(out);
    if (strcmp(choice, "auto") != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_BOOTSTRAP is '%s': expected auto, pmix, uid or mpi",
                      choice);
        return GSHMEM_ERR_INVALID_ARG;
    }
    /* gshmrun strips PMIX_* from its PEs, so the two cannot both be present. */
    if (gshmemi_bootstrap_pmix_available())
        return gshmemi_bootstrap_pmix_open(gshmemi_env.BOOTSTRAP_TIMEOUT, out);
    if (launched)
        return open_from_launcher(out);
    return gshmemi_bootstrap_single_open(out);
}

/* The job's end: gshmrun hears which PE ended it and with what status. */
static void tell_launcher(void *arg, int status, const char *why)
{
    const struct gshmemi_bootstrap *bs = arg;
    char msg[64];
    int n = snprintf(msg, sizeof(msg), "abort %d %d\n", bs->rank, status);
    (void)why;
    (void)!write(bs->launcher_ctrl_fd, msg, (size_t)n);
}

static void end_job(void *arg, int status, const char *why)
{
    struct gshmemi_bootstrap *bs = arg;
    bs->ops->abort(bs, status, why);
}

int gshmemi_bootstrap_open(unsigned flags, const gshmemx_init_attr_t *attr,
                           struct gshmemi_bootstrap **out)
{
    GSHMEMI_CHECK(open_backend(flags, attr, out));
    if ((*out)->launcher_ctrl_fd >= 0)
        gshmemi_abort_hook_set(GSHMEMI_ABORT_TELL_LAUNCHER, tell_launcher, *out);
    gshmemi_abort_hook_set(GSHMEMI_ABORT_END, end_job, *out);
    return 0;
}

int gshmemi_bootstrap_bcast(struct gshmemi_bootstrap *bs, void *buf, size_t len, int root)
{
    char *all = malloc(len * (size_t)bs->size);
    int st;
    if (all == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    st = bs->ops->allgather(bs, buf, all, len);
    if (st == 0)
        memcpy(buf, all + (size_t)root * len, len);
    free(all);
    return st;
}

int gshmemi_bootstrap_alltoall(struct gshmemi_bootstrap *bs, const void *in, void *out,
                               size_t len)
{
    const size_t n = (size_t)bs->size;
    if (bs->ops->alltoall != NULL)
        return bs->ops->alltoall(bs, in, out, len);
    char *all = malloc(n * n * len);
    if (all == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    int st = bs->ops->allgather(bs, in, all, n * len);
    for (size_t j = 0; st == 0 && j < n; j++) /* rank j's block for this rank */
        memcpy((char *)out + j * len, all + (j * n + (size_t)bs->rank) * len, len);
    free(all);
    return st;
}

void gshmemi_bootstrap_close(struct gshmemi_bootstrap *bs)
{
    if (bs == NULL)
        return;
    gshmemi_abort_hook_set(GSHMEMI_ABORT_TELL_LAUNCHER, NULL, NULL);
    gshmemi_abort_hook_set(GSHMEMI_ABORT_END, NULL, NULL);
    bs->ops->finalize(bs);
}
