/* mpi bootstrap: the application's MPI communicator (GSHMEMX_INIT_WITH_MPI_COMM,
 * NVSHMEM's NVSHMEMX_INIT_WITH_MPI_COMM).  gshmem does not link MPI: the
 * functions are those of the MPI library the application already runs,
 * found in the process at init.  Ranks, size and the bootstrap's
 * collectives come from a duplicate of the communicator, so that they
 * never match the application's own messages.
 *
 * Open MPI's ABI only (its handles are pointers to its objects, MPI_BYTE is
 * &ompi_mpi_byte); another MPI library is refused with a message. */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "core/log.h"
#include "core/util.h"

typedef void *mpi_handle; /* MPI_Comm, MPI_Datatype: Open MPI's pointers */

struct mpi_bs {
    struct gshmemi_bootstrap base;
    mpi_handle comm; /* gshmem's duplicate */
    mpi_handle byte; /* MPI_BYTE */
    int (*allgather)(const void *, int, mpi_handle, void *, int, mpi_handle, mpi_handle);
    int (*barrier)(mpi_handle);
    int (*abort)(mpi_handle, int);
    int (*comm_free)(mpi_handle *);
    int (*finalized)(int *);
};

/* MPI still up: gshmem_finalize must come before MPI_Finalize, and after
 * it MPI may not be called at all (Open MPI aborts the job). */
static int mpi_up(const struct mpi_bs *m, const char *what)
{
    int done = 1;
    if (m->finalized(&done) != 0 || done) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi: %s after MPI_Finalize: call gshmem_finalize before "
                      "MPI_Finalize", what);
        return 0;
    }
    return 1;
}

static int mpi_allgather(struct gshmemi_bootstrap *bs, const void *in, void *out, size_t len)
{
    struct mpi_bs *m = (struct mpi_bs *)bs;
    if (!mpi_up(m, "an all-gather"))
        return GSHMEM_ERR_BOOTSTRAP;
    if (len > INT_MAX) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi: an all-gather of %zu bytes a rank is more than MPI's int "
                      "count", len);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (m->allgather(in, (int)len, m->byte, out, (int)len, m->byte, m->comm) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi: MPI_Allgather failed");
        return GSHMEM_ERR_BOOTSTRAP;
    }
    return 0;
}

static int mpi_barrier(struct gshmemi_bootstrap *bs)
{
    struct mpi_bs *m = (struct mpi_bs *)bs;
    if (!mpi_up(m, "a barrier"))
        return GSHMEM_ERR_BOOTSTRAP;
    if (m->barrier(m->comm) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi: MPI_Barrier failed");
        return GSHMEM_ERR_BOOTSTRAP;
    }
    return 0;
}

static void mpi_abort(struct gshmemi_bootstrap *bs, int status, const char *msg)
{
    struct mpi_bs *m = (struct mpi_bs *)bs;
    int done = 1;
    (void)msg; /* logged by the caller */
    if (m->finalized(&done) == 0 && !done)
        m->abort(m->comm, status);
}

static void mpi_finalize(struct gshmemi_bootstrap *bs)
{
    struct mpi_bs *m = (struct mpi_bs *)bs;
    int done = 1;
    if (m->finalized(&done) == 0 && !done) /* an error path may end after MPI_Finalize */
        m->comm_free(&m->comm);
    free(m);
}

static const struct gshmemi_bootstrap_ops mpi_ops = {
    .name = "mpi",
    .allgather = mpi_allgather,
    .barrier = mpi_barrier,
    .abort = mpi_abort,
    .finalize = mpi_finalize,
};

/* An MPI function of the process, or NULL (logged). */
static void *mpi_symbol(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (f == NULL)
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: %s is not in this process: link "
                      "the program with MPI (or open libmpi with RTLD_GLOBAL)", name);
    return f;
}

int gshmemi_bootstrap_mpi_world_open(struct gshmemi_bootstrap **out)
{
    /* Open MPI's MPI_COMM_WORLD is the address of this object. */
    mpi_handle world = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
    if (world == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_BOOTSTRAP=mpi: no Open MPI library in this process "
                      "(link the program with it and call MPI_Init before gshmem_init)");
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    return gshmemi_bootstrap_mpi_open(&world, out);
}

int gshmemi_bootstrap_mpi_open(const void *comm_ptr, struct gshmemi_bootstrap **out)
{
    if (comm_ptr == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: attr.mpi_comm is NULL (it must "
                      "point to an MPI_Comm)");
        return GSHMEM_ERR_INVALID_ARG;
    }
    void *byte = dlsym(RTLD_DEFAULT, "ompi_mpi_byte");
    if (byte == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: only Open MPI's library is "
                      "supported (none in this process); launch with mpirun and call "
                      "gshmem_init (PMIx), or pass a unique id");
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    struct mpi_bs *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: out of host memory");
        return GSHMEM_ERR_NO_MEMORY;
    }
    int (*initialized)(int *) = (int (*)(int *))mpi_symbol("MPI_Initialized");
    int (*rank_of)(mpi_handle, int *) = (int (*)(mpi_handle, int *))mpi_symbol("MPI_Comm_rank");
    int (*size_of)(mpi_handle, int *) = (int (*)(mpi_handle, int *))mpi_symbol("MPI_Comm_size");
    int (*dup)(mpi_handle, mpi_handle *) =
        (int (*)(mpi_handle, mpi_handle *))mpi_symbol("MPI_Comm_dup");
    m->allgather = (int (*)(const void *, int, mpi_handle, void *, int, mpi_handle, mpi_handle))
        mpi_symbol("MPI_Allgather");
    m->barrier = (int (*)(mpi_handle))mpi_symbol("MPI_Barrier");
    m->abort = (int (*)(mpi_handle, int))mpi_symbol("MPI_Abort");
    m->comm_free = (int (*)(mpi_handle *))mpi_symbol("MPI_Comm_free");
    m->finalized = (int (*)(int *))mpi_symbol("MPI_Finalized");
    m->byte = byte;
    int up = 0, st = GSHMEM_ERR_BOOTSTRAP;
    if (initialized == NULL || rank_of == NULL || size_of == NULL || dup == NULL ||
        m->allgather == NULL || m->barrier == NULL || m->abort == NULL || m->comm_free == NULL ||
        m->finalized == NULL)
        goto err;
    if (initialized(&up) != 0 || !up) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: MPI is not initialised (call "
                      "MPI_Init first)");
        goto err;
    }
    const mpi_handle comm = *(const mpi_handle *)comm_ptr;
    if (dup(comm, &m->comm) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: the communicator at attr.mpi_comm "
                      "cannot be duplicated");
        goto err;
    }
    if (rank_of(m->comm, &m->base.rank) != 0 || size_of(m->comm, &m->base.size) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: the communicator's rank or size "
                      "cannot be read");
        goto err_comm;
    }
    m->base.ops = &mpi_ops;
    m->base.local_rank = -1; /* from the hosts' identities (peers.c) */
    m->base.launcher_ctrl_fd = -1;
    /* The job secret is rank 0's random bytes. */
    unsigned char *secrets = malloc((size_t)m->base.size * sizeof(m->base.secret));
    if (secrets == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto err_comm;
    }
    if (gshmemi_random_bytes(m->base.secret, sizeof(m->base.secret)) != 0 ||
        mpi_allgather(&m->base, m->base.secret, secrets, sizeof(m->base.secret)) != 0) {
        free(secrets);
        goto err_comm;
    }
    memcpy(m->base.secret, secrets, sizeof(m->base.secret));
    free(secrets);
    m->base.job_id = gshmemi_hash64(m->base.secret, sizeof(m->base.secret), 0x6a6f62);
    *out = &m->base;
    return 0;

err_comm:
    m->comm_free(&m->comm);
err:
    free(m);
    return st;
}
