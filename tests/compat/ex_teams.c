/* OpenSHMEM programs in the style of the specification's examples, for
 * teams and collectives: the even PEs split off a team, broadcast from its
 * last member, sum a vector over it, and the world gathers every PE's
 * number (fcollect) and exchanges blocks (alltoall); min and max of the
 * PE numbers through the C11 generic forms. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), errors = 0;
    shmem_team_t even;

    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    long *src = shmem_malloc(4 * sizeof(long)), *dst = shmem_malloc(4 * sizeof(long));
    for (int i = 0; i < 4; i++)
        src[i] = me * 10 + i;
    if (even != SHMEM_TEAM_INVALID) {
        int n = shmem_team_n_pes(even), last = n - 1;
        shmem_long_broadcast(even, dst, src, 4, last);
        for (int i = 0; i < 4; i++)
            errors += dst[i] != 2 * last * 10 + i;
        shmem_long_sum_reduce(even, dst, src, 4);
        for (int i = 0; i < 4; i++) /* the sum of 20 k + i over the members */
            errors += dst[i] != 20L * n * (n - 1) / 2 + (long)i * n;
        shmem_team_destroy(even);
    }

    int *mine = shmem_malloc(sizeof(int)), *all = shmem_malloc((size_t)npes * sizeof(int));
    *mine = me;
    shmem_barrier_all();
    shmem_int_fcollect(SHMEM_TEAM_WORLD, all, mine, 1);
    for (int i = 0; i < npes; i++)
        errors += all[i] != i;

    int *out = shmem_malloc((size_t)npes * sizeof(int)), *in = shmem_malloc((size_t)npes * sizeof(int));
    for (int j = 0; j < npes; j++)
        out[j] = me * 100 + j; /* block j goes to PE j */
    shmem_barrier_all();
    shmem_int_alltoall(SHMEM_TEAM_WORLD, in, out, 1);
    for (int i = 0; i < npes; i++)
        errors += in[i] != i * 100 + me;

    shmem_min_reduce(SHMEM_TEAM_WORLD, all, mine, 1);
    errors += all[0] != 0;
    shmem_max_reduce(SHMEM_TEAM_WORLD, all, mine, 1);
    errors += all[0] != npes - 1;

    shmem_barrier_all();
    shmem_free(in);
    shmem_free(out);
    shmem_free(all);
    shmem_free(mine);
    shmem_free(dst);
    shmem_free(src);
    if (errors != 0) {
        fprintf(stderr, "pe %d: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("ex_teams: %d PEs, no errors\n", npes);
    shmem_finalize();
    return 0;
}
