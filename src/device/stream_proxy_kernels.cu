// Stream-ordered operations on PEs this GPU cannot map: a one-thread kernel
// on the caller's stream makes the device API's call, which goes through
// the proxy (gshmem_device.cuh), so the operation takes its place in the
// stream: after the work before it, before the work after it.  A put or
// get returns when the proxy has read or written the local buffer; quiet
// and the barrier when remote completion is known.
#include <gshmem_device.cuh>

#include "device/stream_proxy.h"
#include "gpu/gpu.h"
#include "gpu/stream_launch.cuh"

namespace {

__global__ void put_kernel(void *dest, const void *src, size_t n, int pe)
{
    gshmemi_wait_previous();
    gshmem_putmem(dest, src, n, pe);
}

__global__ void get_kernel(void *dest, const void *src, size_t n, int pe)
{
    gshmemi_wait_previous();
    gshmem_getmem(dest, src, n, pe);
}

__global__ void signal_kernel(uint64_t *sig, uint64_t value, int op, int pe)
{
    gshmemi_wait_previous();
    gshmemx_signal_op(sig, value, op, pe);
}

__global__ void put_signal_kernel(void *dest, const void *src, size_t n, uint64_t *sig,
                                  uint64_t value, int op, int pe)
{
    gshmemi_wait_previous();
    gshmem_putmem_signal(dest, src, n, sig, value, op, pe);
}

__global__ void p_kernel(void *dest, uint64_t bits, int size, int pe)
{
    gshmemi_wait_previous();
    switch (size) {
    case 1: gshmem_uint8_p(static_cast<uint8_t *>(dest), static_cast<uint8_t>(bits), pe); break;
    case 2: gshmem_uint16_p(static_cast<uint16_t *>(dest), static_cast<uint16_t>(bits), pe); break;
    case 4: gshmem_uint32_p(static_cast<uint32_t *>(dest), static_cast<uint32_t>(bits), pe); break;
    default: gshmem_uint64_p(static_cast<uint64_t *>(dest), bits, pe); break;
    }
}

__global__ void quiet_kernel()
{
    gshmemi_wait_previous();
    gshmem_quiet();
}

// One block: gshmem_barrier_all's grid is the block (always resident).
__global__ void barrier_kernel()
{
    gshmemi_wait_previous();
    gshmem_barrier_all();
}

} // namespace

extern "C" int gshmemi_launch_proxy_put(void *stream, void *dest, const void *src, size_t n, int pe)
{
    return gshmemi_stream_launch(put_kernel, 1, 1, stream, dest, src, n, pe);
}

extern "C" int gshmemi_launch_proxy_get(void *stream, void *dest, const void *src, size_t n, int pe)
{
    return gshmemi_stream_launch(get_kernel, 1, 1, stream, dest, src, n, pe);
}

extern "C" int gshmemi_launch_proxy_signal(void *stream, uint64_t *sig, uint64_t value, int op,
                                           int pe)
{
    return gshmemi_stream_launch(signal_kernel, 1, 1, stream, sig, value, op, pe);
}

extern "C" int gshmemi_launch_proxy_put_signal(void *stream, void *dest, const void *src, size_t n,
                                               uint64_t *sig, uint64_t value, int op, int pe)
{
    return gshmemi_stream_launch(put_signal_kernel, 1, 1, stream, dest, src, n, sig, value, op, pe);
}

extern "C" int gshmemi_launch_p(void *stream, void *dest, uint64_t bits, int size, int pe)
{
    return gshmemi_stream_launch(p_kernel, 1, 1, stream, dest, bits, size, pe);
}

extern "C" int gshmemi_launch_proxy_quiet(void *stream)
{
    return gshmemi_stream_launch(quiet_kernel, 1, 1, stream);
}

extern "C" int gshmemi_launch_proxy_barrier(void *stream)
{
    return gshmemi_stream_launch(barrier_kernel, 1, 1, stream);
}
