/* Transport selection: opened at init when some PE has a peer whose heap it
 * does not map (another node, simulated or real, P2P off, or no P2P path
 * between its GPUs). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "gshmem_config.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "transport/transport.h"

#if GSHMEM_HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

struct gshmemi_transport *gshmemi_transport;

/* ---- the optional operations' stubs, filled in one place -------------------- */

static int no_fence(struct gshmemi_transport *t)
{
    (void)t;
    return 0; /* every put is kept in order */
}

static void no_batch(struct gshmemi_transport *t) { (void)t; }

static int no_get_start(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                        void *dst, size_t n, void **token)
{
    (void)t, (void)call, (void)pe, (void)off, (void)dst, (void)n, (void)token;
    return GSHMEM_ERR_NOT_SUPPORTED;
}

static int no_atomic_start(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                           int op, size_t size, uint64_t a, uint64_t b, void **token)
{
    (void)t, (void)call, (void)pe, (void)off, (void)op, (void)size, (void)a, (void)b, (void)token;
    return GSHMEM_ERR_NOT_SUPPORTED;
}

static int no_finish(struct gshmemi_transport *t, const char *call, void *token, uint64_t *old)
{
    (void)t, (void)token, (void)old;
    GSHMEMI_ERROR(TRANSPORT, "%s: finish without a start", call);
    return GSHMEM_ERR_INTERNAL;
}

/* Bytes of packed elements a put or get carries at most (host memory a
 * call holds). */
#define PACKED_MAX (256u << 10)

void gshmemi_transport_gather(const char *call, void *buf, const void *src, size_t spitch,
                              size_t esize, size_t count)
{
    if (gshmemi_gpu_is_device_ptr(src))
        gshmemi_gpu_copy_strided(call, buf, esize, src, spitch, esize, count, 1);
    else if (spitch == esize) /* one copy, not one an element */
        memcpy(buf, src, count * esize);
    else
        gshmemi_host_access.copy_strided(call, buf, esize, src, spitch, esize, count, 1);
}

void gshmemi_transport_scatter(const char *call, void *dst, size_t dpitch, const void *buf,
                               size_t bpitch, size_t esize, size_t count)
{
    if (gshmemi_gpu_is_device_ptr(dst))
        gshmemi_gpu_copy_strided(call, dst, dpitch, buf, bpitch, esize, count, 1);
    else if (dpitch == esize && bpitch == esize)
        memcpy(dst, buf, count * esize);
    else
        gshmemi_host_access.copy_strided(call, dst, dpitch, buf, bpitch, esize, count, 1);
}

void *gshmemi_transport_pack_buffer(const char *call, int pe, size_t count, size_t esize)
{
    void *buf = malloc(count * esize);
    if (buf == NULL)
        GSHMEMI_ERROR(TRANSPORT, "%s: out of host memory to pack %zu elements of %zu bytes for "
                      "pe %d", call, count, esize, pe);
    return buf;
}

int gshmemi_transport_put_packed(struct gshmemi_transport *t, const char *call, int pe,
                                 uint64_t off, size_t dpitch, const void *src, size_t spitch,
                                 size_t esize, size_t count)
{
    const char *s = src;
    int st = 0;
    if (dpitch == esize && spitch == esize) /* contiguous on both sides: as it is */
        return t->ops->put(t, call, pe, off, src, count * esize);
    if (dpitch != esize || esize >= PACKED_MAX) { /* in order, element by element */
        for (size_t i = 0; i < count && st == 0; i++)
            st = t->ops->put(t, call, pe, off + i * dpitch, s + i * spitch, esize);
        return st;
    }
    const size_t per = PACKED_MAX / esize;
    char *buf = gshmemi_transport_pack_buffer(call, pe, GSHMEMI_MIN(count, per), esize);
    if (buf == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    for (size_t done = 0; done < count && st == 0; done += per) {
        const size_t k = GSHMEMI_MIN(count - done, per);
        gshmemi_transport_gather(call, buf, s + done * spitch, spitch, esize, k);
        st = t->ops->put(t, call, pe, off + done * esize, buf, k * esize);
    }
    free(buf);
    return st;
}

int gshmemi_transport_get_packed(struct gshmemi_transport *t, const char *call, int pe,
                                 uint64_t off, size_t spitch, void *dst, size_t dpitch,
                                 size_t esize, size_t count)
{
    char *d = dst;
    int st = 0;
    if (spitch == esize && dpitch == esize) /* contiguous on both sides: as it is */
        return t->ops->get(t, call, pe, off, dst, count * esize);
    if (spitch != esize || esize >= PACKED_MAX) { /* element by element */
        for (size_t i = 0; i < count && st == 0; i++)
            st = t->ops->get(t, call, pe, off + i * spitch, d + i * dpitch, esize);
        return st;
    }
    const size_t per = PACKED_MAX / esize;
    char *buf = gshmemi_transport_pack_buffer(call, pe, GSHMEMI_MIN(count, per), esize);
    if (buf == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    for (size_t done = 0; done < count && st == 0; done += per) {
        const size_t k = GSHMEMI_MIN(count - done, per);
        if ((st = t->ops->get(t, call, pe, off + done * esize, buf, k * esize)) == 0)
            gshmemi_transport_scatter(call, d + done * dpitch, dpitch, buf, esize, esize, k);
    }
    free(buf);
    return st;
}

/* ops with every optional operation it lacks set to its stub. */
static void fill_optional(struct gshmemi_transport_ops *ops)
{
    if (ops->fence == NULL)
        ops->fence = no_fence;
    if (ops->batch_begin == NULL)
        ops->batch_begin = no_batch;
    if (ops->batch_end == NULL)
        ops->batch_end = no_batch;
    if (ops->get_start == NULL)
        ops->get_start = no_get_start;
    if (ops->atomic_start == NULL)
        ops->atomic_start = no_atomic_start;
    if (ops->finish == NULL)
        ops->finish = no_finish;
    if (ops->put_strided == NULL)
        ops->put_strided = gshmemi_transport_put_packed;
    if (ops->get_strided == NULL)
        ops->get_strided = gshmemi_transport_get_packed;
}

static struct gshmemi_transport_ops in_use; /* the chosen transport's, filled */

/* An allocation's implied barrier completes what went through the transport. */
static void heap_quiet(void *arg, const char *call)
{
    (void)arg;
    gshmemi_transport_quiet(call);
}

static struct gshmemi_heap_listener heap_listener = {.quiet = heap_quiet};

/* Whether this PE could use ibrc: an RDMA device is there and, for the
 * GPU heap, the NIC can be given GPU memory (as dma-buf, or through the
 * peer-memory module). */
static int rdma_usable(void)
{
#if GSHMEM_HAVE_IBVERBS
    int n = 0;
    char why[200] = "the heap's memory has no dma-buf form";
    struct ibv_device **devs = ibv_get_device_list(&n);
    if (devs != NULL)
        ibv_free_device_list(devs);
    if (n <= 0)
        return 0;
    if (gshmemi_heap.access->host_direct || gshmemi_gpu_peermem_loaded())
        return 1;
    if (gshmemi_heap.ops->dmabuf_fd != NULL) { /* one granule tells */
        int fd = gshmemi_heap.ops->dmabuf_fd(gshmemi_heap.my_base, gshmemi_heap.granularity, why,
                                             sizeof(why));
        if (fd >= 0) {
            close(fd);
            return 1;
        }
    }
    GSHMEMI_INFO(TRANSPORT, "an RDMA device is there, but the GPU heap cannot be given to it (%s; "
                 "no nvidia_peermem module)", why);
    return 0;
#else
    return 0;
#endif
}

/* auto's choice, the same on every PE: ibrc where every PE could use it. */
static int all_rdma_usable(int *all)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    int mine = rdma_usable(), *each = malloc(sizeof(int) * (size_t)bs->size);
    int st = each != NULL ? bs->ops->allgather(bs, &mine, each, sizeof(int)) : GSHMEM_ERR_NO_MEMORY;
    *all = st == 0;
    for (int pe = 0; st == 0 && pe < bs->size; pe++)
        *all &= each[pe] != 0;
    free(each);
    return st;
}

int gshmemi_transport_init(void)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    const int n = gshmemi_rt.n_pes, me = gshmemi_rt.my_pe;
    int *peers = malloc(sizeof(int) * (size_t)n), *counts = malloc(sizeof(int) * (size_t)n);
    int n_peers = 0, any = 0, bringing_up = 0, st;

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
    bringing_up = 1;
    const char *want = gshmemi_env.TRANSPORT;
    int rdma = 0;
    if (strcmp(want, "auto") == 0)
        GSHMEMI_CHECK_GOTO(all_rdma_usable(&rdma), st, out);
    const struct gshmemi_transport_ops *ops;
    if (strcmp(want, "tcp") == 0 || (strcmp(want, "auto") == 0 && !rdma)) {
        ops = &gshmemi_tcp_ops;
    } else if (strcmp(want, "ibrc") == 0 || strcmp(want, "auto") == 0) {
#if GSHMEM_HAVE_IBVERBS
        ops = &gshmemi_ibrc_ops;
#else
        GSHMEMI_ERROR(TRANSPORT, "GSHMEM_TRANSPORT=ibrc: this gshmem was built without libibverbs");
        st = GSHMEM_ERR_NOT_SUPPORTED;
        goto out;
#endif
    } else {
        GSHMEMI_ERROR(TRANSPORT, "GSHMEM_TRANSPORT is '%s': expected auto, tcp or ibrc", want);
        st = GSHMEM_ERR_INVALID_ARG;
        goto out;
    }
    struct gshmemi_transport *t;
    GSHMEMI_CHECK_GOTO(ops->open(peers, n_peers, &t), st, out);
    in_use = *ops;
    fill_optional(&in_use);
    t->ops = &in_use;
    gshmemi_transport = t;
    gshmemi_heap_listen(&heap_listener);
out:
    /* The reason was logged above; this says why a test job needed it. */
    if (st != 0 && bringing_up && gshmemi_rt.sim_nodes > 1)
        GSHMEMI_ERROR(TRANSPORT, "GSHMEM_TEST_SIM_NODES=%d splits this machine into simulated "
                      "nodes, which reach each other only through a transport: none came up",
                      gshmemi_rt.sim_nodes);
    free(counts);
    free(peers);
    return st;
}

void gshmemi_transport_fini(void)
{
    struct gshmemi_transport *t = gshmemi_transport;
    if (t == NULL)
        return;
    gshmemi_heap_unlisten(&heap_listener);
    gshmemi_transport = NULL;
    t->ops->close(t);
}
