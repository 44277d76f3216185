/* Ordering (fence, quiet) and the all-PE barriers.
 *
 * barrier_all and sync_all are dissemination barriers over counters in the
 * control segment (host memory shared by the PEs of a node, whatever memory
 * the heap is in): in round r each PE adds one to the round-r counter
 * of PE me+2^r and waits until its own reaches the barrier count.  Counting
 * (rather than flags) needs no reset, so a PE already in the next barrier
 * never disturbs a slow one; and it is right for any number of PEs. */
#include <gshmem.h>

#include "core/log.h"
#include "heap/ctrl.h"
#include "proxy/proxy.h"
#include "rma/rma.h"
#include "sync/wait.h"
#include "transport/transport.h"


GSHMEM_API void gshmem_fence(void)
{
    /* Host heap: stores reach mapped peers in order once ordered here.
     * Device heap: one stream carries every operation, in order. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    gshmemi_transport_fence(__func__);
}

GSHMEM_API void gshmem_quiet(void)
{
    if (!gshmemi_rt.initialized)
        return;
    gshmemi_heap.access->quiet(__func__);
    gshmemi_proxy_drain(__func__); /* kernels' requests, then the transport's completion */
    gshmemi_transport_quiet(__func__);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void dissemination(const char *call)
{
    const int n = gshmemi_rt.n_pes, me = gshmemi_rt.my_pe;
    uint64_t *counters = gshmemi_ctrl_word(me, GSHMEMI_CTRL_BARRIER);
    const uint64_t target = ++*gshmemi_ctrl_word(me, GSHMEMI_CTRL_BARRIER_COUNT);

    for (int r = 0, d = 1; d < n; r++, d <<= 1) {
        int to = (me + d) % n;
        uint64_t *remote = gshmemi_ctrl_word(to, GSHMEMI_CTRL_BARRIER + (size_t)r);
        if (remote != NULL)
            __atomic_fetch_add(remote, 1, __ATOMIC_RELEASE);
        else if (gshmemi_transport != NULL) /* another node */
            gshmemi_transport_ctrl_add(call, to, GSHMEMI_CTRL_BARRIER + (size_t)r, 1);
        else
            gshmemi_rma_fail(call, "pe %d is on another node and no network transport is up", to);
        const struct gshmemi_wait w = {.call = call, .ivars = &counters[r], .nelems = 1,
                                       .esize = sizeof(uint64_t), .cmp = GSHMEM_CMP_GE,
                                       .value = target};
        (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);
    }
}

GSHMEM_API void gshmem_sync_all(void)
{
    gshmemi_rma_check_pe(__func__, 0);
    dissemination(__func__);
}

GSHMEM_API void gshmem_barrier_all(void)
{
    gshmemi_rma_check_pe(__func__, 0);
    gshmem_quiet();
    dissemination(__func__);
}
