/*
 * The active-set collectives: OpenSHMEM 1.5's deprecated forms, which name
 * their PEs by a triplet (PE_start, logPE_stride, PE_size) and synchronise
 * through a symmetric pSync array of the caller's, instead of a team.
 * Host forms only (blocking).
 *
 * Design: a counting dissemination barrier on pSync's words and, between
 * two of them, the one-sided layer's puts and gets (mapped peers, the
 * transport, the program's static data alike).
 * - The barrier: in round r (r < ceil(log2 PE_size)) member i adds 1 to
 *   member (i + 2^r) mod n's pSync[r], waits until its own pSync[r] is at
 *   least 1 (GSHMEM_TIMEOUT applies) and takes 1 off it with a fetching
 *   atomic, which has completed before the next wait reads the word.  Each
 *   member gets exactly one arrival a round a barrier, and takes exactly
 *   that one off, so every word holds GSHMEM_SYNC_VALUE (0) again when a
 *   member returns; a member already in the next barrier of the same set
 *   adds to a word not yet taken from, which the count keeps apart
 *   (consecutive calls need no reset and no extra barrier).
 * - Every collective: quiet, barrier (every member has arrived: its
 *   source is ready and its dest free), move, quiet, barrier.
 * - collect: each member shows its block's size in its own pSync[32] and
 *   reads the others' with gets after the first barrier (n - 1 gets of 8
 *   bytes); it puts 0 back after the last barrier, before it returns
 *   (every member has read it by then).
 * - Reductions (to_all): reduce-scatter then all-gather, as the team
 *   reductions' barrier form: member k gets part k of every member's
 *   source, combines them in active-set order (the same bits on every
 *   PE, floats included) and puts the result into every member's dest.
 *   Part k is read and written by member k alone, so dest may be source.
 *   pWrk is not used.
 * Bad input (the triplet, PE_root, strides, nreduce, overlapping buffers,
 * a pSync that is not symmetric or does not hold the values the protocol
 * leaves there) ends the job, naming the call, before any PE is waited
 * for.
 * Limits: the collectives are the simple barrier-bounded algorithms (two
 * barriers of log2 n rounds a call, the data moved directly), none of the
 * team forms' one-shot and pipelined ones; collect's sizes cost n - 1
 * round trips through the transport.  Members do not check that they were
 * passed the same arguments (GSHMEM_DEBUG_CHECKS does not apply).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmem/internal/fifo.h>

#include "core/api.h"
#include "core/runtime.h"
#include "rma/rma.h"
#include "sync/wait.h"
#include "coll/combine.h"
#include "coll/team.h"

/* pSync's words: the barrier's rounds from 0 (at most 31: PE_size is an
 * int), then collect's size. */
enum { SYNC_ROUNDS_MAX = 31, SYNC_COLLECT = 32 };
_Static_assert(SYNC_COLLECT >= SYNC_ROUNDS_MAX && SYNC_COLLECT < GSHMEM_SYNC_SIZE,
               "pSync's words fit GSHMEM_SYNC_SIZE");

/* Reductions combine at most this many bytes of a part at a time. */
enum { REDUCE_CHUNK = 256 << 10 };

struct active_set {
    const char *call;
    int start, stride, n; /* member i is world PE start + i * stride */
    int my;               /* this PE's index */
    int rounds;           /* the barrier's */
    long *psync;
};

static int member(const struct active_set *as, int i)
{
    return as->start + i * as->stride;
}

/* The active set of the call's triplet, checked: every member a PE of the
 * job, this PE one of them, and pSync symmetric, holding what the protocol
 * leaves there between calls (words: the rounds', then collect's too). */
static struct active_set active_set_open(const char *call, int PE_start, int logPE_stride,
                                         int PE_size, long *pSync, int collect)
{
    const int me = gshmemi_rt.my_pe;
    gshmemi_rma_check_pe(call, me); /* before gshmem_init: says so */
    const int npes = gshmemi_rt.n_pes;
    if (PE_size < 1)
        gshmemi_rma_fail(call, "PE_size %d is not positive: an active set has at least one PE",
                         PE_size);
    if (logPE_stride < 0 || logPE_stride > 30)
        gshmemi_rma_fail(call, "logPE_stride %d is outside 0..30", logPE_stride);
    if (PE_start < 0 || PE_start >= npes)
        gshmemi_rma_fail(call, "PE_start %d is out of range: there are %d PEs (0 to %d)",
                         PE_start, npes, npes - 1);
    const long long last = PE_start + ((long long)(PE_size - 1) << logPE_stride);
    if (last >= npes)
        gshmemi_rma_fail(call, "the active set (PE_start %d, logPE_stride %d, PE_size %d) "
                         "reaches pe %lld, past the last PE (there are %d PEs, 0 to %d)",
                         PE_start, logPE_stride, PE_size, last, npes, npes - 1);
    const int stride = 1 << logPE_stride;
    if (me < PE_start || (me - PE_start) % stride != 0 || (me - PE_start) / stride >= PE_size)
        gshmemi_rma_fail(call, "this pe is not in the active set (PE_start %d, logPE_stride %d, "
                         "PE_size %d): only its PEs may call", PE_start, logPE_stride, PE_size);
    struct active_set as = {.call = call, .start = PE_start, .stride = stride, .n = PE_size,
                            .my = (me - PE_start) / stride, .psync = pSync};
    for (long long d = 1; d < PE_size; d *= 2)
        as.rounds++;

    const int words = collect ? SYNC_COLLECT + 1 : as.rounds;
    if (words == 0)
        return as;
    if (pSync == NULL)
        gshmemi_rma_fail(call, "pSync is NULL");
    const struct gshmemi_heap_access *access;
    (void)gshmemi_rma_sym_target(call, "pSync", pSync, sizeof(long) * (size_t)words, me, &access);
    gshmemi_rma_check_aligned(call, "pSync", pSync, sizeof(long));
    long now[SYNC_COLLECT + 1];
    access->read(call, now, pSync, sizeof(long) * (size_t)words);
    /* Between calls a round's word holds 0, or 1 where a faster member has
     * already arrived at this call's first barrier; collect's size, which
     * only this PE writes, holds 0. */
    for (int w = 0; w < words; w++) {
        const int used = w < as.rounds || w == SYNC_COLLECT;
        if (used && (now[w] < 0 || now[w] > (w < as.rounds ? 1 : 0)))
            gshmemi_rma_fail(call, "pSync[%d] holds %ld, not GSHMEM_SYNC_VALUE (%ld): initialise "
                             "every element of pSync on every PE before the first call, and use "
                             "it for one active set at a time", w, now[w], GSHMEM_SYNC_VALUE);
    }
    return as;
}

/* Every member has reached this point; this PE's operations before it are
 * complete everywhere. */
/* Every member has arrived; a barrier (quiet: the PE's puts complete
 * first) or a sync (none). */
static void active_set_meet(const struct active_set *as, int quiet)
{
    const int me = gshmemi_rt.my_pe;
    if (quiet)
        gshmem_quiet();
    for (int r = 0; r < as->rounds; r++) {
        uint64_t *word = (uint64_t *)(void *)&as->psync[r];
        const int to = member(as, (int)((as->my + (1LL << r)) % as->n));
        gshmemi_signal_op(as->call, word, 1, GSHMEM_SIGNAL_ADD, to);
        const struct gshmemi_wait w = {.call = as->call, .ivars = word, .nelems = 1,
                                       .esize = sizeof(uint64_t), .is_signed = 1,
                                       .cmp = GSHMEM_CMP_GE, .value = 1,
                                       .access = gshmemi_sym_access(word)};
        (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);
        int64_t minus_one = -1, old;
        gshmemi_rma_atomic(as->call, word, me, GSHMEMI_AMO_ADD, sizeof(*word), &minus_one, NULL,
                           &old);
    }
}

static void active_set_barrier(const struct active_set *as) { active_set_meet(as, 1); }

/* ---- barrier and sync ------------------------------------------------------------ */

GSHMEM_API void gshmemx_barrier_active_set(int PE_start, int logPE_stride, int PE_size,
                                           long *pSync)
{
    const struct active_set as =
        active_set_open(__func__, PE_start, logPE_stride, PE_size, pSync, 0);
    active_set_barrier(&as);
}

GSHMEM_API void gshmemx_sync_active_set(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    const struct active_set as =
        active_set_open(__func__, PE_start, logPE_stride, PE_size, pSync, 0);
    active_set_meet(&as, 0);
}

/* ---- moving data ---------------------------------------------------------------- */

/* PE_root's source to every other member's dest (the root's is left as it
 * is: source and dest may overlap anywhere). */
static void broadcast(const struct active_set *as, void *dest, const void *source, size_t nbytes,
                      int root)
{
    if (root < 0 || root >= as->n)
        gshmemi_rma_fail(as->call, "PE_root %d is not in the active set (%d PEs)", root, as->n);
    active_set_barrier(as);
    for (int k = 1; as->my == root && k < as->n; k++) /* after me: not all onto one PE at once */
        gshmemi_rma_put(as->call, dest, source, nbytes, member(as, (as->my + k) % as->n), 0);
    active_set_barrier(as);
}

/* My block at block `my` of every member's dest (in place where source is
 * that block). */
static void fcollect(const struct active_set *as, void *dest, const void *source, size_t nbytes)
{
    const size_t total = gshmemi_rma_bytes(as->call, (size_t)as->n, nbytes);
    char *mine = (char *)dest + (size_t)as->my * nbytes;
    gshmemi_coll_check_overlap(as->call, dest, total, source, nbytes,
                               (const char *)source - (size_t)as->my * nbytes);
    active_set_barrier(as);
    for (int k = 0; k < as->n; k++)
        if (k > 0 || source != mine)
            gshmemi_rma_put(as->call, mine, source, nbytes, member(as, (as->my + k) % as->n), 0);
    active_set_barrier(as);
}

/* Every member's block, in active-set order: its offset from the sizes the
 * members before it show in pSync[SYNC_COLLECT]. */
static void collect(const struct active_set *as, void *dest, const void *source, size_t nbytes)
{
    const int me = gshmemi_rt.my_pe;
    long *shown = &as->psync[SYNC_COLLECT];
    const uint64_t mine = nbytes, zero = 0;
    uint64_t off = 0, total = 0;
    gshmemi_rma_put(as->call, shown, &mine, sizeof(mine), me, 1);
    active_set_barrier(as);
    for (int i = 0; i < as->n; i++) {
        uint64_t size = mine;
        if (i != as->my)
            gshmemi_rma_get(as->call, &size, shown, sizeof(size), member(as, i), 1);
        off += i < as->my ? size : 0;
        if (__builtin_add_overflow(total, size, &total))
            gshmemi_rma_fail(as->call, "the members' blocks add up to more than 2^64 bytes");
    }
    gshmemi_coll_check_overlap(as->call, dest, (size_t)total, source, nbytes, NULL);
    for (int k = 0; k < as->n; k++)
        gshmemi_rma_put(as->call, (char *)dest + off, source, nbytes,
                        member(as, (as->my + k) % as->n), 0);
    active_set_barrier(as); /* every member has read my size */
    gshmemi_rma_put(as->call, shown, &zero, sizeof(zero), me, 1);
}

/* My block j to block `my` of member j's dest. */
static void alltoall(const struct active_set *as, void *dest, const void *source, size_t nbytes)
{
    const size_t total = gshmemi_rma_bytes(as->call, (size_t)as->n, nbytes);
    gshmemi_coll_check_overlap(as->call, dest, total, source, total, NULL);
    active_set_barrier(as);
    for (int k = 1; k <= as->n; k++) {
        const int j = (as->my + k) % as->n;
        gshmemi_rma_put(as->call, (char *)dest + (size_t)as->my * nbytes,
                        (const char *)source + (size_t)j * nbytes, nbytes, member(as, j), 0);
    }
    active_set_barrier(as);
}

/* As alltoall, element by element at strides dst (dest) and sst (source). */
static void alltoalls(const struct active_set *as, void *dest, const void *source, ptrdiff_t dst,
                      ptrdiff_t sst, size_t nelems, size_t esize)
{
    if (dst <= 0 || sst <= 0)
        gshmemi_rma_fail(as->call, "strides dst %td and sst %td must be positive", dst, sst);
    if (nelems > 0) { /* the spans of all n blocks, as the strides lay them out */
        const size_t last = gshmemi_rma_bytes(as->call, (size_t)as->n, nelems) - 1;
        const size_t dspan = gshmemi_rma_bytes(
            as->call, gshmemi_rma_bytes(as->call, last, (size_t)dst) + 1, esize);
        const size_t sspan = gshmemi_rma_bytes(
            as->call, gshmemi_rma_bytes(as->call, last, (size_t)sst) + 1, esize);
        gshmemi_coll_check_overlap(as->call, dest, dspan, source, sspan, NULL);
    }
    active_set_barrier(as);
    for (int k = 1; k <= as->n; k++) {
        const int j = (as->my + k) % as->n;
        gshmemi_rma_iput(as->call, (char *)dest + (size_t)as->my * nelems * (size_t)dst * esize,
                         (const char *)source + (size_t)j * nelems * (size_t)sst * esize, dst, sst,
                         nelems, esize, member(as, j));
    }
    active_set_barrier(as);
}

/* ---- reductions ------------------------------------------------------------------ */

static void to_all(const struct active_set *as, void *dest, const void *source, int nreduce,
                   size_t esize, gshmemi_combine_fn *fn)
{
    if (nreduce < 0)
        gshmemi_rma_fail(as->call, "nreduce %d is negative", nreduce);
    const size_t count = (size_t)nreduce, bytes = gshmemi_rma_bytes(as->call, count, esize);
    gshmemi_coll_check_overlap(as->call, dest, bytes, source, bytes, source);
    /* my part: [first, first + len) of the elements */
    const size_t q = count / (size_t)as->n, r = count % (size_t)as->n, my = (size_t)as->my;
    const size_t first = my * q + (my < r ? my : r), len = q + (my < r);
    const size_t chunk = GSHMEMI_MIN(len, REDUCE_CHUNK / esize) * esize;
    char *scratch = malloc(3 * chunk + 1), *acc = scratch, *tmp = acc + chunk, *in = tmp + chunk;
    if (scratch == NULL)
        gshmemi_rma_fail(as->call, "out of host memory for %zu bytes of scratch", 3 * chunk);
    active_set_barrier(as);
    for (size_t off = 0; off < len * esize; off += chunk) {
        const size_t n = GSHMEMI_MIN(chunk, len * esize - off), at = first * esize + off;
        gshmemi_rma_get(as->call, acc, (const char *)source + at, n, member(as, 0), 1);
        for (int i = 1; i < as->n; i++) { /* in active-set order */
            gshmemi_rma_get(as->call, in, (const char *)source + at, n, member(as, i), 1);
            fn(tmp, acc, in, n / esize);
            char *t = acc;
            acc = tmp;
            tmp = t;
        }
        for (int k = 1; k <= as->n; k++) /* every source's part is read: dest may be one */
            gshmemi_rma_put(as->call, (char *)dest + at, acc, n,
                            member(as, (as->my + k) % as->n), 1);
    }
    active_set_barrier(as);
    free(scratch);
}

/* ---- the API ---------------------------------------------------------------------- */

#define AS_OPEN(F, collect) \
    active_set_open(#F, PE_start, logPE_stride, PE_size, pSync, collect)
#define AS_BROADCAST(F, BITS)                                                               \
    GSHMEM_API void F(void *dest, const void *source, size_t nelems, int PE_root,          \
                      int PE_start, int logPE_stride, int PE_size, long *pSync)            \
    {                                                                                      \
        const struct active_set as = AS_OPEN(F, 0);                                        \
        broadcast(&as, dest, source, gshmemi_rma_bytes(#F, nelems, BITS / 8), PE_root);    \
    }
#define AS_MOVE(F, BITS, FN, COLLECT)                                                      \
    GSHMEM_API void F(void *dest, const void *source, size_t nelems, int PE_start,         \
                      int logPE_stride, int PE_size, long *pSync)                          \
    {                                                                                      \
        const struct active_set as = AS_OPEN(F, COLLECT);                                  \
        FN(&as, dest, source, gshmemi_rma_bytes(#F, nelems, BITS / 8));                    \
    }
#define AS_FCOLLECT(F, BITS) AS_MOVE(F, BITS, fcollect, 0)
#define AS_COLLECT(F, BITS) AS_MOVE(F, BITS, collect, 1)
#define AS_ALLTOALL(F, BITS) AS_MOVE(F, BITS, alltoall, 0)
#define AS_ALLTOALLS(F, BITS)                                                               \
    GSHMEM_API void F(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                      size_t nelems, int PE_start, int logPE_stride, int PE_size,          \
                      long *pSync)                                                         \
    {                                                                                      \
        const struct active_set as = AS_OPEN(F, 0);                                        \
        alltoalls(&as, dest, source, dst, sst, nelems, BITS / 8);                          \
    }
#define AS_OP(STEM, TAIL, SHAPE, V, BITS, TYPE) AS_##SHAPE(gshmem_##STEM##BITS##TAIL, BITS)
#define AS_SIZE(BITS, TYPE) GSHMEM_FOR_COLL_OPS(AS_OP, BITS, TYPE)
GSHMEM_FOR_ACTIVE_SET_SIZES(AS_SIZE)

#define TO_ALL(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                          \
    GSHMEM_API void gshmem_##NAME##_##STEM##TAIL(TYPE *dest, const TYPE *source,           \
                                                 int nreduce, int PE_start,                \
                                                 int logPE_stride, int PE_size,            \
                                                 TYPE *pWrk, long *pSync)                  \
    {                                                                                      \
        (void)pWrk;                                                                        \
        const struct active_set as = AS_OPEN(gshmem_##NAME##_##STEM##TAIL, 0);             \
        to_all(&as, dest, source, nreduce, sizeof(TYPE), gshmemi_combine_##NAME##_##OP);   \
    }
#define TO_ALL_BITWISE(NAME, TYPE, G) GSHMEM_FOR_TO_ALL_BITWISE_OPS(TO_ALL, NAME, TYPE)
#define TO_ALL_MINMAX(NAME, TYPE, G) GSHMEM_FOR_TO_ALL_MINMAX_OPS(TO_ALL, NAME, TYPE)
#define TO_ALL_SUMPROD(NAME, TYPE, G) GSHMEM_FOR_TO_ALL_SUMPROD_OPS(TO_ALL, NAME, TYPE)
GSHMEM_FOR_TO_ALL_BITWISE_TYPES(TO_ALL_BITWISE)
GSHMEM_FOR_TO_ALL_MINMAX_TYPES(TO_ALL_MINMAX)
GSHMEM_FOR_TO_ALL_SUMPROD_TYPES(TO_ALL_SUMPROD)
GSHMEM_FOR_TO_ALL_MINMAX_HOST_TYPES(TO_ALL_MINMAX)
GSHMEM_FOR_TO_ALL_SUMPROD_HOST_TYPES(TO_ALL_SUMPROD)
