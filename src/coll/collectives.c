/*
 * Collectives on teams, host forms (blocking): built on the one-sided layer
 * (puts and gets that reach mapped peers through the heap's access and the
 * others through the transport, signals) and the team's barrier.
 *
 * Four algorithms, by size and peers (GSHMEM_COLL_ALGO overrides the
 * choice):
 * - one-shot (host heap, each member's piece up to the slot area's
 *   capacity): puts with signals into every member's area of the team's
 *   slot, no barrier; each PE then builds its own dest from what it got.
 * - recursive doubling (host heap, members through the transport, teams
 *   larger than one-shot takes): every member gathers every piece into its
 *   area in ceil(log2 n) steps of one put with a signal (Bruck's order),
 *   then builds its dest as one-shot does: fcollect and the scans (reduce
 *   too where forced); alltoall on the same steps (Bruck's: step k sends
 *   the blocks whose place has bit k set to the member 2^k after); broadcast
 *   on them, only the root's piece moving, on such teams of any size that
 *   the hierarchical forms do not take (one node, or one member a node).
 * - pipelined (host heap, members through the transport, sizes from the
 *   table below; pipe.c): puts with signals between neighbours in chunks,
 *   no barrier: ring, chain in team order, direct, hierarchical.
 * - barrier-bounded: each call starts with the team's barrier (every
 *   member has arrived: its source is ready and its dest no longer read),
 *   moves the data, completes it with quiet and ends with the barrier
 *   again.  Reductions are reduce-scatter then all-gather: member i reads
 *   part i of every member's source, combines them and writes the result
 *   into every member's dest.  Part i is read and written by member i
 *   alone, so dest may be source.  The scans read every earlier member's
 *   source, then meet, then write: in place too.
 * All combine in team order, so every PE gets the same bits, floats
 * included, whichever algorithm ran (of a long double, the value's: its
 * padding is unspecified).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>

#include "core/api.h"
#include "core/env.h"
#include "core/half.h"
#include "core/log.h"
#include "core/runtime.h"
#include "device/device_state.h"
#include "gpu/gpu.h"
#include "rma/rma.h"
#include "sync/wait.h"
#include "coll/coll_launch.h"
#include "coll/coll_on_stream.h"
#include "coll/combine.h"
#include "coll/pipe.h"
#include "coll/team.h"

/* ---- the calls' common parts ------------------------------------------------ */

/* The team a collective runs on; a team that does not name one here ends
 * the job (its other members would wait for ever). */
static struct gshmemi_team *team_for(const char *call, gshmem_team_t team)
{
    struct gshmemi_team *t = gshmemi_team_get(call, team); /* logs why not */
    if (t == NULL)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
    return t;
}

static void *scratch(const char *call, size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (p == NULL)
        gshmemi_rma_fail(call, "out of host memory for %zu bytes of scratch", n);
    return p;
}

/* The reductions' scratch, kept from call to call and grown as needed: a
 * large block malloc'd and freed each call went back to the OS each time
 * and was faulted in page by page on the next.  One is kept; a thread that
 * finds it taken (GSHMEM_THREAD_MULTIPLE: collectives on other teams at
 * the same time) makes its own, and the one given back last is kept. */
struct reduce_scratch {
    size_t cap;  /* bytes at data */
    char *data;  /* just after this header */
};
static _Atomic(struct reduce_scratch *) spare_scratch;

static struct reduce_scratch *scratch_take(const char *call, size_t n)
{
    struct reduce_scratch *s = atomic_exchange_explicit(&spare_scratch, NULL, memory_order_acquire);
    if (s != NULL && s->cap >= n)
        return s;
    free(s);
    s = malloc(sizeof(*s) + n);
    if (s == NULL)
        gshmemi_rma_fail(call, "out of host memory for %zu bytes of scratch", n);
    s->cap = n;
    s->data = (char *)(s + 1);
    return s;
}

static void scratch_give(struct reduce_scratch *s)
{
    free(atomic_exchange_explicit(&spare_scratch, s, memory_order_acq_rel));
}

void gshmemi_coll_fini(void)
{
    free(atomic_exchange_explicit(&spare_scratch, NULL, memory_order_acquire));
}

/* The puts so far are complete everywhere, then every member meets. */
static void finish(const char *call, const struct gshmemi_team *t, gshmem_team_t team)
{
    gshmem_quiet();
    gshmemi_team_sync(call, t, team);
}

/* The end of a host form run as its stream form on s: where its kernel
 * failed, the device watch's message names the host call (slot). */
static void stream_form_done(const char *call, struct CUstream_st *s, int slot, int prev)
{
    const int err = gshmemi_gpu_stream_finish(s);
    if (err != 0) {
        gshmemi_device_failure_wait();
        gshmemi_gpu_launch_failed(call, "cudaStreamSynchronize", err);
    }
    gshmemi_device_host_call_leave(slot);
    gshmemi_gpu_leave(prev);
}

/* The host form of a move or a reduction as its stream form, where `may`
 * (the shape's own limit) and gshmemi_coll_host_stream choose it: 1, and
 * complete on return as the host algorithms are; else 0. */
static int moved_on_gpu(const char *call, struct gshmemi_team *t, gshmem_team_t team, int may,
                        int shape, void *dest, const void *source, size_t nbytes, int root,
                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    int prev;
    struct CUstream_st *s = may ? gshmemi_coll_host_stream(call, t, dest, source, &prev) : NULL;
    if (s == NULL)
        return 0;
    /* the names its kernels report (coll_launch.h), by shape */
    static const char *const kernel_calls[] = {GSHMEMI_FOR_COLL_MOVES(GSHMEMI_COLL_MOVE_CALL)};
    const int slot = gshmemi_device_host_call_enter(call, kernel_calls[shape]);
    gshmemi_coll_move_on(call, shape, team, dest, source, nbytes, root, dst, sst, nelems, esize, s);
    stream_form_done(call, s, slot, prev);
    return 1;
}

static int reduced_on_gpu(const char *call, struct gshmemi_team *t, gshmem_team_t team, int may,
                          int kind, int src_blocks, int grid, void *dest, const void *source,
                          size_t nelems, size_t esize, gshmemi_coll_reduce_launch *launch)
{
    int prev;
    struct CUstream_st *s = may && launch != NULL
                                ? gshmemi_coll_host_stream(call, t, dest, source, &prev)
                                : NULL;
    if (s == NULL)
        return 0;
    /* NULL: the kernel names call's stream form, gshmemx_<type>_<op>_<shape>_on_stream */
    const int slot = gshmemi_device_host_call_enter(call, NULL);
    gshmemi_coll_reduce_on(call, kind, src_blocks, grid, team, dest, source, nelems, esize, launch,
                           s);
    stream_form_done(call, s, slot, prev);
    return 1;
}

/* Shapes that have no grid algorithm run on one block in stream order: on
 * the GPU heap the host forms take them there only up to this payload per
 * member (one block moves tens of GB/s; the copy engines several times
 * that). */
enum { ONE_BLOCK_MAX = 256 << 10 };

/* GSHMEM_DEBUG_CHECKS: every member passed the same kind, bytes per member
 * and root (-1: none).  Each member shows its words in its heap, meets,
 * and compares its next member's with its own (the last member compares
 * none: a difference is seen by one PE, which ends the job), then meets
 * again before the words are written anew. */
void gshmemi_coll_check_args(const char *call, const struct gshmemi_team *t, gshmem_team_t team,
                             int kind, uint64_t bytes, int root)
{
    if (!gshmemi_env.DEBUG_CHECKS)
        return;
    const uint64_t mine[GSHMEMI_COLL_ARGS] = {(uint64_t)kind, bytes, (uint64_t)(int64_t)root};
    uint64_t next[GSHMEMI_COLL_ARGS], *words = gshmemi_team_args_area(team);
    gshmemi_rma_put(call, words, mine, sizeof(mine), gshmemi_rt.my_pe, 1);
    gshmemi_team_sync(call, t, team);
    if (t->my + 1 < t->n) {
        gshmemi_rma_get(call, next, words, sizeof(next), t->pes[t->my + 1], 1);
        for (int w = 0; w < GSHMEMI_COLL_ARGS; w++)
            if (next[w] != mine[w] && (w != GSHMEMI_COLL_ARG_BYTES ||
                                       kind != GSHMEMI_COLL_KIND(COLLECT, NONE))) {
                char why[256];
                gshmemi_coll_args_differ(w, t->pes[t->my + 1], next[w], mine[w], why, sizeof(why));
                gshmemi_rma_fail(call, "%s", why);
            }
    }
    gshmemi_team_sync(call, t, team);
}

void gshmemi_coll_check_overlap(const char *call, const void *dest, size_t dest_bytes,
                                const void *source, size_t source_bytes, const void *in_place)
{
    const char *d = dest, *src = source;
    if (dest_bytes == 0 || source_bytes == 0 || (in_place != NULL && dest == in_place))
        return;
    if (d < src + source_bytes && src < d + dest_bytes) {
        char rule[64] = "this collective has no in-place form";
        if (in_place != NULL)
            snprintf(rule, sizeof(rule), "in place, dest must be %p", in_place);
        gshmemi_rma_fail(call, "dest [%p, +%zu) overlaps source [%p, +%zu); %s", dest, dest_bytes,
                         source, source_bytes, rule);
    }
}

/* Part i of n of count elements: [*first, *first + *len). */
static void part(size_t count, int n, int i, size_t *first, size_t *len)
{
    const size_t q = count / (size_t)n, r = count % (size_t)n;
    *first = (size_t)i * q + ((size_t)i < r ? (size_t)i : r);
    *len = q + ((size_t)i < r);
}

/* ---- one-shot: puts with signals into the slot's area ------------------------- */

/* Every member puts its piece for each other member into that member's
 * area (block [parity][sender]), then sets the signal word [parity][sender]
 * there to the call's number on the team (put-with-signal order: after the
 * data, mapped or through the transport), and waits for every member's
 * word.  Every member signals every other, with or without data, so one
 * that has all the signals of call e knows that every member has finished
 * call e - 1: the blocks of e - 1's parity, which call e + 1 reuses, are
 * free again.  Each PE writes only its own dest: dest may be source, and a
 * slow member's dest is never written early. */

/* What this PE sends: member `to`'s piece is base + to * stride, len bytes,
 * for members from min_to on; the others get the signal only. */
struct pieces {
    const char *base;
    size_t len, stride;
    int min_to;
};

/* Teams reached through the transport: each member sends n - 1 pieces, so
 * beyond this many members recursive doubling's log n steps cost less (the
 * barriers' where it does not apply). */
enum { ONESHOT_TRANSPORT_MEMBERS = 32 };

/* GSHMEM_TEST_ONESHOT_MEMBERS, for tests: what auto does beyond the limit,
 * at small PE counts. */
static int oneshot_transport_members(void)
{
    return gshmemi_env.TEST_ONESHOT_MEMBERS > 0 ? (int)gshmemi_env.TEST_ONESHOT_MEMBERS
                                                : ONESHOT_TRANSPORT_MEMBERS;
}

static int oneshot_fits(const struct gshmemi_team *t, gshmem_team_t team, size_t piece)
{
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, 0);
    return a.sig != NULL && piece <= a.cap &&
           (t->mapped ? piece <= a.mapped_max / (size_t)t->n
                      : t->n <= oneshot_transport_members() || a.mapped_max == SIZE_MAX);
}

/* The barrier algorithm's puts and gets check the buffers; the one-shot
 * one copies into dest and out of source here, so it checks them first
 * (symmetric: in the heap or the program's static data). */
static void oneshot_check(const char *call, const void *dest, size_t dest_bytes,
                          const void *source, size_t source_bytes)
{
    const struct gshmemi_heap_access *access;
    if (dest_bytes > 0)
        (void)gshmemi_rma_sym_target(call, "dest", dest, dest_bytes, gshmemi_rt.my_pe, &access);
    if (source_bytes > 0)
        (void)gshmemi_rma_sym_target(call, "source", source, source_bytes, gshmemi_rt.my_pe,
                                     &access);
}

/* The rounds of `chunk` bytes that `bytes` takes (one at least). */
static size_t rounds_of(size_t bytes, size_t chunk)
{
    return bytes <= chunk ? 1 : (bytes + chunk - 1) / chunk;
}

/* Pieces larger than the area go in rounds of *chunk bytes (a multiple of
 * esize), each a one-shot call of its own: through the transport, where a
 * barrier costs round trips, up to ONESHOT_ROUNDS of them (GSHMEM_COLL_ALGO
 * =ll: any number): through tcp on the 2-core VM a round cost about what
 * the barriers save at 4 PEs, so 4 rounds lost to them by 1.1-1.4x, and
 * one round won by 2-4x.  Returns the rounds, 0 for the barrier algorithm. */
enum { ONESHOT_ROUNDS = 2 };

static size_t oneshot_rounds(const struct gshmemi_team *t, gshmem_team_t team, size_t piece,
                             size_t esize, size_t *chunk)
{
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, 0);
    if (a.sig == NULL || a.cap < esize)
        return 0;
    *chunk = a.cap - a.cap % esize;
    const size_t rounds = rounds_of(piece, *chunk);
    if (!oneshot_fits(t, team, rounds == 1 ? piece : *chunk))
        return 0;
    const int forced = a.mapped_max == SIZE_MAX;
    return rounds == 1 || forced || (!t->mapped && rounds <= ONESHOT_ROUNDS) ? rounds : 0;
}

/* Round r's share of a piece of `piece` bytes: [*off, *off + *len). */
static void oneshot_round(size_t r, size_t chunk, size_t piece, size_t *off, size_t *len)
{
    *off = r * chunk;
    *len = piece - *off < chunk ? piece - *off : chunk;
}

/* ---- the pipelined algorithms' table (pipe.c) ----------------------------------- */

enum pipe_algo { PIPE_NONE, PIPE_RING, PIPE_HIER };

/* Per collective and peer class of a team with members through the
 * transport, the payloads for which auto takes the pipelined form:
 * [min, max] (max 0: never), and never below the one-shot algorithm's
 * limit (one-shot there); bytes as the call counts them (broadcast's and
 * reduce's vector, each member's block of fcollect, alltoall and
 * reducescatter, collect's largest block).
 *   spread: the team spans nodes and some node holds several members: the
 *         hierarchical forms up to hier_max (broadcast, fcollect and
 *         collect at any size, alltoall up to 32 KiB), else the ring
 *         forms, some of whose links are mapped;
 *   flat: any other team (all on one node with GSHMEM_DISABLE_P2P=1, one
 *         member a node, ...): the ring forms, links through the transport.
 * From A/B runs against the barrier algorithm through tcp on the 2-core VM,
 * 4 PEs (docs/performance.md), where only differences that held in every
 * run count (4 PEs on 2 cores, shared: the same algorithm varied by up to
 * 1.6x between runs).  Spread (2 simulated nodes of 2): every pipelined
 * form took 0.2-0.8x its time up to 128 KiB, broadcast and alltoall also
 * at 512 KiB; beyond, both ways.  Flat (GSHMEM_DISABLE_P2P=1): the chained
 * reduce 0.4-0.8x up to 32 KiB, the direct alltoall 0.2-1.0x from 128 KiB
 * to 512 KiB; the ring's broadcast and fcollect and the chained
 * reducescatter never won in every run.  The hierarchical alltoall
 * (spread) took 0.1-0.6x the direct one's time up to 32 KiB and lost 1.4-3.4x
 * from 512 KiB (its streams go in the leaders' 32 KiB buffers). */
struct pipe_row {
    size_t flat_min, flat_max, spread_min, spread_max;
    size_t hier_max; /* spread: the hierarchical form up to this (0: there is none) */
};
static const struct pipe_row PIPE_BROADCAST = {.spread_max = 512 << 10, .hier_max = SIZE_MAX};
static const struct pipe_row PIPE_COLLECT = {.spread_max = 128 << 10, .hier_max = SIZE_MAX};
static const struct pipe_row PIPE_ALLTOALL = {.flat_min = 128 << 10, .flat_max = 512 << 10,
                                              .spread_max = 512 << 10, .hier_max = 32 << 10};
static const struct pipe_row PIPE_REDUCE = {.flat_max = 32 << 10, .spread_max = 128 << 10};
static const struct pipe_row PIPE_REDUCESCATTER = {.spread_max = 128 << 10};

/* gathered: whether one-shot or recursive doubling would take it.  GSHMEM_COLL_ALGO
 * =ring forces the ring forms wherever there is a pipe area, hier the
 * hierarchical ones where the team spreads and the ring ones elsewhere;
 * calls that move more than GSHMEMI_PIPE_MAX_CALL go by the barrier
 * algorithm whatever it says. */
static enum pipe_algo pipe_pick(const struct gshmemi_team *t, gshmem_team_t team, size_t bytes,
                                const struct pipe_row *row, int gathered)
{
    const char *algo = gshmemi_env.COLL_ALGO;
    if (bytes == 0 || t->n < 2 || !gshmemi_pipe_ready(team) ||
        bytes > GSHMEMI_PIPE_MAX_CALL / (size_t)t->n)
        return PIPE_NONE;
    const int spread = gshmemi_pipe_spans_nodes(t);
    if (strcmp(algo, "ring") == 0)
        return PIPE_RING;
    if (strcmp(algo, "hier") == 0)
        return spread && row->hier_max > 0 ? PIPE_HIER : PIPE_RING;
    const enum pipe_algo form = spread && bytes <= row->hier_max ? PIPE_HIER : PIPE_RING;
    if (t->mapped || gathered) /* auto: where all are mapped, the barrier algorithm's loads */
        return PIPE_NONE;
    const size_t min = spread ? row->spread_min : row->flat_min;
    return bytes >= min && bytes <= (spread ? row->spread_max : row->flat_max) ? form : PIPE_NONE;
}

/* Where each member's piece lies once gathered: member i's at
 * base + ((i - rot) mod n) * stride, this member's own at `mine`. */
struct gathered {
    const char *base, *mine;
    size_t stride;
    int rot, n, my;
};

static const char *piece_of(const struct gathered *g, int i)
{
    return i == g->my ? g->mine : g->base + (size_t)((i - g->rot + g->n) % g->n) * g->stride;
}

static struct gathered oneshot(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                               const struct pieces *pc)
{
    const uint64_t call_no = ++t->oneshots;
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, (int)(call_no & 1));
    char *block = a.data + (size_t)t->my * a.cap; /* mine, on every member */
    for (int k = 1; k < t->n; k++) { /* starting after me: not all onto one PE at once */
        const int j = (t->my + k) % t->n;
        if (j >= pc->min_to && pc->len > 0)
            gshmemi_rma_put(call, block, pc->base + (size_t)j * pc->stride, pc->len, t->pes[j], 0);
        gshmemi_signal_op(call, &a.sig[t->my], call_no, GSHMEM_SIGNAL_SET, t->pes[j]);
    }
    atomic_store_explicit((_Atomic uint64_t *)&a.sig[t->my], call_no,
                          memory_order_relaxed); /* no member writes mine */
    const struct gshmemi_wait w = {.call = call, .ivars = a.sig, .nelems = (size_t)t->n,
                                   .esize = sizeof(uint64_t), .cmp = GSHMEM_CMP_GE,
                                   .value = call_no, .access = gshmemi_heap.access};
    (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);
    return (struct gathered){.base = a.data, .mine = pc->base + (size_t)t->my * pc->stride,
                             .stride = a.cap, .n = t->n, .my = t->my};
}

/* ---- recursive doubling: every piece to every member in log2 n steps -------------- */

static int doubling_forced(void) { return strcmp(gshmemi_env.COLL_ALGO, "doubling") == 0; }

/* The end of a step: its signal to member `to` (after this step's put
 * there), then the one from the member `have` places on. */
static void doubling_step_end(const char *call, const struct gshmemi_team *t,
                              const struct gshmemi_team_oneshot *a, int step, int to,
                              uint64_t call_no)
{
    gshmemi_signal_op(call, &a->sig[step], call_no, GSHMEM_SIGNAL_SET, t->pes[to]);
    const struct gshmemi_wait w = {.call = call, .ivars = &a->sig[step], .nelems = 1,
                                   .esize = sizeof(uint64_t), .cmp = GSHMEM_CMP_GE,
                                   .value = call_no, .access = gshmemi_heap.access};
    (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);
}

/* Bruck's gather through the one-shot area: the area holds member
 * (my + q) mod n's piece at q * len, this member's own first.  In each step
 * a member holding `have` pieces sends the first min(have, n - have) of them
 * in one put to member my - have, which stores them after its own `have`,
 * and sets that member's signal word of the step (the area's word s in step
 * s) to the call's number; so every piece arrives once, after ceil(log2 n)
 * steps.  A member that has every piece of call e knows that every member
 * has begun e, so has finished e - 1, whose parity e + 1 reuses: as
 * one-shot, with no barrier.  One-shot, doubling(), doubling_broadcast()
 * and bruck_round() share the call numbers and areas (one-shot's words by
 * sender, the others' by step; Bruck's steps go to my + 2^k, and a member
 * done with its call has heard, through its senders, from every member): a
 * word set in call e is waited for by its owner in e, so one of call e + 2
 * comes after that, and a word only grows. */
static struct gathered doubling(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                                const char *piece, size_t len)
{
    const uint64_t call_no = ++t->oneshots;
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, (int)(call_no & 1));
    const int n = t->n, my = t->my;
    if (len > 0)
        memcpy(a.data, piece, len);
    for (int have = 1, step = 0; have < n; step++) {
        const int cnt = have < n - have ? have : n - have, to = (my - have + n) % n;
        if (len > 0)
            gshmemi_rma_put(call, a.data + (size_t)have * len, a.data, (size_t)cnt * len,
                            t->pes[to], 0);
        doubling_step_end(call, t, &a, step, to, call_no);
        have += cnt;
    }
    return (struct gathered){.base = a.data, .mine = a.data, .stride = len, .rot = my, .n = n,
                             .my = my};
}

/* Broadcast on doubling()'s steps with only the root's piece moving: a
 * member sends it on in a step where it is among the pieces doubling()
 * would send (so it holds it: from an earlier step, or as the root's
 * source), into the receiver's area at 0, which it reaches once; the other
 * steps carry the signal alone.  Every member still hears from every
 * other, so the area is reused as doubling() reuses it.  n - 1 messages
 * with data and ceil(log2 n) a member in all, where one-shot has every
 * member signal every other. */
static void doubling_broadcast(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                               char *dest, const char *source, size_t len, int root)
{
    const uint64_t call_no = ++t->oneshots;
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, (int)(call_no & 1));
    const int n = t->n, my = t->my, rel = (root - my + n) % n; /* the root is member my + rel */
    const char *held = my == root ? source : a.data;
    for (int have = 1, step = 0; have < n; step++) {
        const int cnt = have < n - have ? have : n - have, to = (my - have + n) % n;
        if (rel < cnt && len > 0)
            gshmemi_rma_put(call, a.data, held, len, t->pes[to], 0);
        doubling_step_end(call, t, &a, step, to, call_no);
        have += cnt;
    }
    if (len > 0 && held != dest)
        memcpy(dest, held, len);
}

/* Under auto, teams with a member through the transport that the
 * hierarchical forms do not take (one node, or one member a node): the
 * broadcast goes by doubling_broadcast() up to one-shot's capacity a
 * member, in one round, at any member count, and by the barrier
 * algorithm's puts from the root beyond (a second round, whose piece goes
 * through ceil(log2 n) members one after another, lost to them, and so did
 * one-shot's two rounds, whose every member signals every other). */
static int flat_through_transport(const struct gshmemi_team *t)
{
    return gshmemi_coll_algo_auto() && !t->mapped &&
           !gshmemi_pipe_spans_nodes(t);
}

/* Rounds of *chunk bytes for a broadcast of `bytes` by doubling_broadcast(),
 * 0 where it does not apply: flat_through_transport(), one round;
 * GSHMEM_COLL_ALGO=doubling: any team of two or more, at any size, in
 * rounds of the whole area. */
static size_t doubling_broadcast_rounds(const struct gshmemi_team *t, gshmem_team_t team,
                                        size_t bytes, size_t *chunk)
{
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, 0);
    if (a.sig == NULL || t->n < 2)
        return 0;
    if (doubling_forced()) {
        *chunk = a.cap * (size_t)gshmemi_rt.n_pes;
        return rounds_of(bytes, *chunk);
    }
    *chunk = a.cap;
    return flat_through_transport(t) && bytes <= a.cap;
}

/* Rounds of *chunk bytes (a multiple of esize) for pieces of `piece` bytes
 * by recursive doubling, 0 where it does not apply: under auto, the host
 * heap's teams with a member through the transport that one-shot does not
 * take (more than ONESHOT_TRANSPORT_MEMBERS: ceil(log2 n) steps of one
 * message, where one-shot would send n - 1 a member), each member's piece
 * within its share of the area (it holds all n), in up to ONESHOT_ROUNDS
 * rounds; GSHMEM_COLL_ALGO=doubling: any team of two or more, any number
 * of rounds. */
static size_t doubling_rounds(const struct gshmemi_team *t, gshmem_team_t team, size_t piece,
                              size_t esize, size_t *chunk)
{
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, 0);
    const int forced = doubling_forced();
    if (a.sig == NULL || t->n < 2 ||
        (!forced && (!gshmemi_coll_algo_auto() || t->mapped ||
                     t->n <= oneshot_transport_members())))
        return 0;
    const size_t room = a.cap * (size_t)gshmemi_rt.n_pes / (size_t)t->n;
    *chunk = room - room % esize;
    if (*chunk == 0)
        return 0;
    const size_t rounds = rounds_of(piece, *chunk);
    return forced || rounds <= ONESHOT_ROUNDS ? rounds : 0;
}

/* How a call's pieces reach every member: one-shot or recursive doubling
 * (which sends every member's piece to every member: gather() ignores
 * the pieces' stride and min_to, which its callers leave 0 or need not). */
enum gather_algo { GATHER_ONESHOT, GATHER_DOUBLING };

/* The rounds for pieces of `piece` bytes by recursive doubling where it
 * applies and auto would not take the call's pipelined form (row; NULL:
 * it has none), else by one-shot; 0 for neither.  On the 2-core VM beyond
 * 32 members doubling beat the barrier algorithm and tied or lost to the
 * chained reduce (docs/performance-host.md), and the hierarchical forms
 * were not measured against it: they keep their sizes. */
static size_t gather_rounds(const struct gshmemi_team *t, gshmem_team_t team, size_t piece,
                            size_t esize, const struct pipe_row *row, size_t *chunk,
                            enum gather_algo *how)
{
    *how = GATHER_ONESHOT;
    const size_t rounds = oneshot_rounds(t, team, piece, esize, chunk);
    if (!doubling_forced() && row != NULL && pipe_pick(t, team, piece, row, 0) != PIPE_NONE)
        return rounds;
    size_t dchunk;
    const size_t drounds = doubling_rounds(t, team, piece, esize, &dchunk);
    if (drounds == 0)
        return rounds;
    *how = GATHER_DOUBLING;
    *chunk = dchunk;
    return drounds;
}

static struct gathered gather(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                              enum gather_algo how, const struct pieces *pc)
{
    return how == GATHER_DOUBLING ? doubling(call, t, team, pc->base, pc->len)
                                  : oneshot(call, t, team, pc);
}

/* ---- Bruck's alltoall: log2 n steps of about half the blocks ------------------ */

/* The blocks that recursive doubling's steps carry for an alltoall of n
 * members: step k sends the positions whose bit k is set. */
static size_t bruck_blocks(int n)
{
    size_t b = 0;
    for (int d = 1; d < n; d <<= 1)
        for (int q = 1; q < n; q++)
            b += (q & d) != 0;
    return b;
}

/* Rounds of *chunk bytes of each block for an alltoall of `piece` bytes a
 * member by bruck_alltoall(), 0 where it does not apply: as
 * doubling_rounds() (auto beyond one-shot's members on teams with a member
 * through the transport, GSHMEM_COLL_ALGO=doubling anywhere), where every
 * step's blocks of a round fit the area at once (each step has its own
 * place: its sender may be steps ahead of this member's reading). */
static size_t bruck_rounds(const struct gshmemi_team *t, gshmem_team_t team, size_t piece,
                           size_t *chunk)
{
    size_t dchunk;
    if (doubling_rounds(t, team, piece, 1, &dchunk) == 0)
        return 0;
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, 0);
    *chunk = a.cap * (size_t)gshmemi_rt.n_pes / bruck_blocks(t->n);
    if (*chunk == 0)
        return 0;
    const size_t rounds = rounds_of(piece, *chunk);
    return doubling_forced() || rounds <= ONESHOT_ROUNDS ? rounds : 0;
}

/* One round of Bruck's alltoall on bytes [off, off + len) of every block:
 * w's position q holds the block for member my + q (mod n), then, after
 * step k has moved the positions with bit k set to member my + 2^k (packed
 * in pack, into the area at that step's place, unpacked there into the
 * same positions), the block from member my - q.  The steps' signals and
 * the area's reuse are doubling()'s, so it shares its call numbers. */
static void bruck_round(const char *call, struct gshmemi_team *t, gshmem_team_t team, char *dest,
                        const char *source, size_t nbytes, size_t off, size_t len, char *w,
                        char *pack)
{
    const uint64_t call_no = ++t->oneshots;
    const struct gshmemi_team_oneshot a = gshmemi_team_oneshot_area(team, (int)(call_no & 1));
    const int n = t->n, my = t->my;
    for (int q = 0; q < n && len > 0; q++)
        memcpy(w + (size_t)q * len, source + (size_t)((my + q) % n) * nbytes + off, len);
    size_t at = 0; /* this step's place in the area */
    for (int d = 1, step = 0; d < n; d <<= 1, step++) {
        size_t cnt = 0;
        for (int q = 1; q < n; q++)
            if (q & d) {
                if (len > 0)
                    memcpy(pack + cnt * len, w + (size_t)q * len, len);
                cnt++;
            }
        const int to = (my + d) % n;
        if (len > 0)
            gshmemi_rma_put(call, a.data + at, pack, cnt * len, t->pes[to], 1);
        doubling_step_end(call, t, &a, step, to, call_no);
        for (int q = 1, i = 0; q < n && len > 0; q++)
            if (q & d)
                memcpy(w + (size_t)q * len, a.data + at + (size_t)i++ * len, len);
        at += cnt * len;
    }
    for (int q = 0; q < n && len > 0; q++)
        memcpy(dest + (size_t)((my - q + n) % n) * nbytes + off, w + (size_t)q * len, len);
}

static void bruck_alltoall(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                           void *dest, const void *source, size_t nbytes, size_t rounds,
                           size_t per_round)
{
    const size_t chunk = rounds > 1 ? per_round : nbytes, n = (size_t)t->n;
    char *w = malloc(n * chunk + (n / 2 + 1) * chunk + 1); /* (+1: chunk may be 0) */
    if (w == NULL)
        gshmemi_rma_fail(call, "no memory for the alltoall's %zu-byte blocks", chunk);
    size_t off, len;
    for (size_t r = 0; r < rounds; r++) {
        oneshot_round(r, per_round, nbytes, &off, &len);
        bruck_round(call, t, team, dest, source, nbytes, off, len, w, w + n * chunk);
    }
    free(w);
}

/* ---- moving data ------------------------------------------------------------- */

/* fcollect (stride 0: my block to every member; one-shot or recursive
 * doubling) and alltoall (stride nbytes: my block j to member j;
 * one-shot): member i's block lands at block i of dest (in place, mine is
 * already there). */
static void gather_blocks(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                          void *dest, const void *source, size_t nbytes, size_t stride,
                          size_t rounds, size_t per_round, enum gather_algo how)
{
    size_t off, len;
    for (size_t r = 0; r < rounds; r++) {
        oneshot_round(r, per_round, nbytes, &off, &len);
        const struct pieces pc = {.base = (const char *)source + off, .len = len, .stride = stride};
        const struct gathered g = gather(call, t, team, how, &pc);
        for (int i = 0; i < t->n && len > 0; i++) {
            char *to = (char *)dest + (size_t)i * nbytes + off;
            const char *in = piece_of(&g, i);
            if (in != to)
                memcpy(to, in, len);
        }
    }
}

static int broadcast(const char *call, gshmem_team_t team, void *dest, const void *source,
                     size_t nbytes, int root)
{
    struct gshmemi_team *t = team_for(call, team);
    if (root < 0 || root >= t->n)
        gshmemi_rma_fail(call, "PE_root %d is not in the team (%d PEs)", root, t->n);
    /* (source decides too: the grid algorithm reads the root's at this
     * member's symmetric address) */
    if (moved_on_gpu(call, t, team, 1, GSHMEMI_COLL_SHAPE_BROADCAST, dest, source, nbytes, root, 0,
                     0, 0, 0))
        return 0;
    if (t->my == root) /* elsewhere source is not read */
        gshmemi_coll_check_overlap(call, dest, nbytes, source, nbytes, source);
    gshmemi_coll_check_args(call, t, team, GSHMEMI_COLL_KIND(BROADCAST, NONE), nbytes, root);
    size_t per_round, off, len;
    const size_t doubled = doubling_broadcast_rounds(t, team, nbytes, &per_round);
    if (doubled > 0)
        oneshot_check(call, dest, nbytes, source, t->my == root ? nbytes : 0);
    for (size_t r = 0; r < doubled; r++) {
        oneshot_round(r, per_round, nbytes, &off, &len);
        doubling_broadcast(call, t, team, (char *)dest + off, (const char *)source + off, len,
                           root);
    }
    if (doubled > 0)
        return 0;
    const size_t rounds =
        flat_through_transport(t) ? 0 : oneshot_rounds(t, team, nbytes, 1, &per_round);
    const enum pipe_algo pa = pipe_pick(t, team, nbytes, &PIPE_BROADCAST, rounds > 0);
    if (pa != PIPE_NONE) {
        oneshot_check(call, dest, nbytes, source, t->my == root ? nbytes : 0);
        (pa == PIPE_HIER ? gshmemi_hier_broadcast : gshmemi_ring_broadcast)(call, t, team, dest,
                                                                           source, nbytes, root);
        return 0;
    }
    if (rounds > 0)
        oneshot_check(call, dest, nbytes, source, t->my == root ? nbytes : 0);
    for (size_t r = 0; r < rounds; r++) {
        oneshot_round(r, per_round, nbytes, &off, &len);
        const struct pieces pc = {.base = (const char *)source + off,
                                  .len = t->my == root ? len : 0};
        const struct gathered g = oneshot(call, t, team, &pc);
        const char *in = piece_of(&g, root);
        if (len > 0 && in != (char *)dest + off)
            memcpy((char *)dest + off, in, len);
    }
    if (rounds > 0)
        return 0;
    gshmemi_team_sync(call, t, team);
    if (t->my == root)
        for (int i = 0; i < t->n; i++)
            if (i != root || dest != source)
                gshmemi_rma_put(call, dest, source, nbytes, t->pes[i], 0);
    finish(call, t, team);
    return 0;
}

static int fcollect(const char *call, gshmem_team_t team, void *dest, const void *source,
                    size_t nbytes)
{
    struct gshmemi_team *t = team_for(call, team);
    if (moved_on_gpu(call, t, team, 1, GSHMEMI_COLL_SHAPE_FCOLLECT, dest, source, nbytes, 0, 0, 0,
                     0, 0))
        return 0;
    const size_t total = gshmemi_rma_bytes(call, (size_t)t->n, nbytes); /* one block a member */
    gshmemi_coll_check_overlap(call, dest, total, source, nbytes,
                               (const char *)source - (size_t)t->my * nbytes);
    gshmemi_coll_check_args(call, t, team, GSHMEMI_COLL_KIND(FCOLLECT, NONE), nbytes, -1);
    size_t per_round;
    enum gather_algo how;
    const size_t rounds = gather_rounds(t, team, nbytes, 1, &PIPE_COLLECT, &per_round, &how);
    const enum pipe_algo pa = pipe_pick(t, team, nbytes, &PIPE_COLLECT, rounds > 0);
    if (pa != PIPE_NONE) {
        oneshot_check(call, dest, total, source, nbytes);
        size_t *off = scratch(call, 2 * sizeof(size_t) * (size_t)t->n), *len = off + t->n;
        for (int i = 0; i < t->n; i++)
            off[i] = (size_t)i * nbytes, len[i] = nbytes;
        (pa == PIPE_HIER ? gshmemi_hier_collect : gshmemi_ring_collect)(call, t, team, dest,
                                                                       source, off, len);
        free(off);
        return 0;
    }
    if (rounds > 0) {
        oneshot_check(call, dest, total, source, nbytes);
        gather_blocks(call, t, team, dest, source, nbytes, 0, rounds, per_round, how);
        return 0;
    }
    gshmemi_team_sync(call, t, team);
    for (int i = 0; i < t->n; i++)
        gshmemi_rma_put(call, (char *)dest + (size_t)t->my * nbytes, source, nbytes, t->pes[i], 0);
    finish(call, t, team);
    return 0;
}

/* The sum of collect's n block sizes (every member computes the same). */
static uint64_t blocks_total(const char *call, const uint64_t *sizes, int n)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        if (__builtin_add_overflow(total, sizes[i], &total))
            gshmemi_rma_fail(call, "the members' blocks add up to more than 2^64 bytes");
    return total;
}

/* Every member's block size, then every block at its offset.  With the
 * one-shot area: the sizes one-shot, then the blocks pipelined or one-shot
 * by the largest (every member sees the same sizes, so all choose alike),
 * else between barriers. */
static int collect(const char *call, gshmem_team_t team, void *dest, const void *source,
                   size_t nbytes)
{
    struct gshmemi_team *t = team_for(call, team);
    uint64_t mine = nbytes, off = 0, most = 0;
    gshmemi_coll_check_overlap(call, dest, nbytes, source, nbytes, NULL);
    gshmemi_coll_check_args(call, t, team, GSHMEMI_COLL_KIND(COLLECT, NONE), nbytes, -1);
    if (oneshot_fits(t, team, sizeof(mine))) {
        const struct pieces ps = {.base = (const char *)&mine, .len = sizeof(mine)};
        const struct gathered g = oneshot(call, t, team, &ps);
        /* kept here: the next call but one reuses the area's parity */
        struct reduce_scratch *s = scratch_take(call, sizeof(uint64_t) * (size_t)t->n);
        uint64_t *sizes = (uint64_t *)(void *)s->data;
        for (int i = 0; i < t->n; i++) {
            memcpy(&sizes[i], piece_of(&g, i), sizeof(uint64_t));
            off += i < t->my ? sizes[i] : 0;
            most = sizes[i] > most ? sizes[i] : most;
        }
        const uint64_t total = blocks_total(call, sizes, t->n);
        gshmemi_coll_check_overlap(call, dest, total, source, nbytes, NULL);
        const enum pipe_algo pa =
            pipe_pick(t, team, most, &PIPE_COLLECT, oneshot_fits(t, team, most));
        if (pa != PIPE_NONE) {
            oneshot_check(call, dest, total, source, nbytes);
            size_t *offs = scratch(call, 2 * sizeof(size_t) * (size_t)t->n), *lens = offs + t->n;
            size_t at = 0;
            for (int i = 0; i < t->n; at += sizes[i++])
                offs[i] = at, lens[i] = sizes[i];
            scratch_give(s);
            (pa == PIPE_HIER ? gshmemi_hier_collect : gshmemi_ring_collect)(call, t, team, dest,
                                                                           source, offs, lens);
            free(offs);
            return 0;
        }
        if (oneshot_fits(t, team, most)) {
            oneshot_check(call, dest, total, source, nbytes);
            const struct pieces pc = {.base = source, .len = nbytes};
            const struct gathered b = oneshot(call, t, team, &pc);
            char *at = dest;
            for (int i = 0; i < t->n; i++) {
                if (sizes[i] > 0)
                    memcpy(at, piece_of(&b, i), sizes[i]);
                at += sizes[i];
            }
            scratch_give(s);
            return 0;
        }
        scratch_give(s);
        gshmemi_team_sync(call, t, team);
    } else {
        uint64_t *sizes = gshmemi_team_sizes_area(team), *all;
        all = scratch(call, sizeof(uint64_t) * (size_t)t->n);
        gshmemi_team_sync(call, t, team);
        for (int i = 0; i < t->n; i++)
            gshmemi_rma_put(call, &sizes[t->my], &mine, sizeof(mine), t->pes[i], 0);
        finish(call, t, team);
        gshmemi_rma_get(call, all, sizes, sizeof(uint64_t) * (size_t)t->n, gshmemi_rt.my_pe, 1);
        for (int i = 0; i < t->my; i++)
            off += all[i];
        /* the other members' blocks too: every member sees the same sizes,
         * so all fail alike before any block moves */
        gshmemi_coll_check_overlap(call, dest, blocks_total(call, all, t->n), source, nbytes, NULL);
        free(all);
    }
    for (int i = 0; i < t->n; i++)
        gshmemi_rma_put(call, (char *)dest + off, source, nbytes, t->pes[i], 0);
    /* The sizes' block is free again only once every member has read it. */
    finish(call, t, team);
    return 0;
}

static int alltoall(const char *call, gshmem_team_t team, void *dest, const void *source,
                    size_t nbytes)
{
    struct gshmemi_team *t = team_for(call, team);
    if (moved_on_gpu(call, t, team, 1, GSHMEMI_COLL_SHAPE_ALLTOALL, dest, source, nbytes, 0, 0, 0,
                     0, 0))
        return 0;
    const size_t total = gshmemi_rma_bytes(call, (size_t)t->n, nbytes); /* one block a member */
    gshmemi_coll_check_overlap(call, dest, total, source, total, NULL);
    gshmemi_coll_check_args(call, t, team, GSHMEMI_COLL_KIND(ALLTOALL, NONE), nbytes, -1);
    size_t per_round, bruck_chunk;
    const size_t rounds = oneshot_rounds(t, team, nbytes, 1, &per_round);
    /* (under auto Bruck's applies only where one-shot does not) */
    const size_t brounds = bruck_rounds(t, team, nbytes, &bruck_chunk);
    const int forced = doubling_forced() && brounds > 0;
    const enum pipe_algo pa =
        forced ? PIPE_NONE : pipe_pick(t, team, nbytes, &PIPE_ALLTOALL, rounds > 0);
    if (pa != PIPE_NONE) {
        oneshot_check(call, dest, total, source, total);
        if (pa == PIPE_HIER && gshmemi_hier_alltoall_fits(call, t, nbytes))
            gshmemi_hier_alltoall(call, t, team, dest, source, nbytes);
        else
            gshmemi_direct_alltoall(call, t, team, dest, source, nbytes);
        return 0;
    }
    if (rounds > 0 && !forced) {
        oneshot_check(call, dest, total, source, total);
        gather_blocks(call, t, team, dest, source, nbytes, nbytes, rounds, per_round,
                      GATHER_ONESHOT);
        return 0;
    }
    if (brounds > 0) {
        oneshot_check(call, dest, total, source, total);
        bruck_alltoall(call, t, team, dest, source, nbytes, brounds, bruck_chunk);
        return 0;
    }
    gshmemi_team_sync(call, t, team);
    for (int k = 1; k <= t->n; k++) { /* starting after me: not all onto one PE at once */
        const int j = (t->my + k) % t->n;
        gshmemi_rma_put(call, (char *)dest + (size_t)t->my * nbytes,
                        (const char *)source + (size_t)j * nbytes, nbytes, t->pes[j], 0);
    }
    finish(call, t, team);
    return 0;
}

/* Element k of my block j lands at element k of block my on PE j, each
 * side at its stride (in elements). */
static int alltoalls(const char *call, gshmem_team_t team, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    struct gshmemi_team *t = team_for(call, team);
    if (moved_on_gpu(call, t, team, nelems * esize <= ONE_BLOCK_MAX, GSHMEMI_COLL_SHAPE_ALLTOALLS,
                     dest, source, 0, 0, dst, sst, nelems, esize))
        return 0;
    if (dst <= 0 || sst <= 0)
        gshmemi_rma_fail(call, "strides dst %td and sst %td must be positive", dst, sst);
    if (nelems > 0) { /* the spans of all n blocks, as the strides lay them out */
        const size_t last = gshmemi_rma_bytes(call, (size_t)t->n, nelems) - 1;
        const size_t dspan = gshmemi_rma_bytes(call, gshmemi_rma_bytes(call, last, (size_t)dst) + 1,
                                               esize);
        const size_t sspan = gshmemi_rma_bytes(call, gshmemi_rma_bytes(call, last, (size_t)sst) + 1,
                                               esize);
        gshmemi_coll_check_overlap(call, dest, dspan, source, sspan, NULL);
    }
    gshmemi_coll_check_args(call, t, team, GSHMEMI_COLL_KIND(ALLTOALLS, NONE), nelems * esize, -1);
    gshmemi_team_sync(call, t, team);
    for (int k = 1; k <= t->n; k++) {
        const int j = (t->my + k) % t->n;
        const size_t first = (size_t)j * nelems;
        gshmemi_rma_iput(call, (char *)dest + (size_t)t->my * nelems * (size_t)dst * esize,
                         (const char *)source + first * (size_t)sst * esize, dst, sst, nelems,
                         esize, t->pes[j]);
    }
    finish(call, t, team);
    return 0;
}

/* ---- combining ------------------------------------------------------------------ */

/* out[i] = a[i] OP b[i] for n elements; out overlaps neither a nor b.  Two
 * inputs: the first step combines two members' sources with no copy of
 * the first before it; the later steps alternate between two buffers. */
typedef gshmemi_combine_fn combine_fn;

#define OP_AND(a, b) ((a) & (b))
#define OP_OR(a, b) ((a) | (b))
#define OP_XOR(a, b) ((a) ^ (b))
#define OP_MIN(a, b) ((b) < (a) ? (b) : (a))
#define OP_MAX(a, b) ((b) > (a) ? (b) : (a))
#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define WRAPS_AND 0
#define WRAPS_OR 0
#define WRAPS_XOR 0
#define WRAPS_MIN 0
#define WRAPS_MAX 0
#define WRAPS_SUM 1
#define WRAPS_PROD 1

/* One function per type and operation: restrict pointers, and the loop in
 * blocks of a fixed count, so that GCC's vectoriser at -O2 (its "very
 * cheap" cost model, which adds no alias checks and no remainder loop of
 * its own) takes it; the rest one by one.  ELEM(TYPE, out, a, b, OP, X)
 * combines one element, X being what the kind needs. */
#define COMBINE_BLOCK 16
#define COMBINE_DEF(NAME, TYPE, OP, ELEM, X)                                               \
    void gshmemi_combine_##NAME##_##OP(void *restrict out, const void *restrict a,         \
                                       const void *restrict b, size_t n)                   \
    {                                                                                      \
        TYPE *restrict o = out;                                                            \
        const TYPE *restrict x = a, *restrict y = b;                                       \
        size_t i = 0;                                                                      \
        for (; i + COMBINE_BLOCK <= n; i += COMBINE_BLOCK)                                 \
            for (size_t j = 0; j < COMBINE_BLOCK; j++)                                     \
                ELEM(TYPE, o[i + j], x[i + j], y[i + j], OP, X);                           \
        for (; i < n; i++)                                                                 \
            ELEM(TYPE, o[i], x[i], y[i], OP, X);                                           \
    }

/* Integers: sums and products in the unsigned type of the same width (of
 * int's, for narrower ones), so that they wrap (two's complement) instead
 * of overflowing; a wider one (uintmax_t) gives the same bits but keeps
 * the loop scalar. */
#define ELEM_INT(TYPE, O, A, B, OP, CALC) ((O) = (TYPE)OP_##OP((CALC)(A), (CALC)(B)))
#define CALC_TYPE(WRAPS, NAME, TYPE) CALC_TYPE_(WRAPS, NAME, TYPE)
#define CALC_TYPE_(WRAPS, NAME, TYPE) CALC_TYPE_##WRAPS(NAME, TYPE)
#define CALC_TYPE_0(NAME, TYPE) TYPE
#define CALC_TYPE_1(NAME, TYPE) UNSIGNED_##NAME
#define COMBINE_INT(NAME, TYPE, OP) \
    COMBINE_DEF(NAME, TYPE, OP, ELEM_INT, CALC_TYPE(WRAPS_##OP, NAME, TYPE))
#define ELEM_FLOAT(TYPE, O, A, B, OP, X) ((O) = OP_##OP(A, B))
#define COMBINE_FLOAT(NAME, TYPE, OP) COMBINE_DEF(NAME, TYPE, OP, ELEM_FLOAT, )
/* 16-bit floats: in float, rounded once per combination. */
#define ELEM_HALF(TYPE, O, A, B, OP, KIND)                                                 \
    ((O) = gshmemi_float_to_##KIND(OP_##OP(gshmemi_##KIND##_to_float(A),                  \
                                           gshmemi_##KIND##_to_float(B))))
#define COMBINE_HALF(NAME, KIND, OP) COMBINE_DEF(NAME, uint16_t, OP, ELEM_HALF, KIND)

/* Which of the three a type's combinations are.  FLOAT is C's operators on
 * the values, long double's and the complex types' too (a complex product
 * as C computes it, infinities included); a long double's 6 bytes of
 * padding are not written. */
#define KIND_char INT
#define KIND_schar INT
#define KIND_short INT
#define KIND_int INT
#define KIND_long INT
#define KIND_longlong INT
#define KIND_ptrdiff INT
#define KIND_uchar INT
#define KIND_ushort INT
#define KIND_uint INT
#define KIND_ulong INT
#define KIND_ulonglong INT
#define KIND_int8 INT
#define KIND_int16 INT
#define KIND_int32 INT
#define KIND_int64 INT
#define KIND_uint8 INT
#define KIND_uint16 INT
#define KIND_uint32 INT
#define KIND_uint64 INT
#define KIND_size INT
#define KIND_float FLOAT
#define KIND_double FLOAT
#define KIND_longdouble FLOAT
#define KIND_complexd FLOAT
#define KIND_complexf FLOAT
#define KIND_half HALF_half
#define KIND_bfloat16 HALF_bfloat16

/* The unsigned type of each integer type's width (wrapping operations);
 * unsigned int for those narrower than int, which C would promote to
 * (signed) int, where a product of two 16-bit values overflows. */
#define UNSIGNED_char unsigned int
#define UNSIGNED_schar unsigned int
#define UNSIGNED_short unsigned int
#define UNSIGNED_int unsigned int
#define UNSIGNED_long unsigned long
#define UNSIGNED_longlong unsigned long long
#define UNSIGNED_ptrdiff size_t
#define UNSIGNED_uchar unsigned int
#define UNSIGNED_ushort unsigned int
#define UNSIGNED_uint unsigned int
#define UNSIGNED_ulong unsigned long
#define UNSIGNED_ulonglong unsigned long long
#define UNSIGNED_int8 unsigned int
#define UNSIGNED_int16 unsigned int
#define UNSIGNED_int32 uint32_t
#define UNSIGNED_int64 uint64_t
#define UNSIGNED_uint8 unsigned int
#define UNSIGNED_uint16 unsigned int
#define UNSIGNED_uint32 uint32_t
#define UNSIGNED_uint64 uint64_t
#define UNSIGNED_size size_t
_Static_assert(sizeof(ptrdiff_t) == sizeof(size_t), "ptrdiff_t wraps as size_t");

#define COMBINE_HALF_half(NAME, TYPE, OP) COMBINE_HALF(NAME, half, OP)
#define COMBINE_HALF_bfloat16(NAME, TYPE, OP) COMBINE_HALF(NAME, bfloat16, OP)
#define COMBINE_OF(KIND) COMBINE_##KIND
#define COMBINE_KIND(KIND, NAME, TYPE, OP) COMBINE_OF(KIND)(NAME, TYPE, OP)

/* The scans' rows combine with SUM, as the reductions' do: one function
 * each (coll/combine.h declares them).  The to_all reductions' bitwise rows
 * are on signed types the team reductions' bitwise table has not. */
#define DEF_COMBINE_REDUCE(NAME, TYPE, OP) COMBINE_KIND(KIND_##NAME, NAME, TYPE, OP)
#define DEF_COMBINE_TO_ALL(NAME, TYPE, OP) COMBINE_KIND(KIND_##NAME, NAME, TYPE, OP)
#define DEF_COMBINE_REDUCESCATTER(NAME, TYPE, OP)
#define DEF_COMBINE_INSCAN(NAME, TYPE, OP)
#define DEF_COMBINE_EXSCAN(NAME, TYPE, OP)
#define DEF_COMBINE(STEM, TAIL, SHAPE, OP, NAME, TYPE) DEF_COMBINE_##SHAPE(NAME, TYPE, OP)
#define DEF_COMBINES_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(DEF_COMBINE, NAME, TYPE)
#define DEF_COMBINES_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(DEF_COMBINE, NAME, TYPE)
#define DEF_COMBINES_TO_ALL_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_BITWISE_OPS(DEF_COMBINE, NAME, TYPE)
#define DEF_COMBINES_COMPLEX(NAME, TYPE, G) GSHMEM_FOR_REDUCE_COMPLEX_OPS(DEF_COMBINE, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(DEF_COMBINES_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(DEF_COMBINES_ARITH)
GSHMEM_FOR_TO_ALL_BITWISE_TYPES(DEF_COMBINES_TO_ALL_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(DEF_COMBINES_ARITH)
GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(DEF_COMBINES_COMPLEX)

/* ---- reductions ----------------------------------------------------------------- */

/* A member's source is read where it lies when the heap is host memory
 * and the member's heap is mapped here; otherwise (GPU memory, which host
 * code cannot load, or a member reached through the transport) it is
 * fetched with a get into scratch first.  The combination goes in chunks:
 * where every member is read in place, small enough that the two chunks
 * the steps alternate between stay in L1 while each source streams through
 * once (8 KiB was the best of 8-64 on the 2-core VM); where some are
 * fetched, large, so that they take few requests. */
enum { CHUNK_IN_PLACE = 8 << 10, CHUNK_FETCHED = 4 << 20 };

static int in_place(const struct gshmemi_team *t)
{
    return gshmemi_heap.access->host_direct && t->mapped;
}

/* Member pe's [src, src + n): where it lies, or fetched into `in`. */
static const char *member_source(const char *call, int pe, const char *src, size_t n, char *in)
{
    if (gshmemi_heap.access->host_direct) { /* the heap, or static data: host memory */
        const struct gshmemi_heap_access *access;
        const char *r = gshmemi_rma_sym_target(call, "source", src, n, pe, &access);
        if (r != NULL)
            return r;
    }
    gshmemi_rma_get(call, in, src, n, pe, 1);
    return in;
}

/* result = the combination of members 0..upto-1's [src, src + n) (n > 0
 * bytes) in team order.  The steps alternate between result and tmp, so
 * that the last one writes result; `in` holds n bytes for a fetched
 * member. */
static void combine_members(const char *call, const struct gshmemi_team *t, int upto,
                            const char *src, size_t n, size_t esize, combine_fn *fn, char *result,
                            char *tmp, char *in)
{
    char *out = upto % 2 == 0 ? result : tmp; /* the first step's */
    char *first = upto > 1 && out == result ? tmp : result; /* member 0's, where fetched */
    const char *acc = member_source(call, t->pes[0], src, n, first);
    if (upto == 1 && acc != result)
        memcpy(result, acc, n);
    for (int i = 1; i < upto; i++, out = out == result ? tmp : result) {
        fn(out, acc, member_source(call, t->pes[i], src, n, in), n / esize);
        acc = out;
    }
}

/* The chunk size for combining `bytes`. */
static size_t chunk_of(const struct gshmemi_team *t, size_t bytes)
{
    const size_t chunk = in_place(t) ? CHUNK_IN_PLACE : CHUNK_FETCHED;
    return bytes < chunk ? bytes : chunk;
}

/* dest = members 0..upto-1's pieces of n bytes (upto > 0), combined in
 * team order, once gathered; the steps alternate between dest and a
 * scratch block (all of them in scratch where dest is this PE's piece). */
static void gathered_fold(const char *call, const struct gathered *g, int upto, size_t n,
                          size_t esize, combine_fn *fn, char *dest)
{
    const char *acc = piece_of(g, 0);
    if (n == 0)
        return;
    if (upto == 1) {
        if (acc != dest)
            memcpy(dest, acc, n);
        return;
    }
    const int aliased = dest == piece_of(g, g->my);
    struct reduce_scratch *s = scratch_take(call, aliased ? 2 * n : n);
    char *result = aliased ? s->data + n : dest, *tmp = s->data;
    char *out = upto % 2 == 0 ? result : tmp; /* the last step writes result */
    for (int i = 1; i < upto; i++, out = out == result ? tmp : result) {
        fn(out, acc, piece_of(g, i), n / esize);
        acc = out;
    }
    if (aliased)
        memcpy(dest, result, n);
    scratch_give(s);
}

/* launch: the stream form's kernels where the type has them, else NULL. */
static int reduce(const char *call, gshmem_team_t team, void *dest, const void *source,
                  size_t nreduce, size_t esize, combine_fn *fn, int kind,
                  gshmemi_coll_reduce_launch *launch)
{
    struct gshmemi_team *t = team_for(call, team);
    if (reduced_on_gpu(call, t, team, 1, kind, 0, 1, dest, source, nreduce, esize, launch))
        return 0;
    size_t first, len;
    gshmemi_coll_check_overlap(call, dest, nreduce * esize, source, nreduce * esize, source);
    gshmemi_coll_check_args(call, t, team, kind, gshmemi_rma_bytes(call, nreduce, esize), -1);
    size_t per_round, off, n;
    enum gather_algo how;
    const size_t rounds = gather_rounds(t, team, nreduce * esize, esize, &PIPE_REDUCE, &per_round,
                                        &how);
    if (pipe_pick(t, team, nreduce * esize, &PIPE_REDUCE, rounds > 0) != PIPE_NONE) {
        oneshot_check(call, dest, nreduce * esize, source, nreduce * esize);
        gshmemi_chain_reduce(call, t, team, dest, source, nreduce * esize, esize, fn);
        return 0;
    }
    if (rounds > 0)
        oneshot_check(call, dest, nreduce * esize, source, nreduce * esize);
    for (size_t r = 0; r < rounds; r++) {
        oneshot_round(r, per_round, nreduce * esize, &off, &n);
        const struct pieces pc = {.base = (const char *)source + off, .len = n};
        const struct gathered g = gather(call, t, team, how, &pc);
        gathered_fold(call, &g, t->n, n, esize, fn, (char *)dest + off);
    }
    if (rounds > 0)
        return 0;
    part(nreduce, t->n, t->my, &first, &len);
    const size_t bytes = len * esize, chunk = chunk_of(t, bytes);
    struct reduce_scratch *s = scratch_take(call, (in_place(t) ? 2 : 3) * chunk);
    char *acc = s->data, *tmp = acc + chunk, *in = tmp + chunk;
    gshmemi_team_sync(call, t, team);
    for (size_t off = 0; off < bytes; off += chunk) {
        const size_t n = bytes - off < chunk ? bytes - off : chunk;
        const size_t at = first * esize + off;
        combine_members(call, t, t->n, (const char *)source + at, n, esize, fn, acc, tmp, in);
        /* Chunk by chunk, only after every member's chunk is read: dest
         * may be source.  Starting after me: not all onto one PE at once.
         * A put from acc waits where acc is needed again. */
        for (int k = 1; k <= t->n; k++)
            gshmemi_rma_put(call, (char *)dest + at, acc, n, t->pes[(t->my + k) % t->n],
                            off + n < bytes);
    }
    finish(call, t, team); /* the puts from acc are complete */
    scratch_give(s);
    return 0;
}

static int reducescatter(const char *call, gshmem_team_t team, void *dest, const void *source,
                         size_t nreduce, size_t esize, combine_fn *fn, int kind,
                         gshmemi_coll_reduce_launch *launch)
{
    struct gshmemi_team *t = team_for(call, team);
    if (reduced_on_gpu(call, t, team, 1, kind, 1, 1, dest, source, nreduce, esize, launch))
        return 0;
    const size_t all = gshmemi_rma_bytes(call, gshmemi_rma_bytes(call, nreduce, esize), (size_t)t->n);
    gshmemi_coll_check_overlap(call, dest, nreduce * esize, source, all,
                               (const char *)source + (size_t)t->my * nreduce * esize);
    gshmemi_coll_check_args(call, t, team, kind, nreduce * esize, -1);
    size_t per_round, off, n;
    const size_t rounds = oneshot_rounds(t, team, nreduce * esize, esize, &per_round);
    if (pipe_pick(t, team, nreduce * esize, &PIPE_REDUCESCATTER, rounds > 0) != PIPE_NONE) {
        oneshot_check(call, dest, nreduce * esize, source, all);
        gshmemi_chain_reducescatter(call, t, team, dest, source, nreduce * esize, esize, fn);
        return 0;
    }
    if (rounds > 0)
        oneshot_check(call, dest, nreduce * esize, source, all);
    for (size_t r = 0; r < rounds; r++) {
        oneshot_round(r, per_round, nreduce * esize, &off, &n);
        const struct pieces pc = {.base = (const char *)source + off, .len = n,
                                  .stride = nreduce * esize};
        const struct gathered g = oneshot(call, t, team, &pc);
        gathered_fold(call, &g, t->n, n, esize, fn, (char *)dest + off);
    }
    if (rounds > 0)
        return 0;
    const size_t bytes = nreduce * esize, chunk = chunk_of(t, bytes);
    const char *mine = (const char *)source + (size_t)t->my * bytes; /* my block */
    struct reduce_scratch *s = scratch_take(call, (in_place(t) ? 2 : 3) * chunk);
    char *acc = s->data, *tmp = acc + chunk, *in = tmp + chunk;
    gshmemi_team_sync(call, t, team);
    for (size_t off = 0; off < bytes; off += chunk) {
        const size_t n = bytes - off < chunk ? bytes - off : chunk;
        combine_members(call, t, t->n, mine + off, n, esize, fn, acc, tmp, in);
        gshmemi_rma_put(call, (char *)dest + off, acc, n, gshmemi_rt.my_pe, off + n < bytes);
    }
    finish(call, t, team); /* the put from acc is complete */
    scratch_give(s);
    return 0;
}

/* dest on member i: the combination of members 0..i's sources (inclusive)
 * or 0..i-1's (exclusive; zero on member 0). */
static int scan(const char *call, gshmem_team_t team, void *dest, const void *source,
                size_t nelems, size_t esize, combine_fn *fn, int inclusive, int kind,
                gshmemi_coll_reduce_launch *launch)
{
    struct gshmemi_team *t = team_for(call, team);
    if (reduced_on_gpu(call, t, team, nelems * esize <= ONE_BLOCK_MAX, kind, 0, 0, dest, source,
                       nelems, esize, launch))
        return 0;
    const size_t bytes = gshmemi_rma_bytes(call, nelems, esize), chunk = chunk_of(t, bytes);
    gshmemi_coll_check_overlap(call, dest, bytes, source, bytes, source);
    gshmemi_coll_check_args(call, t, team, kind, bytes, -1);
    const int upto = inclusive ? t->my + 1 : t->my;
    size_t per_round, off, n;
    enum gather_algo how;
    const size_t rounds = gather_rounds(t, team, bytes, esize, NULL, &per_round, &how);
    if (rounds > 0)
        oneshot_check(call, dest, bytes, source, bytes);
    for (size_t r = 0; r < rounds; r++) { /* one-shot: to later members only */
        oneshot_round(r, per_round, bytes, &off, &n);
        const struct pieces pc = {.base = (const char *)source + off, .len = n,
                                  .min_to = t->my + 1};
        const struct gathered g = gather(call, t, team, how, &pc);
        if (n == 0)
            continue;
        if (upto == 0)
            memset((char *)dest + off, 0, n);
        else
            gathered_fold(call, &g, upto, n, esize, fn, (char *)dest + off);
    }
    if (rounds > 0)
        return 0;
    struct reduce_scratch *s = scratch_take(call, bytes + (in_place(t) ? 1 : 2) * chunk);
    /* acc: the whole result, kept until every member has read its sources */
    char *acc = s->data, *tmp = acc + bytes, *in = tmp + chunk;
    gshmemi_team_sync(call, t, team);
    if (upto == 0)
        memset(acc, 0, bytes); /* zero is every type's zero here (half's and bfloat16's too) */
    for (size_t off = 0; upto > 0 && off < bytes; off += chunk) {
        const size_t n = bytes - off < chunk ? bytes - off : chunk;
        combine_members(call, t, upto, (const char *)source + off, n, esize, fn, acc + off, tmp,
                        in);
    }
    gshmemi_team_sync(call, t, team); /* every source is read: dest may be one */
    gshmemi_rma_put(call, dest, acc, bytes, gshmemi_rt.my_pe, 1);
    scratch_give(s);
    return 0;
}

/* ---- the API ------------------------------------------------------------------- */

#define COLL_BROADCAST(F, PTYPE, ETYPE)                                                     \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems,   \
                     int PE_root)                                                          \
    {                                                                                      \
        return broadcast(#F, team, dest, source, gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE)), \
                         PE_root);                                                         \
    }
#define COLL_FCOLLECT(F, PTYPE, ETYPE)                                                      \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems)   \
    {                                                                                      \
        return fcollect(#F, team, dest, source, gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE))); \
    }
#define COLL_COLLECT(F, PTYPE, ETYPE)                                                       \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems)   \
    {                                                                                      \
        return collect(#F, team, dest, source, gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE))); \
    }
#define COLL_ALLTOALL(F, PTYPE, ETYPE)                                                      \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems)   \
    {                                                                                      \
        return alltoall(#F, team, dest, source, gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE))); \
    }
#define COLL_ALLTOALLS(F, PTYPE, ETYPE)                                                     \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, ptrdiff_t dst,   \
                     ptrdiff_t sst, size_t nelems)                                         \
    {                                                                                      \
        return alltoalls(#F, team, dest, source, dst, sst, nelems, sizeof(ETYPE));         \
    }
#define COLL_TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    COLL_##SHAPE(gshmem_##NAME##_##STEM##TAIL, TYPE, TYPE)
#define COLL_TYPE(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(COLL_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(COLL_TYPE)
GSHMEM_FOR_RMA_HOST_TYPES(COLL_TYPE)
#define COLL_MEM(STEM, TAIL, SHAPE, V, A, B) COLL_##SHAPE(gshmem_##STEM##mem##TAIL, void, char)
GSHMEM_FOR_COLL_OPS(COLL_MEM, , )

#define REDUCE_REDUCE(F, NAME, TYPE, OP, LAUNCH)                                            \
    GSHMEM_API int F(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce)    \
    {                                                                                      \
        return reduce(#F, team, dest, source, nreduce, sizeof(TYPE),                       \
                      gshmemi_combine_##NAME##_##OP, GSHMEMI_COLL_KIND_OF(GSHMEMI_COLL_KIND(REDUCE, OP), TYPE), LAUNCH); \
    }
#define REDUCE_REDUCESCATTER(F, NAME, TYPE, OP, LAUNCH)                                     \
    GSHMEM_API int F(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce)    \
    {                                                                                      \
        return reducescatter(#F, team, dest, source, nreduce, sizeof(TYPE),                \
                             gshmemi_combine_##NAME##_##OP,                                \
                             GSHMEMI_COLL_KIND_OF(GSHMEMI_COLL_KIND(REDUCESCATTER, OP), TYPE), LAUNCH);                \
    }
#define REDUCE_INSCAN(F, NAME, TYPE, OP, LAUNCH)                                            \
    GSHMEM_API int F(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems)     \
    {                                                                                      \
        return scan(#F, team, dest, source, nelems, sizeof(TYPE),                          \
                    gshmemi_combine_##NAME##_##OP, 1, GSHMEMI_COLL_KIND_OF(GSHMEMI_COLL_KIND(INSCAN, OP), TYPE), LAUNCH); \
    }
#define REDUCE_EXSCAN(F, NAME, TYPE, OP, LAUNCH)                                            \
    GSHMEM_API int F(gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems)     \
    {                                                                                      \
        return scan(#F, team, dest, source, nelems, sizeof(TYPE),                          \
                    gshmemi_combine_##NAME##_##OP, 0, GSHMEMI_COLL_KIND_OF(GSHMEMI_COLL_KIND(EXSCAN, OP), TYPE), LAUNCH); \
    }
/* The types with stream forms pass their launcher; the host-only ones
 * (long double, complex) keep the host algorithms on the GPU heap too. */
#define REDUCE_TYPED(STEM, TAIL, SHAPE, OP, NAME, TYPE)       \
    REDUCE_##SHAPE(gshmem_##NAME##_##STEM##TAIL, NAME, TYPE, OP, \
                   gshmemi_launch_##NAME##_##STEM##TAIL)
#define REDUCE_TYPED_HOST(STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    REDUCE_##SHAPE(gshmem_##NAME##_##STEM##TAIL, NAME, TYPE, OP, NULL)
#define REDUCE_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(REDUCE_TYPED, NAME, TYPE)
#define REDUCE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(REDUCE_TYPED, NAME, TYPE)
#define REDUCE_ARITH_HOST(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(REDUCE_TYPED_HOST, NAME, TYPE)
#define REDUCE_COMPLEX(NAME, TYPE, G) GSHMEM_FOR_REDUCE_COMPLEX_OPS(REDUCE_TYPED_HOST, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(REDUCE_ARITH)
GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(REDUCE_ARITH_HOST)
GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(REDUCE_COMPLEX)
