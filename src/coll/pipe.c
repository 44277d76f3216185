/*
 * Pipelined host collectives on the host heap: puts with signals between
 * neighbours of the team, chunk by chunk, and no barrier.  For large
 * payloads through the transport, where the barrier algorithm's barriers
 * and its many-to-one traffic cost most.
 *
 * Synchronisation is by the words of the team slot's pipe area (team.h):
 * go[i] (member i is in this call: its dest is free; and how many chunks
 * of the chain's partial results it has taken out of this PE's buffers)
 * and got[i] (how many chunks member i has delivered here).  Each word has
 * one writer, which writes it in order, and holds call << COUNT_BITS |
 * count, so a word only grows and every wait is a >= (2^44 calls a team:
 * years of back-to-back calls; counts stay below 2^20 because pipe_pick
 * in collectives.c keeps calls that move more than GSHMEMI_PIPE_MAX_CALL
 * bytes, 2^18 of the smallest chunk, on the barrier algorithm).  A member writes into
 * another's dest or buffers only after that one's go for this call: that
 * one has finished the call before (its buffers are free, its dest is no
 * longer the previous call's), and a slow member's dest is never written
 * early.  Each member returns once everything it is sent has arrived; its
 * puts are complete locally on return (the source may be reused), so back
 * to back calls need nothing more.
 *
 * Only the chained reductions and the hierarchical alltoall's streams
 * between leaders use the area's buffers (nbuf chunks in flight a link);
 * everything else lands in dest, in chunks of FWD bytes
 * so that the next member can pass a chunk on while the following one
 * arrives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/runtime.h"
#include "heap/heap.h"
#include "rma/rma.h"
#include "sync/wait.h"
#include "coll/pipe.h"
#include "coll/team.h"

/* The chunk passed on along a ring or to a node (bytes). */
enum { FWD = 256 << 10 };

struct pipe {
    const char *call;
    struct gshmemi_team *t;
    struct gshmemi_team_pipe a;
    uint64_t e; /* this call's number on the team */
};

int gshmemi_pipe_ready(gshmem_team_t team) { return gshmemi_team_pipe_area(team).buf != NULL; }

static struct pipe pipe_begin(const char *call, struct gshmemi_team *t, gshmem_team_t team)
{
    const struct pipe p = {.call = call, .t = t, .a = gshmemi_team_pipe_area(team),
                           .e = ++t->pipes};
    return p;
}

enum { COUNT_BITS = 20 };
_Static_assert(GSHMEMI_PIPE_MAX_CALL / GSHMEMI_TEAM_PIPE_CHUNK <= (1u << (COUNT_BITS - 2)),
               "a call's chunk counts fit their bits");

static uint64_t tag(const struct pipe *p, uint64_t k) { return p->e << COUNT_BITS | k; }

/* Tell member i: I am in this call and have taken k chunks from my buffers. */
static void say_go(const struct pipe *p, int i, uint64_t k)
{
    gshmemi_signal_op(p->call, &p->a.go[p->t->my], tag(p, k), GSHMEM_SIGNAL_SET, p->t->pes[i]);
}

/* Tell member i: k chunks of this call have been delivered to it. */
static void say_got(const struct pipe *p, int i, uint64_t k)
{
    gshmemi_signal_op(p->call, &p->a.got[p->t->my], tag(p, k), GSHMEM_SIGNAL_SET, p->t->pes[i]);
}

static void wait_word(const struct pipe *p, uint64_t *word, uint64_t value)
{
    const struct gshmemi_wait w = {.call = p->call, .ivars = word, .nelems = 1,
                                   .esize = sizeof(uint64_t), .cmp = GSHMEM_CMP_GE,
                                   .value = value, .access = gshmemi_heap.access};
    (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);
}

/* Member i has said go with at least k. */
static void wait_go(const struct pipe *p, int i, uint64_t k) { wait_word(p, &p->a.go[i], tag(p, k)); }
/* Member i has delivered at least k chunks here. */
static void wait_got(const struct pipe *p, int i, uint64_t k) { wait_word(p, &p->a.got[i], tag(p, k)); }

static int succ_of(const struct gshmemi_team *t, int i) { return (i + 1) % t->n; }
static int pred_of(const struct gshmemi_team *t, int i) { return (i + t->n - 1) % t->n; }

static size_t chunks(size_t bytes, size_t chunk) { return (bytes + chunk - 1) / chunk; }

/* Chunk c of `bytes` in chunks of `chunk`: [*off, *off + return). */
static size_t chunk_at(size_t c, size_t chunk, size_t bytes, size_t *off)
{
    *off = c * chunk;
    return bytes - *off < chunk ? bytes - *off : chunk;
}

static void copy_own(char *to, const char *from, size_t n)
{
    if (n > 0 && to != from)
        memcpy(to, from, n);
}

/* ---- moving data ------------------------------------------------------------- */

/* Step s (0..n-2): pass block my - s on to my successor (s 0: mine, from
 * source; after that the block my predecessor sent at step s - 1, from my
 * dest as each of its chunks arrives).  The chunks my predecessor delivers
 * are counted over the whole call, in the order it sends them. */
void gshmemi_ring_collect(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                          char *dest, const char *source, const size_t *off, const size_t *len)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int n = t->n, my = t->my, succ = succ_of(t, my), pred = pred_of(t, my);
    size_t in = 0, out = 0; /* chunks received before this block, sent so far */
    copy_own(dest + off[my], source, len[my]);
    if (n == 1)
        return;
    say_go(&p, pred, 0);
    wait_go(&p, succ, 0);
    for (int s = 0; s < n - 1; s++) {
        const int b = (my - s + n) % n;
        const size_t m = chunks(len[b], FWD);
        for (size_t c = 0; c < m; c++) {
            size_t at;
            const size_t k = chunk_at(c, FWD, len[b], &at);
            if (s > 0)
                wait_got(&p, pred, in + c + 1);
            gshmemi_rma_put(call, dest + off[b] + at, (s == 0 ? source : dest + off[b]) + at, k,
                            t->pes[succ], 0);
            say_got(&p, succ, ++out);
        }
        if (s > 0)
            in += m;
    }
    /* the last block, which I do not pass on: my successor's */
    const size_t last = chunks(len[succ], FWD);
    if (last > 0)
        wait_got(&p, pred, in + last);
}

/* Root's chunks along the ring root, root + 1, ..., root - 1; each member
 * but the last passes each chunk on from its dest as it arrives. */
void gshmemi_ring_broadcast(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                            char *dest, const char *source, size_t nbytes, int root)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int my = t->my, succ = succ_of(t, my), pred = pred_of(t, my);
    const size_t m = chunks(nbytes, FWD);
    if (my == root)
        copy_own(dest, source, nbytes);
    else
        say_go(&p, pred, 0);
    if (succ == root) { /* the last (or alone) */
        if (my != root)
            wait_got(&p, pred, m);
        return;
    }
    wait_go(&p, succ, 0);
    for (size_t c = 0; c < m; c++) {
        size_t at;
        const size_t k = chunk_at(c, FWD, nbytes, &at);
        if (my != root)
            wait_got(&p, pred, c + 1);
        gshmemi_rma_put(call, dest + at, (my == root ? source : dest) + at, k, t->pes[succ], 0);
        say_got(&p, succ, c + 1);
    }
}

void gshmemi_direct_alltoall(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                             char *dest, const char *source, size_t nbytes)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int n = t->n, my = t->my;
    for (int k = 1; k < n; k++)
        say_go(&p, (my + k) % n, 0);
    copy_own(dest + (size_t)my * nbytes, source + (size_t)my * nbytes, nbytes);
    for (int k = 1; k < n; k++) { /* starting after me: not all onto one PE at once */
        const int j = (my + k) % n;
        wait_go(&p, j, 0);
        gshmemi_rma_put(call, dest + (size_t)my * nbytes, source + (size_t)j * nbytes, nbytes,
                        t->pes[j], 0);
        say_got(&p, j, 1);
    }
    for (int k = 1; k < n; k++)
        wait_got(&p, (my + n - k) % n, 1);
}

/* ---- hierarchical: within nodes over mapped peers, between them through
 * the transport ---------------------------------------------------------------- */

int gshmemi_pipe_spans_nodes(const struct gshmemi_team *t) { return t->spread; }

/* Every member puts its block into the dest of each member of its node;
 * each node's first member (its leader) then sends its node's blocks to
 * every other leader, and passes the blocks of each other node on to its
 * node's members as they arrive.  got counts: 1 from each member of my
 * node (its block); from a leader, 1 (its node's blocks, to the other
 * leaders), then 2 (every other node's blocks, to its node's members). */
void gshmemi_hier_collect(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                          char *dest, const char *source, const size_t *off, const size_t *len)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int n = t->n, my = t->my, *lead = t->lead;
    const int leader = lead[my] == my;
    for (int k = 1; k < n; k++) {
        const int i = (my + k) % n;
        if (lead[i] == lead[my] || (leader && lead[i] == i))
            say_go(&p, i, 0);
    }
    copy_own(dest + off[my], source, len[my]);
    for (int k = 1; k < n; k++) {
        const int i = (my + k) % n;
        if (lead[i] != lead[my])
            continue;
        wait_go(&p, i, 0);
        gshmemi_rma_put(call, dest + off[my], source, len[my], t->pes[i], 0);
        say_got(&p, i, 1);
    }
    for (int i = 0; i < n; i++)
        if (i != my && lead[i] == lead[my])
            wait_got(&p, i, 1);
    if (leader) {
        for (int k = 1; k < n; k++) { /* my node's blocks to the other leaders */
            const int l = (my + k) % n;
            if (lead[l] != l)
                continue;
            wait_go(&p, l, 0);
            for (int i = 0; i < n; i++)
                if (lead[i] == my)
                    gshmemi_rma_put(call, dest + off[i], dest + off[i], len[i], t->pes[l], 0);
            say_got(&p, l, 1);
        }
        for (int k = 1; k < n; k++) { /* each other node's, on to my node's members */
            const int l = (my + k) % n;
            if (lead[l] != l)
                continue;
            wait_got(&p, l, 1);
            for (int x = 0; x < n; x++)
                for (int i = 0; x != my && lead[x] == my && i < n; i++)
                    if (lead[i] == l)
                        gshmemi_rma_put(call, dest + off[i], dest + off[i], len[i], t->pes[x], 0);
        }
        for (int x = 0; x < n; x++)
            if (x != my && lead[x] == my)
                say_got(&p, x, 2);
    } else {
        wait_got(&p, lead[my], 2);
    }
}

/* The root sends each chunk to the first member of every other node and
 * to the members of its own; those first members pass it on to the
 * members of theirs as it arrives. */
void gshmemi_hier_broadcast(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                            char *dest, const char *source, size_t nbytes, int root)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int n = t->n, my = t->my;
    /* head[i]: whom member i gets the data from (the root heads its own
     * node); my targets: the root's, every other head and its own node's
     * members; another head's, its node's members */
    int *head = malloc(2 * sizeof(int) * (size_t)n), *to = head + n, nto = 0;
    if (head == NULL)
        gshmemi_rma_fail(call, "out of host memory");
    for (int i = 0; i < n; i++)
        head[i] = t->lead[i] == t->lead[root] ? root : t->lead[i];
    const size_t m = chunks(nbytes, FWD);
    for (int k = 1; k < n; k++) {
        const int i = (my + k) % n;
        if ((my == root && head[i] == i) || (head[my] == my && head[i] == my))
            to[nto++] = i;
    }
    if (my == root) {
        copy_own(dest, source, nbytes);
    } else {
        say_go(&p, head[my] == my ? root : head[my], 0);
    }
    for (int j = 0; j < nto; j++)
        wait_go(&p, to[j], 0);
    for (size_t c = 0; c < m; c++) {
        size_t at;
        const size_t k = chunk_at(c, FWD, nbytes, &at);
        if (my != root)
            wait_got(&p, head[my] == my ? root : head[my], c + 1);
        for (int j = 0; j < nto; j++) {
            gshmemi_rma_put(call, dest + at, (my == root ? source : dest) + at, k,
                            t->pes[to[j]], 0);
            say_got(&p, to[j], c + 1);
        }
    }
    free(head);
}

/* ---- reductions: a chain in team order -------------------------------------------- */

/* Phase 1: member 0 puts its chunks into member 1's buffers, member j
 * (0 < j < n-1) combines each chunk from its predecessor's with its own
 * and puts the result into member j+1's buffers, member n-1 combines the
 * last: the result, chunk by chunk, in team order.  A buffer is reused
 * once its taker has said (go) it took the chunk: NBUF chunks in flight.
 * The result's chunk c of [first, first + bytes) of the source stream
 * goes to final(). */
struct chain {
    const struct pipe *p;
    const char *source;
    size_t bytes, esize, chunk;
    size_t block, per_block; /* chunks never span blocks of `block` bytes (0: one block) */
    gshmemi_combine_fn *fn;
    char *tmp; /* a chunk */
};

/* The chain's chunk c: [*at, *at + return) of the stream. */
static size_t chain_at(const struct chain *ch, size_t c, size_t *at)
{
    if (ch->block == 0)
        return chunk_at(c, ch->chunk, ch->bytes, at);
    const size_t b = c / ch->per_block;
    const size_t k = chunk_at(c % ch->per_block, ch->chunk, ch->block, at);
    *at += b * ch->block;
    return k;
}

/* final(ch, c, at, res, k, ctx): member n-1 has chunk c of the result at
 * res (its own scratch), k bytes from `at` of the stream. */
typedef void chain_final_fn(const struct chain *ch, size_t c, size_t at, const char *res, size_t k,
                            void *ctx);

static void chain_run(const struct chain *ch, chain_final_fn *final, void *ctx)
{
    const struct pipe *p = ch->p;
    const struct gshmemi_team *t = p->t;
    const int n = t->n, my = t->my, succ = succ_of(t, my), pred = my - 1;
    const size_t m = ch->block == 0 ? chunks(ch->bytes, ch->chunk) : ch->per_block * (size_t)n;
    const size_t nbuf = (size_t)p->a.nbuf;
    if (my > 0)
        say_go(p, pred, 0);
    for (size_t c = 0; c < m; c++) {
        size_t at;
        const size_t k = chain_at(ch, c, &at);
        char *slot = p->a.buf + (c % nbuf) * ch->chunk; /* at my successor, and mine */
        if (my == 0) {
            wait_go(p, succ, c + 1 > nbuf ? c + 1 - nbuf : 0);
            gshmemi_rma_put(p->call, slot, ch->source + at, k, t->pes[succ], 0);
            say_got(p, succ, c + 1);
            continue;
        }
        wait_got(p, pred, c + 1);
        char *out = ch->tmp;
        if (my < n - 1) { /* straight into my successor's buffer where it is mapped */
            wait_go(p, succ, c + 1 > nbuf ? c + 1 - nbuf : 0);
            char *r = gshmemi_rma_target(p->call, "scratch", slot, k, t->pes[succ]);
            if (r != NULL)
                out = r;
        }
        ch->fn(out, slot, ch->source + at, k / ch->esize);
        say_go(p, pred, c + 1); /* my buffer is free again */
        if (my < n - 1) {
            if (out == ch->tmp)
                gshmemi_rma_put(p->call, slot, out, k, t->pes[succ], 0);
            say_got(p, succ, c + 1);
        } else {
            final(ch, c, at, out, k, ctx);
        }
    }
}

struct reduce_ctx {
    char *dest;
};

/* Member n-1: the result's chunk into my dest and on to member 0. */
static void reduce_final(const struct chain *ch, size_t c, size_t at, const char *res, size_t k,
                         void *ctx)
{
    struct reduce_ctx *r = ctx;
    const struct pipe *p = ch->p;
    memcpy(r->dest + at, res, k);
    gshmemi_rma_put(p->call, r->dest + at, r->dest + at, k, p->t->pes[0], 0);
    say_got(p, 0, c + 1);
}

static char *chunk_buffer(const char *call, size_t chunk)
{
    char *tmp = malloc(chunk);
    if (tmp == NULL)
        gshmemi_rma_fail(call, "out of host memory for %zu bytes of scratch", chunk);
    return tmp;
}

static size_t chain_chunk(const struct pipe *p, size_t esize)
{
    return p->a.chunk - p->a.chunk % esize;
}

/* Phase 2: the result from member n-1 around the ring, n-1, 0, 1, ...,
 * n-2, into each dest (every member has entered: it sent its part; a
 * chunk of the result comes after the member read its source's chunk, so
 * dest may be source).  got from my predecessor counts on from phase 1. */
void gshmemi_chain_reduce(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                          char *dest, const char *source, size_t nbytes, size_t esize,
                          gshmemi_combine_fn *fn)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int n = t->n, my = t->my;
    if (n == 1) {
        copy_own(dest, source, nbytes);
        return;
    }
    const size_t chunk = chain_chunk(&p, esize), m = chunks(nbytes, chunk);
    struct chain ch = {.p = &p, .source = source, .bytes = nbytes, .esize = esize,
                       .chunk = chunk, .fn = fn, .tmp = chunk_buffer(call, chunk)};
    struct reduce_ctx rc = {.dest = dest};
    chain_run(&ch, reduce_final, &rc);
    free(ch.tmp);
    if (my == n - 1)
        return;
    const int pred = my == 0 ? n - 1 : my - 1, succ = my + 1;
    const size_t base = my == 0 ? 0 : m; /* member 0 got nothing in phase 1 */
    for (size_t c = 0; c < m; c++) {
        size_t at;
        const size_t k = chunk_at(c, chunk, nbytes, &at);
        wait_got(&p, pred, base + c + 1);
        if (succ < n - 1) {
            gshmemi_rma_put(call, dest + at, dest + at, k, t->pes[succ], 0);
            say_got(&p, succ, m + c + 1);
        }
    }
}

/* The stream is the n blocks one after the other, each in its own chunks
 * (none spans two blocks); member n-1 puts each chunk of the result into
 * its block's member's dest, where that member has said (where[], then
 * go) its dest lies: in place, each member's dest is its own block of the
 * source, at another address on each.  got from member n-1 counts that
 * block's chunks (member n-1 sends nothing else to any member here). */
struct scatter_ctx {
    char *dest;
    size_t nbytes, per_block; /* chunks a block */
};

static void scatter_final(const struct chain *ch, size_t c, size_t at, const char *res, size_t k,
                          void *ctx)
{
    struct scatter_ctx *r = ctx;
    const struct pipe *p = ch->p;
    const int b = (int)(c / r->per_block);
    const size_t in = at - (size_t)b * r->nbytes;
    if (b == p->t->my) {
        memcpy(r->dest + in, res, k);
        return;
    }
    if (c % r->per_block == 0)
        wait_go(p, b, 0);
    char *to = gshmemi_sym_addr(p->a.where[b]) + in;
    gshmemi_rma_put(p->call, to, res, k, p->t->pes[b], 0);
    say_got(p, b, c % r->per_block + 1);
}

void gshmemi_chain_reducescatter(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                                 char *dest, const char *source, size_t nbytes, size_t esize,
                                 gshmemi_combine_fn *fn)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int n = t->n, my = t->my;
    if (n == 1) {
        copy_own(dest, source, nbytes);
        return;
    }
    if (my < n - 1) { /* where member n-1 is to put my block */
        const uint64_t off = gshmemi_rma_off(dest);
        gshmemi_rma_put(call, &p.a.where[my], &off, sizeof(off), t->pes[n - 1], 0);
        say_go(&p, n - 1, 0);
    }
    const size_t chunk = chain_chunk(&p, esize), per_block = chunks(nbytes, chunk);
    struct chain ch = {.p = &p, .source = source, .bytes = nbytes * (size_t)n, .esize = esize,
                       .chunk = chunk, .per_block = per_block, .block = nbytes, .fn = fn,
                       .tmp = chunk_buffer(call, chunk)};
    struct scatter_ctx rc = {.dest = dest, .nbytes = nbytes, .per_block = per_block};
    chain_run(&ch, scatter_final, &rc);
    free(ch.tmp);
    if (my < n - 1)
        wait_got(&p, n - 1, per_block);
}

/* ---- hierarchical alltoall ----------------------------------------------------------- */

/* Within each node every member puts its blocks for the others straight
 * into their dests (got 1).  Between nodes only the leaders talk: in step
 * s (1 .. nodes-1) the leader of node v sends to the leader of node v + s
 * and takes from that of node v - s, the leaders in team order.  What
 * node A sends node B is one stream, A's members in team order, each with
 * its block for each of B's members in team order: the sending leader
 * reads its members' sources where they lie (gets them where they are not
 * mapped) and packs the stream into the receiving leader's buffers, which
 * unpacks each chunk into its members' dests.  The receiving leader takes
 * one sender at a time, saying go anew at the start of each step.  Every
 * leader sends and takes a chunk a turn, so that neither waits for room
 * the other would only make after its own sends.  At the end a leader
 * tells its members (got 2) that their dests are complete and their
 * sources read. */

/* The team indices of the members of the node led by l, in team order. */
static int node_members(const struct gshmemi_team *t, int l, int *out)
{
    int k = 0;
    for (int i = 0; i < t->n; i++)
        if (t->lead[i] == l)
            out[k++] = i;
    return k;
}

/* Packs or unpacks [at, at + len) of the stream from the node of `from`
 * (nf members) to the node of `to` (nt): packing reads the members'
 * sources into buf, unpacking writes buf into the members' dests. */
static void hier_stream(const struct pipe *p, int pack, const int *from, const int *to, int nt,
                        char *dest, const char *source, size_t nbytes, size_t at, size_t len,
                        char *buf)
{
    const struct gshmemi_team *t = p->t;
    while (len > 0) {
        const size_t pair = at / nbytes, in = at % nbytes;
        const size_t k = nbytes - in < len ? nbytes - in : len;
        const int a = from[pair / (size_t)nt], b = to[pair % (size_t)nt];
        if (pack) {
            const char *src = source + (size_t)b * nbytes + in;
            const struct gshmemi_heap_access *acc;
            const char *r = gshmemi_heap.access->host_direct
                                ? gshmemi_rma_sym_target(p->call, "source", src, k, t->pes[a], &acc)
                                : NULL;
            if (r != NULL)
                memcpy(buf, r, k);
            else
                gshmemi_rma_get(p->call, buf, src, k, t->pes[a], 1);
        } else {
            gshmemi_rma_put(p->call, dest + (size_t)a * nbytes + in, buf, k, t->pes[b], 0);
        }
        buf += k, at += k, len -= k;
    }
}

int gshmemi_hier_alltoall_fits(const char *call, const struct gshmemi_team *t, size_t nbytes)
{
    int *count = calloc((size_t)t->n, sizeof(int)), most = 0;
    if (count == NULL)
        gshmemi_rma_fail(call, "out of host memory");
    for (int i = 0; i < t->n; i++)
        most = ++count[t->lead[i]] > most ? count[t->lead[i]] : most;
    free(count);
    return nbytes <= GSHMEMI_PIPE_MAX_CALL / (size_t)most / (size_t)most;
}

void gshmemi_hier_alltoall(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                           char *dest, const char *source, size_t nbytes)
{
    const struct pipe p = pipe_begin(call, t, team);
    const int n = t->n, my = t->my, *lead = t->lead;
    for (int k = 1; k < n; k++)
        if (lead[(my + k) % n] == lead[my])
            say_go(&p, (my + k) % n, 0);
    copy_own(dest + (size_t)my * nbytes, source + (size_t)my * nbytes, nbytes);
    for (int k = 1; k < n; k++) {
        const int x = (my + k) % n;
        if (lead[x] != lead[my])
            continue;
        wait_go(&p, x, 0);
        gshmemi_rma_put(call, dest + (size_t)my * nbytes, source + (size_t)x * nbytes, nbytes,
                        t->pes[x], 0);
        say_got(&p, x, 1);
    }
    for (int x = 0; x < n; x++)
        if (x != my && lead[x] == lead[my])
            wait_got(&p, x, 1);
    if (lead[my] != my) {
        wait_got(&p, lead[my], 2);
        return;
    }
    /* leaders[v]: node v's leader; mine, then each step's peers' members */
    int *leaders = malloc(sizeof(int) * 4 * (size_t)n), nl = 0, v = 0;
    if (leaders == NULL)
        gshmemi_rma_fail(call, "out of host memory");
    int *mine = leaders + n, *to = mine + n, *from = to + n;
    for (int i = 0; i < n; i++)
        if (lead[i] == i) {
            v = i == my ? nl : v;
            leaders[nl++] = i;
        }
    const int nm = node_members(t, my, mine);
    const size_t chunk = p.a.chunk, nbuf = (size_t)p.a.nbuf;
    char *tmp = chunk_buffer(call, chunk);
    for (int s = 1; s < nl; s++) {
        const int lt = leaders[(v + s) % nl], lf = leaders[(v - s + nl) % nl];
        const int nt = node_members(t, lt, to), nf = node_members(t, lf, from);
        const size_t out = (size_t)nm * (size_t)nt * nbytes, in = (size_t)nf * (size_t)nm * nbytes;
        const size_t mo = chunks(out, chunk), mi = chunks(in, chunk);
        say_go(&p, lf, 0); /* my buffers are free for this step's sender */
        for (size_t c = 0; c < mo || c < mi; c++) {
            char *slot = p.a.buf + (c % nbuf) * chunk;
            size_t at, k;
            if (c < mo) {
                k = chunk_at(c, chunk, out, &at);
                hier_stream(&p, 1, mine, to, nt, dest, source, nbytes, at, k, tmp);
                wait_go(&p, lt, c + 1 > nbuf ? c + 1 - nbuf : 0);
                gshmemi_rma_put(call, slot, tmp, k, t->pes[lt], 0);
                say_got(&p, lt, c + 1);
            }
            if (c < mi) {
                k = chunk_at(c, chunk, in, &at);
                wait_got(&p, lf, c + 1);
                hier_stream(&p, 0, from, mine, nm, dest, source, nbytes, at, k, slot);
                say_go(&p, lf, c + 1);
            }
        }
    }
    free(tmp);
    free(leaders);
    for (int x = 0; x < n; x++)
        if (x != my && lead[x] == my)
            say_got(&p, x, 2);
}
