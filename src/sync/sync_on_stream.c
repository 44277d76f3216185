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

/* A dissemination barrier of stream memory operations, no kernel: in
 * round r the stream writes the barrier's number into the round's word of
 * PE me + 2^r and waits until its own word holds at least that.  Each word
 * has one writer, and a PE is at most one barrier ahead of its partner, so
 * numbers only grow.  The write's memory barrier completes the stream's
 * earlier work first.  A graph cannot replay host-counted numbers, so
 * captured barriers take the kernel (every PE must capture or none). */
static int barrier_by_memops(struct CUstream_st *stream)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    const int me = gshmemi_rt.my_pe, n = gshmemi_rt.n_pes;

    if (!gshmemi_gpu_has_stream_memops() || gshmemi_gpu_capturing(stream))
        return -1;
    const uint64_t number = ++h->stream_barriers;
    for (int r = 0, d = 1; d < n; r++, d <<= 1) {
        const int to = (me + d) % n;
        uint64_t *mine = (uint64_t *)(void *)h->dev_internal + GSHMEMI_DEV_AREA_SBAR_ROUNDS + r;
        uint64_t *theirs = gshmemi_heap_peer_addr(mine, to);
        if (gshmemi_gpu_write_value(stream, theirs, number) != 0 ||
            gshmemi_gpu_wait_value(stream, mine, number, 0) != 0)
            return -2;
    }
    return 0;
}

static void barrier_on(const char *call, struct CUstream_st *stream)
{
    gshmemi_rma_need_device_heap(call);
    for (int pe = 0; pe < gshmemi_rt.n_pes; pe++) {
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
    int st = barrier_by_memops(stream);
    if (st == 0)
        return;
    if (st == -2) { /* part of it is enqueued: the PEs' barriers no longer pair */
        GSHMEMI_ERROR(SYNC, "%s: a stream memory operation was refused by the driver", call);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
    }
    int err = gshmemi_launch_barrier(stream, gshmemi_heap.dev_peer_base,
                                     (size_t)(gshmemi_heap.dev_internal - gshmemi_heap.my_base),
                                     gshmemi_rt.my_pe, gshmemi_rt.n_pes, timeout_ns());
    if (err != 0)
        gshmemi_gpu_launch_failed(call, "the barrier kernel", err);
}

/* Stream order completes the puts enqueued before it on this stream. */
GSHMEM_API void gshmemx_barrier_all_on_stream(struct CUstream_st *stream)
{
    barrier_on(__func__, stream);
}

GSHMEM_API void gshmemx_sync_all_on_stream(struct CUstream_st *stream)
{
    barrier_on(__func__, stream);
}
