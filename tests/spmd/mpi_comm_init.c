/*
 * gshmem started on an application's MPI communicator
 * (GSHMEMX_INIT_WITH_MPI_COMM), as an MPI program does it: MPI_Init, then
 * gshmemx_init_attr with attr.mpi_comm pointing to a communicator whose
 * ranks run backwards (MPI_Comm_split keyed by -rank), so that gshmem's PE
 * numbers must be the communicator's, not the launcher's.  Checked: my_pe
 * and n_pes, a ring of puts, a sum reduction, and that the program's own
 * MPI traffic on the communicator still works after init.
 *
 * With the argument "world", gshmem_init instead, under GSHMEM_BOOTSTRAP=mpi
 * (or NVSHMEM_BOOTSTRAP=MPI): the PEs are MPI_COMM_WORLD's ranks.
 *
 * gshmem does not depend on MPI, and neither does this test's build: it
 * opens an MPI library at run time (RTLD_GLOBAL, as a linked program would
 * have it) and exits 77 (skipped) where there is none: Open MPI's, or with
 * the argument "mpich" MPICH's, whose ABI differs (int handles).
 *
 *   mpirun -np N ./mpi_comm_init [world]
 *   mpiexec.mpich -n N ./mpi_comm_init mpich [world]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmemx.h>

extern char **environ;

/* An MPI_Comm of either ABI: Open MPI's pointers, MPICH's ints. */
union comm {
    void *p;
    int i;
};
static int mpich;

static void *need(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (f == NULL) {
        fprintf(stderr, "mpi_comm_init: %s not in the MPI library\n", name);
        exit(1);
    }
    return f;
}

/* MPI_Comm_rank, MPI_Comm_size */
static int comm_out(void *fn, union comm c, int *v)
{
    return mpich ? ((int (*)(int, int *))fn)(c.i, v) : ((int (*)(void *, int *))fn)(c.p, v);
}

static int comm_split(void *fn, union comm c, int color, int key, union comm *out)
{
    return mpich ? ((int (*)(int, int, int, int *))fn)(c.i, color, key, &out->i)
                 : ((int (*)(void *, int, int, void **))fn)(c.p, color, key, &out->p);
}

static int comm_barrier(void *fn, union comm c)
{
    return mpich ? ((int (*)(int))fn)(c.i) : ((int (*)(void *))fn)(c.p);
}

static int comm_free(void *fn, union comm *c)
{
    return mpich ? ((int (*)(int *))fn)(&c->i) : ((int (*)(void **))fn)(&c->p);
}

int main(int argc, char **argv)
{
    int arg = 1;
    mpich = argc > arg && strcmp(argv[arg], "mpich") == 0;
    arg += mpich;
    const int world_mode = argc > arg && strcmp(argv[arg], "world") == 0;
    static const char *const ompi_names[] = {"libmpi.so.40", "libmpi.so", NULL};
    static const char *const mpich_names[] = {"libmpich.so.12", "libmpich.so", NULL};
    void *lib = NULL;
    for (const char *const *name = mpich ? mpich_names : ompi_names; *name != NULL && lib == NULL; name++)
        lib = dlopen(*name, RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL || (!mpich && dlsym(lib, "ompi_mpi_comm_world") == NULL)) {
        printf("mpi_comm_init: no %s library: skipped\n", mpich ? "MPICH" : "Open MPI");
        return 77;
    }
    int (*init)(int *, char ***) = (int (*)(int *, char ***))need(lib, "MPI_Init");
    int (*finalize)(void) = (int (*)(void))need(lib, "MPI_Finalize");
    void *rank_of = need(lib, "MPI_Comm_rank"), *size_of = need(lib, "MPI_Comm_size");
    void *split = need(lib, "MPI_Comm_split"), *barrier = need(lib, "MPI_Barrier");
    void *free_comm = need(lib, "MPI_Comm_free");
    union comm world;
    if (mpich)
        world.i = 0x44000000; /* MPICH's MPI_COMM_WORLD */
    else
        world.p = need(lib, "ompi_mpi_comm_world"); /* Open MPI's is its address */

    int wrank, wsize, bad = 0;
    if (init(NULL, NULL) != 0 || comm_out(rank_of, world, &wrank) != 0 ||
        comm_out(size_of, world, &wsize) != 0) {
        fprintf(stderr, "mpi_comm_init: MPI_Init failed\n");
        return 1;
    }
    union comm backwards;
    if (comm_split(split, world, 0, world_mode ? wrank : -wrank, &backwards) != 0) {
        fprintf(stderr, "mpi_comm_init: MPI_Comm_split failed\n");
        return 1;
    }
    gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
    attr.mpi_comm = mpich ? (void *)&backwards.i : (void *)&backwards.p;
    if (world_mode) {
        /* Without PMIx's variables only the MPI bootstrap can see the other
         * ranks: any other would start a single PE, which the check below
         * refuses (MPICH's launcher sets none). */
        for (int again = 1; again;) {
            again = 0;
            for (char **e = environ; *e != NULL && !again; e++)
                if (strncmp(*e, "PMIX_", 5) == 0) {
                    char name[256];
                    snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
                    unsetenv(name);
                    again = 1;
                }
        }
        gshmem_init(); /* GSHMEM_BOOTSTRAP=mpi: the world communicator */
    } else if (gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0) {
        fprintf(stderr, "mpi_comm_init: rank %d: gshmemx_init_attr failed\n", wrank);
        return 1;
    }
    const int me = gshmem_my_pe(), n = gshmem_n_pes();
    const int want = world_mode ? wrank : wsize - 1 - wrank;
    if (me != want || n != wsize) {
        fprintf(stderr, "mpi_comm_init: world rank %d of %d is pe %d of %d, want pe %d of %d\n",
                wrank, wsize, me, n, want, wsize);
        bad++;
    }
    long *ring = gshmem_calloc(2, sizeof(long)), *sum = gshmem_malloc(sizeof(long));
    gshmem_long_p(&ring[0], 1000 + me, (me + 1) % n);
    gshmem_barrier_all();
    if (ring[0] != 1000 + (me + n - 1) % n) {
        fprintf(stderr, "mpi_comm_init: pe %d got %ld from its left neighbour, want %d\n", me,
                ring[0], 1000 + (me + n - 1) % n);
        bad++;
    }
    ring[1] = me + 1;
    gshmem_long_sum_reduce(GSHMEM_TEAM_WORLD, sum, &ring[1], 1);
    if (*sum != (long)n * (n + 1) / 2) {
        fprintf(stderr, "mpi_comm_init: pe %d: sum %ld, want %ld\n", me, *sum,
                (long)n * (n + 1) / 2);
        bad++;
    }
    if (comm_barrier(barrier, backwards) != 0) { /* the application's own traffic still flows */
        fprintf(stderr, "mpi_comm_init: MPI_Barrier after init failed\n");
        bad++;
    }
    gshmem_free(sum);
    gshmem_free(ring);
    gshmem_finalize();
    comm_free(free_comm, &backwards);
    finalize();
    if (bad == 0 && me == 0)
        printf("mpi_comm_init: %d PEs on %s (%s): pe numbers, a ring of puts, a sum reduction and "
               "the program's own MPI barrier: all checks passed\n", n, mpich ? "MPICH" : "Open MPI",
               world_mode ? "MPI_COMM_WORLD (GSHMEM_BOOTSTRAP=mpi)"
                          : "a backwards MPI communicator");
    return bad == 0 ? 0 : 1;
}
