/* Peer identities: one all-gather of (node key, pid, host), from which each
 * PE learns the nodes, the PEs on its own node and its local rank. */
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
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"

struct peer_identity {
    uint64_t node_key; /* same kernel and namespaces: memory can be shared */
    int32_t pid;
    int32_t pad;
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

int gshmemi_peers_init(void)
{
    struct gshmemi_runtime *rt = &gshmemi_rt;
    struct gshmemi_bootstrap *bs = rt->bs;
    struct peer_identity me, *all;
    uint64_t *node_keys;
    int st;

    memset(&me, 0, sizeof(me));
    me.node_key = node_key();
    me.pid = (int32_t)getpid();
    snprintf(me.host, sizeof(me.host), "%s", gshmemi_hostname());
    all = calloc((size_t)rt->n_pes, sizeof(*all));
    node_keys = calloc((size_t)rt->n_pes, sizeof(*node_keys));
    rt->peers = calloc((size_t)rt->n_pes, sizeof(*rt->peers));
    rt->local_pes = calloc((size_t)rt->n_pes, sizeof(int));
    if (all == NULL || node_keys == NULL || rt->peers == NULL || rt->local_pes == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < rt->n_pes; pe++)
        rt->peers[pe].pidfd = -1;
    GSHMEMI_CHECK_GOTO(bs->ops->allgather(bs, &me, all, sizeof(me)), st, out);
    rt->n_nodes = 0;
    rt->n_local = 0;
    for (int pe = 0; pe < rt->n_pes; pe++) {
        int node = -1;
        for (int n = 0; n < rt->n_nodes && node < 0; n++)
            if (node_keys[n] == all[pe].node_key)
                node = n;
        if (node < 0) {
            node = rt->n_nodes++;
            node_keys[node] = all[pe].node_key;
        }
        rt->peers[pe].pid = all[pe].pid;
        rt->peers[pe].node = node;
        memcpy(rt->peers[pe].host, all[pe].host, sizeof(rt->peers[pe].host));
        rt->peers[pe].host[sizeof(rt->peers[pe].host) - 1] = '\0';
        if (all[pe].node_key == me.node_key) {
            if (pe == rt->my_pe)
                rt->local_rank = rt->n_local;
            rt->local_pes[rt->n_local++] = pe;
        }
    }
    rt->node_id = rt->peers[rt->my_pe].node;
    rt->local_size = rt->n_local;
    /* The launcher's numbering of local ranks wins where it gives one. */
    if (bs->local_rank >= 0) {
        rt->local_rank = bs->local_rank;
        rt->local_size = bs->local_size;
    }
    for (int i = 0; i < rt->n_local; i++) {
        int pe = rt->local_pes[i];
        if (pe != rt->my_pe)
            rt->peers[pe].pidfd = (int)syscall(SYS_pidfd_open, rt->peers[pe].pid, 0);
    }
    st = 0;
out:
    free(all);
    free(node_keys);
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
