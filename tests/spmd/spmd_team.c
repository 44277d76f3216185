/* Teams: the predefined ones (as GSHMEM_TEST_SIM_NODES splits the machine
 * into nodes, when it does), strided splits (of the world and of a split,
 * with strides 1, 2, 3 and -1), 2D splits, translation between teams,
 * team_ptr, team barriers carrying data, the settings that config_mask
 * names, slots reused by many splits and destroys, and splits that fail on
 * every PE (out of slots, a NULL team pointer on one: none hanging). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmd_util.h"

static int me, npes;

/* Each member writes its world number into the next member's box (one
 * box per team handle: teams that live together do not share one), the
 * team's barrier, then each checks the one it got: the barrier separates
 * the puts from the reads, and only members take part. */
static void ring_through(gshmem_team_t team, int *boxes)
{
    int *box = &boxes[team];
    const int n = gshmem_team_n_pes(team), i = gshmem_team_my_pe(team);
    const int next = gshmem_team_translate_pe(team, (i + 1) % n, GSHMEM_TEAM_WORLD);
    const int prev = gshmem_team_translate_pe(team, (i + n - 1) % n, GSHMEM_TEAM_WORLD);
    CHECK(next >= 0 && prev >= 0, "team %d: translate gave %d and %d", (int)team, next, prev);
    gshmem_int_p(box, me, next);
    CHECK(gshmem_barrier(team) == 0, "team %d's barrier failed", (int)team);
    int got;
    spmd_load(&got, box, sizeof(got));
    CHECK(got == prev, "team %d (index %d of %d): box holds %d, expected pe %d", (int)team, i, n,
          got, prev);
    CHECK(gshmem_team_sync(team) == 0, "team %d's sync failed", (int)team); /* box free again */
}

/* The team of world PEs first + k*stride for k in [0, size), as this PE
 * checks it. */
static void check_strided(gshmem_team_t team, int first, int stride, int size, int *box)
{
    int k = -1;
    for (int j = 0; j < size; j++)
        if (first + j * stride == me)
            k = j;
    if (k < 0) {
        CHECK(team == GSHMEM_TEAM_INVALID, "pe %d is not in the team of %d+%d*k, k<%d, but got "
              "team %d", me, first, stride, size, (int)team);
        return;
    }
    CHECK(team != GSHMEM_TEAM_INVALID, "pe %d is in the team of %d+%d*k, k<%d, but got none",
          me, first, stride, size);
    CHECK(gshmem_team_my_pe(team) == k && gshmem_team_n_pes(team) == size,
          "team %d: my_pe %d of %d, expected %d of %d", (int)team, gshmem_team_my_pe(team),
          gshmem_team_n_pes(team), k, size);
    for (int j = 0; j < size; j++) {
        CHECK(gshmem_team_translate_pe(team, j, GSHMEM_TEAM_WORLD) == first + j * stride,
              "team %d: index %d is world pe %d", (int)team, j,
              gshmem_team_translate_pe(team, j, GSHMEM_TEAM_WORLD));
        CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, first + j * stride, team) == j,
              "world pe %d is index %d of team %d", first + j * stride,
              gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, first + j * stride, team), (int)team);
        CHECK(gshmem_team_ptr(team, box, j) == gshmem_ptr(box, first + j * stride),
              "team_ptr of index %d differs from gshmem_ptr of pe %d", j, first + j * stride);
    }
    CHECK(gshmem_team_translate_pe(team, size, GSHMEM_TEAM_WORLD) == -1 &&
          gshmem_team_translate_pe(team, -1, GSHMEM_TEAM_WORLD) == -1,
          "translate of an index outside the team");
    ring_through(team, box);
}

/* The node of world PE pe when all PEs run on one machine split into k
 * simulated nodes (GSHMEM_TEST_SIM_NODES) of consecutive PEs, the first
 * npes % k one larger, or dealt out in turn (GSHMEM_TEST_SIM_CYCLIC: pe on
 * node pe mod k); *index: pe's place in its node.  Counted block by
 * block, apart from the library's arithmetic. */
static int sim_node(int pe, int k, int *index)
{
    if (spmd_env_bool("GSHMEM_TEST_SIM_CYCLIC")) {
        *index = pe / k;
        return pe % k;
    }
    int first = 0;
    for (int node = 0; node < k; node++) {
        const int size = npes / k + (node < npes % k);
        if (pe < first + size) {
            *index = pe - first;
            return node;
        }
        first += size;
    }
    return -1;
}

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, value) == 0;
}

/* Whether GSHMEM_TEST_UNMAPPED names the pair a-b (either way round):
 * two PEs of a node that do not map each other. */
static int unmapped_pair(int a, int b)
{
    const char *s = getenv("GSHMEM_TEST_UNMAPPED");
    while (s != NULL && *s != '\0') {
        int x, y, used;
        if (sscanf(s, "%d-%d%n", &x, &y, &used) != 2)
            return 0;
        if ((x == a && y == b) || (x == b && y == a))
            return 1;
        s += used;
        s += *s == ',';
    }
    return 0;
}

/* GSHMEM_TEAM_SHARED as this PE must find it, from every PE's gshmem_ptr
 * reach (rows: npes x npes, 1 where row's PE reaches column's): PEs that
 * reach each other both ways, grouped in world order, each joining the
 * group of the first PE it reaches both ways if it reaches all that
 * group's members so, else beginning one (where reach is transitive: the
 * PEs gshmem_ptr reaches).  *n: its size; returns this PE's index in it,
 * members[] its world PEs in order. */
static int expected_shared(const int *rows, int *members, int *n)
{
    int *group = malloc(sizeof(int) * (size_t)npes), groups = 0;
#define BOTH(a, b) (rows[(a) * npes + (b)] && rows[(b) * npes + (a)])
    for (int p = 0; p < npes; p++) {
        group[p] = -1;
        for (int q = 0; q < p && group[p] < 0; q++) {
            if (!BOTH(p, q))
                continue;
            int all = 1;
            for (int m = 0; m < p; m++)
                if (group[m] == group[q] && !BOTH(p, m))
                    all = 0;
            if (all)
                group[p] = group[q];
        }
        if (group[p] < 0)
            group[p] = groups++;
    }
#undef BOTH
    int my = -1;
    *n = 0;
    for (int p = 0; p < npes; p++)
        if (group[p] == group[me]) {
            my = p == me ? *n : my;
            members[(*n)++] = p;
        }
    free(group);
    return my;
}

/* GSHMEMX_TEAM_NODE holds exactly this PE's node, GSHMEMX_TEAM_SAME_MYPE_NODE
 * the PEs at this PE's place in every node, GSHMEM_TEAM_SHARED the group of
 * PEs that reach each other by gshmem_ptr (expected_shared); gshmem_ptr
 * gives NULL for every PE of another node and, on the host heap with P2P
 * on, an address for every PE of this one but a GSHMEM_TEST_UNMAPPED pair.
 * The tests run on one machine: without GSHMEM_TEST_SIM_NODES, one node. */
static void check_node_teams(int *box)
{
    const char *sim = getenv("GSHMEM_TEST_SIM_NODES");
    const int k = sim != NULL && atoi(sim) > 1 ? atoi(sim) : 1;
    const int map_node = env_is("GSHMEM_HEAP", "host") && !spmd_p2p_disabled();
    int my_index = -1, node_n = 0, node_me = -1, same_n = 0, same_me = -1, shared_n = 0;
    const int my_node = sim_node(me, k, &my_index);
    int *rows = gshmem_calloc((size_t)npes * (size_t)npes, sizeof(int));
    int *shared = malloc(sizeof(int) * (size_t)npes);
    CHECK(rows != NULL && shared != NULL, "no memory for %d PEs' reach", npes);
    for (int pe = 0; pe < npes; pe++) {
        const int mapped = gshmem_ptr(box, pe) != NULL;
        for (int to = 0; to < npes; to++)
            gshmem_int_p(&rows[me * npes + pe], mapped, to);
    }
    gshmem_barrier_all();
    int *reach = malloc(sizeof(int) * (size_t)npes * (size_t)npes); /* rows, read here */
    CHECK(reach != NULL, "no memory for %d PEs' reach", npes);
    spmd_load(reach, rows, sizeof(int) * (size_t)npes * (size_t)npes);
    const int shared_me = expected_shared(reach, shared, &shared_n);

    for (int pe = 0; pe < npes; pe++) {
        int index = -1;
        const int node = sim_node(pe, k, &index);
        const int mapped = gshmem_ptr(box, pe) != NULL;
        if (node == my_node) {
            if (pe == me)
                node_me = node_n;
            CHECK(gshmem_team_translate_pe(GSHMEMX_TEAM_NODE, node_n, GSHMEM_TEAM_WORLD) == pe,
                  "%d simulated nodes: index %d of the node team is pe %d, expected pe %d", k,
                  node_n, gshmem_team_translate_pe(GSHMEMX_TEAM_NODE, node_n, GSHMEM_TEAM_WORLD),
                  pe);
            node_n++;
            CHECK(!map_node || pe == me || mapped != unmapped_pair(me, pe),
                  "pe %d, on this pe's node %d, is %s", pe, my_node,
                  mapped ? "mapped, though GSHMEM_TEST_UNMAPPED names the pair" : "not mapped");
        } else {
            CHECK(!mapped, "%d simulated nodes: gshmem_ptr gave an address of pe %d (node %d) on "
                  "pe %d (node %d)", k, pe, node, me, my_node);
            CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, pe, GSHMEMX_TEAM_NODE) == -1,
                  "pe %d of node %d is in the node team of node %d", pe, node, my_node);
        }
        if (index == my_index) {
            if (pe == me)
                same_me = same_n;
            CHECK(gshmem_team_translate_pe(GSHMEMX_TEAM_SAME_MYPE_NODE, same_n,
                                           GSHMEM_TEAM_WORLD) == pe,
                  "index %d of the same-mype-node team is not pe %d", same_n, pe);
            same_n++;
        }
        int in_shared = 0;
        for (int j = 0; j < shared_n; j++)
            if (shared[j] == pe) {
                CHECK(mapped, "pe %d is in the shared team but not mapped", pe);
                CHECK(gshmem_team_translate_pe(GSHMEM_TEAM_SHARED, j, GSHMEM_TEAM_WORLD) == pe,
                      "index %d of the shared team is pe %d, expected pe %d", j,
                      gshmem_team_translate_pe(GSHMEM_TEAM_SHARED, j, GSHMEM_TEAM_WORLD), pe);
                in_shared = 1;
            }
        CHECK(in_shared || gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, pe, GSHMEM_TEAM_SHARED) == -1,
              "pe %d is in the shared team, expected out of it (%s)", pe,
              mapped ? "it does not reach every member both ways" : "not mapped");
    }
    CHECK(gshmem_team_n_pes(GSHMEMX_TEAM_NODE) == node_n &&
          gshmem_team_my_pe(GSHMEMX_TEAM_NODE) == node_me,
          "%d simulated nodes: node team: %d of %d, expected %d of %d", k,
          gshmem_team_my_pe(GSHMEMX_TEAM_NODE), gshmem_team_n_pes(GSHMEMX_TEAM_NODE), node_me,
          node_n);
    CHECK(gshmem_team_n_pes(GSHMEMX_TEAM_SAME_MYPE_NODE) == same_n &&
          gshmem_team_my_pe(GSHMEMX_TEAM_SAME_MYPE_NODE) == same_me,
          "same-mype-node team: %d of %d, expected %d of %d",
          gshmem_team_my_pe(GSHMEMX_TEAM_SAME_MYPE_NODE),
          gshmem_team_n_pes(GSHMEMX_TEAM_SAME_MYPE_NODE), same_me, same_n);
    CHECK(gshmem_team_n_pes(GSHMEM_TEAM_SHARED) == shared_n &&
          gshmem_team_my_pe(GSHMEM_TEAM_SHARED) == shared_me,
          "shared team: %d of %d, expected %d of %d (the PEs that reach each other)",
          gshmem_team_my_pe(GSHMEM_TEAM_SHARED), gshmem_team_n_pes(GSHMEM_TEAM_SHARED), shared_me,
          shared_n);
    /* every member sees the same team: each PE's members into its row of
     * seen, then each compares its members' rows with its own */
    int *seen = gshmem_calloc((size_t)npes * (size_t)npes, sizeof(int));
    CHECK(seen != NULL, "no memory for %d PEs' shared teams", npes);
    for (int j = 0; j < gshmem_team_n_pes(GSHMEM_TEAM_SHARED); j++) {
        const int m = gshmem_team_translate_pe(GSHMEM_TEAM_SHARED, j, GSHMEM_TEAM_WORLD);
        for (int to = 0; to < npes && m >= 0; to++)
            gshmem_int_p(&seen[me * npes + m], 1, to);
    }
    gshmem_barrier_all();
    int *teams = malloc(sizeof(int) * (size_t)npes * (size_t)npes); /* seen, read here */
    CHECK(teams != NULL, "no memory for %d PEs' shared teams", npes);
    spmd_load(teams, seen, sizeof(int) * (size_t)npes * (size_t)npes);
    for (int j = 0; j < gshmem_team_n_pes(GSHMEM_TEAM_SHARED); j++) {
        const int m = gshmem_team_translate_pe(GSHMEM_TEAM_SHARED, j, GSHMEM_TEAM_WORLD);
        for (int pe = 0; pe < npes && m >= 0; pe++) {
            CHECK(teams[m * npes + pe] == teams[me * npes + pe],
                  "pe %d, a member of this pe's shared team, has pe %d %s its own", m, pe,
                  teams[me * npes + pe] ? "outside" : "in");
            CHECK(!teams[me * npes + pe] || (reach[m * npes + pe] && reach[pe * npes + m]),
                  "members %d and %d of the shared team do not reach each other both ways", m, pe);
        }
    }
    free(teams);
    free(reach);
    free(shared);
    gshmem_barrier_all(); /* every PE done with the rows */
    gshmem_free(seen);
    gshmem_free(rows);
}

int main(void)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    int *box = gshmem_calloc(128, sizeof(int));

    /* predefined teams */
    CHECK(gshmem_team_my_pe(GSHMEM_TEAM_WORLD) == me && gshmem_team_n_pes(GSHMEM_TEAM_WORLD) == npes,
          "world");
    check_node_teams(box);
    CHECK(gshmem_team_my_pe(GSHMEM_TEAM_INVALID) == -1 && gshmem_team_n_pes(12345) == -1,
          "queries of no team");
    gshmem_team_config_t cfg = {.num_contexts = 7};
    CHECK(gshmem_team_get_config(GSHMEM_TEAM_WORLD, GSHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 &&
          cfg.num_contexts == 0, "world's config");
    ring_through(GSHMEM_TEAM_WORLD, box);
    ring_through(GSHMEMX_TEAM_NODE, box);
    ring_through(GSHMEM_TEAM_SHARED, box);
    ring_through(GSHMEMX_TEAM_SAME_MYPE_NODE, box); /* across nodes, when split */

    /* strided splits of the world */
    const int strides[] = {1, 2, 3};
    for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); s++) {
        const int stride = strides[s];
        for (int first = 0; first < stride && first < npes; first++) {
            const int size = (npes - first + stride - 1) / stride;
            gshmem_team_t t;
            cfg.num_contexts = first + 1;
            CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, first, stride, size, &cfg,
                                            GSHMEM_TEAM_NUM_CONTEXTS, &t) == 0,
                  "split %d/%d/%d", first, stride, size);
            check_strided(t, first, stride, size, box);
            if (t != GSHMEM_TEAM_INVALID) {
                gshmem_team_config_t got;
                CHECK(gshmem_team_get_config(t, GSHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                      got.num_contexts == first + 1, "config kept");
                gshmem_team_destroy(t);
            }
        }
    }
    /* reversed order: not the world's */
    gshmem_team_t rev;
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev) == 0,
          "reversed split");
    check_strided(rev, npes - 1, -1, npes, box);

    /* a split of a split: start and stride are the parent's */
    gshmem_team_t evens, sub;
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens) == 0,
          "evens");
    if (evens != GSHMEM_TEAM_INVALID) {
        const int n = gshmem_team_n_pes(evens);
        if (n >= 2) {
            CHECK(gshmem_team_split_strided(evens, 1, 2, n / 2, NULL, 0, &sub) == 0, "sub");
            check_strided(sub, 2, 4, n / 2, box); /* world PEs 2, 6, 10, ... */
            if (sub != GSHMEM_TEAM_INVALID)
                gshmem_team_destroy(sub);
        }
    }
    gshmem_team_destroy(evens); /* on the odd PEs TEAM_INVALID: no operation */
    /* of the reversed team: index 0 is the world's last PE */
    if (rev != GSHMEM_TEAM_INVALID && npes >= 2) {
        gshmem_team_t last2;
        CHECK(gshmem_team_split_strided(rev, 0, 1, 2, NULL, 0, &last2) == 0, "last two");
        check_strided(last2, npes - 1, -1, 2, box);
        if (last2 != GSHMEM_TEAM_INVALID)
            gshmem_team_destroy(last2);
    }
    gshmem_team_destroy(rev);

    /* 2D splits */
    for (int xrange = 1; xrange <= 3; xrange++) {
        gshmem_team_t x, y;
        CHECK(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, xrange, NULL, 0, &x, NULL, 0, &y) == 0,
              "2d split, xrange %d", xrange);
        const int xr = xrange < npes ? xrange : npes, row = me / xr, col = me % xr;
        const int row_size = (row + 1) * xr <= npes ? xr : npes - row * xr;
        const int col_size = (npes - col + xr - 1) / xr;
        check_strided(x, row * xr, 1, row_size, box);
        check_strided(y, col, xr, col_size, box);
        gshmem_team_destroy(x);
        gshmem_team_destroy(y);
    }

    /* config_mask says which settings of config count: the others keep
     * their defaults (num_contexts 0), whatever config holds. */
    {
        gshmem_team_t t, x, y;
        gshmem_team_config_t set = {.num_contexts = 99}, xset = {.num_contexts = 5},
                             yset = {.num_contexts = 6}, got;
        CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, &set, 0, &t) == 0,
              "split with config_mask 0");
        got.num_contexts = -1;
        CHECK(gshmem_team_get_config(t, GSHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 0,
              "split with num_contexts 99, config_mask 0: num_contexts %d", got.num_contexts);
        gshmem_team_destroy(t);
        CHECK(gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 1, &xset, GSHMEM_TEAM_NUM_CONTEXTS, &x,
                                   &yset, 0, &y) == 0,
              "2d split with configs");
        got.num_contexts = -1;
        CHECK(gshmem_team_get_config(x, GSHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 5, "2d split's x team (mask set): num_contexts %d",
              got.num_contexts);
        got.num_contexts = -1;
        CHECK(gshmem_team_get_config(y, GSHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 0, "2d split's y team (mask 0): num_contexts %d",
              got.num_contexts);
        gshmem_team_destroy(x);
        gshmem_team_destroy(y);
    }

    /* A NULL team pointer on one PE (the last) fails the split on every PE
     * of the parent, none waiting for the others; the next split works. */
    {
        gshmem_team_t t = 7, x = 7, y = 7;
        const int last = me == npes - 1;
        int st = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0,
                                           last ? NULL : &t);
        CHECK(st != 0 && (last || t == GSHMEM_TEAM_INVALID),
              "split with a NULL new_team on pe %d: status %d, team %d", npes - 1, st, (int)t);
        st = gshmem_team_split_2d(GSHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, last ? NULL : &y);
        CHECK(st != 0 && x == GSHMEM_TEAM_INVALID && (last || y == GSHMEM_TEAM_INVALID),
              "2d split with a NULL yaxis_team on pe %d: status %d, teams %d %d", npes - 1, st,
              (int)x, (int)y);
        CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) == 0,
              "the split after");
        check_strided(t, 0, 1, npes, box);
        gshmem_team_destroy(t);
    }

    /* A family of splits: the halves of the world, made one after the
     * other, take the same slot (each the lowest free on its own members),
     * so a tensor-parallel group's collectives find the same per-slot
     * resources on every group; both halves work. */
    if (npes >= 2) {
        const int half = npes / 2, mine = me < half ? 0 : 1;
        gshmem_team_t h[2];
        CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, half, NULL, 0, &h[0]) == 0 &&
                  gshmem_team_split_strided(GSHMEM_TEAM_WORLD, half, 1, npes - half, NULL, 0,
                                            &h[1]) == 0,
              "the world's halves");
        CHECK(h[1 - mine] == GSHMEM_TEAM_INVALID && h[mine] != GSHMEM_TEAM_INVALID,
              "half %d: a team for the other half, or none for its own", mine);
        check_strided(h[mine], mine * half, 1, mine ? npes - half : half, box);
        int *slots = gshmem_malloc(sizeof(int) * (size_t)npes);
        for (int pe = 0; pe < npes; pe++)
            gshmem_int_p(&slots[me], (int)h[mine], pe);
        gshmem_barrier_all();
        for (int pe = 0; pe < npes; pe++) {
            int s;
            spmd_load(&s, &slots[pe], sizeof(s));
            CHECK(s == (int)h[mine], "pe %d's half is team %d, this pe's %d", pe, s, (int)h[mine]);
        }
        gshmem_team_destroy(h[mine]);
        gshmem_barrier_all(); /* nobody overwrites slots while another reads it */
        gshmem_free(slots);
    }

    /* Slots taken and given back many times, teams of changing sizes (a
     * slot's barrier words start from zero for each). */
    for (int i = 0; i < 200; i++) {
        gshmem_team_t t;
        const int size = 1 + i % npes;
        CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, size, NULL, 0, &t) == 0,
              "split %d", i);
        if (t != GSHMEM_TEAM_INVALID) {
            for (int k = 0; k < 3; k++)
                gshmem_team_sync(t);
            gshmem_team_destroy(t);
        }
    }

    /* Out of slots: every PE learns it from the same split. */
    gshmem_team_t held[128];
    int made = 0, st;
    while ((st = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0,
                                           &held[made])) == 0) {
        CHECK(held[made] != GSHMEM_TEAM_INVALID, "a split that succeeded gave no team");
        CHECK(++made < 128, "more teams than GSHMEM_MAX_TEAMS allows");
    }
    CHECK(held[made] == GSHMEM_TEAM_INVALID, "a failed split gave a team");
    int *counts = gshmem_malloc(sizeof(int) * (size_t)npes);
    for (int pe = 0; pe < npes; pe++) /* this PE's count, on every PE */
        gshmem_int_p(&counts[me], made, pe);
    gshmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        int c;
        spmd_load(&c, &counts[pe], sizeof(c));
        CHECK(c == made, "pe %d made %d teams before running out, this pe %d", pe, c, made);
    }
    CHECK(made == 60, "made %d teams with GSHMEM_MAX_TEAMS 64 (4 predefined)", made);
    for (int k = 0; k < made; k++)
        gshmem_team_destroy(held[k]);
    ring_through(GSHMEM_TEAM_WORLD, box);

    gshmem_free(counts);
    gshmem_free(box);
    gshmem_barrier_all();
    if (me == 0)
        printf("%s: %d PEs, %d checks on pe 0, all passed\n", __FILE__, npes, spmd_checks);
    gshmem_finalize();
    return 0;
}
