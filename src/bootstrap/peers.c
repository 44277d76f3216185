/* Peer identities: one all-gather of (node key, pid, host, the simulated
 * node split), from which each PE learns the nodes, the PEs on its own node
 * and its local rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/peers.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"

struct peer_identity {
    uint64_t node_key; /* same kernel and namespaces: memory can be shared */
    int64_t sim_nodes; /* GSHMEM_TEST_SIM_NODES as this PE read it */
    int32_t pid;
    int32_t sim_cyclic; /* GSHMEM_TEST_SIM_CYCLIC as this PE read it */
    char host[48];
};

static uint64_t node_key(void)
{
    char boot_id[64] = "";
    struct stat st;
    uint64_t key;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    if (f != NULL) {
        if (fgets(boot_id, sizeof(boot_id), f) == NULL)
            boot_id[0] = '\0';
        fclose(f);
    }
    if (boot_id[0] == '\0')
        snprintf(boot_id, sizeof(boot_id), "%s", gshmemi_hostname());
    key = gshmemi_hash64(boot_id, strlen(boot_id), 0);
    /* Abstract sockets live in a network namespace, pids in a pid namespace. */
    if (stat("/proc/self/ns/net", &st) == 0)
        key = gshmemi_hash64(&st.st_ino, sizeof(st.st_ino), key);
    if (stat("/proc/self/ns/pid", &st) == 0)
        key = gshmemi_hash64(&st.st_ino, sizeof(st.st_ino), key);
    return key;
}

int gshmemi_sim_node_of(int i, int n, int k)
{
    const int small = n / k, n_big = n % k; /* the first n_big blocks have small + 1 */
    if (i < n_big * (small + 1))
        return i / (small + 1);
    return n_big + (i - n_big * (small + 1)) / small;
}

/* GSHMEM_TEST_SIM_NODES (and GSHMEM_TEST_SIM_CYCLIC), checked against
 * every PE's: the same everywhere, not negative, and no more than the PEs
 * of any machine (counts[m] PEs on machine m, first_pe[m] its first).
 * Every PE sees every value, so every PE fails alike.  *k: nodes per
 * machine, 1 for no split. */
static int sim_nodes_check(const struct peer_identity *all, const int *counts,
                           const int *first_pe, int n_machines, int *k)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    const long long mine = (long long)all[rt->my_pe].sim_nodes;

    for (int pe = 0; pe < rt->n_pes; pe++) {
        if (all[pe].sim_nodes != mine) {
            GSHMEMI_ERROR(BOOTSTRAP, "pe %d has GSHMEM_TEST_SIM_NODES %lld, this pe %lld: every "
                          "PE must use the same", pe, (long long)all[pe].sim_nodes, mine);
            return GSHMEM_ERR_ASYMMETRIC;
        }
        if (all[pe].sim_cyclic != all[rt->my_pe].sim_cyclic) {
            GSHMEMI_ERROR(BOOTSTRAP, "pe %d has GSHMEM_TEST_SIM_CYCLIC %d, this pe has %d: "
                          "every PE must use the same", pe, (int)all[pe].sim_cyclic,
                          (int)all[rt->my_pe].sim_cyclic);
            return GSHMEM_ERR_ASYMMETRIC;
        }
    }
    if (mine < 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_TEST_SIM_NODES is %lld: it must be 0 or more (0 and 1: "
                      "no split)", mine);
        return GSHMEM_ERR_INVALID_ARG;
    }
    for (int m = 0; m < n_machines; m++)
        if (mine > counts[m]) {
            GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_TEST_SIM_NODES is %lld, more nodes than the %d PE%s "
                          "on %s (pe %d first): each simulated node needs a PE", mine, counts[m],
                          counts[m] == 1 ? "" : "s", all[first_pe[m]].host, first_pe[m]);
            return GSHMEM_ERR_INVALID_ARG;
        }
    *k = mine > 1 ? (int)mine : 1;
    return 0;
}

/* Nodes from the gathered identities: machines by node key, each split
 * into k simulated nodes (in blocks, or in turn: GSHMEM_TEST_SIM_CYCLIC);
 * nodes numbered by their first PE. */
static int assign_nodes(const struct peer_identity *all)
{
    struct gshmemi_runtime *rt = &gshmemi_rt;
    const int n = rt->n_pes;
    int *machine = malloc(sizeof(int) * (size_t)n), *pos = malloc(sizeof(int) * (size_t)n);
    int *counts = calloc((size_t)n, sizeof(int)), *first_pe = malloc(sizeof(int) * (size_t)n);
    int *node_of = NULL, n_machines = 0, k = 1, st;

    if (machine == NULL || pos == NULL || counts == NULL || first_pe == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < n; pe++) {
        int m = -1;
        for (int j = 0; j < n_machines && m < 0; j++)
            if (all[first_pe[j]].node_key == all[pe].node_key)
                m = j;
        if (m < 0) {
            m = n_machines++;
            first_pe[m] = pe;
        }
        machine[pe] = m;
        pos[pe] = counts[m]++;
    }
    GSHMEMI_CHECK_GOTO(sim_nodes_check(all, counts, first_pe, n_machines, &k), st, out);
    node_of = malloc(sizeof(int) * (size_t)n_machines * (size_t)k); /* k <= counts: <= n */
    if (node_of == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int i = 0; i < n_machines * k; i++)
        node_of[i] = -1;
    rt->n_nodes = 0;
    const int cyclic = all[rt->my_pe].sim_cyclic;
    for (int pe = 0; pe < n; pe++) {
        const int sim = cyclic ? pos[pe] % k : gshmemi_sim_node_of(pos[pe], counts[machine[pe]], k);
        int *node = &node_of[machine[pe] * k + sim];
        if (*node < 0)
            *node = rt->n_nodes++;
        rt->peers[pe].node = *node;
    }
    rt->node_id = rt->peers[rt->my_pe].node;
    rt->sim_nodes = k;
    rt->n_machines = n_machines;
    rt->machine_local_rank = pos[rt->my_pe];
    rt->n_local = 0;
    for (int pe = 0; pe < n; pe++)
        if (rt->peers[pe].node == rt->node_id) {
            if (pe == rt->my_pe)
                rt->local_rank = rt->n_local;
            rt->local_pes[rt->n_local++] = pe;
        }
    rt->local_size = rt->n_local;
    if (k > 1) {
        const int c = counts[machine[rt->my_pe]];
        char sizes[32];
        if (c % k == 0)
            snprintf(sizes, sizeof(sizes), "%d each", c / k);
        else
            snprintf(sizes, sizeof(sizes), "%d or %d each", c / k + 1, c / k);
        GSHMEMI_INFO(BOOTSTRAP, "GSHMEM_TEST_SIM_NODES=%d: the %d PEs of this machine are split "
                     "into %d simulated nodes %s (%s); this pe is on node %d of %d (%d PE%s, "
                     "mapped where they can be), the other nodes' PEs are reached through the "
                     "transport", k, c, k,
                     cyclic ? "in turn (PE i on node i mod k)" : "of consecutive PEs", sizes,
                     rt->node_id, rt->n_nodes, rt->n_local, rt->n_local == 1 ? "" : "s");
    }
    st = 0;
out:
    free(node_of);
    free(first_pe);
    free(counts);
    free(pos);
    free(machine);
    return st;
}

int gshmemi_peers_init(void)
{
    struct gshmemi_runtime *rt = &gshmemi_rt;
    struct gshmemi_bootstrap *bs = rt->bs;
    struct peer_identity me, *all;
    int st;

    memset(&me, 0, sizeof(me));
    me.node_key = node_key();
    me.sim_nodes = gshmemi_env.TEST_SIM_NODES;
    me.sim_cyclic = gshmemi_env.TEST_SIM_CYCLIC != 0;
    me.pid = (int32_t)getpid();
    snprintf(me.host, sizeof(me.host), "%s", gshmemi_hostname());
    all = calloc((size_t)rt->n_pes, sizeof(*all));
    rt->peers = calloc((size_t)rt->n_pes, sizeof(*rt->peers));
    rt->local_pes = calloc((size_t)rt->n_pes, sizeof(int));
    if (all == NULL || rt->peers == NULL || rt->local_pes == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < rt->n_pes; pe++)
        rt->peers[pe].pidfd = -1;
    GSHMEMI_CHECK_GOTO(bs->ops->allgather(bs, &me, all, sizeof(me)), st, out);
    for (int pe = 0; pe < rt->n_pes; pe++) {
        rt->peers[pe].pid = all[pe].pid;
        memcpy(rt->peers[pe].host, all[pe].host, sizeof(rt->peers[pe].host));
        rt->peers[pe].host[sizeof(rt->peers[pe].host) - 1] = '\0';
    }
    GSHMEMI_CHECK_GOTO(assign_nodes(all), st, out);
    /* The launcher's numbering of local ranks wins where it gives one; it
     * numbers the machine's PEs, so a split node keeps its own. */
    if (bs->local_rank >= 0) {
        rt->machine_local_rank = bs->local_rank;
        if (rt->sim_nodes == 1) {
            rt->local_rank = bs->local_rank;
            rt->local_size = bs->local_size;
        }
    }
    /* The death watch covers this node's PEs.  On a simulated node too: the
     * other nodes' PEs, though on this machine, are watched as remote ones
     * are, through the transport (a closed connection, a heartbeat). */
    for (int i = 0; i < rt->n_local; i++) {
        int pe = rt->local_pes[i];
        if (pe != rt->my_pe)
            rt->peers[pe].pidfd = (int)syscall(SYS_pidfd_open, rt->peers[pe].pid, 0);
    }
    st = 0;
out:
    free(all);
    if (st != 0)
        gshmemi_peers_fini();
    return st;
}

void gshmemi_peers_fini(void)
{
    struct gshmemi_runtime *rt = &gshmemi_rt;
    if (rt->peers != NULL)
        for (int pe = 0; pe < rt->n_pes; pe++)
            if (rt->peers[pe].pidfd >= 0)
                close(rt->peers[pe].pidfd);
    free(rt->peers);
    free(rt->local_pes);
    rt->peers = NULL;
    rt->local_pes = NULL;
}
