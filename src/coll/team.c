/*
 * Teams: the predefined ones, splits, queries and the teams' host barrier.
 *
 * A split is collective over its parent: every parent PE sends the others
 * its arguments and the slots it has free (an all-gather over the parent
 * into a block of the heap the runtime keeps for it), so that every PE sees
 * a call that does not match its own, and all take the lowest slot free on
 * every PE of the new team (a 2D split: of the parent), so that teams of
 * disjoint PEs made by a family of splits share a slot.  A PE outside the
 * new team gets GSHMEM_TEAM_INVALID; when the arguments differ, one is bad
 * on any PE (a NULL team pointer too: that PE still votes) or no slot is
 * free, every PE gets it, each with the same message.  The new members zero
 * their slot's barrier words before the parent's closing barrier, so the
 * team's first barrier starts from zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "gpu/gpu.h"
#include "heap/ctrl.h"
#include "heap/heap.h"
#include "rma/rma.h"
#include "sync/wait.h"
#include "transport/transport.h"
#include "coll/coll_launch.h"
#include "coll/team.h"
#include "device/device_state.h"

#define N_PREDEFINED 4
#define PUSH_BUDGET ((size_t)8 << 20) /* a push area's data: one parity's slots */
/* Push areas: the world team's (or, where the world's PEs do not all map
 * each other, the node team's), then the first GSHMEM_COLL_PUSH_TEAMS
 * split slots' */
#define PUSH_TEAMS_MAX 8
#define PUSH_AREAS (1 + (int)gshmemi_env.COLL_PUSH_TEAMS)
#define PUSH_FIRST_SPLIT N_PREDEFINED
#define SLOT_WORDS 2 /* 64-bit words of a slot bitmap: up to 128 slots */

/* What each parent PE tells the others in a split. */
struct split_vote {
    int32_t kind; /* SPLIT_STRIDED or SPLIT_2D */
    int32_t a, b, c;  /* strided: start, stride, size; 2d: xrange */
    int32_t null_out; /* SPLIT_NULL_*: team pointers this PE passed NULL */
    uint64_t free[SLOT_WORDS];
};
enum { SPLIT_STRIDED = 1, SPLIT_2D };
enum { SPLIT_NULL_FIRST = 1, SPLIT_NULL_Y = 2 }; /* new_team or xaxis_team; yaxis_team */

static struct {
    struct gshmemi_team *teams; /* by slot, n_slots of them */
    int n_slots;
    struct split_vote *votes; /* heap: one per world PE, by parent index */
    uint64_t *sizes;          /* heap: collect's sizes, one word per world PE a slot */
    uint64_t *args;           /* heap: GSHMEMI_COLL_ARGS words per slot (GSHMEM_DEBUG_CHECKS) */
    uint64_t *device_words;   /* GPU heap: the slots' device barrier words (NULL: host heap) */
    char *coll_area;          /* GPU heap: the slots' collective areas */
    struct gshmemi_device_coll_area coll;
    size_t ll_stream_max;     /* GPU heap: the stream kernels' flag packets, bytes a member */
    char *push[1 + PUSH_TEAMS_MAX]; /* GPU heap: the push areas (NULL: none) */
    size_t push_data;         /* bytes of a parity's slots in each */
    int world_pushes;         /* area 0 is the world team's (else the node team's) */
    char *oneshot;            /* host heap: the slots' one-shot areas (NULL: none) */
    size_t oneshot_cap;       /* bytes per member and parity */
    size_t oneshot_mapped_max; /* all mapped: one-shot while n x piece is at most this */
    char *pipe;               /* host heap: the slots' pipe areas (NULL: none) */
    uint64_t *maps;           /* world PE a's row: bit b set where a maps b's heap */
    size_t map_words;         /* words a row */
} tm;

/* Teams made in this process, across gshmem_init and gshmem_finalize: each
 * team's generation, never 0 and never reused (a stream call enqueued for
 * one never matches a later team in its slot; a graph replayed after a new
 * gshmem_init may still fault first, on the flag packets' and pushes'
 * addresses that it captured from the old heap). */
static int teams_made;

/* Whether world PE a maps PE b's heap (a's gathered row). */
static int maps(int a, int b)
{
    return tm.maps[(size_t)a * tm.map_words + (size_t)b / 64] >> (b % 64) & 1;
}

/* Whether every member of pes[0..n) maps every other's heap: the same on
 * every member, where each one's own view (all mapped here) is not when P2P
 * reach is not transitive (A and B reach C, not each other), and members
 * that chose differently by it would wait for each other until the
 * deadline. */
static int all_map_all(const int *pes, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (!maps(pes[i], pes[j]))
                return 0;
    return 1;
}

uint64_t *gshmemi_team_sizes_area(gshmem_team_t slot)
{
    return tm.sizes + (size_t)slot * (size_t)gshmemi_rt.n_pes;
}
uint64_t *gshmemi_team_args_area(gshmem_team_t slot)
{
    return tm.args + (size_t)slot * GSHMEMI_COLL_ARGS;
}
size_t gshmemi_team_ll_max(void) { return tm.coll.ll_max; }
size_t gshmemi_team_ll_stream_max(void) { return tm.ll_stream_max; }

int gshmemi_team_ll_areas(const struct gshmemi_team *t, gshmem_team_t slot,
                          struct gshmemi_ll_areas *a)
{
    memset(a, 0, sizeof(*a));
    if (tm.coll_area == NULL || !t->mapped || t->n < 2 || t->n > GSHMEMI_LL_AREAS_MEMBERS)
        return 0;
    char *mine = tm.coll_area + (size_t)slot * tm.coll.slot_bytes;
    for (int m = 0; m < t->n; m++)
        a->area[m] = m == t->my ? mine : gshmemi_heap_peer_addr(mine, t->pes[m]);
    a->count = (unsigned long long *)(tm.device_words + (size_t)slot * GSHMEMI_DEVICE_TEAM_WORDS +
                                      GSHMEMI_DEVICE_TEAM_LL_EPOCH);
    a->n = t->n;
    a->my = t->my;
    return 1;
}

/* The push area of the team in `slot` (-1: none). */
static int push_area_of(gshmem_team_t slot)
{
    if (slot == GSHMEM_TEAM_WORLD)
        return tm.world_pushes ? 0 : -1;
    if (slot == GSHMEMX_TEAM_NODE)
        return tm.world_pushes ? -1 : 0;
    return slot >= PUSH_FIRST_SPLIT && slot < PUSH_FIRST_SPLIT + PUSH_AREAS - 1
               ? 1 + (int)(slot - PUSH_FIRST_SPLIT)
               : -1;
}

int gshmemi_team_push_area(const struct gshmemi_team *t, gshmem_team_t slot,
                           struct gshmemi_push_area *a)
{
    memset(a, 0, sizeof(*a));
    const int at = push_area_of(slot);
    if (at < 0 || tm.push[at] == NULL || !t->mapped || t->n < 2 || t->n > GSHMEMI_LL_AREAS_MEMBERS)
        return 0;
    /* fewer members than the largest team that may push: larger slots */
    const size_t cap = GSHMEMI_MIN((size_t)gshmemi_env.COLL_PUSH_MAX,
                                   tm.push_data / (size_t)(t->n - 1)) / 4096 * 4096;
    if (cap == 0)
        return 0;
    char *mine = tm.push[at];
    for (int m = 0; m < t->n; m++) {
        a->area[m] = m == t->my ? mine : gshmemi_heap_peer_addr(mine, t->pes[m]);
        a->pes[m] = t->pes[m];
    }
    a->cap = cap;
    a->n = t->n;
    a->my = t->my;
    return 1;
}

/* The bytes of a parity's slots in each push area: GSHMEM_COLL_PUSH_MAX a
 * sender, within PUSH_BUDGET over the others of the largest team that may
 * push (GSHMEMI_LL_AREAS_MEMBERS), in whole pages; 0 where no team can
 * push (one PE, no PE mapping another, GSHMEM_DISABLE_P2P, an algorithm
 * that never pushes forced): the same answer on every PE, from the
 * gathered maps. */
static size_t push_data_bytes(void)
{
    const char *algo = gshmemi_env.COLL_ALGO;
    const int n = gshmemi_rt.n_pes;
    if (n < 2 || gshmemi_env.DISABLE_P2P || strcmp(algo, "simple") == 0 ||
        strcmp(algo, "ll") == 0 || strcmp(algo, "grid") == 0)
        return 0;
    int pair = 0;
    for (int a = 0; a < n && !pair; a++)
        for (int b = 0; b < n && !pair; b++)
            pair = a != b && maps(a, b);
    if (!pair)
        return 0;
    const size_t others = (size_t)GSHMEMI_MIN(n, GSHMEMI_LL_AREAS_MEMBERS) - 1;
    const size_t cap = GSHMEMI_MIN((size_t)gshmemi_env.COLL_PUSH_MAX, PUSH_BUDGET / others);
    return cap / 4096 * 4096 * others;
}

/* Whether the world PEs pes[0..n) can push together: 2 to
 * GSHMEMI_LL_AREAS_MEMBERS of them, each mapping every other. */
static int may_push(const int *pes, int n)
{
    return n >= 2 && n <= GSHMEMI_LL_AREAS_MEMBERS && all_map_all(pes, n);
}

/* Which push areas a team can ever use (the same answer on every PE), with
 * tm.world_pushes set: area 0 the world team or, where that cannot push, a
 * node team; the others their split slot, where GSHMEM_MAX_TEAMS makes
 * it.  scratch: room for n_pes PEs. */
static void push_areas_used(int *used, int *scratch)
{
    const int n = gshmemi_rt.n_pes;
    for (int pe = 0; pe < n; pe++)
        scratch[pe] = pe;
    used[0] = tm.world_pushes = may_push(scratch, n);
    for (int v = 0; v < gshmemi_rt.n_nodes && !used[0]; v++) {
        int k = 0;
        for (int pe = 0; pe < n; pe++)
            if (gshmemi_rt.peers[pe].node == v)
                scratch[k++] = pe;
        used[0] = may_push(scratch, k);
    }
    for (int k = 1; k < PUSH_AREAS; k++)
        used[k] = tm.n_slots > PUSH_FIRST_SPLIT + k - 1;
}

/* A parity's part of a slot's one-shot area: n_pes signal words (a cache
 * line's multiple), then n_pes blocks of oneshot_cap bytes (a multiple of
 * 16): every block is aligned for every type, a long double's 16 bytes
 * included, however many PEs. */
static size_t oneshot_words_bytes(void)
{
    return GSHMEMI_ALIGN_UP(sizeof(uint64_t) * (size_t)gshmemi_rt.n_pes, 64);
}

static size_t oneshot_parity_bytes(void)
{
    return oneshot_words_bytes() + (size_t)gshmemi_rt.n_pes * tm.oneshot_cap;
}

struct gshmemi_team_oneshot gshmemi_team_oneshot_area(gshmem_team_t slot, int parity)
{
    struct gshmemi_team_oneshot a = {0};
    if (tm.oneshot == NULL)
        return a;
    char *p = tm.oneshot + ((size_t)slot * 2 + (size_t)parity) * oneshot_parity_bytes();
    a.sig = (uint64_t *)p;
    a.data = p + oneshot_words_bytes();
    a.cap = tm.oneshot_cap;
    a.mapped_max = tm.oneshot_mapped_max;
    return a;
}

/* A slot's pipe area: the words (3 per world PE, a cache line's multiple),
 * then PIPE_NBUF buffers of PIPE_CHUNK bytes.  The buffers hold only the
 * chained reductions' partial results and the hierarchical alltoall's
 * streams between leaders (the other pipelined collectives write into
 * dest), so a few chunks in flight keep a link busy: 4 x 32 KiB a slot,
 * 8 MiB for 64 teams, allocated only where pipe.c may run. */
enum { PIPE_NBUF = GSHMEMI_TEAM_PIPE_NBUF, PIPE_CHUNK = GSHMEMI_TEAM_PIPE_CHUNK };

static size_t pipe_words_bytes(void)
{
    return GSHMEMI_ALIGN_UP(3 * sizeof(uint64_t) * (size_t)gshmemi_rt.n_pes, 64);
}

static size_t pipe_slot_bytes(void)
{
    return pipe_words_bytes() + (size_t)PIPE_NBUF * PIPE_CHUNK;
}

struct gshmemi_team_pipe gshmemi_team_pipe_area(gshmem_team_t slot)
{
    struct gshmemi_team_pipe a = {0};
    if (tm.pipe == NULL)
        return a;
    char *p = tm.pipe + (size_t)slot * pipe_slot_bytes();
    a.go = (uint64_t *)p;
    a.got = a.go + gshmemi_rt.n_pes;
    a.where = a.got + gshmemi_rt.n_pes;
    a.buf = p + pipe_words_bytes();
    a.chunk = PIPE_CHUNK;
    a.nbuf = PIPE_NBUF;
    return a;
}

int gshmemi_coll_algo_auto(void)
{
    return strcmp(gshmemi_env.COLL_ALGO, "auto") == 0 || strcmp(gshmemi_env.COLL_ALGO, "push") == 0;
}

/* Whether the slots get pipe areas: on the host heap, where the pipelined
 * algorithms are forced (ring, hier) or may be chosen (auto and doubling,
 * with a peer reached through the transport: where all are mapped, the
 * barrier algorithm's loads and stores win). */
static int pipe_wanted(void)
{
    const char *algo = gshmemi_env.COLL_ALGO;
    if (gshmemi_heap.on_device || !gshmemi_heap.access->host_direct)
        return 0;
    return strcmp(algo, "ring") == 0 || strcmp(algo, "hier") == 0 ||
           ((gshmemi_coll_algo_auto() || strcmp(algo, "doubling") == 0) &&
            gshmemi_transport != NULL);
}

/* The host heap's one-shot capacity per member: GSHMEM_COLL_LL_MAX, within
 * 32 KiB per parity and slot (64 KiB a slot: 4 MiB for 64 teams); none
 * where that leaves less than 256 bytes (jobs of more than 128 PEs, where
 * every member's piece to every other would not pay anyway) or under
 * GSHMEM_COLL_ALGO=simple or grid. */
static size_t oneshot_cap(void)
{
    const char *algo = gshmemi_env.COLL_ALGO;
    if (strcmp(algo, "simple") == 0 || strcmp(algo, "grid") == 0)
        return 0;
    size_t cap = (32u << 10) / (size_t)gshmemi_rt.n_pes;
    if (cap < 256)
        return 0;
    cap &= ~(size_t)63;
    if (strcmp(algo, "ll") != 0 && (size_t)gshmemi_env.COLL_LL_MAX < cap)
        cap = (size_t)gshmemi_env.COLL_LL_MAX & ~(size_t)15;
    return cap;
}

/* ---- lookup ---------------------------------------------------------------- */

struct gshmemi_team *gshmemi_team_get(const char *call, gshmem_team_t team)
{
    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(COLL, "%s called before gshmem_init", call);
        return NULL;
    }
    if (team == GSHMEM_TEAM_INVALID) {
        GSHMEMI_ERROR(COLL, "%s: the team is GSHMEM_TEAM_INVALID", call);
        return NULL;
    }
    if (team < 0 || team >= tm.n_slots) {
        GSHMEMI_ERROR(COLL, "%s: %d is not a team (GSHMEM_MAX_TEAMS is %d)", call, (int)team,
                      tm.n_slots);
        return NULL;
    }
    if (!tm.teams[team].live) {
        GSHMEMI_ERROR(COLL, "%s: team %d does not exist on this pe (destroyed, or this pe is not "
                      "in it)", call, (int)team);
        return NULL;
    }
    return &tm.teams[team];
}

int gshmemi_team_index(const struct gshmemi_team *t, int pe)
{
    /* Members are in ascending order for every team but a split with a
     * negative stride: a search either way. */
    for (int i = 0; i < t->n; i++)
        if (t->pes[i] == pe)
            return i;
    return -1;
}

/* ---- the host barrier ---------------------------------------------------------- */

void gshmemi_team_sync(const char *call, const struct gshmemi_team *t, gshmem_team_t slot)
{
    const int me = gshmemi_rt.my_pe;
    const size_t base = gshmemi_ctrl_team(slot);
    uint64_t *counters = gshmemi_ctrl_word(me, base);
    const uint64_t target = ++counters[GSHMEMI_CTRL_TEAM_ROUNDS];

    /* Counting (not flags) needs no reset: a PE already in the next barrier
     * never disturbs a slow one; right for any number of PEs. */
    for (int r = 0, d = 1; d < t->n; r++, d <<= 1) {
        const int to = t->pes[(t->my + d) % t->n];
        uint64_t *remote = gshmemi_ctrl_word(to, base + (size_t)r);
        if (remote != NULL)
            __atomic_fetch_add(remote, 1, __ATOMIC_RELEASE);
        else if (gshmemi_transport != NULL) /* another node */
            gshmemi_transport_ctrl_add(call, to, base + (size_t)r, 1);
        else
            gshmemi_rma_fail(call, "pe %d is on another node and no network transport is up", to);
        const struct gshmemi_wait w = {.call = call, .ivars = &counters[r], .nelems = 1,
                                       .esize = sizeof(uint64_t), .cmp = GSHMEM_CMP_GE,
                                       .value = target};
        (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);
    }
}

/* ---- making and ending teams ------------------------------------------------------ */

/* The settings of config that config_mask names (GSHMEM_TEAM_NUM_CONTEXTS,
 * the only one), the others the defaults: a setting the mask leaves out
 * is not the caller's, whatever config holds. */
static gshmem_team_config_t config_of(const gshmem_team_config_t *config, long config_mask)
{
    gshmem_team_config_t c = {0};
    if (config != NULL && (config_mask & GSHMEM_TEAM_NUM_CONTEXTS))
        c.num_contexts = config->num_contexts;
    return c;
}

/* Slot `slot` holds the team of the world PEs pes[0..n) (copied). */
static int team_set(gshmem_team_t slot, const int *pes, int n, const gshmem_team_config_t *config)
{
    struct gshmemi_team *t = &tm.teams[slot];
    t->pes = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (t->pes == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    memcpy(t->pes, pes, sizeof(int) * (size_t)n);
    /* each node's first member, by node (-1: none yet) */
    int *first = malloc(sizeof(int) * (size_t)gshmemi_rt.n_nodes);
    t->lead = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (first == NULL || t->lead == NULL) {
        free(first);
        free(t->lead);
        free(t->pes);
        t->pes = t->lead = NULL;
        return GSHMEM_ERR_NO_MEMORY;
    }
    int nodes = 0, shared = 0;
    for (int v = 0; v < gshmemi_rt.n_nodes; v++)
        first[v] = -1;
    for (int i = 0; i < n; i++) {
        const int v = gshmemi_rt.peers[pes[i]].node;
        if (first[v] < 0)
            first[v] = i, nodes++;
        else
            shared = 1;
        t->lead[i] = first[v];
    }
    free(first);
    t->spread = nodes > 1 && shared;
    t->n = n;
    t->my = gshmemi_team_index(t, gshmemi_rt.my_pe);
    t->config = config != NULL ? *config : (gshmem_team_config_t){0};
    t->live = 1;
    t->oneshots = 0;
    t->pipes = 0;
    t->mapped = all_map_all(pes, n);
    t->generation = __atomic_add_fetch(&teams_made, 1, __ATOMIC_RELAXED);
    gshmemi_device_team_set(slot, t->pes, n, t->my, t->mapped, t->generation);
    return 0;
}

static void team_clear(gshmem_team_t slot)
{
    if (tm.teams[slot].live)
        gshmemi_device_team_clear(slot);
    free(tm.teams[slot].pes);
    free(tm.teams[slot].lead);
    gshmemi_gpu_stream_free(tm.teams[slot].stream); /* its last call waited for it */
    memset(&tm.teams[slot], 0, sizeof(tm.teams[slot]));
}

/* The predefined team of the world PEs for which keep(pe) holds. */
static int predefined(gshmem_team_t slot, int (*keep)(int pe), int *scratch)
{
    int n = 0;
    for (int pe = 0; pe < gshmemi_rt.n_pes; pe++)
        if (keep(pe))
            scratch[n++] = pe;
    return team_set(slot, scratch, n, NULL);
}

static int in_world(int pe) { return (void)pe, 1; }

/* Whether a and b map each other's heaps (the gathered rows). */
static int map_both(int a, int b)
{
    return maps(a, b) && maps(b, a);
}

/* GSHMEM_TEAM_SHARED: the PEs that map each other, as groups every PE
 * draws alike from the gathered rows.  Where P2P reach is not transitive
 * (A and B map C, not each other), the PEs each one maps are not a team its
 * members agree on; so, in world order, a PE joins the group of the first
 * PE it maps that it maps all of both ways, else begins one.  Where reach
 * is transitive, as where P2P reaches a whole node, a group is exactly the
 * PEs a PE maps. */
static int shared_team(int *scratch)
{
    const int n = gshmemi_rt.n_pes;
    int *group = malloc(sizeof(int) * 5 * (size_t)n), groups = 0, k = 0;
    if (group == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    int *first = group + n, *last = first + n, *next = last + n, *tried = next + n;
    for (int p = 0; p < n; p++) {
        const uint64_t *row = tm.maps + (size_t)p * tm.map_words;
        group[p] = -1, next[p] = -1, tried[p] = -1;
        for (int w = 0; w <= p / 64 && group[p] < 0; w++) {
            uint64_t bits = row[w];
            while (bits != 0 && group[p] < 0) {
                const int q = w * 64 + __builtin_ctzll(bits);
                bits &= bits - 1;
                if (q >= p || tried[group[q]] == p || !map_both(p, q))
                    continue;
                tried[group[q]] = p;
                int all = 1;
                for (int m = first[group[q]]; m >= 0 && all; m = next[m])
                    all = map_both(p, m);
                if (all)
                    group[p] = group[q];
            }
        }
        if (group[p] < 0) {
            group[p] = groups++;
            first[group[p]] = p;
        } else {
            next[last[group[p]]] = p;
        }
        last[group[p]] = p;
    }
    for (int p = first[group[gshmemi_rt.my_pe]]; p >= 0; p = next[p])
        scratch[k++] = p;
    free(group);
    return team_set(GSHMEM_TEAM_SHARED, scratch, k, NULL);
}

static int on_my_node(int pe) { return gshmemi_rt.peers[pe].node == gshmemi_rt.node_id; }

/* A PE's rank among its node's PEs (in world order). */
static int node_rank(int pe)
{
    int r = 0;
    for (int q = 0; q < pe; q++)
        r += gshmemi_rt.peers[q].node == gshmemi_rt.peers[pe].node;
    return r;
}
static int same_node_rank(int pe) { return node_rank(pe) == node_rank(gshmemi_rt.my_pe); }

/* A slot's collective area (enum gshmemi_coll_area): the grid barriers'
 * words, an LL acknowledgement per world PE, then two buffers of packets
 * per member, of GSHMEM_COLL_LL_STREAM_MAX's payload (GSHMEM_COLL_LL_MAX's
 * where that is larger; all of COLL_LL_BUDGET with GSHMEM_COLL_ALGO=ll) as
 * far as COLL_LL_BUDGET allows: 256 KiB of payload at 2 PEs, 128 KiB at 4,
 * 64 KiB at 8, never under 64 packets.  The device forms (one group) take
 * flag packets up to GSHMEM_COLL_LL_MAX; the stream kernels, on several
 * blocks, up to GSHMEM_COLL_LL_STREAM_MAX (*stream_max).  With
 * GSHMEM_COLL_ALGO simple or grid no flag packets run, and the buffers only
 * stage the sources of members reached through the proxy: COLL_STAGE_BYTES
 * of them; a single PE has neither use for them. */
#define COLL_LL_BUDGET (2u << 20) /* the packets' bytes in a slot */
#define COLL_STAGE_BYTES (512u << 10)
static void coll_layout(struct gshmemi_device_coll_area *c, size_t *stream_max)
{
    const uint64_t n = (uint64_t)gshmemi_rt.n_pes;
    const size_t want = gshmemi_env.COLL_LL_MAX, want_stream = gshmemi_env.COLL_LL_STREAM_MAX;
    const int ll = strcmp(gshmemi_env.COLL_ALGO, "ll") == 0;
    const int none =
        strcmp(gshmemi_env.COLL_ALGO, "simple") == 0 || strcmp(gshmemi_env.COLL_ALGO, "grid") == 0;
    /* two buffers of n members' packets, 16 bytes each carrying 8 */
    const uint64_t budget = (none ? COLL_STAGE_BYTES : COLL_LL_BUDGET) / (2 * n * 16);
    uint64_t packets = ((want_stream > want ? want_stream : want) + 7) / 8;
    if (ll || none || packets > budget)
        packets = budget;
    packets = packets < 64 || n == 1 ? 64 : packets;
    c->ll_off = GSHMEMI_ALIGN_UP(GSHMEMI_COLL_AREA_LL_ACKS + 4 * n, 256);
    c->slot_bytes = GSHMEMI_ALIGN_UP(c->ll_off + 2 * n * packets * 16, 4096);
    c->ll_packets = (uint32_t)packets;
    const size_t cap = (size_t)packets * 8;
    if (strcmp(gshmemi_env.COLL_ALGO, "simple") == 0 || strcmp(gshmemi_env.COLL_ALGO, "grid") == 0)
        c->ll_max = 0;
    else if (ll || want > cap)
        c->ll_max = (uint32_t)cap;
    else
        c->ll_max = (uint32_t)want;
    /* none where the device forms take none, and never fewer than theirs */
    const size_t stream = ll || want_stream > cap ? cap : want_stream;
    *stream_max = c->ll_max == 0 || stream < c->ll_max ? c->ll_max : stream;
}

/* The collectives' algorithm settings must be the same on every PE: one
 * that took flag packets while another met at a barrier would wait until
 * GSHMEM_TIMEOUT without saying why.  GSHMEM_DISABLE_P2P too: it decides
 * whether a team's members are all mapped, and with it the algorithm;
 * GSHMEM_MAX_TEAMS sizes the teams' areas in the heap.  The first PE and
 * setting that differ are named, with both values.  Each PE's row of
 * tm.maps (whose heaps it maps) comes with them. */
static int same_coll_settings(int algo, const char *const *algos, size_t n_algos)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    const int n_pes = gshmemi_rt.n_pes;
    static const char *const names[] = {"GSHMEM_COLL_ALGO",          "GSHMEM_COLL_LL_MAX",
                                        "GSHMEM_COLL_GRID_MIN",      "GSHMEM_COLL_LL_STREAM_MAX",
                                        "GSHMEM_COLL_PUSH_MAX",      "GSHMEM_COLL_PUSH_TEAMS",
                                        "GSHMEM_DISABLE_P2P",        "GSHMEM_MAX_TEAMS"};
    const long long mine[] = {algo,
                              (long long)gshmemi_env.COLL_LL_MAX,
                              (long long)gshmemi_env.COLL_GRID_MIN,
                              (long long)gshmemi_env.COLL_LL_STREAM_MAX,
                              (long long)gshmemi_env.COLL_PUSH_MAX,
                              (long long)gshmemi_env.COLL_PUSH_TEAMS,
                              (long long)gshmemi_env.DISABLE_P2P,
                              (long long)gshmemi_env.MAX_TEAMS};
    _Static_assert(sizeof(mine) / sizeof(mine[0]) == sizeof(names) / sizeof(names[0]),
                   "a name for each setting");
    tm.map_words = ((size_t)n_pes + 63) / 64;
    const size_t row = sizeof(mine) + sizeof(uint64_t) * tm.map_words;
    char *out = calloc(1, row), *all = malloc(row * (size_t)n_pes);
    tm.maps = malloc(sizeof(uint64_t) * tm.map_words * (size_t)n_pes);
    int st = out != NULL && all != NULL && tm.maps != NULL ? 0 : GSHMEM_ERR_NO_MEMORY;
    if (st == 0) {
        memcpy(out, mine, sizeof(mine));
        uint64_t *bits = (uint64_t *)(void *)(out + sizeof(mine));
        for (int pe = 0; pe < n_pes; pe++)
            if (gshmemi_heap.slot_of_pe[pe] >= 0)
                bits[pe / 64] |= (uint64_t)1 << (pe % 64);
        st = bs->ops->allgather(bs, out, all, row);
    }
    for (int pe = 0; st == 0 && pe < n_pes; pe++)
        memcpy(tm.maps + (size_t)pe * tm.map_words, all + row * (size_t)pe + sizeof(mine),
               sizeof(uint64_t) * tm.map_words);
    for (int pe = 0; st == 0 && pe < n_pes; pe++) {
        long long theirs[sizeof(mine) / sizeof(mine[0])];
        memcpy(theirs, all + row * (size_t)pe, sizeof(theirs));
        for (size_t k = 0; st == 0 && k < sizeof(mine) / sizeof(mine[0]); k++) {
            if (theirs[k] == mine[k])
                continue;
            char a[32], b[32];
            if (k == 0) { /* the algorithm's index: its name */
                snprintf(a, sizeof(a), "%s",
                         theirs[0] >= 0 && (size_t)theirs[0] < n_algos ? algos[theirs[0]] : "?");
                snprintf(b, sizeof(b), "%s", algos[mine[0]]);
            } else {
                snprintf(a, sizeof(a), "%lld", theirs[k]);
                snprintf(b, sizeof(b), "%lld", mine[k]);
            }
            GSHMEMI_ERROR(COLL, "pe %d has %s %s, this pe %s: every PE must use the same", pe,
                          names[k], a, b);
            st = GSHMEM_ERR_ASYMMETRIC;
        }
    }
    free(out);
    free(all);
    return st;
}

int gshmemi_teams_init(void)
{
    const long max = gshmemi_env.MAX_TEAMS;
    int *scratch = malloc(sizeof(int) * (size_t)gshmemi_rt.n_pes), st;

    static const char *const algos[] = {"auto", "simple", "ll",      "grid",
                                        "ring", "hier",   "doubling", "push"};
    int algo = -1;
    for (size_t i = 0; i < GSHMEMI_ARRAY_SIZE(algos); i++)
        if (strcmp(gshmemi_env.COLL_ALGO, algos[i]) == 0)
            algo = (int)i;
    if (algo < 0) {
        GSHMEMI_ERROR(COLL, "GSHMEM_COLL_ALGO is '%s': expected auto, simple, ll, grid, push, "
                      "ring, hier or doubling",
                      gshmemi_env.COLL_ALGO);
        free(scratch);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (gshmemi_env.COLL_PUSH_TEAMS < 0 || gshmemi_env.COLL_PUSH_TEAMS > PUSH_TEAMS_MAX) {
        GSHMEMI_ERROR(COLL, "GSHMEM_COLL_PUSH_TEAMS is %ld: it must be from 0 to %d",
                      (long)gshmemi_env.COLL_PUSH_TEAMS, PUSH_TEAMS_MAX);
        free(scratch);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if ((st = same_coll_settings(algo, algos, GSHMEMI_ARRAY_SIZE(algos))) != 0)
        goto err;
    if (max < N_PREDEFINED || max > GSHMEMI_CTRL_TEAM_SLOTS || max > 64 * SLOT_WORDS) {
        GSHMEMI_ERROR(COLL, "GSHMEM_MAX_TEAMS is %ld: it must be from %d to %d", max, N_PREDEFINED,
                      GSHMEMI_MIN((int)GSHMEMI_CTRL_TEAM_SLOTS, 64 * SLOT_WORDS));
        st = GSHMEM_ERR_INVALID_ARG;
        goto err;
    }
    tm.n_slots = (int)max;
    tm.teams = calloc((size_t)tm.n_slots, sizeof(*tm.teams));
    if (scratch == NULL || tm.teams == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto err;
    }
    tm.votes = gshmemi_heap_alloc_internal("team split area",
                                           sizeof(struct split_vote) * (size_t)gshmemi_rt.n_pes);
    /* a block a slot: threads may run collect on two teams at once */
    tm.sizes = tm.votes == NULL ? NULL
                                : gshmemi_heap_alloc_internal("collectives' area",
                                                              sizeof(uint64_t) * (size_t)tm.n_slots *
                                                                  (size_t)gshmemi_rt.n_pes);
    tm.args = tm.sizes == NULL ? NULL
                               : gshmemi_heap_alloc_internal("collectives' argument checks",
                                                             sizeof(uint64_t) * GSHMEMI_COLL_ARGS *
                                                                 (size_t)tm.n_slots);
    if (tm.votes == NULL || tm.sizes == NULL || tm.args == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto err;
    }
    tm.oneshot_cap =
        gshmemi_heap.on_device || !gshmemi_heap.access->host_direct ? 0 : oneshot_cap();
    /* Where every member is mapped, the barriers cost little and the
     * one-shot's second copy (into the area, then out) much: on the 2-core
     * VM it won 2x at 8 B, tied at 2 KiB pieces on 4 PEs and lost 2x at
     * 2 KiB on 2 PEs, so it stops at 2 KiB moved a member. */
    tm.oneshot_mapped_max = strcmp(gshmemi_env.COLL_ALGO, "ll") == 0 ? SIZE_MAX : 2u << 10;
    const size_t oneshot_bytes = (size_t)tm.n_slots * 2 * oneshot_parity_bytes();
    if (tm.oneshot_cap > 0 &&
        (tm.oneshot = gshmemi_heap_alloc_internal("teams' one-shot areas", oneshot_bytes)) == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto err;
    }
    if (pipe_wanted() && (tm.pipe = gshmemi_heap_alloc_internal(
                              "teams' pipe areas", (size_t)tm.n_slots * pipe_slot_bytes())) == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto err;
    }
    if (gshmemi_heap.on_device) { /* kernels' team barriers and collective areas */
        const size_t words = (size_t)tm.n_slots * GSHMEMI_DEVICE_TEAM_WORDS;
        tm.device_words = gshmemi_heap_alloc_internal("teams' device barrier words",
                                                      words * sizeof(uint64_t));
        coll_layout(&tm.coll, &tm.ll_stream_max);
        tm.coll_area = tm.device_words == NULL
                           ? NULL
                           : gshmemi_heap_alloc_internal("teams' collective areas",
                                                         (size_t)tm.n_slots * tm.coll.slot_bytes);
        if (tm.coll_area == NULL) {
            st = GSHMEM_ERR_NO_MEMORY;
            goto err;
        }
        tm.coll.off = (uint64_t)(tm.coll_area - gshmemi_heap.my_base);
        tm.push_data = push_data_bytes();
        const size_t push_bytes = GSHMEMI_PUSH_DATA + 2 * tm.push_data; /* (16-byte multiple) */
        int used[1 + PUSH_TEAMS_MAX];
        size_t areas = 0;
        push_areas_used(used, scratch);
        for (int k = 0; tm.push_data > 0 && k < PUSH_AREAS; k++)
            areas += (size_t)used[k];
        char *push = areas == 0 ? NULL
                                : gshmemi_heap_alloc_internal("teams' push areas", areas * push_bytes);
        if (areas > 0 && push == NULL) {
            st = GSHMEM_ERR_NO_MEMORY;
            goto err;
        }
        for (int k = 0; push != NULL && k < PUSH_AREAS; k++)
            if (used[k])
                tm.push[k] = push, push += push_bytes;
        GSHMEMI_CHECK_GOTO(gshmemi_device_teams_open(
                               tm.n_slots, (uint64_t)((char *)tm.device_words - gshmemi_heap.my_base),
                               (uint64_t)((char *)tm.sizes - gshmemi_heap.my_base), &tm.coll),
                           st, err);
    }
    GSHMEMI_CHECK_GOTO(predefined(GSHMEM_TEAM_WORLD, in_world, scratch), st, err);
    GSHMEMI_CHECK_GOTO(shared_team(scratch), st, err);
    GSHMEMI_CHECK_GOTO(predefined(GSHMEMX_TEAM_NODE, on_my_node, scratch), st, err);
    GSHMEMI_CHECK_GOTO(predefined(GSHMEMX_TEAM_SAME_MYPE_NODE, same_node_rank, scratch), st, err);
    free(scratch);
    return 0;

err:
    free(scratch);
    gshmemi_teams_fini();
    return st;
}

void gshmemi_teams_fini(void)
{
    gshmemi_coll_fini();
    for (int s = 0; tm.teams != NULL && s < tm.n_slots; s++)
        team_clear(s);
    free(tm.teams);
    free(tm.maps);
    memset(&tm, 0, sizeof(tm)); /* the votes' block goes with the heap */
}

/* Every parent PE's vote, by parent index, into votes (local memory): an
 * all-gather over the parent through the heap block the runtime keeps. */
static void gather_votes(const char *call, const struct gshmemi_team *parent,
                         gshmem_team_t parent_slot, const struct split_vote *mine,
                         struct split_vote *votes)
{
    gshmemi_team_sync(call, parent, parent_slot); /* everyone's block is free */
    for (int i = 0; i < parent->n; i++)
        gshmemi_rma_put(call, &tm.votes[parent->my], mine, sizeof(*mine), parent->pes[i], 0);
    gshmem_quiet();
    gshmemi_team_sync(call, parent, parent_slot);
    gshmemi_heap.access->copy(call, votes, tm.votes, sizeof(*votes) * (size_t)parent->n, 1);
}

static void my_free_slots(uint64_t *free_bits)
{
    memset(free_bits, 0, sizeof(uint64_t) * SLOT_WORDS);
    for (int s = N_PREDEFINED; s < tm.n_slots; s++)
        if (!tm.teams[s].live)
            free_bits[s / 64] |= 1ull << (s % 64);
}

/* The lowest `count` slots free on the voters of parent index
 * first + k * stride, k < n (-1 where there are fewer). */
static void common_free(const struct split_vote *votes, int first, int stride, int n, int count,
                        int *slots)
{
    uint64_t all[SLOT_WORDS];
    memcpy(all, votes[first].free, sizeof(all));
    for (int k = 1; k < n; k++)
        for (int w = 0; w < SLOT_WORDS; w++)
            all[w] &= votes[first + k * stride].free[w];
    for (int k = 0; k < count; k++) {
        slots[k] = -1;
        for (int s = 0; s < tm.n_slots && slots[k] < 0; s++)
            if (all[s / 64] & (1ull << (s % 64))) {
                slots[k] = s;
                all[s / 64] &= ~(1ull << (s % 64));
            }
    }
}

/* Whether every vote matches this PE's; else logs, naming the first PE that
 * differs, and returns 0. */
static int votes_agree(const char *call, const struct gshmemi_team *parent,
                       const struct split_vote *votes, const struct split_vote *mine)
{
    for (int i = 0; i < parent->n; i++) {
        const struct split_vote *v = &votes[i];
        if (v->kind != mine->kind || v->a != mine->a || v->b != mine->b || v->c != mine->c) {
            if (mine->kind == SPLIT_STRIDED)
                GSHMEMI_ERROR(COLL, "%s: pe %d (index %d in the parent team) called it with start "
                              "%d, stride %d, size %d, this pe with %d, %d, %d: every PE of the "
                              "parent team must pass the same", call, parent->pes[i], i, v->a, v->b,
                              v->c, mine->a, mine->b, mine->c);
            else
                GSHMEMI_ERROR(COLL, "%s: pe %d (index %d in the parent team) called it with xrange "
                              "%d, this pe with %d: every PE of the parent team must pass the same",
                              call, parent->pes[i], i, v->a, mine->a);
            return 0;
        }
    }
    return 1;
}

/* Whether no PE passed a NULL team pointer; else logs (parent index 0),
 * naming the first PE that did, and returns 0: a PE that cannot take its
 * team still votes, so that every PE fails the same split instead of the
 * others waiting for it until the deadline. */
static int votes_have_teams(const char *call, const struct gshmemi_team *parent,
                            const struct split_vote *votes)
{
    for (int i = 0; i < parent->n; i++) {
        const int null_out = votes[i].null_out;
        if (null_out == 0)
            continue;
        if (parent->my == 0)
            GSHMEMI_ERROR(COLL, "%s: pe %d (index %d in the parent team) passed a NULL %s: the "
                          "split fails on every PE of the parent team", call, parent->pes[i], i,
                          votes[i].kind != SPLIT_2D      ? "new_team"
                          : null_out == SPLIT_NULL_FIRST ? "xaxis_team"
                          : null_out == SPLIT_NULL_Y     ? "yaxis_team"
                                                         : "xaxis_team and yaxis_team");
        return 0;
    }
    return 1;
}

/* The zeroed barrier and signal words of a new team's slot, before anybody
 * uses them. */
static void slot_reset(gshmem_team_t slot)
{
    memset(gshmemi_ctrl_word(gshmemi_rt.my_pe, gshmemi_ctrl_team(slot)), 0,
           sizeof(uint64_t) * GSHMEMI_CTRL_TEAM_WORDS);
    for (int parity = 0; tm.oneshot != NULL && parity < 2; parity++)
        memset(gshmemi_team_oneshot_area(slot, parity).sig, 0,
               sizeof(uint64_t) * (size_t)gshmemi_rt.n_pes);
    if (tm.pipe != NULL)
        memset(gshmemi_team_pipe_area(slot).go, 0, pipe_words_bytes());
    if (tm.device_words != NULL) {
        gshmemi_heap.access->memset("gshmem_team_split",
                                    tm.device_words + (size_t)slot * GSHMEMI_DEVICE_TEAM_WORDS, 0,
                                    sizeof(uint64_t) * GSHMEMI_DEVICE_TEAM_WORDS);
        gshmemi_heap.access->memset("gshmem_team_split",
                                    tm.coll_area + (size_t)slot * tm.coll.slot_bytes, 0,
                                    tm.coll.slot_bytes);
    }
    const int at = push_area_of(slot);
    if (at >= 0 && tm.push[at] != NULL) /* flags, acknowledgements, counts */
        gshmemi_heap.access->memset("gshmem_team_split", tm.push[at], 0, GSHMEMI_PUSH_DATA);
}

GSHMEM_API int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride,
                                         int size, const gshmem_team_config_t *config,
                                         long config_mask, gshmem_team_t *new_team)
{
    static const char call[] = "gshmem_team_split_strided";
    struct gshmemi_team *parent = gshmemi_team_get(call, parent_team);
    if (new_team != NULL)
        *new_team = GSHMEM_TEAM_INVALID;
    if (parent == NULL)
        return GSHMEM_ERR_INVALID_ARG; /* no parent to agree with: this PE alone */

    struct split_vote mine = {.kind = SPLIT_STRIDED, .a = start, .b = stride, .c = size,
                              .null_out = new_team == NULL ? SPLIT_NULL_FIRST : 0};
    struct split_vote *votes = malloc(sizeof(*votes) * (size_t)parent->n);
    int *pes = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
    int slot = -1, st = GSHMEM_ERR_INVALID_ARG, bad = 0;
    if (votes == NULL || pes == NULL)
        gshmemi_rma_fail(call, "out of host memory");
    my_free_slots(mine.free);
    gather_votes(call, parent, parent_team, &mine, votes);
    if (!votes_agree(call, parent, votes, &mine) || !votes_have_teams(call, parent, votes)) {
        bad = 1;
    } else if (size <= 0 || start < 0 || start >= parent->n || (stride == 0 && size > 1) ||
               (long long)start + (long long)stride * (size - 1) < 0 ||
               (long long)start + (long long)stride * (size - 1) >= parent->n) {
        if (parent->my == 0)
            GSHMEMI_ERROR(COLL, "%s: start %d, stride %d and size %d do not name %d distinct PEs "
                          "of the parent team's %d", call, start, stride, size, size, parent->n);
        bad = 1;
    } else {
        /* The new members' only: a slot is used by its members alone, so
         * that the teams of a family of splits (tensor-parallel groups,
         * then data-parallel ones) each share one, as a 2D split's do. */
        common_free(votes, start, stride, size, 1, &slot);
        if (slot < 0) {
            if (parent->my == 0)
                GSHMEMI_ERROR(COLL, "%s: no team slot is free on every PE of the new team "
                              "(GSHMEM_MAX_TEAMS is %d); destroy a team first", call, tm.n_slots);
            bad = 1;
        }
    }
    if (!bad) {
        int member = 0;
        for (int k = 0; k < size; k++) {
            pes[k] = parent->pes[start + k * stride];
            member |= pes[k] == gshmemi_rt.my_pe;
        }
        st = 0;
        if (member) {
            slot_reset((gshmem_team_t)slot);
            const gshmem_team_config_t cfg = config_of(config, config_mask);
            st = team_set((gshmem_team_t)slot, pes, size, &cfg);
            if (st == 0)
                *new_team = (gshmem_team_t)slot;
        }
    }
    free(pes);
    free(votes);
    /* The new members' barrier words are zero before any of them is back. */
    gshmemi_team_sync(call, parent, parent_team);
    return st;
}

GSHMEM_API int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange,
                                    const gshmem_team_config_t *xaxis_config, long xaxis_mask,
                                    gshmem_team_t *xaxis_team,
                                    const gshmem_team_config_t *yaxis_config, long yaxis_mask,
                                    gshmem_team_t *yaxis_team)
{
    static const char call[] = "gshmem_team_split_2d";
    struct gshmemi_team *parent = gshmemi_team_get(call, parent_team);
    if (xaxis_team != NULL)
        *xaxis_team = GSHMEM_TEAM_INVALID;
    if (yaxis_team != NULL)
        *yaxis_team = GSHMEM_TEAM_INVALID;
    if (parent == NULL)
        return GSHMEM_ERR_INVALID_ARG;

    struct split_vote mine = {.kind = SPLIT_2D, .a = xrange,
                              .null_out = (xaxis_team == NULL ? SPLIT_NULL_FIRST : 0) |
                                          (yaxis_team == NULL ? SPLIT_NULL_Y : 0)};
    struct split_vote *votes = malloc(sizeof(*votes) * (size_t)parent->n);
    int *pes = malloc(sizeof(int) * (size_t)parent->n), slots[2] = {-1, -1}, st = 0;
    if (votes == NULL || pes == NULL)
        gshmemi_rma_fail(call, "out of host memory");
    my_free_slots(mine.free);
    gather_votes(call, parent, parent_team, &mine, votes);
    if (!votes_agree(call, parent, votes, &mine) || !votes_have_teams(call, parent, votes)) {
        st = GSHMEM_ERR_INVALID_ARG;
    } else if (xrange <= 0) {
        if (parent->my == 0)
            GSHMEMI_ERROR(COLL, "%s: xrange %d is not positive", call, xrange);
        st = GSHMEM_ERR_INVALID_ARG;
    } else {
        common_free(votes, 0, 1, parent->n, 2, slots);
        if (slots[1] < 0) {
            if (parent->my == 0)
                GSHMEMI_ERROR(COLL, "%s: fewer than two team slots are free on every PE of the "
                              "parent team (GSHMEM_MAX_TEAMS is %d); destroy a team first", call,
                              tm.n_slots);
            st = GSHMEM_ERR_INVALID_ARG;
        }
    }
    if (st == 0) {
        /* Row: the parent indices of my row (xrange wide, the last one
         * maybe shorter); column: those with my index modulo xrange. */
        const int x = xrange < parent->n ? xrange : parent->n;
        const int row = parent->my / x, col = parent->my % x;
        int n = 0;
        for (int i = row * x; i < parent->n && i < (row + 1) * x; i++)
            pes[n++] = parent->pes[i];
        slot_reset((gshmem_team_t)slots[0]);
        const gshmem_team_config_t xcfg = config_of(xaxis_config, xaxis_mask),
                                   ycfg = config_of(yaxis_config, yaxis_mask);
        st = team_set((gshmem_team_t)slots[0], pes, n, &xcfg);
        n = 0;
        for (int i = col; i < parent->n; i += x)
            pes[n++] = parent->pes[i];
        slot_reset((gshmem_team_t)slots[1]);
        if (st == 0 && (st = team_set((gshmem_team_t)slots[1], pes, n, &ycfg)) != 0)
            team_clear((gshmem_team_t)slots[0]);
        if (st == 0) {
            *xaxis_team = (gshmem_team_t)slots[0];
            *yaxis_team = (gshmem_team_t)slots[1];
        }
    }
    free(pes);
    free(votes);
    gshmemi_team_sync(call, parent, parent_team);
    return st;
}

GSHMEM_API void gshmem_team_destroy(gshmem_team_t team)
{
    static const char call[] = "gshmem_team_destroy";
    /* OpenSHMEM: no operation, so a split's result may be destroyed
     * unchecked on PEs outside the new team */
    if (team == GSHMEM_TEAM_INVALID)
        return;
    struct gshmemi_team *t = gshmemi_team_get(call, team);
    if (t == NULL)
        return;
    if (team < N_PREDEFINED) {
        GSHMEMI_ERROR(COLL, "%s: team %d is predefined and cannot be destroyed", call, (int)team);
        return;
    }
    /* Nobody still uses the slot when any member takes it again. */
    gshmem_quiet();
    gshmemi_team_sync(call, t, team);
    team_clear(team);
}

/* ---- queries --------------------------------------------------------------------- */

GSHMEM_API int gshmem_team_my_pe(gshmem_team_t team)
{
    if (!gshmemi_rt.initialized || team < 0 || team >= tm.n_slots || !tm.teams[team].live)
        return -1;
    return tm.teams[team].my;
}

GSHMEM_API int gshmem_team_n_pes(gshmem_team_t team)
{
    if (!gshmemi_rt.initialized || team < 0 || team >= tm.n_slots || !tm.teams[team].live)
        return -1;
    return tm.teams[team].n;
}

GSHMEM_API int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe,
                                        gshmem_team_t dest_team)
{
    if (!gshmemi_rt.initialized)
        return -1;
    if (src_team < 0 || src_team >= tm.n_slots || !tm.teams[src_team].live ||
        dest_team < 0 || dest_team >= tm.n_slots || !tm.teams[dest_team].live)
        return -1;
    const struct gshmemi_team *s = &tm.teams[src_team];
    if (src_pe < 0 || src_pe >= s->n)
        return -1;
    return gshmemi_team_index(&tm.teams[dest_team], s->pes[src_pe]);
}

GSHMEM_API int gshmem_team_get_config(gshmem_team_t team, long config_mask,
                                      gshmem_team_config_t *config)
{
    struct gshmemi_team *t = gshmemi_team_get("gshmem_team_get_config", team);
    if (t == NULL || config == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (config_mask & GSHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config.num_contexts;
    return 0;
}

GSHMEM_API void *gshmem_team_ptr(gshmem_team_t team, const void *dest, int pe)
{
    const int world = gshmem_team_translate_pe(team, pe, GSHMEM_TEAM_WORLD);
    return world < 0 ? NULL : gshmem_ptr(dest, world);
}

/* ---- synchronisation ----------------------------------------------------------------- */

GSHMEM_API int gshmem_team_sync(gshmem_team_t team)
{
    struct gshmemi_team *t = gshmemi_team_get("gshmem_team_sync", team);
    if (t == NULL)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "gshmem_team_sync");
    gshmemi_team_sync("gshmem_team_sync", t, team);
    return 0;
}

GSHMEM_API int gshmem_barrier(gshmem_team_t team)
{
    struct gshmemi_team *t = gshmemi_team_get("gshmem_barrier", team);
    if (t == NULL)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "gshmem_barrier");
    gshmem_quiet();
    gshmemi_team_sync("gshmem_barrier", t, team);
    return 0;
}

GSHMEM_API void gshmem_sync_all(void)
{
    gshmemi_rma_check_pe(__func__, 0);
    gshmemi_team_sync(__func__, &tm.teams[GSHMEM_TEAM_WORLD], GSHMEM_TEAM_WORLD);
}

GSHMEM_API void gshmem_barrier_all(void)
{
    gshmemi_rma_check_pe(__func__, 0);
    gshmem_quiet();
    gshmemi_team_sync(__func__, &tm.teams[GSHMEM_TEAM_WORLD], GSHMEM_TEAM_WORLD);
}
