/*
 * host_coll: gshmem's blocking host collectives on GSHMEM_TEAM_WORLD, on the
 * host heap, next to a plain shared-memory reference measured in the same
 * run by the same processes.
 *
 *   gshmrun -n N ./bench/host_coll [max_bytes]      (N >= 2, host heap)
 *
 * Operations: barrier_all, barrier(team), team_sync, broadcastmem (root 0),
 * fcollectmem, alltoallmem, float_sum_reduce, float_sum_reducescatter, from
 * 8 B to max_bytes (default 16 MiB; rounded down to 8 B) in powers of 4, and
 * max_bytes itself where the powers of 4 miss it.  "bytes" is the call's own
 * count in bytes: the vector of broadcast and reduce, each PE's block of
 * fcollect and alltoall (their dest, and alltoall's source, hold N blocks),
 * each PE's result of reducescatter (its source holds N blocks).
 *
 * The reference does the same operations without gshmem: one extra shared
 * region mapped by every PE (each PE's source and dest live in it), memcpy,
 * and a sense-reversing barrier on C11 atomics in that region.  Its data
 * operations meet at entry and at exit as gshmem's must (at entry every
 * dest is free and every source ready; at exit every dest is complete and
 * every source free again), so it gives the same guarantees: it is the floor
 * a CPU implementation can approach.  Broadcast pulls (every PE copies from
 * the root in parallel), fcollect and alltoall push; reductions combine
 * straight from every PE's source (each PE its part), then push the part.
 *
 * Each point: a calibration, a warm-up run, then 7 timed runs of `iters`
 * calls (a run takes about RUN_S); a run's time is the slowest PE's; the
 * median run gives us per call.  Every size is checked once for both: inputs
 * from PE and index, dest poisoned with the complement of what it should
 * receive, every element compared with values computed from every PE's
 * regenerated inputs.  A wrong value is reported by the PE that saw it
 * (PE, operation, size, element) and the run exits 1.
 * One line per point: "RESULT bench=host_coll op=... bytes=... pes=N us=...
 * ref_us=... ratio=..." (ratio = us / ref_us).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gshmem.h>

#include "bench_util.h"

#define RUNS 7
#define RUN_S 4e-3        /* target length of one timed run */
#define MAX_ITERS 200000L
#define GUARD 64          /* bytes after each dest that no call may write */
#define REF_TIMEOUT_S 120 /* a reference barrier waiting longer ends the job */

enum op {
    OP_BARRIER_ALL,
    OP_BARRIER,
    OP_SYNC,
    OP_BROADCAST,
    OP_FCOLLECT,
    OP_ALLTOALL,
    OP_REDUCE,
    OP_REDUCESCATTER,
    N_OPS
};

static const struct {
    const char *name;
    int sized;    /* moves data (else a barrier: one point, bytes=0) */
    int floats;   /* the data are floats, summed */
} ops[N_OPS] = {
    [OP_BARRIER_ALL] = {.name = "barrier_all"},
    [OP_BARRIER] = {.name = "barrier"},
    [OP_SYNC] = {.name = "team_sync"},
    [OP_BROADCAST] = {.name = "broadcastmem", .sized = 1},
    [OP_FCOLLECT] = {.name = "fcollectmem", .sized = 1},
    [OP_ALLTOALL] = {.name = "alltoallmem", .sized = 1},
    [OP_REDUCE] = {.name = "float_sum_reduce", .sized = 1, .floats = 1},
    [OP_REDUCESCATTER] = {.name = "float_sum_reducescatter", .sized = 1, .floats = 1},
};

enum impl { IMPL_GSHMEM, IMPL_REF };
static const char *const impl_names[] = {"gshmem", "reference"};

/* The reference's barrier: arrivals counted in one line, the release
 * published in another, so waiters poll a line the arrivals do not write. */
struct ref_sync {
    alignas(64) atomic_uint count;
    alignas(64) atomic_uint sense;
};

struct bench {
    int me, n;
    size_t cap;               /* n * max_bytes: the largest source or dest */
    unsigned char *src, *dst; /* symmetric: gshmem's buffers */
    unsigned char *expect;    /* private: what this PE's dest must hold */
    /* the reference's region: the barrier, then per PE a source and a dest */
    unsigned char *region;
    size_t region_len, ref_stride;
    struct ref_sync *sync;
    unsigned sense;           /* this PE's sense of the reference barrier */
    /* symmetric scratch for agreeing across PEs */
    double *t_mine, *t_all;
    int *bad_mine, *bad_all;
};

static unsigned char *ref_src(const struct bench *b, int pe)
{
    return b->region + 4096 + (size_t)pe * b->ref_stride;
}

static unsigned char *ref_dst(const struct bench *b, int pe)
{
    return ref_src(b, pe) + b->cap;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin briefly, then yield: with more PEs than cores (oversubscribed) a
 * pure spin would hold the core the last arrival needs.  gshmem's waits
 * back off the same way (64 spins, then sched_yield). */
static void ref_barrier(struct bench *b)
{
    struct ref_sync *s = b->sync;
    const unsigned sense = b->sense ^= 1u;
    if (atomic_fetch_add_explicit(&s->count, 1, memory_order_acq_rel) == (unsigned)b->n - 1) {
        /* Last in: the others are all waiting on sense, none touches count. */
        atomic_store_explicit(&s->count, 0, memory_order_relaxed);
        atomic_store_explicit(&s->sense, sense, memory_order_release);
        return;
    }
    double deadline = 0;
    for (unsigned long spins = 0;
         atomic_load_explicit(&s->sense, memory_order_acquire) != sense; spins++) {
        if (spins < 64) {
            cpu_relax();
            continue;
        }
        sched_yield();
        if (spins % 4096 == 0) {
            if (deadline == 0)
                deadline = bench_now_s() + REF_TIMEOUT_S;
            else if (bench_now_s() > deadline) {
                fprintf(stderr, "host_coll: PE %d: reference barrier waited %d s\n", b->me,
                        REF_TIMEOUT_S);
                gshmem_global_exit(1);
            }
        }
    }
}

/* Part i of n of count elements: [*first, *first + *len). */
static void part(size_t count, int n, int i, size_t *first, size_t *len)
{
    const size_t q = count / (size_t)n, r = count % (size_t)n;
    *first = (size_t)i * q + ((size_t)i < r ? (size_t)i : r);
    *len = q + ((size_t)i < r);
}

/* out[k] += in[k], k < m.  The 16-element inner loop has a fixed trip count
 * and restrict pointers, so that -O2 (GCC's cheap vectorizer) makes it
 * vector adds: the reference should be as fast as plain C allows. */
static void add_floats(float *restrict out, const float *restrict in, size_t m)
{
    size_t k = 0;
    for (; k + 16 <= m; k += 16)
        for (size_t j = 0; j < 16; j++)
            out[k + j] += in[k + j];
    for (; k < m; k++)
        out[k] += in[k];
}

/* out[k] = sum over PEs p in order of in_p[k], k < len; in_p = PE p's
 * reference source at element `at`.  In chunks, so that out stays in L1
 * while every input streams through once. */
static void ref_sum(const struct bench *b, float *out, size_t at, size_t len)
{
    enum { CHUNK = 2048 };
    for (size_t c = 0; c < len; c += CHUNK) {
        const size_t m = len - c < CHUNK ? len - c : CHUNK;
        memcpy(out + c, (const float *)ref_src(b, 0) + at + c, m * sizeof(float));
        for (int p = 1; p < b->n; p++)
            add_floats(out + c, (const float *)ref_src(b, p) + at + c, m);
    }
}

static void ref_op(struct bench *b, enum op op, size_t size)
{
    const int me = b->me, n = b->n;
    ref_barrier(b); /* every dest free, every source ready */
    switch (op) {
    case OP_BARRIER_ALL:
    case OP_BARRIER:
    case OP_SYNC:
        return; /* the barrier alone */
    case OP_BROADCAST:
        memcpy(ref_dst(b, me), ref_src(b, 0), size);
        break;
    case OP_FCOLLECT:
        for (int k = 1; k <= n; k++) { /* starting after me: not all onto one PE */
            const int j = (me + k) % n;
            memcpy(ref_dst(b, j) + (size_t)me * size, ref_src(b, me), size);
        }
        break;
    case OP_ALLTOALL:
        for (int k = 1; k <= n; k++) {
            const int j = (me + k) % n;
            memcpy(ref_dst(b, j) + (size_t)me * size, ref_src(b, me) + (size_t)j * size, size);
        }
        break;
    case OP_REDUCE: {
        /* Reduce-scatter by parts, then all-gather of my part by memcpy. */
        size_t first, len;
        part(size / sizeof(float), n, me, &first, &len);
        float *mine = (float *)ref_dst(b, me) + first;
        ref_sum(b, mine, first, len);
        for (int k = 1; k < n; k++)
            memcpy((float *)ref_dst(b, (me + k) % n) + first, mine, len * sizeof(float));
        break;
    }
    case OP_REDUCESCATTER: {
        const size_t nreduce = size / sizeof(float);
        ref_sum(b, (float *)ref_dst(b, me), (size_t)me * nreduce, nreduce);
        break;
    }
    case N_OPS:
        break;
    }
    ref_barrier(b); /* every dest complete, every source free */
}

static void gshmem_op(struct bench *b, enum op op, size_t size)
{
    const gshmem_team_t w = GSHMEM_TEAM_WORLD;
    int rc = 0;
    switch (op) {
    case OP_BARRIER_ALL: gshmem_barrier_all(); break;
    case OP_BARRIER: rc = gshmem_barrier(w); break;
    case OP_SYNC: rc = gshmem_team_sync(w); break;
    case OP_BROADCAST: rc = gshmem_broadcastmem(w, b->dst, b->src, size, 0); break;
    case OP_FCOLLECT: rc = gshmem_fcollectmem(w, b->dst, b->src, size); break;
    case OP_ALLTOALL: rc = gshmem_alltoallmem(w, b->dst, b->src, size); break;
    case OP_REDUCE:
        rc = gshmem_float_sum_reduce(w, (float *)b->dst, (const float *)b->src,
                                     size / sizeof(float));
        break;
    case OP_REDUCESCATTER:
        rc = gshmem_float_sum_reducescatter(w, (float *)b->dst, (const float *)b->src,
                                            size / sizeof(float));
        break;
    case N_OPS: break;
    }
    if (rc != 0) {
        fprintf(stderr, "host_coll: PE %d: gshmem_%s of %zu bytes returned %d\n", b->me,
                ops[op].name, size, rc);
        gshmem_global_exit(1);
    }
}

static void run_op(struct bench *b, enum impl impl, enum op op, size_t size)
{
    if (impl == IMPL_GSHMEM)
        gshmem_op(b, op, size);
    else
        ref_op(b, op, size);
}

/* ---- inputs and expected values --------------------------------------------- */

/* Element i of PE pe's source.  Floats are small integers, so that every
 * sum is exact whatever the order and can be compared bit for bit. */
static unsigned char in_byte(int pe, size_t i, unsigned seed)
{
    return (unsigned char)(i * 131u + (i >> 8) * 7u + (unsigned)pe * 29u + seed * 17u + 1u);
}

static float in_float(int pe, size_t i, unsigned seed)
{
    return (float)((i * 7u + (unsigned)pe * 13u + seed * 3u) % 509u);
}

/* Bytes of the source every PE fills and of the dest every PE receives. */
static size_t src_len(const struct bench *b, enum op op, size_t size)
{
    return op == OP_ALLTOALL || op == OP_REDUCESCATTER ? (size_t)b->n * size : size;
}

static size_t dst_len(const struct bench *b, enum op op, size_t size)
{
    return op == OP_FCOLLECT || op == OP_ALLTOALL ? (size_t)b->n * size : size;
}

static void fill_source(const struct bench *b, enum op op, unsigned char *p, size_t len,
                        unsigned seed)
{
    if (ops[op].floats) {
        float *f = (float *)p;
        for (size_t i = 0; i < len / sizeof(float); i++)
            f[i] = in_float(b->me, i, seed);
    } else {
        for (size_t i = 0; i < len; i++)
            p[i] = in_byte(b->me, i, seed);
    }
}

/* What this PE's dest must hold, from every PE's inputs regenerated here. */
static void expected(const struct bench *b, enum op op, size_t size, unsigned seed)
{
    unsigned char *e = b->expect;
    float *ef = (float *)e;
    const size_t nf = size / sizeof(float);
    switch (op) {
    case OP_BROADCAST:
        for (size_t i = 0; i < size; i++)
            e[i] = in_byte(0, i, seed);
        break;
    case OP_FCOLLECT:
        for (int p = 0; p < b->n; p++)
            for (size_t i = 0; i < size; i++)
                e[(size_t)p * size + i] = in_byte(p, i, seed);
        break;
    case OP_ALLTOALL: /* block p: PE p's block for me */
        for (int p = 0; p < b->n; p++)
            for (size_t i = 0; i < size; i++)
                e[(size_t)p * size + i] = in_byte(p, (size_t)b->me * size + i, seed);
        break;
    case OP_REDUCE:
    case OP_REDUCESCATTER: {
        const size_t at = op == OP_REDUCE ? 0 : (size_t)b->me * nf;
        for (size_t i = 0; i < nf; i++) {
            float s = 0;
            for (int p = 0; p < b->n; p++)
                s += in_float(p, at + i, seed);
            ef[i] = s;
        }
        break;
    }
    default:
        break;
    }
}

/* Whether dest holds expect over len bytes and its guard is untouched;
 * else says where, naming this PE, the operation and the size. */
static int check(const struct bench *b, enum impl impl, enum op op, size_t size,
                 const unsigned char *dest, size_t len)
{
    for (size_t i = 0; i < GUARD; i++)
        if (dest[len + i] != 0x5a) {
            fprintf(stderr,
                    "host_coll: PE %d: %s %s at %zu bytes wrote past its dest (byte %zu)\n",
                    b->me, impl_names[impl], ops[op].name, size, len + i);
            return 0;
        }
    if (memcmp(dest, b->expect, len) == 0)
        return 1;
    size_t i = 0;
    while (dest[i] == b->expect[i])
        i++;
    if (ops[op].floats) {
        const size_t k = i / sizeof(float);
        float got, want;
        memcpy(&got, dest + k * sizeof(float), sizeof(got));
        memcpy(&want, b->expect + k * sizeof(float), sizeof(want));
        fprintf(stderr, "host_coll: PE %d: %s %s at %zu bytes: element %zu is %g, expected %g\n",
                b->me, impl_names[impl], ops[op].name, size, k, (double)got, (double)want);
    } else {
        fprintf(stderr, "host_coll: PE %d: %s %s at %zu bytes: byte %zu is %u, expected %u\n",
                b->me, impl_names[impl], ops[op].name, size, i, dest[i], b->expect[i]);
    }
    return 0;
}

/* Dest poisoned with the complement of what it must receive (so an
 * element left unwritten cannot match), its guard set. */
static void poison(const struct bench *b, unsigned char *dest, size_t len)
{
    for (size_t i = 0; i < len; i++)
        dest[i] = (unsigned char)~b->expect[i];
    memset(dest + len, 0x5a, GUARD);
}

/* Checks both implementations once at this size; ends the job on any PE's
 * wrong value, after every PE has said what it saw. */
static void verify(struct bench *b, enum op op, size_t size, unsigned seed)
{
    const size_t sl = src_len(b, op, size), dl = dst_len(b, op, size);
    int ok = 1;
    fill_source(b, op, b->src, sl, seed);
    fill_source(b, op, ref_src(b, b->me), sl, seed);
    expected(b, op, size, seed);
    poison(b, b->dst, dl);
    poison(b, ref_dst(b, b->me), dl);
    gshmem_barrier_all(); /* every source filled, every dest poisoned */
    gshmem_op(b, op, size);
    ok &= check(b, IMPL_GSHMEM, op, size, b->dst, dl);
    ref_op(b, op, size);
    ok &= check(b, IMPL_REF, op, size, ref_dst(b, b->me), dl);
    *b->bad_mine = !ok;
    gshmem_int_max_reduce(GSHMEM_TEAM_WORLD, b->bad_all, b->bad_mine, 1);
    if (*b->bad_all) {
        if (b->me == 0)
            fprintf(stderr, "host_coll: wrong values in %s at %zu bytes\n", ops[op].name, size);
        gshmem_finalize();
        exit(1);
    }
}

/* ---- timing --------------------------------------------------------------------- */

/* Seconds per call: the median over RUNS runs of the slowest PE's time. */
static double measure(struct bench *b, enum impl impl, enum op op, size_t size)
{
    /* Calibration (also the first warm-up): iters from the slowest PE. */
    enum { CAL = 4 };
    gshmem_barrier_all();
    double t0 = bench_now_s();
    for (int i = 0; i < CAL; i++)
        run_op(b, impl, op, size);
    *b->t_mine = (bench_now_s() - t0) / CAL;
    gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, b->t_all, b->t_mine, 1);
    long iters = *b->t_all > 0 ? (long)(RUN_S / *b->t_all) : MAX_ITERS;
    iters = iters < 1 ? 1 : iters > MAX_ITERS ? MAX_ITERS : iters;

    for (int r = -1; r < RUNS; r++) { /* r = -1: warm-up */
        gshmem_barrier_all();         /* every PE starts the run together */
        t0 = bench_now_s();
        for (long i = 0; i < iters; i++)
            run_op(b, impl, op, size);
        if (r >= 0)
            b->t_mine[r] = (bench_now_s() - t0) / (double)iters;
    }
    gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, b->t_all, b->t_mine, RUNS);
    return bench_median(b->t_all, RUNS);
}

/* ---- the reference's region ------------------------------------------------ */

/* PE 0 creates a POSIX shared memory object named from its pid and the
 * time, tells the others the name through a gshmem broadcast, and unlinks
 * it once every PE has it mapped (nothing left behind in /dev/shm). */
static void map_region(struct bench *b)
{
    uint64_t *token = gshmem_calloc(2, sizeof(uint64_t));
    char name[64];
    int fd = -1;
    b->ref_stride = (2 * b->cap + GUARD + 4095) & ~(size_t)4095;
    b->region_len = 4096 + (size_t)b->n * b->ref_stride;
    if (b->me == 0) {
        token[0] = ((uint64_t)getpid() << 32) ^ (uint64_t)(bench_now_s() * 1e9);
        snprintf(name, sizeof(name), "/gshmem-host_coll-%016llx", (unsigned long long)token[0]);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)b->region_len) != 0) {
            fprintf(stderr, "host_coll: PE 0: shared memory %s of %zu bytes: %s\n", name,
                    b->region_len, strerror(errno));
            gshmem_global_exit(1);
        }
    }
    gshmem_broadcastmem(GSHMEM_TEAM_WORLD, &token[1], &token[0], sizeof(uint64_t), 0);
    if (b->me != 0) {
        snprintf(name, sizeof(name), "/gshmem-host_coll-%016llx", (unsigned long long)token[1]);
        fd = shm_open(name, O_RDWR, 0);
        if (fd < 0) {
            fprintf(stderr, "host_coll: PE %d: shm_open %s: %s\n", b->me, name, strerror(errno));
            gshmem_global_exit(1);
        }
    }
    b->region = mmap(NULL, b->region_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (b->region == MAP_FAILED) {
        fprintf(stderr, "host_coll: PE %d: mmap of %zu bytes: %s\n", b->me, b->region_len,
                strerror(errno));
        gshmem_global_exit(1);
    }
    close(fd);
    b->sync = (struct ref_sync *)b->region; /* zero-filled: count 0, sense 0 */
    b->sense = 0;
    gshmem_barrier_all(); /* every PE has it mapped */
    if (b->me == 0)
        shm_unlink(name);
    gshmem_free(token);
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)16 << 20;
    max &= ~(size_t)7;
    gshmem_init();
    struct bench b = {.me = gshmem_my_pe(), .n = gshmem_n_pes()};
    if (b.n < 2 || max < 8) {
        if (b.me == 0)
            fprintf(stderr, "host_coll: run with 2 or more PEs (gshmrun -n N) and max_bytes >= 8\n");
        gshmem_global_exit(2);
    }
    b.cap = (size_t)b.n * max;
    b.src = gshmem_malloc(b.cap);
    b.dst = gshmem_malloc(b.cap + GUARD);
    b.t_mine = gshmem_malloc(RUNS * sizeof(double));
    b.t_all = gshmem_malloc(RUNS * sizeof(double));
    b.bad_mine = gshmem_malloc(sizeof(int));
    b.bad_all = gshmem_malloc(sizeof(int));
    b.expect = malloc(b.cap);
    if (b.src == NULL || b.dst == NULL || b.t_mine == NULL || b.t_all == NULL ||
        b.bad_mine == NULL || b.bad_all == NULL || b.expect == NULL) {
        fprintf(stderr, "host_coll: PE %d: out of memory for %zu-byte buffers\n", b.me, b.cap);
        gshmem_global_exit(1);
    }
    map_region(&b);

    if (b.me == 0) {
        char name[GSHMEM_MAX_NAME_LEN];
        gshmem_info_get_name(name);
        printf("# %s host_coll: %d PEs, GSHMEM_TEAM_WORLD, host heap, %ld online cores\n", name,
               b.n, sysconf(_SC_NPROCESSORS_ONLN));
        printf("# us per call, median of %d runs (a run: the slowest PE); reference: memcpy and an\n"
               "# atomic barrier in one shared region; ratio = gshmem / reference\n",
               RUNS);
        printf("%-24s %10s %12s %12s %8s\n", "op", "bytes", "gshmem us", "ref us", "ratio");
    }
    unsigned seed = 1;
    for (int op = 0; op < N_OPS; op++) {
        size_t size = ops[op].sized ? 8 : 0;
        for (;;) {
            if (ops[op].sized)
                verify(&b, op, size, seed++);
            const double g = measure(&b, IMPL_GSHMEM, op, size);
            const double r = measure(&b, IMPL_REF, op, size);
            if (b.me == 0) {
                printf("%-24s %10zu %12.3f %12.3f %8.2f\n", ops[op].name, size, g * 1e6, r * 1e6,
                       g / r);
                printf("RESULT bench=host_coll op=%s bytes=%zu pes=%d us=%.4f ref_us=%.4f "
                       "ratio=%.3f\n",
                       ops[op].name, size, b.n, g * 1e6, r * 1e6, g / r);
                fflush(stdout);
            }
            if (!ops[op].sized || size == max)
                break;
            size = size <= max / 4 ? size * 4 : max; /* powers of 4, then max itself */
        }
    }

    gshmem_barrier_all();
    munmap(b.region, b.region_len);
    free(b.expect);
    gshmem_free(b.bad_all);
    gshmem_free(b.bad_mine);
    gshmem_free(b.t_all);
    gshmem_free(b.t_mine);
    gshmem_free(b.dst);
    gshmem_free(b.src);
    gshmem_finalize();
    return 0;
}
