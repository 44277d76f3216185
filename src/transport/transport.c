/* Transport selection: opened at init when some PE has a peer whose heap it
 * does not map (another node, P2P off, or no P2P path between its GPUs). */
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "gshmem_config.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "heap/heap.h"
#include "transport/transport.h"

#if GSHMEM_HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

const struct gshmemi_transport_ops *gshmemi_transport;

/* Whether auto picks ibrc: an RDMA device is there, and the heap is in host
 * memory (the GPU heap is not registered with the NIC yet). */
static int rdma_usable(void)
{
#if GSHMEM_HAVE_IBVERBS
    int n = 0;
    struct ibv_device **devs = gshmemi_heap.on_device ? NULL : ibv_get_device_list(&n);
    if (devs != NULL)
        ibv_free_device_list(devs);
    return n > 0;
#else
    return 0;
#endif
}

int gshmemi_transport_init(void)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    const int n = gshmemi_rt.n_pes, me = gshmemi_rt.my_pe;
    int *peers = malloc(sizeof(int) * (size_t)n), *counts = malloc(sizeof(int) * (size_t)n);
    int n_peers = 0, any = 0, st;

    gshmemi_transport = NULL;
    if (peers == NULL || counts == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < n; pe++)
        if (pe != me && gshmemi_heap.slot_of_pe[pe] < 0)
            peers[n_peers++] = pe;
    /* All or none open it: the transport's own setup is collective. */
    GSHMEMI_CHECK_GOTO(bs->ops->allgather(bs, &n_peers, counts, sizeof(int)), st, out);
    for (int pe = 0; pe < n; pe++)
        any |= counts[pe] != 0;
    if (!any) {
        st = 0;
        goto out;
    }
    const char *want = gshmemi_env.TRANSPORT;
    if (strcmp(want, "tcp") == 0 || (strcmp(want, "auto") == 0 && !rdma_usable())) {
        gshmemi_transport = &gshmemi_tcp_ops;
    } else if (strcmp(want, "ibrc") == 0 || strcmp(want, "auto") == 0) {
#if GSHMEM_HAVE_IBVERBS
        gshmemi_transport = &gshmemi_ibrc_ops;
#else
        GSHMEMI_ERROR(CORE, "GSHMEM_TRANSPORT=ibrc: this gshmem was built without libibverbs");
        st = GSHMEM_ERR_NOT_SUPPORTED;
        goto out;
#endif
    } else {
        GSHMEMI_ERROR(CORE, "GSHMEM_TRANSPORT is '%s': expected auto, tcp or ibrc", want);
        st = GSHMEM_ERR_INVALID_ARG;
        goto out;
    }
    st = gshmemi_transport->open(peers, n_peers);
    if (st != 0)
        gshmemi_transport = NULL;
    else
        gshmemi_heap_quiet_hook = gshmemi_transport->quiet;
out:
    free(counts);
    free(peers);
    return st;
}

void gshmemi_transport_fini(void)
{
    if (gshmemi_transport != NULL)
        gshmemi_transport->close();
    gshmemi_transport = NULL;
    gshmemi_heap_quiet_hook = NULL;
}
