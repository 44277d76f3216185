/* The proxy: one thread per PE taking requests from the FIFO (pushed by
 * GPU threads; by CPU threads in tests) for peers whose heap is not mapped,
 * and carrying them out on the transport.  It publishes `completed`, which
 * a producer's quiet waits on.  The FIFO and the requests' format:
 * include/gshmem/internal/fifo.h. */
#ifndef GSHMEMI_PROXY_H
#define GSHMEMI_PROXY_H

#include <stdint.h>

#include <gshmem/internal/fifo.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the proxy thread and its FIFO; nothing to do where no transport
 * is up (every peer is mapped). */
int gshmemi_proxy_start(void);
void gshmemi_proxy_stop(void);
/* Waits until every request pushed so far has been carried out (a host
 * quiet's share: what kernels pushed is done before it returns). */
void gshmemi_proxy_drain(const char *call);
/* The FIFO producers push to; NULL when the proxy is not running. */
struct gshmemi_fifo *gshmemi_proxy_fifo(void);

#ifdef __cplusplus
}
#endif

#endif
