/* pmix bootstrap: the PMIx server of mpirun, srun --mpi=pmix or prterun.
 * allgather is a Put/Commit/Fence(collect)/Get round; barrier a Fence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"

int gshmemi_bootstrap_pmix_available(void)
{
    return GSHMEM_HAVE_PMIX && (getenv("PMIX_NAMESPACE") != NULL || getenv("PMIX_RANK") != NULL);
}

#if GSHMEM_HAVE_PMIX
#include <pmix.h>

struct pmix_bootstrap {
    struct gshmemi_bootstrap base;
    pmix_proc_t me;
    int timeout_s;
};

/* PMIx is initialised once per process and finalised at exit: a PMIx client
 * cannot always initialise again after PMIx_Finalize (OpenMPI 4 cannot), and
 * gshmem_init may follow gshmem_finalize.  Keys stay unique across jobs. */
static int pmix_ready;
static pmix_proc_t pmix_me;
static unsigned pmix_round;

static void pmix_at_exit(void)
{
    if (pmix_ready)
        PMIx_Finalize(NULL, 0);
    pmix_ready = 0;
}

static struct pmix_bootstrap *pmix_of(struct gshmemi_bootstrap *bs)
{
    return (struct pmix_bootstrap *)bs;
}

static int pmix_get_u32(const pmix_proc_t *proc, const char *key, uint32_t *out)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL)
        return -1;
    switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_INT: *out = (uint32_t)val->data.integer; break;
    case PMIX_UINT: *out = val->data.uint; break;
    default: rc = PMIX_ERROR; break;
    }
    PMIX_VALUE_RELEASE(val);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

/* A fence's end, set by PMIx's thread. */
struct fence_wait {
    int done;
    pmix_status_t status;
};

static void fence_done(pmix_status_t status, void *cbdata)
{
    struct fence_wait *w = cbdata;
    w->status = status;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

/* A fence, waited for here rather than inside PMIx, so that the wait can
 * watch the node's peers (gshmemi_waiting: a peer stopped or gone ends this
 * PE naming it, where PMIx would wait on or say only "partial success"). */
static int pmix_fence(struct pmix_bootstrap *p, int collect, const char *what)
{
    pmix_info_t info[2];
    bool flag = collect != 0;
    int timeout = p->timeout_s;
    size_t ninfo = 0;
    struct fence_wait w = {0, PMIX_SUCCESS};
    char op[64];
    pmix_status_t rc;

    snprintf(op, sizeof(op), "the runtime's %s (PMIx fence)", what);
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    if (collect)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    if (timeout > 0)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_Fence_nb(NULL, 0, ninfo ? info : NULL, ninfo, fence_done, &w);
    if (rc == PMIX_SUCCESS) {
        const struct timespec nap = {0, 50 * 1000};
        uint64_t next = 0;
        while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
            nanosleep(&nap, NULL);
            if (gshmemi_now_ns() >= next) {
                gshmemi_waiting(op);
                next = gshmemi_now_ns() + 20 * 1000 * 1000;
            }
        }
        rc = w.status;
    } else if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = PMIX_SUCCESS;
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) {
        gshmemi_waiting_now(op); /* a local peer gone is named, not "partial success" */
        GSHMEMI_ERROR(BOOTSTRAP, "PMIx_Fence failed during %s: %s", what, PMIx_Error_string(rc));
        return rc == PMIX_ERR_TIMEOUT ? GSHMEM_ERR_TIMEOUT : GSHMEM_ERR_PEER_LOST;
    }
    return 0;
}

static int pmix_allgather(struct gshmemi_bootstrap *bs, const void *in, void *out, size_t len)
{
    struct pmix_bootstrap *p = pmix_of(bs);
    char key[64];
    pmix_value_t v;
    pmix_status_t rc;

    snprintf(key, sizeof(key), "gshmem.ag.%u", pmix_round++);
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)in;
    v.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        GSHMEMI_ERROR(BOOTSTRAP, "PMIx_Put/Commit of %s failed: %s", key, PMIx_Error_string(rc));
        return GSHMEM_ERR_BOOTSTRAP;
    }
    GSHMEMI_CHECK(pmix_fence(p, 1, "allgather"));
    for (int r = 0; r < bs->size; r++) {
        pmix_proc_t proc;
        pmix_value_t *val = NULL;
        PMIX_LOAD_PROCID(&proc, p->me.nspace, (pmix_rank_t)r);
        rc = PMIx_Get(&proc, key, NULL, 0, &val);
        if (rc != PMIX_SUCCESS || val == NULL || val->type != PMIX_BYTE_OBJECT ||
            val->data.bo.size != len) {
            GSHMEMI_ERROR(BOOTSTRAP, "PMIx_Get of %s from pe %d failed: %s", key, r,
                          rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "wrong size or type");
            if (val != NULL)
                PMIX_VALUE_RELEASE(val);
            return rc == PMIX_SUCCESS ? GSHMEM_ERR_ASYMMETRIC : GSHMEM_ERR_BOOTSTRAP;
        }
        memcpy((char *)out + (size_t)r * len, val->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(val);
    }
    return 0;
}

static int pmix_barrier(struct gshmemi_bootstrap *bs)
{
    return pmix_fence(pmix_of(bs), 0, "barrier");
}

static void pmix_abort(struct gshmemi_bootstrap *bs, int status, const char *msg)
{
    (void)bs;
    PMIx_Abort(status, msg, NULL, 0);
}

static void pmix_finalize(struct gshmemi_bootstrap *bs)
{
    free(pmix_of(bs)); /* PMIx itself stays up until exit */
}

static const struct gshmemi_bootstrap_ops pmix_ops = {
    .name = "pmix",
    .allgather = pmix_allgather,
    .barrier = pmix_barrier,
    .abort = pmix_abort,
    .finalize = pmix_finalize,
};

int gshmemi_bootstrap_pmix_open(double timeout, struct gshmemi_bootstrap **out)
{
    struct pmix_bootstrap *p = calloc(1, sizeof(*p));
    pmix_proc_t wild;
    uint32_t size, local_rank, local_size, node_id;
    unsigned char *secrets = NULL;
    pmix_status_t rc;
    int st;

    if (p == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    if (!pmix_ready) {
        rc = PMIx_Init(&pmix_me, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            GSHMEMI_ERROR(BOOTSTRAP, "PMIx_Init failed: %s (is this process running under a "
                          "PMIx server such as mpirun, srun --mpi=pmix or prterun?)",
                          PMIx_Error_string(rc));
            free(p);
            return GSHMEM_ERR_BOOTSTRAP;
        }
        pmix_ready = 1;
        atexit(pmix_at_exit);
    }
    p->me = pmix_me;
    PMIX_LOAD_PROCID(&wild, p->me.nspace, PMIX_RANK_WILDCARD);
    if (pmix_get_u32(&wild, PMIX_JOB_SIZE, &size) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "PMIx gave no job size (PMIX_JOB_SIZE)");
        st = GSHMEM_ERR_BOOTSTRAP;
        goto err_finalize;
    }
    p->base.ops = &pmix_ops;
    p->base.rank = (int)p->me.rank;
    p->base.size = (int)size;
    p->base.launcher_ctrl_fd = -1;
    p->timeout_s = timeout > 0 ? (int)(timeout + 0.999) : 0;
    p->base.local_rank = -1;
    if (pmix_get_u32(&p->me, PMIX_LOCAL_RANK, &local_rank) == 0 &&
        pmix_get_u32(&wild, PMIX_LOCAL_SIZE, &local_size) == 0) {
        p->base.local_rank = (int)local_rank;
        p->base.local_size = (int)local_size;
    }
    if (pmix_get_u32(&p->me, PMIX_NODEID, &node_id) == 0)
        p->base.node_id = (int)node_id;

    /* The job secret is rank 0's random bytes; the job id names the nspace. */
    secrets = malloc(size * sizeof(p->base.secret));
    if (secrets == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto err_finalize;
    }
    if (gshmemi_random_bytes(p->base.secret, sizeof(p->base.secret)) != 0) {
        st = GSHMEM_ERR_IO;
        goto err_free_secrets;
    }
    GSHMEMI_CHECK_GOTO(pmix_allgather(&p->base, p->base.secret, secrets, sizeof(p->base.secret)),
                       st, err_free_secrets);
    memcpy(p->base.secret, secrets, sizeof(p->base.secret));
    free(secrets);
    p->base.job_id = gshmemi_hash64(p->me.nspace, strnlen(p->me.nspace, sizeof(p->me.nspace)),
                                    0x706d6978);
    GSHMEMI_INFO(BOOTSTRAP, "pmix bootstrap up: rank %d of %d, nspace %s", p->base.rank,
                 p->base.size, p->me.nspace);
    *out = &p->base;
    return 0;

err_free_secrets:
    free(secrets);
err_finalize:
    free(p);
    return st;
}

#else /* !GSHMEM_HAVE_PMIX */

int gshmemi_bootstrap_pmix_open(double timeout, struct gshmemi_bootstrap **out)
{
    (void)timeout;
    (void)out;
    GSHMEMI_ERROR(BOOTSTRAP, "the PMIx bootstrap was asked for, but this gshmem was built "
                  "without PMIx (install libpmix-dev and rebuild)");
    return GSHMEM_ERR_NOT_SUPPORTED;
}

#endif
