/* gshmem device API, part of gshmem_device.cuh: the device-wide barrier
 * (every thread of a collective launch on every PE): gshmem_barrier_all
 * and gshmem_sync_all. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/barrier.cuh>"
#endif
#ifndef GSHMEM_DEVICE_BARRIER_CUH
#define GSHMEM_DEVICE_BARRIER_CUH

namespace {

/* ---- device-wide barrier: every thread of the grid (a collective launch)
 * on every PE.  Blocks meet at a counter in this PE's internal area (GPU
 * scope); the last to arrive runs a dissemination barrier with the other
 * PEs (one release add per round into the partner's area, acquire spins)
 * and releases the grid.  Release is cumulative over what the block's
 * threads wrote before __syncthreads, so the barrier also completes their
 * puts to mapped PEs (barrier_all's quiet) at no extra cost. */
__device__ __forceinline__ void gshmemi_pe_barrier(const char *call)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    unsigned long long *area = reinterpret_cast<unsigned long long *>(s.dev_area);
    unsigned long long target = 0;
    /* What the grid pushed for the proxy is done before anybody is told. */
    gshmemi_proxy_quiet(call);
    /* Everything from here to the wait is the barrier's latency: the
     * partners come from the state (init worked them out, no modulo here)
     * and the function is inlined (no call). */
    for (int r = 0; r < s.dbar_rounds; r++) {
        unsigned long long *w = reinterpret_cast<unsigned long long *>(s.dbar[r].word);
        if (w == nullptr)
            gshmemi_push1(call, s.dbar[r].pe, GSHMEMI_REQ_SIGNAL, 1 /* add */, 8,
                          s.dev_area_off + 8 * (GSHMEMI_DEV_AREA_DBAR_ROUNDS + r), 1, 0, 0, 2);
        else
            asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(w) : "memory");
        if (r == 0) /* read after the first signal left: the two latencies overlap */
            area[GSHMEMI_DEV_AREA_DBAR_EPOCH] = target = area[GSHMEMI_DEV_AREA_DBAR_EPOCH] + 1;
        gshmemi_wait(call, &area[GSHMEMI_DEV_AREA_DBAR_ROUNDS + r], GSHMEM_CMP_GE, target);
    }
}

__device__ __forceinline__ void gshmemi_grid_barrier(const char *call)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (s.debug_checks)
        gshmemi_check_pe(call, s.my_pe);
    __syncthreads();
    if (gshmemi_block_rank() == 0) {
        const unsigned long long blocks = 1ull * gridDim.x * gridDim.y * gridDim.z;
        if (blocks == 1) {
            gshmemi_pe_barrier(call);
        } else {
            unsigned long long *area = reinterpret_cast<unsigned long long *>(s.dev_area);
            unsigned long long *gen = &area[GSHMEMI_DEV_AREA_GRID_GEN], old, g;
            asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(g) : "l"(gen) : "memory");
            asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;"
                         : "=l"(old) : "l"(&area[GSHMEMI_DEV_AREA_GRID_ARRIVE]) : "memory");
            if (old + 1 == blocks) {
                area[GSHMEMI_DEV_AREA_GRID_ARRIVE] = 0;
                gshmemi_pe_barrier(call);
                asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(gen) : "memory");
            } else {
                gshmemi_wait(call, gen, GSHMEM_CMP_NE, g);
            }
        }
    }
    __syncthreads();
}

} // namespace

/* ---- the API ------------------------------------------------------------ */

#ifdef __CUDA_ARCH__
extern "C" {

/* Every thread of the grid, on every PE, launched with gshmemx_collective_launch. */
__device__ inline void gshmem_barrier_all(void) { gshmemi_grid_barrier("gshmem_barrier_all"); }
__device__ inline void gshmem_sync_all(void) { gshmemi_grid_barrier("gshmem_sync_all"); }

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

#endif /* GSHMEM_DEVICE_BARRIER_CUH */
