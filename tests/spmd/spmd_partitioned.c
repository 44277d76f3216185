/* Partitioned transfers (MPI 4.0's partitioned communication, issue 22),
 * host forms, on the host heap.  Every round's data is random (seeded by
 * the sender, the request, the round and the partition) and checked against
 * a reference the receiver computes on its own; the receiver's buffer is
 * poisoned before each round's gshmemx_pstart (the sender's data moves only
 * once the receiver has started the round), with guard bytes around it that
 * must stay untouched, and every partition that gshmemx_parrived reports
 * arrived must already hold its data.  The parts:
 * - ring: send to me + 1, receive from me - 1 (at 2 PEs both directions of
 *   one pair), every shape of 1, 3, 64 and 256 partitions by 0 (flags
 *   only), 1, 8, 13 and 4096 bytes, and 4 partitions of 256 KiB;
 * - all pairs (up to 4 PEs): every ordered pair at once, the readies of a
 *   PE's sends interleaved;
 * - 1000 rounds on the pair 0, 1 (both directions) without a barrier;
 * - call orders MPI allows: 12 receives made before the sends on both sides
 *   (more than the library's 8 posts a pair), sends first, a receive's
 *   pstart before the sender's psend_init, a receiver that comes late;
 * - requests freed and made again more than 8 times a pair, and pairs
 *   freed before any round, after which the next ones still match;
 * - two threads of a sender marking disjoint partitions of one request
 *   (GSHMEM_THREAD_MULTIPLE) while its main thread tests arrivals.
 * Partitions are marked one by one in shuffled order, by pready_range in
 * random chunks, by pready_list with shuffled lists, and all mixed.
 *
 * `spmd_partitioned misuse CASE` (2 PEs): one bad call a run, for
 * check_negative.py --partitioned, which asserts the exact message. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "spmd_util.h"

#define GUARD 64          /* bytes around every receive buffer, poisoned */
#define GUARD_BYTE 0x3c
#define POLL_LIMIT_S 60.0 /* a partition that never shows as arrived fails here */

static int me, npes;
static uint64_t seed;
static long long bytes_checked;

/* ---- random numbers, per PE and part ------------------------------------ */
typedef struct {
    uint64_t s;
} rng_t;

static rng_t rng_make(uint64_t a, uint64_t b)
{
    rng_t r = {spmd_mix(seed ^ spmd_mix(((uint64_t)me << 48) ^ (a << 24) ^ b))};
    return r;
}

static uint64_t rnd(rng_t *r)
{
    r->s = spmd_mix(r->s);
    return r->s;
}

static int rnd_below(rng_t *r, int n) { return n <= 1 ? 0 : (int)(rnd(r) % (uint64_t)n); }

static void shuffle(int *a, int n, rng_t *r)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd_below(r, i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The bytes of partition p of round `round` of request `id` from `from` to
 * `to`: both sides compute them alone. */
static void part_data(unsigned char *buf, size_t n, int from, int to, uint64_t id, int round, int p)
{
    if (n > 0)
        spmd_fill(buf, n, seed, from,
                  spmd_mix((id << 20) ^ ((uint64_t)to << 52) ^ 0x5a5a) ^ ((uint64_t)round << 24) ^
                      (uint64_t)p);
}

/* ---- one side of one pair ----------------------------------------------- */
typedef struct {
    int send;             /* this PE sends (else receives) */
    int peer;
    int parts;
    size_t bytes;
    unsigned char *dest;  /* the receiver's symmetric buffer, GUARD bytes free either side */
    uint64_t id;          /* names the request in the data: the same on both sides */
    int k;                /* the pair's request number (1, 2, ...), for messages */
    const char *what;     /* the part, for messages */
    int round;
    unsigned char *src;   /* sender: this round's data */
    unsigned char *ref;   /* receiver: the data expected this round */
    unsigned char *got;   /* receiver: what dest holds */
    unsigned char *seen;  /* receiver: the partitions found arrived this round */
    int n_seen;
    gshmemx_prequest_t req;
} chan_t;

static size_t chan_total(const chan_t *c) { return (size_t)c->parts * c->bytes; }

static void chan_setup(chan_t *c, const char *what, int send, int peer, int parts, size_t bytes,
                       unsigned char *dest, uint64_t id, int k)
{
    memset(c, 0, sizeof(*c));
    c->what = what;
    c->send = send;
    c->peer = peer;
    c->parts = parts;
    c->bytes = bytes;
    c->dest = dest;
    c->id = id;
    c->k = k;
    size_t total = chan_total(c) + 1;
    if (send) {
        c->src = malloc(total);
        CHECK(c->src != NULL, "malloc");
    } else {
        c->ref = malloc(total);
        c->got = malloc(total + 2 * GUARD);
        c->seen = calloc((size_t)parts, 1);
        CHECK(c->ref && c->got && c->seen, "malloc");
    }
}

static void chan_init(chan_t *c)
{
    int st;
    if (c->send)
        st = gshmemx_psend_init(c->dest, c->src, c->parts, c->bytes, c->peer, &c->req);
    else
        st = gshmemx_precv_init(c->dest, c->parts, c->bytes, c->peer, &c->req);
    CHECK(st == 0 && c->req != NULL,
          "%s: gshmemx_%s_init (pe %d, %d x %zu bytes, request %d) returned %d", c->what,
          c->send ? "psend" : "precv", c->peer, c->parts, c->bytes, c->k, st);
}

static void chan_free(chan_t *c)
{
    int st = gshmemx_prequest_free(&c->req);
    CHECK(st == 0 && c->req == NULL,
          "%s: gshmemx_prequest_free (%s request %d with pe %d) returned %d, "
          "the handle is %p",
          c->what, c->send ? "send" : "receive", c->k, c->peer, st, (void *)c->req);
    free(c->src);
    free(c->ref);
    free(c->got);
    free(c->seen);
    c->src = c->ref = c->got = c->seen = NULL;
}

/* The first byte of got that differs from the reference, as a failure. */
static void chan_compare(const chan_t *c, const unsigned char *got, size_t off, size_t n,
                         const char *when)
{
    if (memcmp(got, c->ref + off, n) == 0) {
        bytes_checked += (long long)n;
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (got[i] != c->ref[off + i]) {
            size_t at = off + i;
            CHECK(got[i] == c->ref[at],
                  "%s: round %d of request %d from pe %d (%d x %zu bytes): partition %zu byte %zu "
                  "is 0x%02x, expected 0x%02x (%s)",
                  c->what, c->round, c->k, c->peer, c->parts, c->bytes, at / c->bytes,
                  at % c->bytes, got[i], c->ref[at], when);
        }
}

static void chan_check_guards(const chan_t *c)
{
    unsigned char g[2 * GUARD];
    spmd_load(g, c->dest - GUARD, GUARD);
    spmd_load(g + GUARD, c->dest + chan_total(c), GUARD);
    for (int i = 0; i < 2 * GUARD; i++)
        CHECK(g[i] == GUARD_BYTE, "%s: round %d of request %d from pe %d (%d x %zu bytes): guard "
              "byte %d %s the buffer was written (0x%02x)", c->what, c->round, c->k, c->peer,
              c->parts, c->bytes, i < GUARD ? GUARD - i : i - GUARD + 1,
              i < GUARD ? "before" : "after", g[i]);
}

/* Before gshmemx_pstart of `round`: the sender's data; the receiver's
 * reference, and its buffer poisoned (the complement of the reference: a
 * byte not written cannot pass) between poisoned guards. */
static void chan_prepare(chan_t *c, int round)
{
    const size_t total = chan_total(c);
    if (!c->send && c->round > 0) /* the last round's pwait returned: arrived, still */
        for (int p = 0; p < c->parts; p++)
            CHECK(gshmemx_parrived(c->req, p) != 0, "%s: gshmemx_parrived(%d) of request %d from "
                  "pe %d is 0 after round %d's pwait", c->what, p, c->k, c->peer, c->round);
    c->round = round;
    for (int p = 0; p < c->parts; p++)
        part_data((c->send ? c->src : c->ref) + (size_t)p * c->bytes, c->bytes,
                  c->send ? me : c->peer, c->send ? c->peer : me, c->id, round, p);
    if (c->send)
        return;
    memset(c->got, GUARD_BYTE, total + 2 * GUARD);
    for (size_t i = 0; i < total; i++)
        c->got[GUARD + i] = (unsigned char)~c->ref[i];
    spmd_store(c->dest - GUARD, c->got, total + 2 * GUARD);
    memset(c->seen, 0, (size_t)c->parts);
    c->n_seen = 0;
}

/* The receiver: each partition that gshmemx_parrived reports, checked at
 * once.  Returns whether every partition has arrived. */
static int chan_poll(chan_t *c)
{
    for (int p = 0; p < c->parts; p++) {
        if (c->seen[p] || !gshmemx_parrived(c->req, p))
            continue;
        c->seen[p] = 1;
        c->n_seen++;
        spmd_load(c->got, c->dest + (size_t)p * c->bytes, c->bytes);
        chan_compare(c, c->got, (size_t)p * c->bytes, c->bytes,
                     "reported arrived by gshmemx_parrived");
    }
    return c->n_seen == c->parts;
}

/* The receiver, after gshmemx_pwait: everything arrived and is right. */
static void chan_verify(chan_t *c)
{
    for (int p = 0; p < c->parts; p++)
        CHECK(gshmemx_parrived(c->req, p) != 0, "%s: gshmemx_parrived(%d) of request %d from pe %d "
              "is 0 after round %d's pwait", c->what, p, c->k, c->peer, c->round);
    spmd_load(c->got, c->dest, chan_total(c));
    chan_compare(c, c->got, 0, chan_total(c), "after gshmemx_pwait");
    chan_check_guards(c);
}

/* ---- marking partitions ready -------------------------------------------- */
enum { MODE_SINGLE, MODE_RANGE, MODE_LIST, MODE_MIXED, MODES };

typedef struct {
    int kind; /* 0: pready(lo), 1: pready_range(lo, hi), 2: pready_list(n, list) */
    int lo, hi, n;
    int *list;
} op_t;

typedef struct {
    op_t *ops;
    int *lists; /* the partitions the list ops point into */
    int n, next;
} plan_t;

/* The ready calls that mark partitions [base, base + cnt) once each, in
 * random order, in the given mode. */
static void plan_make(plan_t *pl, int base, int cnt, int mode, rng_t *r)
{
    pl->ops = malloc(sizeof(op_t) * (size_t)(cnt > 0 ? cnt : 1));
    pl->lists = malloc(sizeof(int) * (size_t)(cnt > 0 ? cnt : 1));
    if (pl->ops == NULL || pl->lists == NULL) { /* (no CHECK: threads call this) */
        fprintf(stderr, "FAIL pe %d: malloc\n", me);
        gshmem_global_exit(1);
    }
    pl->n = pl->next = 0;
    for (int i = 0; i < cnt; i++)
        pl->lists[i] = base + i;
    switch (mode) {
    case MODE_SINGLE:
        shuffle(pl->lists, cnt, r);
        for (int i = 0; i < cnt; i++)
            pl->ops[pl->n++] = (op_t){.kind = 0, .lo = pl->lists[i]};
        break;
    case MODE_LIST:
        shuffle(pl->lists, cnt, r);
        for (int i = 0; i < cnt;) {
            int len = 1 + rnd_below(r, cnt / 2 > 0 ? cnt / 2 : 1);
            if (len > cnt - i)
                len = cnt - i;
            pl->ops[pl->n++] = (op_t){.kind = 2, .n = len, .list = pl->lists + i};
            i += len;
        }
        break;
    default: /* range or mixed: contiguous chunks, in shuffled order */
        for (int lo = 0; lo < cnt;) {
            int len = 1 + rnd_below(r, cnt / 3 > 0 ? cnt / 3 : 1);
            if (rnd_below(r, 8) == 0)
                len = cnt; /* sometimes all the rest in one call */
            if (len > cnt - lo)
                len = cnt - lo;
            op_t op = {.kind = 1, .lo = base + lo, .hi = base + lo + len - 1};
            int how = mode == MODE_RANGE ? 1 : rnd_below(r, 3);
            if (how == 2) {
                shuffle(pl->lists + lo, len, r);
                op = (op_t){.kind = 2, .n = len, .list = pl->lists + lo};
            }
            if (how == 0) { /* one by one, shuffled within the chunk */
                shuffle(pl->lists + lo, len, r);
                for (int i = 0; i < len; i++)
                    pl->ops[pl->n++] = (op_t){.kind = 0, .lo = pl->lists[lo + i]};
            } else {
                pl->ops[pl->n++] = op;
            }
            lo += len;
        }
        for (int i = pl->n - 1; i > 0; i--) {
            int j = rnd_below(r, i + 1);
            op_t t = pl->ops[i];
            pl->ops[i] = pl->ops[j];
            pl->ops[j] = t;
        }
        break;
    }
}

static void plan_step(plan_t *pl, gshmemx_prequest_t req)
{
    const op_t *op = &pl->ops[pl->next++];
    if (op->kind == 0)
        gshmemx_pready(req, op->lo);
    else if (op->kind == 1)
        gshmemx_pready_range(req, op->lo, op->hi);
    else
        gshmemx_pready_list(req, op->n, op->list);
}

static void plan_free(plan_t *pl)
{
    free(pl->ops);
    free(pl->lists);
}

/* ---- a round over several requests of this PE ---------------------------- */
static void poll_all(chan_t *cs, int n)
{
    for (int i = 0; i < n; i++)
        if (!cs[i].send)
            chan_poll(&cs[i]);
}

/* Polls every receive until all its partitions show as arrived. */
static void poll_until_arrived(chan_t *cs, int n)
{
    const double t0 = now_s();
    for (int i = 0; i < n; i++) {
        chan_t *c = &cs[i];
        while (!c->send && !chan_poll(c)) {
            sched_yield(); /* (8 PEs share 2 cores in CI) */
            if (now_s() - t0 > POLL_LIMIT_S) {
                int p = 0;
                while (c->seen[p])
                    p++;
                CHECK(c->seen[p],
                      "%s: round %d of request %d from pe %d: gshmemx_parrived has not reported "
                      "partition %d (%d of %d missing) after %.0f s",
                      c->what, c->round, c->k, c->peer, p, c->parts - c->n_seen, c->parts,
                      POLL_LIMIT_S);
            }
        }
    }
}

/* One round: the receives started first, then the sends; the sends'
 * partitions marked (their ready calls interleaved at random, the receives
 * tested now and then); the sends waited for; the receives polled until
 * every partition arrived (poll_first) or once, then waited for and checked. */
static void run_round(chan_t *cs, int n, int round, int mode, int poll_first, rng_t *r)
{
    plan_t *plans = calloc((size_t)n, sizeof(plan_t));
    int *order = malloc(sizeof(int) * (size_t)n);
    int left = 0;
    CHECK(plans && order, "malloc");
    for (int i = 0; i < n; i++)
        chan_prepare(&cs[i], round);
    for (int i = 0; i < n; i++)
        if (!cs[i].send)
            gshmemx_pstart(cs[i].req);
    for (int i = 0; i < n; i++)
        if (cs[i].send) {
            gshmemx_pstart(cs[i].req);
            plan_make(&plans[i], 0, cs[i].parts, mode == MODES ? rnd_below(r, MODES) : mode, r);
            left += plans[i].n;
        }
    while (left > 0) {
        int pick = rnd_below(r, left);
        for (int i = 0; i < n; i++) {
            if (!cs[i].send)
                continue;
            int rest = plans[i].n - plans[i].next;
            if (pick < rest) {
                plan_step(&plans[i], cs[i].req);
                break;
            }
            pick -= rest;
        }
        left--;
        if (rnd_below(r, 4) == 0)
            poll_all(cs, n);
    }
    for (int i = 0; i < n; i++)
        order[i] = i;
    shuffle(order, n, r);
    for (int i = 0; i < n; i++)
        if (cs[order[i]].send) {
            gshmemx_pwait(cs[order[i]].req);
            plan_free(&plans[order[i]]);
        }
    if (poll_first)
        poll_until_arrived(cs, n);
    else
        poll_all(cs, n);
    for (int i = 0; i < n; i++)
        if (!cs[order[i]].send) {
            gshmemx_pwait(cs[order[i]].req);
            chan_verify(&cs[order[i]]);
        }
    free(order);
    free(plans);
}

static void init_all(chan_t *cs, int n, int recv_first)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if (cs[i].send == (pass == 0 ? !recv_first : recv_first))
                chan_init(&cs[i]);
}

static void free_all(chan_t *cs, int n, rng_t *r)
{
    int *order = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    CHECK(order != NULL, "malloc");
    for (int i = 0; i < n; i++)
        order[i] = i;
    shuffle(order, n, r);
    for (int i = 0; i < n; i++)
        chan_free(&cs[order[i]]);
    free(order);
}

/* A symmetric area of `size` bytes, guards and all poisoned. */
static unsigned char *area_alloc(size_t size)
{
    unsigned char *a = gshmem_malloc(size);
    CHECK(a != NULL, "gshmem_malloc(%zu)", size);
    spmd_set(a, GUARD_BYTE, size);
    return a;
}

static void area_free(unsigned char *a)
{
    gshmem_barrier_all();
    gshmem_free(a);
}

/* ---- the parts ------------------------------------------------------------ */
static int next_pe(void) { return (me + 1) % npes; }
static int prev_pe(void) { return (me + npes - 1) % npes; }

static void part_ring_shapes(void)
{
    static const int parts[] = {1, 3, 64, 256};
    static const size_t bytes[] = {0, 1, 8, 13, 4096};
    const int n_shapes = 4 * 5 + 1;
    const int rounds = MODES; /* each shape readied every way */
    unsigned char *area = area_alloc(GUARD + ((size_t)1 << 20) + GUARD);
    rng_t r = rng_make(1, 0);
    long long before = bytes_checked;

    for (int s = 0; s < n_shapes; s++) {
        int P = s < 20 ? parts[s / 5] : 4;
        size_t B = s < 20 ? bytes[s % 5] : (size_t)256 << 10;
        chan_t cs[2];
        chan_setup(&cs[0], "ring", 1, next_pe(), P, B, area + GUARD, 1000 + (uint64_t)s, s + 1);
        chan_setup(&cs[1], "ring", 0, prev_pe(), P, B, area + GUARD, 1000 + (uint64_t)s, s + 1);
        init_all(cs, 2, s % 2);
        for (int round = 1; round <= rounds; round++)
            run_round(cs, 2, round, (s + round) % MODES, round % 2, &r);
        free_all(cs, 2, &r);
    }
    area_free(area);
    if (me == 0)
        printf(
            "ring: %d shapes (1, 3, 64, 256 partitions of 0, 1, 8, 13, 4096 bytes; 4 of 256 KiB), "
            "%d rounds each, %lld bytes checked on pe 0\n",
            n_shapes, rounds, bytes_checked - before);
}

static void part_all_pairs(void)
{
    static const int parts[] = {3, 64, 1, 256, 16};
    static const size_t bytes[] = {13, 8, 4096, 0, 1000};
    const int rounds = 3;
    if (npes > 4) {
        if (me == 0)
            printf("all pairs: skipped at %d PEs (the ring covers them)\n", npes);
        return;
    }
    rng_t r = rng_make(2, 0);
    long long before = bytes_checked;
    for (int s = 0; s < 5; s++) {
        const size_t slot = (size_t)parts[s] * bytes[s] + 2 * GUARD;
        unsigned char *area = area_alloc(slot * (size_t)npes);
        const int n = 2 * (npes - 1);
        chan_t *cs = calloc((size_t)n, sizeof(chan_t));
        int *order = malloc(sizeof(int) * (size_t)n);
        CHECK(cs && order, "malloc");
        for (int i = 0, q = 0; q < npes; q++) {
            if (q == me)
                continue;
            /* to q: into q's slot `me`; from q: into this PE's slot q */
            chan_setup(&cs[i++], "all pairs", 1, q, parts[s], bytes[s],
                       area + slot * (size_t)me + GUARD, 2000 + (uint64_t)s, s + 1);
            chan_setup(&cs[i++], "all pairs", 0, q, parts[s], bytes[s],
                       area + slot * (size_t)q + GUARD, 2000 + (uint64_t)s, s + 1);
        }
        for (int i = 0; i < n; i++) /* any order across pairs */
            order[i] = i;
        shuffle(order, n, &r);
        for (int i = 0; i < n; i++)
            chan_init(&cs[order[i]]);
        for (int round = 1; round <= rounds; round++)
            run_round(cs, n, round, round == 3 ? MODES : (s + round) % MODES, round % 2, &r);
        free_all(cs, n, &r);
        free(order);
        free(cs);
        area_free(area);
    }
    if (me == 0)
        printf(
            "all pairs: every ordered pair of %d PEs at once, 5 shapes, %d rounds each, %lld bytes "
            "checked on pe 0\n",
            npes, rounds, bytes_checked - before);
}

static void part_thousand_rounds(void)
{
    const int rounds = 1000;
    unsigned char *area = area_alloc(4 * GUARD + 8 * 16 + 5 * 3);
    long long before = bytes_checked;
    if (me <= 1) {
        rng_t r = rng_make(3, 0);
        chan_t cs[2];
        /* pe 0 -> 1: 8 x 16 bytes at area + GUARD; pe 1 -> 0: 5 x 3 bytes after it */
        unsigned char *d01 = area + GUARD, *d10 = area + 3 * GUARD + 8 * 16;
        chan_setup(&cs[0], "1000 rounds", me == 0, 1, 8, 16, d01, 3000, 1);
        chan_setup(&cs[1], "1000 rounds", me == 1, 0, 5, 3, d10, 3001, 1);
        cs[0].peer = cs[1].peer = 1 - me;
        init_all(cs, 2, me);
        for (int round = 1; round <= rounds; round++)
            run_round(cs, 2, round, round % 5 == 0 ? MODES : round % MODES, round % 3 == 0, &r);
        free_all(cs, 2, &r);
    }
    area_free(area);
    if (me == 0)
        printf("1000 rounds: pe 0 <-> pe 1 (8 x 16 and 5 x 3 bytes), no barrier between rounds, "
               "%lld bytes checked on pe 0\n", bytes_checked - before);
}

/* The shape of request k (0-based) in the order tests: 1 to 9 partitions,
 * some of 0 bytes. */
static int order_parts(int k) { return 1 + (k * 7) % 9; }
static size_t order_bytes(int k) { return k % 4 == 0 ? 0 : (size_t)(3 + 5 * k); }

#define ORDER_REQS 12

static void order_chans(chan_t *cs, const char *what, unsigned char *area, uint64_t id0)
{
    /* 12 sends to the next PE, 12 receives from the previous, each into its
     * own buffer of the area */
    size_t off = GUARD;
    for (int k = 0; k < ORDER_REQS; k++) {
        chan_setup(&cs[k], what, 1, next_pe(), order_parts(k), order_bytes(k), area + off,
                   id0 + (uint64_t)k, k + 1);
        chan_setup(&cs[ORDER_REQS + k], what, 0, prev_pe(), order_parts(k), order_bytes(k),
                   area + off, id0 + (uint64_t)k, k + 1);
        off += (size_t)order_parts(k) * order_bytes(k) + 2 * GUARD;
    }
}

static size_t order_area_size(void)
{
    size_t off = GUARD;
    for (int k = 0; k < ORDER_REQS; k++)
        off += (size_t)order_parts(k) * order_bytes(k) + 2 * GUARD;
    return off;
}

static void part_orders(void)
{
    rng_t r = rng_make(4, 0);
    long long before = bytes_checked;
    unsigned char *area = area_alloc(order_area_size());
    chan_t cs[2 * ORDER_REQS];

    /* 12 receives made first on both sides, then 12 sends; then sends first */
    for (int sends_first = 0; sends_first <= 1; sends_first++) {
        order_chans(cs, sends_first ? "sends first" : "receives first", area,
                    4000 + 100 * (uint64_t)sends_first);
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < ORDER_REQS; k++)
                chan_init(&cs[(pass == sends_first ? ORDER_REQS : 0) + k]);
        for (int round = 1; round <= 2; round++)
            run_round(cs, 2 * ORDER_REQS, round, MODES, round == 2, &r);
        free_all(cs, 2 * ORDER_REQS, &r);
    }

    /* a receive started before its sender made the send: ring ... */
    {
        chan_t c[2];
        chan_setup(&c[0], "start before send init", 1, next_pe(), 7, 11, area + GUARD, 4200, 1);
        chan_setup(&c[1], "start before send init", 0, prev_pe(), 7, 11, area + GUARD, 4200, 1);
        chan_init(&c[1]);
        chan_prepare(&c[1], 1);
        gshmemx_pstart(c[1].req);
        gshmem_barrier_all();
        chan_init(&c[0]);
        chan_prepare(&c[0], 1);
        gshmemx_pstart(c[0].req);
        plan_t pl;
        plan_make(&pl, 0, 7, MODE_MIXED, &r);
        while (pl.next < pl.n)
            plan_step(&pl, c[0].req);
        plan_free(&pl);
        gshmemx_pwait(c[0].req);
        poll_until_arrived(&c[1], 1);
        gshmemx_pwait(c[1].req);
        chan_verify(&c[1]);
        run_round(c, 2, 2, MODES, 0, &r);
        free_all(c, 2, &r);
    }
    /* ... and one pair, the receiver doing nothing else: precv_init, pstart,
     * barrier, pwait; the sender: barrier, psend_init, pstart, readies, pwait */
    {
        chan_t c;
        if (me <= 1) {
            chan_setup(&c, "start before send init (pair)", me == 0, 1 - me, 5, 40, area + GUARD,
                       4300, 1);
            if (me == 1) {
                chan_init(&c);
                chan_prepare(&c, 1);
                gshmemx_pstart(c.req);
            }
        }
        gshmem_barrier_all();
        if (me == 0) {
            chan_init(&c);
            chan_prepare(&c, 1);
            gshmemx_pstart(c.req);
            gshmemx_pready_list(c.req, 3, (int[]){4, 0, 2});
            gshmemx_pready(c.req, 3);
            gshmemx_pready_range(c.req, 1, 1);
            gshmemx_pwait(c.req);
        } else if (me == 1) {
            gshmemx_pwait(c.req);
            chan_verify(&c);
        }
        if (me <= 1)
            chan_free(&c);
    }
    /* a receiver that comes late: the sender's readies wait for it */
    gshmem_barrier_all();
    if (me <= 1) {
        chan_t c;
        chan_setup(&c, "late receiver", me == 0, 1 - me, 6, 33, area + GUARD, 4400, 2);
        if (me == 1)
            usleep(200 * 1000);
        chan_init(&c);
        for (int round = 1; round <= 2; round++) {
            if (me == 1 && round == 2)
                usleep(100 * 1000);
            run_round(&c, 1, round, round == 1 ? MODE_SINGLE : MODE_LIST, 0, &r);
        }
        chan_free(&c);
    }
    area_free(area);
    if (me == 0)
        printf("orders: %d receives before the sends and %d sends before the receives a pair, a "
               "receive started before the send was made (ring and pair), a late receiver; %lld "
               "bytes checked on pe 0\n", ORDER_REQS, ORDER_REQS, bytes_checked - before);
}

static void part_free_remake(void)
{
    const int iters = 11;
    rng_t r = rng_make(5, 0);
    long long before = bytes_checked;
    unsigned char *area = area_alloc(8192);
    int k = 0; /* the pair's requests so far (the ring's: to next and from prev alike) */

    for (int i = 0; i < iters; i++) {
        chan_t c[2];
        int P = 1 + (i * 3) % 8;
        size_t B = (size_t)(i % 3 == 0 ? 0 : 4 + 9 * i);
        unsigned char *d = area + GUARD + (size_t)(i % 4) * 1024 + (size_t)i;
        k++;
        chan_setup(&c[0], "free and remake", 1, next_pe(), P, B, d, 5000 + (uint64_t)i, k);
        chan_setup(&c[1], "free and remake", 0, prev_pe(), P, B, d, 5000 + (uint64_t)i, k);
        init_all(c, 2, i % 2);
        for (int round = 1; round <= 2; round++)
            run_round(c, 2, round, (i + round) % MODES, round == 1, &r);
        if (i % 2)
            free_all(c, 2, &r);
        else {
            chan_free(&c[0]);
            chan_free(&c[1]);
        }
    }
    /* a pair freed before any round (the sends freed first), then pairs that
     * still match in call order */
    for (int i = 0; i < 3; i++) {
        chan_t c[2];
        int P = 2 + i, freed = i == 1;
        size_t B = (size_t)(17 + i);
        unsigned char *d = area + GUARD + 2048 + (size_t)i * 512;
        k++;
        chan_setup(&c[0], "after a pair freed unused", 1, next_pe(), P, B, d, 5100 + (uint64_t)i,
                   k);
        chan_setup(&c[1], "after a pair freed unused", 0, prev_pe(), P, B, d, 5100 + (uint64_t)i,
                   k);
        init_all(c, 2, i % 2);
        if (!freed)
            for (int round = 1; round <= 2; round++)
                run_round(c, 2, round, MODES, 0, &r);
        chan_free(&c[0]);
        chan_free(&c[1]);
    }
    /* one direction: pe 1 frees its receive first, pe 0 its send later;
     * then the next request of the pair still matches */
    if (me <= 1) {
        chan_t c;
        unsigned char *d = area + GUARD + 4096;
        chan_setup(&c, "after a receive freed unused", me == 0, 1 - me, 4, 8, d, 5200, 1);
        if (me == 0) {
            chan_init(&c);
            usleep(50 * 1000);
            chan_free(&c);
        } else {
            chan_init(&c);
            chan_free(&c);
        }
        for (int j = 0; j < 2; j++) {
            chan_setup(&c, "after a receive freed unused", me == 0, 1 - me, 3 + j, 24, d,
                       5201 + (uint64_t)j, 2 + j);
            chan_init(&c);
            run_round(&c, 1, 1, MODES, j, &r);
            run_round(&c, 1, 2, MODES, 0, &r);
            chan_free(&c);
        }
    }
    area_free(area);
    if (me == 0)
        printf(
            "free and remake: %d pairs made, used and freed a pair, pairs freed before any round "
            "and the next matched; %lld bytes checked on pe 0\n",
            k, bytes_checked - before);
}

/* Two threads of the sender mark halves of one request's partitions. */
typedef struct {
    gshmemx_prequest_t req;
    int base, cnt, mode;
    rng_t r;
    int *done;
} ready_job_t;

static void *ready_thread(void *arg)
{
    ready_job_t *j = arg;
    plan_t pl;
    plan_make(&pl, j->base, j->cnt, j->mode, &j->r);
    while (pl.next < pl.n)
        plan_step(&pl, j->req);
    plan_free(&pl);
    __atomic_add_fetch(j->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void part_threads(void)
{
    const int P = 64, requests = 2, rounds = 8;
    const size_t B = 100;
    rng_t r = rng_make(6, 0);
    long long before = bytes_checked;
    unsigned char *area = area_alloc(2 * GUARD + (size_t)P * B);

    for (int q = 0; q < requests; q++) {
        chan_t c[2];
        chan_setup(&c[0], "two threads", 1, next_pe(), P, B, area + GUARD, 6000 + (uint64_t)q,
                   q + 1);
        chan_setup(&c[1], "two threads", 0, prev_pe(), P, B, area + GUARD, 6000 + (uint64_t)q,
                   q + 1);
        init_all(c, 2, q % 2);
        for (int round = 1; round <= rounds; round++) {
            pthread_t th[2];
            ready_job_t jobs[2];
            int done = 0;
            chan_prepare(&c[0], round);
            chan_prepare(&c[1], round);
            gshmemx_pstart(c[1].req);
            gshmemx_pstart(c[0].req);
            for (int t = 0; t < 2; t++) {
                /* split at a random point: halves of different sizes */
                int cut = 1 + (round * 13 + q * 7) % (P - 1);
                jobs[t] = (ready_job_t){.req = c[0].req, .base = t == 0 ? 0 : cut,
                                        .cnt = t == 0 ? cut : P - cut, .mode = (round + t) % MODES,
                                        .r = rng_make(6, (uint64_t)(q * 100 + round * 2 + t + 1)),
                                        .done = &done};
                CHECK(pthread_create(&th[t], NULL, ready_thread, &jobs[t]) == 0, "pthread_create");
            }
            /* meanwhile this thread tests the receive's arrivals */
            while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2) {
                chan_poll(&c[1]);
                sched_yield();
            }
            for (int t = 0; t < 2; t++)
                pthread_join(th[t], NULL);
            gshmemx_pwait(c[0].req);
            if (round % 2)
                poll_until_arrived(&c[1], 1);
            gshmemx_pwait(c[1].req);
            chan_verify(&c[1]);
        }
        free_all(c, 2, &r);
    }
    area_free(area);
    if (me == 0)
        printf("two threads: %d requests of %d x %zu bytes, %d rounds each, two sender threads on "
               "one request while the main thread tests arrivals; %lld bytes checked on pe 0\n",
               requests, P, B, rounds, bytes_checked - before);
}

/* ---- misuse: one bad call a run ------------------------------------------- */

/* The call before this returned though it should have ended the job. */
static void not_caught(const char *c)
{
    fprintf(stderr, "spmd_partitioned: pe %d: misuse %s was not caught\n", me, c);
    fflush(stderr);
    gshmem_global_exit(4);
}

/* pe 0 makes a send to pe 1 and frees it; pe 1 then makes the receive it
 * would have matched and starts a round on it (returned; NULL on pe 0). */
static gshmemx_prequest_t recv_of_freed_send(int S, int R, void *buf, const void *src)
{
    gshmemx_prequest_t req = NULL;
    if (S) {
        gshmemx_psend_init(buf, src, 4, 64, 1, &req);
        gshmemx_prequest_free(&req);
    }
    gshmem_barrier_all();
    if (R) {
        gshmemx_precv_init(buf, 4, 64, 0, &req);
        gshmemx_pstart(req);
    }
    return req;
}

static int misuse(const char *c)
{
    static unsigned char src[4096];
    gshmemx_prequest_t req = NULL;
    int S, R, list[4] = {0, 2, 1, 2};
    char *lo, *hi;

    gshmem_init(); /* a setting out of range: it ends the job here */
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    seed = spmd_seed();
    if (npes != 2) {
        fprintf(stderr, "spmd_partitioned: misuse needs 2 PEs\n");
        gshmem_global_exit(2);
    }
    S = me == 0;
    R = me == 1;
    unsigned char *buf = gshmem_malloc(4096), *buf2 = gshmem_malloc(4096);
    if (buf == NULL || buf2 == NULL)
        gshmem_global_exit(3);
    spmd_heap_bounds((char *)buf, &lo, &hi);
    if (me == 0) {
        fprintf(stderr, "spmd_partitioned: buf at heap offset %zu\n", (size_t)((char *)buf - lo));
        fprintf(stderr, "spmd_partitioned: buf2 at heap offset %zu\n", (size_t)((char *)buf2 - lo));
    }
    gshmem_barrier_all();

    /* the receiver's side of a 4 x 64 round that the sender spoils */
    int recv_round = 0;
    if (!strcmp(c, "self-pe")) {
        if (S)
            gshmemx_psend_init(buf, src, 4, 64, 0, &req), not_caught(c);
    } else if (!strcmp(c, "pe-range")) {
        if (S)
            gshmemx_psend_init(buf, src, 4, 64, 2, &req), not_caught(c);
    } else if (!strcmp(c, "zero-partitions")) {
        if (S)
            gshmemx_precv_init(buf, 0, 64, 1, &req), not_caught(c);
    } else if (!strcmp(c, "null-req")) {
        if (S)
            gshmemx_psend_init(buf, src, 4, 64, 1, NULL), not_caught(c);
    } else if (!strcmp(c, "null-start")) {
        if (S)
            gshmemx_pstart(NULL), not_caught(c);
    } else if (!strcmp(c, "shape-mismatch") || !strcmp(c, "dest-mismatch")) {
        int shape = !strcmp(c, "shape-mismatch");
        if (S) {
            gshmemx_psend_init(buf, src, 4, 64, 1, &req);
            gshmemx_pstart(req);
            gshmemx_pready_range(req, 0, 3);
            gshmemx_pwait(req);
            not_caught(c);
        } else {
            gshmemx_precv_init(shape ? buf : buf2, shape ? 8 : 4, 64, 0, &req);
            gshmemx_pstart(req);
            gshmemx_pwait(req);
            not_caught(c);
        }
    } else if (!strcmp(c, "ready-out-of-range") || !strcmp(c, "ready-twice") ||
               !strcmp(c, "wait-unready") || !strcmp(c, "ready-no-round") ||
               !strcmp(c, "start-twice") || !strcmp(c, "free-open") ||
               !strcmp(c, "range-reversed") || !strcmp(c, "list-duplicate") ||
               !strcmp(c, "arrived-on-send") || !strcmp(c, "ready-after-wait")) {
        recv_round = 1;
        if (S) {
            gshmemx_psend_init(buf, src, 4, 64, 1, &req);
            if (!strcmp(c, "ready-after-wait")) { /* round 1 whole, then a ready */
                gshmemx_pstart(req);
                gshmemx_pready_range(req, 0, 3);
                gshmemx_pwait(req);
                gshmemx_pready(req, 0);
            } else if (strcmp(c, "ready-no-round") == 0) {
                gshmemx_pready(req, 0);
            } else {
                gshmemx_pstart(req);
                if (!strcmp(c, "ready-out-of-range"))
                    gshmemx_pready(req, 5);
                else if (!strcmp(c, "ready-twice"))
                    gshmemx_pready(req, 2), gshmemx_pready(req, 2);
                else if (!strcmp(c, "wait-unready"))
                    gshmemx_pready(req, 0), gshmemx_pready(req, 3), gshmemx_pwait(req);
                else if (!strcmp(c, "start-twice"))
                    gshmemx_pstart(req);
                else if (!strcmp(c, "free-open"))
                    gshmemx_prequest_free(&req);
                else if (!strcmp(c, "range-reversed"))
                    gshmemx_pready_range(req, 3, 1);
                else if (!strcmp(c, "list-duplicate"))
                    gshmemx_pready_list(req, 4, list);
                else
                    gshmemx_parrived(req, 0);
            }
            not_caught(c);
        }
    } else if (!strcmp(c, "ready-on-recv")) { /* pe 0 receives here */
        if (me == 0) {
            gshmemx_precv_init(buf, 4, 64, 1, &req);
            gshmemx_pstart(req);
            gshmemx_pready(req, 0);
            not_caught(c);
        }
    } else if (!strcmp(c, "timeout-no-recv")) { /* GSHMEM_TIMEOUT=1: pe 1 never makes it */
        if (S) {
            gshmemx_psend_init(buf, src, 4, 64, 1, &req);
            gshmemx_pstart(req);
            gshmemx_pready_range(req, 0, 3);
            gshmemx_pwait(req);
            not_caught(c);
        }
        sleep(20);
    } else if (!strcmp(c, "timeout-no-start")) { /* GSHMEM_TIMEOUT=1: pe 1 never starts */
        if (S) {
            gshmemx_psend_init(buf, src, 4, 64, 1, &req);
            gshmemx_pstart(req);
            gshmemx_pready_range(req, 0, 3);
            gshmemx_pwait(req);
            not_caught(c);
        } else {
            gshmemx_precv_init(buf, 4, 64, 0, &req);
            sleep(20);
        }
    } else if (!strcmp(c, "timeout-missing")) { /* GSHMEM_TIMEOUT=1: pe 0 marks nothing */
        /* the receive first, so that the send matches it when made */
        if (R)
            gshmemx_precv_init(buf, 4, 64, 0, &req);
        gshmem_barrier_all();
        if (S) {
            gshmemx_psend_init(buf, src, 4, 64, 1, &req);
            gshmemx_pstart(req);
            sleep(20);
        } else {
            gshmemx_pstart(req);
            gshmemx_pwait(req);
            not_caught(c);
        }
    } else if (!strcmp(c, "recv-freed-unmatched")) {
        /* the receive posted, then freed before pe 0 makes its send: the
         * free marks the post there */
        if (R) {
            gshmemx_precv_init(buf, 4, 64, 0, &req);
            gshmemx_prequest_free(&req);
        }
        gshmem_barrier_all();
        if (R) {
            sleep(20);
        } else {
            gshmemx_psend_init(buf, src, 4, 64, 1, &req);
            gshmemx_pstart(req);
            gshmemx_pready(req, 0);
            gshmemx_pready_range(req, 1, 3);
            gshmemx_pwait(req);
            not_caught(c);
        }
    } else if (!strcmp(c, "recv-freed-unposted")) {
        /* pe 1's 9th receive waits for room in the ring of 8 posts and is
         * freed meanwhile; its post goes out (marked freed) once pe 0 has
         * answered the first 8, before pe 0 makes its 9th send */
        gshmemx_prequest_t rs[9];
        if (R) {
            for (int i = 0; i < 9; i++)
                gshmemx_precv_init(buf, 4, 64, 0, &rs[i]);
            gshmemx_prequest_free(&rs[8]);
        }
        gshmem_barrier_all();
        if (S)
            for (int i = 0; i < 8; i++) /* matches the 8 posts there */
                gshmemx_psend_init(buf, src, 4, 64, 1, &rs[i]);
        gshmem_barrier_all();
        if (R) { /* reads the answers: the 9th post goes out */
            gshmemx_pstart(rs[0]);
            gshmemx_pwait(rs[0]);
        }
        if (S) {
            gshmemx_pstart(rs[0]);
            gshmemx_pready_range(rs[0], 0, 3);
            gshmemx_pwait(rs[0]);
        }
        gshmem_barrier_all();
        if (S) {
            gshmemx_psend_init(buf, src, 4, 64, 1, &req);
            gshmemx_pstart(req);
            gshmemx_pready(req, 0);
            not_caught(c);
        }
    } else if (!strcmp(c, "arrived-send-freed")) {
        /* the receiver polls parrived: it must not poll forever */
        req = recv_of_freed_send(S, R, buf, src);
        if (R) {
            while (!gshmemx_parrived(req, 0))
                ;
            not_caught(c);
        }
        gshmem_barrier_all(); /* pe 0 answers the post from here */
        sleep(20);
    } else if (!strcmp(c, "send-freed-unmatched")) {
        /* the send freed before the receive is made */
        req = recv_of_freed_send(S, R, buf, src);
        if (R) {
            gshmemx_pwait(req);
            not_caught(c);
        }
        /* pe 0 answers the post from its waits (pe 1 never comes here) */
        gshmem_barrier_all();
        sleep(20);
    } else if (!strcmp(c, "flags-range")) { /* GSHMEM_PARTITION_FLAGS=0: gshmem_init ended it */
        not_caught(c);
    } else if (!strcmp(c, "flags-exhausted")) {
        /* GSHMEM_PARTITION_FLAGS=8: 9 partitions do not fit, and the call
         * fails without taking a place in the pair's order: the next
         * request still matches pe 1's first send (partitions of 12 bytes:
         * a flag word each; flag packets, for 1-8 bytes, take two) */
        unsigned char got[4 * 12], want[4 * 12];
        if (me == 0) {
            int st = gshmemx_precv_init(buf, 9, 12, 1, &req);
            if (st != GSHMEM_ERR_NO_MEMORY || req != NULL) {
                fprintf(stderr,
                        "spmd_partitioned: precv_init of 9 partitions returned %d, req %p\n", st,
                        (void *)req);
                gshmem_global_exit(3);
            }
            memset(got, POISON, sizeof(got));
            spmd_store(buf, got, sizeof(got)); /* (buf may be GPU memory) */
            if (gshmemx_precv_init(buf, 4, 12, 1, &req) != 0 || req == NULL)
                gshmem_global_exit(3);
            gshmemx_pstart(req);
            gshmemx_pwait(req);
            spmd_load(got, buf, sizeof(got));
            for (int p = 0; p < 4; p++)
                part_data(want + 12 * p, 12, 1, 0, 7, 1, p);
            if (memcmp(got, want, sizeof(got)) != 0) {
                fprintf(stderr,
                        "spmd_partitioned: pe 0: the data after the failed init is wrong\n");
                gshmem_global_exit(3);
            }
        } else {
            for (int p = 0; p < 4; p++)
                part_data(src + 12 * p, 12, 1, 0, 7, 1, p);
            if (gshmemx_psend_init(buf, src, 4, 12, 0, &req) != 0 || req == NULL)
                gshmem_global_exit(3);
            gshmemx_pstart(req);
            gshmemx_pready_range(req, 0, 3);
            gshmemx_pwait(req);
        }
        if (gshmemx_prequest_free(&req) != 0 || req != NULL)
            gshmem_global_exit(3);
    } else {
        fprintf(stderr, "spmd_partitioned: unknown misuse case '%s'\n", c);
        gshmem_global_exit(2);
    }
    if (recv_round && R) { /* the receiver of a round the sender spoils: it waits */
        gshmemx_precv_init(buf, 4, 64, 0, &req);
        gshmemx_pstart(req);
        gshmemx_pwait(req);
        if (strcmp(c, "ready-after-wait") != 0)
            not_caught(c);
    }
    /* the PE that does not fail waits here until the job ends */
    gshmem_barrier_all();
    gshmem_free(buf2);
    gshmem_free(buf);
    gshmem_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    int provided = -1;

    if (argc > 2 && strcmp(argv[1], "misuse") == 0)
        return misuse(argv[2]);
    if (argc > 1) {
        fprintf(stderr, "usage: spmd_partitioned [misuse CASE]\n");
        return 2;
    }
    if (gshmem_init_thread(GSHMEM_THREAD_MULTIPLE, &provided) != 0) {
        fprintf(stderr, "spmd_partitioned: gshmem_init_thread failed\n");
        return 1;
    }
    CHECK(provided == GSHMEM_THREAD_MULTIPLE, "provided %d", provided);
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    seed = spmd_seed();
    if (me == 0)
        printf("spmd_partitioned: %d PEs, seed %llu\n", npes, (unsigned long long)seed);
    if (npes < 2) {
        if (me == 0)
            printf("spmd_partitioned: a pair needs 2 PEs; nothing to test\n");
        SPMD_DONE();
    }
    part_ring_shapes();
    part_all_pairs();
    part_thousand_rounds();
    part_orders();
    part_free_remake();
    part_threads();
    SPMD_DONE();
}
