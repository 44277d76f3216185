/* The proxy: one thread per PE taking requests from the FIFO (pushed by
 * GPU threads; by CPU threads in tests) for peers whose heap is not mapped,
 * and carrying them out on the transport.  It publishes `completed`, which
 * a producer's quiet waits on.
 *
 * A request is a FIFO slot: the tag packs kind, op, size and target PE; the
 * words depend on the kind:
 *   PUT     w0 dest heap offset, w1 source address, w2 bytes
 *   PUT_INLINE  w0 dest heap offset, w1-w6 the bytes themselves (size: at most 48)
 *   GET     w0 source heap offset, w1 dest address, w2 bytes
 *   AMO     w0 heap offset, w1 a, w2 b, w3 address for the old value (0: none)
 *   SIGNAL  w0 heap offset, w1 value (op 0: set, 1: add)
 *   QUIET   (none): complete once everything before it is complete at its target
 */
#ifndef GSHMEMI_PROXY_H
#define GSHMEMI_PROXY_H

#include <stdint.h>

#include "proxy/fifo.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gshmemi_req_kind {
    GSHMEMI_REQ_PUT = 1,
    GSHMEMI_REQ_GET,
    GSHMEMI_REQ_AMO,
    GSHMEMI_REQ_SIGNAL,
    GSHMEMI_REQ_QUIET,
    GSHMEMI_REQ_PUT_INLINE,
};

/* The most bytes a PUT_INLINE carries: the slot's words after the offset. */
#define GSHMEMI_REQ_INLINE_MAX (8 * (GSHMEMI_FIFO_WORDS - 1))

#if defined(__CUDACC__)
__host__ __device__
#endif
static inline uint64_t gshmemi_req_tag(int kind, int op, int size, int pe)
{
    return (uint64_t)(kind & 0xff) | (uint64_t)(op & 0xff) << 8 | (uint64_t)(size & 0xffff) << 16 |
           (uint64_t)(uint32_t)pe << 32;
}

/* Starts the proxy thread and its FIFO; nothing to do where no transport
 * is up (every peer is mapped). */
int gshmemi_proxy_start(void);
void gshmemi_proxy_stop(void);
/* The FIFO producers push to; NULL when the proxy is not running. */
struct gshmemi_fifo *gshmemi_proxy_fifo(void);

#ifdef __cplusplus
}
#endif

#endif
