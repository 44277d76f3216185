/* Stream-ordered operations on PEs reached through the proxy: a one-thread
 * kernel on the stream makes the device API's call (stream_proxy_kernels.cu).
 * Each returns a cudaError_t (0: launched). */
#ifndef GSHMEMI_DEVICE_STREAM_PROXY_H
#define GSHMEMI_DEVICE_STREAM_PROXY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int gshmemi_launch_proxy_put(void *stream, void *dest, const void *src, size_t n, int pe);
int gshmemi_launch_proxy_get(void *stream, void *dest, const void *src, size_t n, int pe);
int gshmemi_launch_proxy_signal(void *stream, uint64_t *sig, uint64_t value, int op, int pe);
int gshmemi_launch_proxy_put_signal(void *stream, void *dest, const void *src, size_t n,
                                    uint64_t *sig, uint64_t value, int op, int pe);
/* p of size (1, 2, 4 or 8) bytes, the value's bits in the low ones, to any PE. */
int gshmemi_launch_p(void *stream, void *dest, uint64_t bits, int size, int pe);
int gshmemi_launch_proxy_quiet(void *stream);
int gshmemi_launch_proxy_barrier(void *stream);
#ifdef __cplusplus
}
#endif

#endif
