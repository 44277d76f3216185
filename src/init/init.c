/*
 * gshmem_init / gshmem_finalize: the composition root, the one place that
 * brings every layer up (environment and logging, bootstrap, peer
 * identities, heap, transport, proxy, device state), in that order, and
 * takes them down in reverse.  Also the unique-id calls and the job's
 * identity queries.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/peers.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "coll/team.h"
#include "gpu/gpu.h"
#include "heap/ctrl.h"
#include "heap/heap.h"
#include "heap/static_data.h"
#include "partitioned/partitioned.h"
#include "rma/rma.h"
#include "sync/wait.h"
#include "device/device_state.h"
#include "proxy/proxy.h"
#include "transport/transport.h"

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
    rt->host_heap_default = (flags & GSHMEMX_INIT_HOST_HEAP) != 0;
    flags &= ~(unsigned)GSHMEMX_INIT_HOST_HEAP;
    gshmemi_static_move(); /* before any thread of ours runs */
    st = gshmemi_bootstrap_open(flags, attr, &rt->bs);
    if (app_root != NULL) {
        /* This process made the unique id: its root has served the meeting. */
        if (st == 0)
            (void)gshmemi_uid_root_join(app_root);
        else
            gshmemi_uid_root_stop(app_root);
        app_root = NULL;
    }
    if (st != 0) {
        gshmemi_static_restore();
        return st;
    }
    rt->my_pe = rt->bs->rank;
    rt->n_pes = rt->bs->size;
    /* gshmrun's and a PMIx server's PEs are their launcher's children; a PE
     * whose launcher is gone has no job left (sync/watch.c). */
    rt->launcher_pid = rt->bs->launcher_ctrl_fd >= 0 || strcmp(rt->bs->ops->name, "pmix") == 0
                           ? getppid() : 0;
    rt->thread_level = requested;
    gshmemi_log_set_pe(rt->my_pe);
    if (rt->my_pe == 0)
        gshmemi_env_warn_nvshmem();
    GSHMEMI_CHECK_GOTO(gshmemi_peers_init(), st, err_bootstrap);
    GSHMEMI_CHECK_GOTO(gshmemi_heap_init(), st, err_peers);
    /* The bootstrap's waits from here on watch the node's peers too. */
    gshmemi_wait_hook_set(gshmemi_watch_hook);
    if ((st = gshmemi_static_share()) != 0)
        goto err_heap;
    rt->initialized = 1; /* the transport's checks and threads see the heap */
    st = gshmemi_transport_init();
    if (st == 0 && (st = gshmemi_proxy_start()) != 0)
        gshmemi_transport_fini();
    if (st == 0 && (st = gshmemi_device_state_start()) != 0) {
        gshmemi_device_state_stop();
        gshmemi_proxy_stop();
        gshmemi_transport_fini();
    }
    if (st == 0 && (st = gshmemi_teams_init()) != 0) {
        gshmemi_device_state_stop();
        gshmemi_proxy_stop();
        gshmemi_transport_fini();
    }
    if (st == 0 && (st = gshmemi_partitioned_init()) != 0) {
        gshmemi_teams_fini();
        gshmemi_device_state_stop();
        gshmemi_proxy_stop();
        gshmemi_transport_fini();
    }
    if (st == 0 && gshmemi_gpu_device() >= 0 && (st = gshmemi_watch_start()) != 0) {
        gshmemi_partitioned_fini();
        gshmemi_teams_fini();
        gshmemi_device_state_stop();
        gshmemi_proxy_stop();
        gshmemi_transport_fini();
    }
    if (st != 0) {
        rt->initialized = 0;
        gshmemi_static_fini();
        goto err_heap;
    }
    GSHMEMI_INFO(CORE, "initialised: pe %d of %d, local rank %d of %d, node %d of %d, bootstrap %s",
                 rt->my_pe, rt->n_pes, rt->local_rank, rt->local_size, rt->node_id, rt->n_nodes,
                 rt->bs->ops->name);
    return 0;

err_heap:
    gshmemi_wait_hook_set(NULL);
    gshmemi_heap_fini();
err_peers:
    gshmemi_peers_fini();
err_bootstrap:
    gshmemi_bootstrap_close(rt->bs);
    rt->bs = NULL;
    gshmemi_static_restore();
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
    gshmemi_partitioned_quiesce(); /* no progress writes to peers past here */
    gshmemi_watch_stop(); /* peers past this barrier leave */
    gshmemi_ctrl_mark_finalizing();
    if (rt->bs->ops->barrier(rt->bs) != 0)
        _exit(GSHMEMI_EXIT_ERROR);
    rt->initialized = 0;
    gshmemi_wait_hook_set(NULL);
    gshmemi_partitioned_fini();
    gshmemi_teams_fini();
    gshmemi_device_state_stop();
    gshmemi_proxy_stop();
    gshmemi_transport_fini();
    gshmemi_buffers_release();
    gshmemi_static_fini();
    gshmemi_heap_fini();
    gshmemi_peers_fini();
    /* Every PE has let go of every other's memory, which a GPU frees only
     * once the last process that mapped it has: after finalize, none of the
     * job's memory is left on this PE's GPU (a failed barrier leaves that
     * to the peers' exit). */
    if (rt->bs->ops->barrier(rt->bs) != 0)
        GSHMEMI_WARN(CORE, "gshmem_finalize: a peer left before the closing barrier");
    gshmemi_bootstrap_close(rt->bs);
    rt->bs = NULL;
    gshmemi_static_restore(); /* every thread of ours has stopped */
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
    /* OpenSHMEM: the vendor string itself (the release is gshmem-info's). */
    snprintf(name, GSHMEM_MAX_NAME_LEN, "%s", GSHMEM_VENDOR_STRING);
}

GSHMEM_API void gshmem_pcontrol(int level, ...)
{
    (void)level; /* no profiling interface is attached to gshmem */
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
