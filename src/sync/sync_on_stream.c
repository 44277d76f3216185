/* Stream-ordered waits, quiet and barriers on the GPU heap.  The stream,
 * not the host, waits; every wait has GSHMEM_TIMEOUT as its deadline. */
#include <gshmem.h>
#include <gshmem/internal/device_state.h>
#include <gshmemx.h>

#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "heap/heap.h"
#include "proxy/proxy.h"
#include "device/stream_proxy.h"
#include "gpu/gpu.h"
#include "rma/rma.h"

static uint64_t timeout_ns(void)
{
    return gshmemi_env.TIMEOUT > 0 ? (uint64_t)(gshmemi_env.TIMEOUT * 1e9) : 0;
}

GSHMEM_API void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp,
                                                    uint64_t cmp_value,
                                                    struct CUstream_st *stream)
{
    gshmemi_rma_need_device_heap(__func__);
    (void)gshmemi_rma_target(__func__, "sig_addr", sig_addr, sizeof(*sig_addr), gshmemi_rt.my_pe);
    gshmemi_rma_check_aligned(__func__, "sig_addr", sig_addr, sizeof(*sig_addr));
    if (cmp < GSHMEM_CMP_EQ || cmp > GSHMEM_CMP_GE)
        gshmemi_rma_fail(__func__, "cmp %d is not one of GSHMEM_CMP_EQ..GSHMEM_CMP_GE", cmp);
    /* EQ and GE fit the driver's stream wait (no SM busy); the rest, and
     * graph capture, take a one-thread kernel with a deadline. */
    if ((cmp == GSHMEM_CMP_EQ || cmp == GSHMEM_CMP_GE) && !gshmemi_gpu_capturing(stream) &&
        gshmemi_gpu_wait_value(stream, sig_addr, cmp_value, cmp == GSHMEM_CMP_EQ) == 0)
        return;
    int err = gshmemi_launch_wait(stream, sig_addr, cmp, cmp_value, timeout_ns(), gshmemi_rt.my_pe);
    if (err != 0)
        gshmemi_gpu_launch_failed(__func__, "the wait kernel", err);
}

GSHMEM_API void gshmemx_quiet_on_stream(struct CUstream_st *stream)
{
    gshmemi_rma_need_device_heap(__func__);
    /* through the proxy: the device quiet, a fence and the proxy's quiet */
    int err = gshmemi_proxy_fifo() != NULL ? gshmemi_launch_proxy_quiet(stream)
                                           : gshmemi_launch_fence(stream);
    if (err != 0)
        gshmemi_gpu_launch_failed(__func__, "the quiet kernel", err);
}

/* The barrier's one-thread kernel: a dissemination barrier over the
 * internal areas' KBAR_ words.  (Not the driver's stream memory
 * operations, a write to the partner and a wait: slower and less steady,
 * docs/device-api.md.) */
static void barrier_on(const char *call, struct CUstream_st *stream, int ordered)
{
    gshmemi_rma_need_device_heap(call);
    const int me = gshmemi_rt.my_pe, n = gshmemi_rt.n_pes;
    for (int pe = 0; pe < n; pe++) {
        if (gshmemi_heap.slot_of_pe[pe] < 0) {
            /* Some PE through the proxy: the device barrier in a one-thread
             * kernel (its signals to such PEs go through the proxy). */
            int err = gshmemi_proxy_fifo() != NULL ? gshmemi_launch_proxy_barrier(stream) : -1;
            if (err != 0)
                gshmemi_rma_fail(call, "pe %d's heap is not mapped here and no proxy reaches it",
                                 pe);
            return;
        }
    }
    if (n == 1) /* stream order has completed the earlier work */
        return;
    struct gshmemi_stream_barrier b = {
        .mine = (uint64_t *)(void *)gshmemi_heap.dev_internal,
        .me = me,
        .n = n,
        .timeout_ns = timeout_ns(),
    };
    for (int d = 1; d < n; d <<= 1, b.rounds++)
        b.theirs[b.rounds] = gshmemi_heap_peer_addr(b.mine + GSHMEMI_DEV_AREA_KBAR_ROUNDS + b.rounds,
                                                    (me + d) % n);
    int err = gshmemi_launch_barrier(stream, &b, ordered);
    if (err != 0)
        gshmemi_gpu_launch_failed(call, "the barrier kernel", err);
}

/* Stream order completes the puts enqueued before it on this stream. */
GSHMEM_API void gshmemx_barrier_all_on_stream(struct CUstream_st *stream)
{
    barrier_on(__func__, stream, 1);
}

GSHMEM_API void gshmemx_sync_all_on_stream(struct CUstream_st *stream)
{
    barrier_on(__func__, stream, 0);
}
