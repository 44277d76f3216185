/*
 * gshmem-info: what this gshmem was built with, what this machine offers,
 * and every environment variable.
 *
 *   gshmem-info              build, GPUs, launchers
 *   gshmem-info --env        the environment variables, with values in force
 *   gshmem-info --env=markdown   the same as a Markdown table (README)
 *   gshmrun -n N gshmem-info --peers   in a job: how each PE reaches each peer
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "transport/transport.h"

#if GSHMEM_HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

static void print_env_text(void)
{
    for (size_t i = 0; i < gshmemi_env_count; i++) {
        const struct gshmemi_env_desc *d = &gshmemi_env_descs[i];
        const char *set = getenv(d->name), *nv = gshmemi_env_nvshmem_alias(d);
        printf("%s (%s, default '%s')%s%s%s\n    %s\n", d->name, d->type, d->def,
               set ? ": set to '" : "", set ? set : "", set ? "'" : "", d->help);
        if (nv != NULL)
            printf("    Where it is unset, NVSHMEM's %s is read%s%s%s.\n", nv,
                   getenv(nv) ? " (set to '" : "", getenv(nv) ? getenv(nv) : "",
                   getenv(nv) ? "')" : "");
    }
}

static void print_env_markdown(void)
{
    printf("| variable | type | default | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < gshmemi_env_count; i++) {
        const struct gshmemi_env_desc *d = &gshmemi_env_descs[i];
        const char *nv = gshmemi_env_nvshmem_alias(d);
        char also[96] = "";
        if (nv != NULL)
            snprintf(also, sizeof(also), " Where it is unset, NVSHMEM's `%s` is read.", nv);
        if (d->def[0] != '\0')
            printf("| `%s` | %s | `%s` | %s%s |\n", d->name, d->type, d->def, d->help, also);
        else
            printf("| `%s` | %s | (none) | %s%s |\n", d->name, d->type, d->help, also);
    }
}

/* In a job: one line per PE saying, for every peer, whether its heap is
 * mapped or which transport reaches it; gathered on PE 0, printed in order. */
static int print_peers(void)
{
    enum { LINE = 1024 };
    gshmem_init(); /* a failure ends the job with its reason */
    const int me = gshmem_my_pe(), n = gshmem_n_pes();
    char *lines = gshmem_calloc((size_t)n, LINE), mine[LINE];
    int len = gshmemi_heap.on_device
                  ? snprintf(mine, sizeof(mine), "pe %d (heap on GPU %d):", me, gshmemi_gpu_device())
                  : snprintf(mine, sizeof(mine), "pe %d (heap in host memory):", me);
    for (int pe = 0; pe < n && len < LINE - 40; pe++) {
        const char *how = pe == me                          ? "self"
                          : gshmemi_heap.slot_of_pe[pe] >= 0 ? "mapped"
                          : gshmemi_transport != NULL        ? gshmemi_transport->ops->name
                                                             : "unreachable";
        len += snprintf(mine + len, sizeof(mine) - (size_t)len, " %d:%s", pe, how);
    }
    gshmem_putmem(lines + (size_t)me * LINE, mine, sizeof(mine), 0);
    gshmem_barrier_all();
    if (me == 0) { /* through a get: the heap may be in GPU memory */
        char *all = malloc((size_t)n * LINE);
        if (all == NULL)
            gshmem_global_exit(1);
        gshmem_getmem(all, lines, (size_t)n * LINE, 0);
        for (int pe = 0; pe < n; pe++)
            printf("%s\n", all + (size_t)pe * LINE);
        free(all);
    }
    fflush(stdout);
    gshmem_barrier_all();
    gshmem_free(lines);
    gshmem_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    char name[GSHMEM_MAX_NAME_LEN], why[256];
    int major, minor;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--env") == 0) {
            print_env_text();
            return 0;
        }
        if (strcmp(argv[i], "--env=markdown") == 0) {
            print_env_markdown();
            return 0;
        }
        if (strcmp(argv[i], "--peers") == 0)
            return print_peers();
        fprintf(stderr, "usage: gshmem-info [--env | --env=markdown | --peers]\n");
        return 2;
    }
    if (gshmemi_env_load() != 0)
        return 1;
    gshmemi_env_warn_unknown();
    gshmem_info_get_name(name);
    gshmem_info_get_version(&major, &minor);
    printf("%s (OpenSHMEM %d.%d API)\n", name, major, minor);
    printf("built with: CUDA %s, PMIx %s, ibverbs %s, libnuma %s\n",
           GSHMEM_HAVE_CUDA ? "yes" : "no", GSHMEM_HAVE_PMIX ? "yes" : "no",
           GSHMEM_HAVE_IBVERBS ? "yes" : "no", GSHMEM_HAVE_NUMA ? "yes" : "no");
    int ngpu = gshmemi_gpu_count(why, sizeof(why));
    if (ngpu == 0) {
        printf("GPUs: none (%s); the symmetric heap will be in host memory\n", why);
    } else {
        printf("GPUs: %d\n", ngpu);
        for (int d = 0; d < ngpu; d++) {
            char desc[256];
            if (gshmemi_gpu_describe(d, desc, sizeof(desc)) == 0)
                printf("  GPU %d: %s\n", d, desc);
            if (gshmemi_gpu_describe_rdma(d, desc, sizeof(desc)) == 0)
                printf("         for RDMA: %s\n", desc);
        }
        /* Which GPU pairs can map each other's heap (same GPU or P2P). */
        printf("P2P (Y: a PE on the row's GPU maps the heap of a PE on the column's):\n     ");
        for (int d = 0; d < ngpu; d++)
            printf(" %4d", d);
        printf("\n");
        for (int a = 0; a < ngpu; a++) {
            printf("  %2d ", a);
            for (int b = 0; b < ngpu; b++)
                printf(" %4s", gshmemi_gpu_can_access(a, b) ? "Y" : "-");
            printf("\n");
        }
        printf("device choice: GSHMEM_DEVICE if set (%ld), else the device the application made "
               "current, else local rank %% %d; a node's PEs on GPUs marked Y are mapped",
               gshmemi_env.DEVICE, ngpu);
        if (gshmemi_env.DISABLE_P2P)
            printf(" (but GSHMEM_DISABLE_P2P is set: only each PE's own heap is)");
        printf("\n");
    }
#if GSHMEM_HAVE_IBVERBS
    {
        int n = 0;
        struct ibv_device **devs = ibv_get_device_list(&n);
        printf("RDMA devices (libibverbs): ");
        for (int i = 0; devs != NULL && i < n; i++)
            printf("%s%s", i ? ", " : "", ibv_get_device_name(devs[i]));
        printf("%s\n", n > 0 ? "" : "none");
        if (devs != NULL)
            ibv_free_device_list(devs);
        if (ngpu > 0)
            printf("peer-memory module (ibv_reg_mr of GPU memory where dma-buf cannot be had): "
                   "%s\n", gshmemi_gpu_peermem_loaded() ? "loaded" : "not loaded");
    }
#endif
    printf("transports: a peer is mapped where it can be (same node; for the GPU heap, a GPU "
           "with P2P to this one), else reached through GSHMEM_TRANSPORT=%s: tcp (built), ibrc "
           "(%s)%s\n", gshmemi_env.TRANSPORT,
           GSHMEM_HAVE_IBVERBS ? "built" : "not built: no libibverbs",
           gshmemi_env.DISABLE_P2P ? "; GSHMEM_DISABLE_P2P is set: only each PE's own heap is mapped" : "");
    printf("per peer, in a job: gshmrun -n N gshmem-info --peers\n");
    printf("bootstrap: %s\n", gshmemi_bootstrap_pmix_available()
                                  ? "a PMIx server is present (pmix)"
                                  : gshmemi_env.LAUNCH_UNIQUEID[0] ? "launched by gshmrun (uid)"
                                                                   : "none: a single PE");
    printf("heap: GSHMEM_HEAP=%s, GSHMEM_SYMMETRIC_SIZE=%zu, GSHMEM_MAX_HEAP=%zu\n",
           gshmemi_env.HEAP, gshmemi_env.SYMMETRIC_SIZE, gshmemi_env.MAX_HEAP);
    return 0;
}
