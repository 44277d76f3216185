/* An OpenSHMEM program that reaches symmetric memory through calls alone
 * (no loads or stores of its own), so it also runs with the heap in GPU
 * memory (GSHMEM_HEAP=device, run on the H200 pair by
 * scripts/gpu-session.sh) as well as on the host heap (CI): long double RMA
 * and strided RMA, the complex and long double reductions, the
 * active-set collectives with pSync and pWrk in the heap, a lock, fetching
 * atomics' nbi forms, waits, a context, a team's reduction and alltoall,
 * and static data beside the heap.  Every value read back with a get and
 * checked against a reference computed here. */
#include <complex.h>

#include "compat_util.h"

static long on_pe0; /* static data: symmetric wherever the heap is */

static long get_long(const long *p) { return shmem_long_g((long *)p, shmem_my_pe()); }

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    enum { N = 37 };

    /* long double RMA, contiguous and strided */
    long double *ld = shmem_calloc(4 * N, sizeof(long double)), src[N], got[2 * N];
    for (int i = 0; i < N; i++)
        src[i] = (long double)(me * 1000 + i) / 3.0L;
    shmem_barrier_all();
    shmem_longdouble_put(ld, src, N, right);
    shmem_longdouble_iput(ld + N, src, 2, 1, N, right);
    shmem_barrier_all();
    shmem_longdouble_get(got, ld, N, me);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == (long double)(left * 1000 + i) / 3.0L, "longdouble_put [%d]", i);
    shmem_longdouble_iget(got, ld + N, 1, 2, N, me);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == (long double)(left * 1000 + i) / 3.0L, "longdouble_iput [%d]", i);

    /* complex and long double reductions over the world */
    double _Complex *cs = shmem_malloc(N * sizeof(double _Complex)),
                    *cd = shmem_malloc(N * sizeof(double _Complex)), cv[N], cw[N];
    long double *ls = shmem_malloc(N * sizeof(long double)), *lm = shmem_malloc(N * sizeof(long double));
    for (int i = 0; i < N; i++) {
        cv[i] = (double)(me + i) + (double)(i - me) * I;
        src[i] = (long double)((me * 7 + i * 3) % 11) + 0.25L;
    }
    shmem_putmem(cs, cv, sizeof(cv), me);
    shmem_putmem(ls, src, sizeof(src), me);
    shmem_barrier_all();
    CHECK(shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, cd, cs, N) == 0, "complexd_sum_reduce");
    CHECK(shmem_longdouble_max_reduce(SHMEM_TEAM_WORLD, lm, ls, N) == 0, "longdouble_max_reduce");
    shmem_getmem(cw, cd, sizeof(cw), me);
    shmem_getmem(got, lm, N * sizeof(long double), me);
    for (int i = 0; i < N; i++) {
        double re = 0, im = 0;
        long double mx = -1;
        for (int p = 0; p < npes; p++) {
            re += p + i, im += i - p;
            long double v = (long double)((p * 7 + i * 3) % 11) + 0.25L;
            mx = v > mx ? v : mx;
        }
        CHECK(creal(cw[i]) == re && cimag(cw[i]) == im, "complexd sum [%d]", i);
        CHECK(got[i] == mx, "longdouble max [%d]", i);
    }

    /* the active-set collectives, pSync and pWrk in the heap */
    long *psync = shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
    long *pwrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(long));
    long init[SHMEM_REDUCE_SYNC_SIZE], *a = shmem_malloc(N * sizeof(long)),
         *b = shmem_malloc(npes * N * sizeof(long)), lv[N], lw[N * 64];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        init[i] = SHMEM_SYNC_VALUE;
    shmem_putmem(psync, init, sizeof(init), me);
    for (int i = 0; i < N; i++)
        lv[i] = (long)compat_rand(me, 1, (uint64_t)i) % 1000;
    shmem_putmem(a, lv, sizeof(lv), me);
    shmem_barrier_all();
    shmem_long_sum_to_all(b, a, N, 0, 0, npes, pwrk, psync);
    shmem_getmem(lw, b, N * sizeof(long), me);
    for (int i = 0; i < N; i++) {
        long s = 0;
        for (int p = 0; p < npes; p++)
            s += (long)compat_rand(p, 1, (uint64_t)i) % 1000;
        CHECK(lw[i] == s, "long_sum_to_all [%d]: %ld, expected %ld", i, lw[i], s);
    }
    shmem_barrier_all(); /* pSync is reused: every PE is past the reduction */
    shmem_fcollect64(b, a, N, 0, 0, npes, psync);
    if (npes <= 64) {
        shmem_getmem(lw, b, (size_t)npes * N * sizeof(long), me);
        for (int p = 0; p < npes; p++)
            for (int i = 0; i < N; i++)
                CHECK(lw[p * N + i] == (long)compat_rand(p, 1, (uint64_t)i) % 1000,
                      "fcollect64 block %d [%d]", p, i);
    }

    /* a lock around a get-then-put counter on pe 0 */
    long *lock = shmem_calloc(1, sizeof(long)), *counter = shmem_calloc(1, sizeof(long));
    for (int k = 0; k < 20; k++) {
        shmem_set_lock(lock);
        shmem_long_p(counter, shmem_long_g(counter, 0) + 1, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    CHECK(shmem_long_g(counter, 0) == 20L * npes, "counter under the lock: %ld",
          shmem_long_g(counter, 0));

    /* fetching atomics' nbi forms, a wait, and static data */
    long *word = shmem_calloc(1, sizeof(long)), fetched[8], *flag = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    for (int k = 0; k < 8; k++)
        shmem_long_atomic_fetch_add_nbi(&fetched[k], word, 1, right);
    shmem_long_atomic_add(&on_pe0, me + 1, 0);
    shmem_quiet();
    for (int k = 1; k < 8; k++)
        CHECK(fetched[k] == fetched[k - 1] + 1, "fetch_add_nbi in order: %ld then %ld",
              fetched[k - 1], fetched[k]);
    shmem_long_atomic_set(flag, me + 100, right);
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, left + 100);
    CHECK(shmem_long_test(flag, SHMEM_CMP_EQ, left + 100), "test after wait_until");
    shmem_barrier_all();
    CHECK(get_long(word) == 8, "fetch_add_nbi total: %ld", get_long(word));
    if (me == 0)
        CHECK(on_pe0 == (long)npes * (npes + 1) / 2, "static data: %ld", on_pe0);

    /* a context's puts, completed by its quiet */
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    shmem_ctx_long_put(ctx, a, lv, N, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    shmem_getmem(lw, a, N * sizeof(long), me);
    for (int i = 0; i < N; i++)
        CHECK(lw[i] == (long)compat_rand(left, 1, (uint64_t)i) % 1000, "ctx put [%d]", i);
    shmem_ctx_destroy(ctx);

    /* the even PEs' team: a reduction and an alltoall */
    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    int *ti = shmem_malloc(64 * sizeof(int)), *to = shmem_malloc(64 * sizeof(int)), tv[64];
    if (even != SHMEM_TEAM_INVALID) {
        const int tn = shmem_team_n_pes(even), tme = shmem_team_my_pe(even);
        for (int i = 0; i < tn; i++)
            tv[i] = tme * 100 + i;
        shmem_putmem(ti, tv, (size_t)tn * sizeof(int), me);
        shmem_team_sync(even);
        CHECK(shmem_int_alltoall(even, to, ti, 1) == 0, "alltoall");
        shmem_getmem(tv, to, (size_t)tn * sizeof(int), me);
        for (int p = 0; p < tn; p++)
            CHECK(tv[p] == p * 100 + tme, "alltoall from %d: %d", p, tv[p]);
        CHECK(shmem_int_sum_reduce(even, to, ti, 1) == 0, "team sum_reduce");
        int s = shmem_int_g(to, me), want = 0;
        for (int p = 0; p < tn; p++)
            want += p * 100;
        CHECK(s == want, "team sum: %d, expected %d", s, want);
        shmem_team_destroy(even);
    }
    shmem_free(to);
    shmem_free(ti);
    shmem_free(flag);
    shmem_free(word);
    shmem_free(counter);
    shmem_free(lock);
    shmem_free(b);
    shmem_free(a);
    shmem_free(pwrk);
    shmem_free(psync);
    shmem_free(lm);
    shmem_free(ls);
    shmem_free(cd);
    shmem_free(cs);
    shmem_free(ld);
    COMPAT_DONE();
}
