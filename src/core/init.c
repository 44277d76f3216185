/*
 * gshmem_init / gshmem_finalize and the process-wide state.  This file is
 * the composition root: it brings up the environment, logging, bootstrap,
 * peer identities and the heap, in that order, and takes them down in
 * reverse.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "heap/heap.h"
#include "rma/rma.h"
#include "device/device_state.h"
#include "proxy/proxy.h"
#include "transport/transport.h"

struct gshmemi_runtime gshmemi_rt = {.my_pe = -1};

static struct gshmemi_uid_root *app_root; /* made by gshmemx_get_uniqueid */
static int env_loaded;

/* ---- environment and logging --------------------------------------------- */

static int load_env_once(void)
{
    if (env_loaded)
        return 0;
    if (gshmemi_env_load() != 0)
        return GSHMEM_ERR_INVALID_ARG;
    if (gshmemi_log_init(gshmemi_env.DEBUG, gshmemi_env.DEBUG_SUBSYS, gshmemi_env.DEBUG_FILE) != 0)
        return GSHMEM_ERR_INVALID_ARG;
    gshmemi_env_warn_unknown();
    env_loaded = 1;
    return 0;
}

/* ---- peers ------------------------------------------------------------- */

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

static int peers_init(void)
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
        rt->peers[pe].pidfd = -1;
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
    return st;
}

static void peers_fini(void)
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

int gshmemi_peer_alive(int pe)
{
    const struct gshmemi_peer *p = &gshmemi_rt.peers[pe];
    if (p->pidfd >= 0) {
        struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) == 0;
    }
    return kill(p->pid, 0) == 0 || errno != ESRCH;
}

static void on_bootstrap_peer_lost(int pe, const char *what)
{
    (void)pe;
    (void)what; /* logged by the bootstrap with the PE named */
}

static int aborting;

int gshmemi_aborting(void) { return __atomic_load_n(&aborting, __ATOMIC_ACQUIRE); }

void gshmemi_abort_job(int status, const char *why)
{
    struct gshmemi_runtime *rt = &gshmemi_rt;

    if (__atomic_exchange_n(&aborting, 1, __ATOMIC_SEQ_CST))
        _exit(status);
    if (rt->bs != NULL && rt->bs->launcher_ctrl_fd >= 0) {
        char msg[64];
        int n = snprintf(msg, sizeof(msg), "abort %d %d\n", rt->my_pe, status);
        (void)!write(rt->bs->launcher_ctrl_fd, msg, (size_t)n);
    }
    /* Node-local peers end now rather than report this PE as lost (told
     * first through shared memory: a signal can come after they see this
     * PE's connections close). */
    gshmemi_mark_job_ending();
    if (rt->peers != NULL)
        for (int i = 0; i < rt->n_local; i++)
            if (rt->local_pes[i] != rt->my_pe)
                kill(rt->peers[rt->local_pes[i]].pid, SIGTERM);
    if (rt->bs != NULL)
        rt->bs->ops->abort(rt->bs, status, why);
    _exit(status);
}

/* ---- init / finalize ----------------------------------------------------- */

static int init_common(unsigned flags, const gshmemx_init_attr_t *attr, int requested)
{
    struct gshmemi_runtime *rt = &gshmemi_rt;
    int st;

    if (rt->initialized)
        return 0;
    GSHMEMI_CHECK(load_env_once());
    if (requested < GSHMEM_THREAD_SINGLE || requested > GSHMEM_THREAD_MULTIPLE) {
        GSHMEMI_ERROR(CORE, "gshmem_init_thread: unknown thread level %d", requested);
        return GSHMEM_ERR_INVALID_ARG;
    }
    st = gshmemi_bootstrap_open(flags, attr, &rt->bs);
    if (app_root != NULL) {
        /* This process made the unique id: its root has served the meeting. */
        if (st == 0)
            (void)gshmemi_uid_root_join(app_root);
        else
            gshmemi_uid_root_stop(app_root);
        app_root = NULL;
    }
    if (st != 0)
        return st;
    rt->bs->on_peer_lost = on_bootstrap_peer_lost;
    rt->my_pe = rt->bs->rank;
    rt->n_pes = rt->bs->size;
    rt->thread_level = requested;
    gshmemi_log_set_pe(rt->my_pe);
    GSHMEMI_CHECK_GOTO(peers_init(), st, err_bootstrap);
    GSHMEMI_CHECK_GOTO(gshmemi_heap_init(), st, err_peers);
    rt->initialized = 1; /* the transport's checks and threads see the heap */
    st = gshmemi_transport_init();
    if (st == 0 && (st = gshmemi_proxy_start()) != 0)
        gshmemi_transport_fini();
    if (st == 0 && (st = gshmemi_device_state_start()) != 0) {
        gshmemi_device_state_stop();
        gshmemi_proxy_stop();
        gshmemi_transport_fini();
    }
    if (st != 0) {
        rt->initialized = 0;
        goto err_heap;
    }
    GSHMEMI_INFO(CORE, "initialised: pe %d of %d, local rank %d of %d, node %d of %d, bootstrap %s",
                 rt->my_pe, rt->n_pes, rt->local_rank, rt->local_size, rt->node_id, rt->n_nodes,
                 rt->bs->ops->name);
    return 0;

err_heap:
    gshmemi_heap_fini();
err_peers:
    peers_fini();
err_bootstrap:
    gshmemi_bootstrap_close(rt->bs);
    rt->bs = NULL;
    rt->my_pe = -1;
    gshmemi_log_set_pe(-1);
    return st;
}

GSHMEM_API int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr)
{
    return init_common(flags, attr, GSHMEM_THREAD_MULTIPLE);
}

GSHMEM_API void gshmem_init(void)
{
    if (init_common(GSHMEMX_INIT_DEFAULT, NULL, GSHMEM_THREAD_MULTIPLE) != 0) {
        /* The reason is logged where it arose. */
        _exit(GSHMEMI_EXIT_ERROR);
    }
}

GSHMEM_API int gshmem_init_thread(int requested, int *provided)
{
    int st = init_common(GSHMEMX_INIT_DEFAULT, NULL, requested);
    /* Host operations are thread safe: every level is provided as asked. */
    if (st == 0 && provided != NULL)
        *provided = gshmemi_rt.thread_level;
    return st;
}

GSHMEM_API void gshmem_query_thread(int *provided)
{
    if (provided != NULL)
        *provided = gshmemi_rt.thread_level;
}

GSHMEM_API int gshmemx_init_status(void)
{
    return gshmemi_rt.initialized ? GSHMEMX_STATUS_IS_INITIALIZED : GSHMEMX_STATUS_NOT_INITIALIZED;
}

GSHMEM_API void gshmem_finalize(void)
{
    struct gshmemi_runtime *rt = &gshmemi_rt;
    if (!rt->initialized)
        return;
    /* Everybody is done with everybody's memory before any goes away. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (rt->bs->ops->barrier(rt->bs) != 0)
        _exit(GSHMEMI_EXIT_ERROR);
    rt->initialized = 0;
    gshmemi_device_state_stop();
    gshmemi_proxy_stop();
    gshmemi_transport_fini();
    gshmemi_buffers_release();
    gshmemi_heap_fini();
    peers_fini();
    gshmemi_bootstrap_close(rt->bs);
    rt->bs = NULL;
    GSHMEMI_INFO(CORE, "finalised");
    rt->my_pe = -1;
    rt->n_pes = 0;
    gshmemi_log_set_pe(-1);
}

GSHMEM_API int gshmem_my_pe(void) { return gshmemi_rt.initialized ? gshmemi_rt.my_pe : -1; }

GSHMEM_API int gshmem_n_pes(void) { return gshmemi_rt.initialized ? gshmemi_rt.n_pes : -1; }

GSHMEM_API void gshmem_global_exit(int status)
{
    GSHMEMI_INFO(CORE, "gshmem_global_exit(%d): ending the job", status);
    fflush(stdout);
    fflush(stderr);
    gshmemi_abort_job(status, "gshmem_global_exit");
}

GSHMEM_API void gshmem_info_get_version(int *major, int *minor)
{
    *major = GSHMEM_MAJOR_VERSION;
    *minor = GSHMEM_MINOR_VERSION;
}

GSHMEM_API void gshmem_info_get_name(char *name)
{
    snprintf(name, GSHMEM_MAX_NAME_LEN, "%s %d.%d.%d", GSHMEM_VENDOR_STRING,
             GSHMEM_VERSION_MAJOR, GSHMEM_VERSION_MINOR, GSHMEM_VERSION_PATCH);
}

/* ---- unique ids -------------------------------------------------------- */

GSHMEM_API int gshmemx_get_uniqueid(gshmemx_uniqueid_t *uid)
{
    GSHMEMI_CHECK(load_env_once());
    if (uid == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "gshmemx_get_uniqueid: uid is NULL");
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (app_root != NULL) /* a second id replaces the first, never used */
        gshmemi_uid_root_stop(app_root);
    app_root = NULL;
    return gshmemi_uid_root_start(0, 0, gshmemi_env.BOOTSTRAP_TIMEOUT, uid, &app_root);
}

GSHMEM_API int gshmemx_set_attr_uniqueid_args(int rank, int nranks, const gshmemx_uniqueid_t *uid,
                                              gshmemx_init_attr_t *attr)
{
    if (attr == NULL || uid == NULL || nranks <= 0 || rank < 0 || rank >= nranks) {
        GSHMEMI_ERROR(BOOTSTRAP, "gshmemx_set_attr_uniqueid_args(%d, %d, %p, %p): invalid "
                      "arguments", rank, nranks, (const void *)uid, (void *)attr);
        return GSHMEM_ERR_INVALID_ARG;
    }
    attr->uid_args.rank = rank;
    attr->uid_args.nranks = nranks;
    attr->uid_args.uniqueid = *uid;
    attr->uid_args.has_uniqueid = 1;
    return 0;
}
