/* mpi bootstrap: the application's MPI communicator (GSHMEMX_INIT_WITH_MPI_COMM,
 * NVSHMEM's NVSHMEMX_INIT_WITH_MPI_COMM).  gshmem does not link MPI: the
 * functions are those of the MPI library the application already runs,
 * found in the process at init.  Ranks, size and the bootstrap's
 * collectives come from a duplicate of the communicator, so that they
 * never match the application's own messages.
 *
 * The two ABIs MPI libraries have: Open MPI's, whose handles are pointers
 * to its objects (MPI_BYTE is &ompi_mpi_byte), and MPICH's, shared by the
 * libraries derived from it (MPICH, Intel MPI, MVAPICH, Cray MPICH), whose
 * handles are ints with fixed values (MPI_BYTE 0x4c00010d, MPI_COMM_WORLD
 * 0x44000000).  The library says which it is: Open MPI by its symbols, the
 * others by MPI_Get_library_version.  Any other is refused with a message. */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "core/log.h"
#include "core/util.h"

enum mpi_abi { MPI_ABI_OPENMPI, MPI_ABI_MPICH };

/* An MPI_Comm or MPI_Datatype of either ABI. */
union mpi_handle {
    void *p; /* Open MPI */
    int i;   /* MPICH */
};

#define MPICH_BYTE 0x4c00010d
#define MPICH_COMM_WORLD 0x44000000

/* The library's functions as dlsym gives them: each call below casts to the
 * prototype of the ABI in use (handles by value differ in type). */
struct mpi_fns {
    void *allgather, *barrier, *abort, *comm_free, *comm_dup, *comm_rank, *comm_size;
    int (*initialized)(int *);
    int (*finalized)(int *);
};

struct mpi_bs {
    struct gshmemi_bootstrap base;
    enum mpi_abi abi;
    union mpi_handle comm; /* gshmem's duplicate */
    union mpi_handle byte; /* MPI_BYTE */
    struct mpi_fns f;
};

typedef int (*ompi_allgather_fn)(const void *, int, void *, void *, int, void *, void *);
typedef int (*mpich_allgather_fn)(const void *, int, int, void *, int, int, int);

static int call_allgather(const struct mpi_bs *m, const void *in, int len, void *out)
{
    if (m->abi == MPI_ABI_OPENMPI)
        return ((ompi_allgather_fn)m->f.allgather)(in, len, m->byte.p, out, len, m->byte.p, m->comm.p);
    return ((mpich_allgather_fn)m->f.allgather)(in, len, m->byte.i, out, len, m->byte.i, m->comm.i);
}

/* MPI_Barrier, MPI_Abort, MPI_Comm_rank and MPI_Comm_size: one handle by
 * value, then at most an int or an int pointer. */
static int call_comm(const struct mpi_bs *m, void *fn, union mpi_handle comm)
{
    return m->abi == MPI_ABI_OPENMPI ? ((int (*)(void *))fn)(comm.p) : ((int (*)(int))fn)(comm.i);
}

static int call_comm_int(const struct mpi_bs *m, void *fn, union mpi_handle comm, int v)
{
    return m->abi == MPI_ABI_OPENMPI ? ((int (*)(void *, int))fn)(comm.p, v)
                                     : ((int (*)(int, int))fn)(comm.i, v);
}

static int call_comm_out(const struct mpi_bs *m, void *fn, union mpi_handle comm, int *v)
{
    return m->abi == MPI_ABI_OPENMPI ? ((int (*)(void *, int *))fn)(comm.p, v)
                                     : ((int (*)(int, int *))fn)(comm.i, v);
}

/* MPI_Comm_dup into *out, MPI_Comm_free of *c. */
static int call_dup(const struct mpi_bs *m, union mpi_handle comm, union mpi_handle *out)
{
    return m->abi == MPI_ABI_OPENMPI ? ((int (*)(void *, void **))m->f.comm_dup)(comm.p, &out->p)
                                     : ((int (*)(int, int *))m->f.comm_dup)(comm.i, &out->i);
}

static int call_free(const struct mpi_bs *m, union mpi_handle *c)
{
    return m->abi == MPI_ABI_OPENMPI ? ((int (*)(void **))m->f.comm_free)(&c->p)
                                     : ((int (*)(int *))m->f.comm_free)(&c->i);
}

/* MPI still up: gshmem_finalize must come before MPI_Finalize, and after
 * it MPI may not be called at all (Open MPI aborts the job). */
static int mpi_up(const struct mpi_bs *m, const char *what)
{
    int done = 1;
    if (m->f.finalized(&done) != 0 || done) {
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
    if (call_allgather(m, in, (int)len, out) != 0) {
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
    if (call_comm(m, m->f.barrier, m->comm) != 0) {
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
    if (m->f.finalized(&done) == 0 && !done)
        call_comm_int(m, m->f.abort, m->comm, status);
}

static void mpi_finalize(struct gshmemi_bootstrap *bs)
{
    struct mpi_bs *m = (struct mpi_bs *)bs;
    int done = 1;
    if (m->f.finalized(&done) == 0 && !done) /* an error path may end after MPI_Finalize */
        call_free(m, &m->comm);
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
        GSHMEMI_ERROR(BOOTSTRAP, "mpi bootstrap: %s is not in this process: link the program "
                      "with MPI (or open libmpi with RTLD_GLOBAL)", name);
    return f;
}

/* The ABI of the MPI library in the process, or -1 (logged, `how` naming
 * the way gshmem was asked to use MPI). */
static int mpi_abi_here(const char *how)
{
    if (dlsym(RTLD_DEFAULT, "ompi_mpi_byte") != NULL)
        return MPI_ABI_OPENMPI;
    int (*version)(char *, int *) = (int (*)(char *, int *))dlsym(RTLD_DEFAULT,
                                                                   "MPI_Get_library_version");
    if (version == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "%s: no MPI library in this process (link the program with "
                      "it and call MPI_Init before gshmem's init)", how);
        return -1;
    }
    char text[8192]; /* MPICH's MPI_MAX_LIBRARY_VERSION_STRING */
    int len = 0;
    if (version(text, &len) != 0 || len < 0 || len >= (int)sizeof(text))
        len = 0;
    text[len] = '\0';
    static const char *const mpich_family[] = {"MPICH", "Intel(R) MPI", "MVAPICH", "MVAPICH2"};
    for (size_t i = 0; i < sizeof(mpich_family) / sizeof(mpich_family[0]); i++)
        if (strstr(text, mpich_family[i]) != NULL)
            return MPI_ABI_MPICH;
    GSHMEMI_ERROR(BOOTSTRAP, "%s: the MPI library in this process is neither Open MPI nor of "
                  "MPICH's family (it says \"%.60s\"); launch with mpirun and call gshmem_init "
                  "(PMIx), or pass a unique id", how, text);
    return -1;
}

static int mpi_open(int abi, union mpi_handle comm, struct gshmemi_bootstrap **out);

int gshmemi_bootstrap_mpi_world_open(struct gshmemi_bootstrap **out)
{
    const int abi = mpi_abi_here("GSHMEM_BOOTSTRAP=mpi");
    if (abi < 0)
        return GSHMEM_ERR_NOT_SUPPORTED;
    union mpi_handle world;
    if (abi == MPI_ABI_OPENMPI)
        world.p = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world"); /* MPI_COMM_WORLD is its address */
    else
        world.i = MPICH_COMM_WORLD;
    if (abi == MPI_ABI_OPENMPI && world.p == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_BOOTSTRAP=mpi: Open MPI's ompi_mpi_comm_world is not in "
                      "this process");
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    return mpi_open(abi, world, out);
}

int gshmemi_bootstrap_mpi_open(const void *comm_ptr, struct gshmemi_bootstrap **out)
{
    if (comm_ptr == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEMX_INIT_WITH_MPI_COMM: attr.mpi_comm is NULL (it must "
                      "point to an MPI_Comm)");
        return GSHMEM_ERR_INVALID_ARG;
    }
    const int abi = mpi_abi_here("GSHMEMX_INIT_WITH_MPI_COMM");
    if (abi < 0)
        return GSHMEM_ERR_NOT_SUPPORTED;
    union mpi_handle comm;
    if (abi == MPI_ABI_OPENMPI)
        comm.p = *(void *const *)comm_ptr;
    else
        comm.i = *(const int *)comm_ptr;
    return mpi_open(abi, comm, out);
}

static int mpi_open(int abi, union mpi_handle comm, struct gshmemi_bootstrap **out)
{
    struct mpi_bs *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi bootstrap: out of host memory");
        return GSHMEM_ERR_NO_MEMORY;
    }
    m->abi = (enum mpi_abi)abi;
    if (abi == MPI_ABI_OPENMPI)
        m->byte.p = dlsym(RTLD_DEFAULT, "ompi_mpi_byte");
    else
        m->byte.i = MPICH_BYTE;
    struct mpi_fns *f = &m->f;
    f->initialized = (int (*)(int *))mpi_symbol("MPI_Initialized");
    f->finalized = (int (*)(int *))mpi_symbol("MPI_Finalized");
    f->comm_rank = mpi_symbol("MPI_Comm_rank");
    f->comm_size = mpi_symbol("MPI_Comm_size");
    f->comm_dup = mpi_symbol("MPI_Comm_dup");
    f->allgather = mpi_symbol("MPI_Allgather");
    f->barrier = mpi_symbol("MPI_Barrier");
    f->abort = mpi_symbol("MPI_Abort");
    f->comm_free = mpi_symbol("MPI_Comm_free");
    int up = 0, st = GSHMEM_ERR_BOOTSTRAP;
    if (f->initialized == NULL || f->finalized == NULL || f->comm_rank == NULL ||
        f->comm_size == NULL || f->comm_dup == NULL || f->allgather == NULL || f->barrier == NULL ||
        f->abort == NULL || f->comm_free == NULL)
        goto err;
    if (f->initialized(&up) != 0 || !up) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi bootstrap: MPI is not initialised (call MPI_Init first)");
        goto err;
    }
    if (call_dup(m, comm, &m->comm) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi bootstrap: the communicator cannot be duplicated");
        goto err;
    }
    if (call_comm_out(m, f->comm_rank, m->comm, &m->base.rank) != 0 ||
        call_comm_out(m, f->comm_size, m->comm, &m->base.size) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "mpi bootstrap: the communicator's rank or size cannot be read");
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
    call_free(m, &m->comm);
err:
    free(m);
    return st;
}
