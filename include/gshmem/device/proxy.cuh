/* gshmem device API, part of gshmem_device.cuh: requests for PEs that are
 * not mapped, pushed on the proxy's FIFO (gshmem/internal/fifo.h), and the
 * waits for their completion and answers. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/proxy.cuh>"
#endif
#ifndef GSHMEM_DEVICE_PROXY_CUH
#define GSHMEM_DEVICE_PROXY_CUH

namespace {

/* ---- the proxy: requests for PEs that are not mapped (gshmem/internal/fifo.h) */

__device__ __forceinline__ uint64_t gshmemi_heap_off(const void *sym)
{
    return static_cast<uint64_t>(static_cast<const char *>(sym) - gshmemi_s().heap_base);
}

__device__ __forceinline__ uint64_t gshmemi_push(const char *call, int pe, int kind, int op, int size,
                                              const uint64_t *w, int nw)
{
    if (!gshmemi_s().has_proxy)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_UNMAPPED, pe, nullptr, 0);
    return gshmemi_fifo_push(&gshmemi_s().fifo, w, nw, gshmemi_req_tag(kind, op, size, pe));
}

/* Until request n (and every one before it) has taken effect. */
__device__ __forceinline__ void gshmemi_proxy_wait(const char *call, uint64_t n)
{
    const struct gshmemi_fifo &f = gshmemi_s().fifo;
    gshmemi_deadline deadline;
    for (unsigned look = 0; gshmemi_fifo_completed(&f, look) <= n; look++) {
        if (look >= GSHMEMI_FIFO_DIRECT_LOOKS)
            GSHMEMI_FIFO_RELAX(look - GSHMEMI_FIFO_DIRECT_LOOKS);
        if ((look & 255) == 255 && deadline.passed())
            gshmemi_fail(call, GSHMEMI_DEV_FAIL_TIMEOUT, gshmemi_s().my_pe, f.completed, 8,
                         GSHMEM_CMP_GT, n, gshmemi_fifo_completed(&f, 0));
    }
}

/* A put for the proxy: small ones travel inside the request, and so does a
 * source the proxy cannot read (shared or local memory), a request for
 * each 48 bytes.  Returns the number of the request that reads the source
 * (when it is complete, the source may be reused), or GSHMEMI_REQ_NONE
 * where the bytes travelled inside the requests. */
#define GSHMEMI_REQ_NONE (~0ull)
__device__ __forceinline__ uint64_t gshmemi_proxy_put(const char *call, void *dest, const void *src,
                                                   size_t bytes, int pe)
{
    if (bytes > GSHMEMI_REQ_INLINE_MAX && __isGlobal(src)) {
        const uint64_t w[3] = {gshmemi_heap_off(dest), reinterpret_cast<uint64_t>(src), bytes};
        return gshmemi_push(call, pe, GSHMEMI_REQ_PUT, 0, 0, w, 3);
    }
    for (size_t done = 0; done < bytes; done += GSHMEMI_REQ_INLINE_MAX) {
        const size_t n = bytes - done < GSHMEMI_REQ_INLINE_MAX ? bytes - done : GSHMEMI_REQ_INLINE_MAX;
        uint64_t w[GSHMEMI_FIFO_WORDS] = {gshmemi_heap_off(static_cast<char *>(dest) + done)};
        unsigned char *b = reinterpret_cast<unsigned char *>(&w[1]);
        for (size_t i = 0; i < n; i++)
            b[i] = static_cast<const unsigned char *>(src)[done + i];
        gshmemi_push(call, pe, GSHMEMI_REQ_PUT_INLINE, 0, static_cast<int>(n), w,
                     1 + static_cast<int>((n + 7) / 8));
    }
    return GSHMEMI_REQ_NONE;
}

/* The answer to fetching request n (an atomic's old value, a g's bytes). */
__device__ __noinline__ uint64_t gshmemi_proxy_answer(const char *call, uint64_t n)
{
    gshmemi_proxy_wait(call, n);
    return gshmemi_fifo_take_answer(&gshmemi_s().fifo, n);
}


/* A get through the proxy into memory it cannot write (shared or local):
 * 8 bytes a request, answered in the requests' cells, 16 requests in
 * flight (a cell is answered again only once read). */
__device__ __forceinline__ void gshmemi_proxy_get_small(const char *call, void *dest, const void *src,
                                                     size_t bytes, int pe)
{
    const struct gshmemi_fifo &f = gshmemi_s().fifo;
    unsigned char *d = static_cast<unsigned char *>(dest);
    for (size_t done = 0; done < bytes;) {
        uint64_t number[16];
        int n = 0;
        for (size_t at = done; at < bytes && n < 16; at += 8, n++) {
            const uint64_t w[3] = {gshmemi_heap_off(static_cast<const char *>(src) + at),
                                   GSHMEMI_REQ_TO_CELL, bytes - at < 8 ? bytes - at : 8};
            number[n] = gshmemi_push(call, pe, GSHMEMI_REQ_GET, 0, 0, w, 3);
        }
        gshmemi_proxy_wait(call, number[n - 1]);
        for (int i = 0; i < n; i++, done += 8) {
            const uint64_t v = gshmemi_fifo_take_answer(&f, number[i]);
            for (size_t k = 0; k < 8 && done + k < bytes; k++)
                d[done + k] = static_cast<unsigned char>(v >> (8 * k));
        }
    }
}

/* Everything this thread pushed has taken effect (quiet's proxy half). */
__device__ __noinline__ void gshmemi_proxy_quiet_cold(const char *call)
{
    gshmemi_proxy_wait(call, gshmemi_push(call, gshmemi_s().my_pe, GSHMEMI_REQ_QUIET, 0, 0,
                                          nullptr, 0));
}
__device__ __forceinline__ void gshmemi_proxy_quiet(const char *call)
{
    if (gshmemi_s().has_proxy)
        gshmemi_proxy_quiet_cold(call);
}

/* One request of up to four words, out of line: single-word operations
 * (p, signals, atomics, fence) keep their mapped path short, which their
 * latency feels; a thread-scope call in a loop holds few registers. */
__device__ __noinline__ uint64_t gshmemi_push1(const char *call, int pe, int kind, int op, int size,
                                               uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3,
                                               int nw)
{
    const uint64_t w[4] = {w0, w1, w2, w3};
    return gshmemi_push(call, pe, kind, op, size, w, nw);
}

/* A fetching atomic or a g through the proxy: its answer. */
__device__ __noinline__ uint64_t gshmemi_proxy_fetch(const char *call, int pe, int kind, int op,
                                                     int size, uint64_t w0, uint64_t w1,
                                                     uint64_t w2, uint64_t w3, int nw)
{
    return gshmemi_proxy_answer(call, gshmemi_push1(call, pe, kind, op, size, w0, w1, w2, w3, nw));
}

/* Up to 8 bytes from pe's heap through the proxy (a g). */
__device__ __forceinline__ uint64_t gshmemi_proxy_g(const char *call, const void *src,
                                                    size_t bytes, int pe)
{
    return gshmemi_proxy_fetch(call, pe, GSHMEMI_REQ_GET, 0, 0, gshmemi_heap_off(src),
                               GSHMEMI_REQ_TO_CELL, bytes, 0, 3);
}

} // namespace

#endif /* GSHMEM_DEVICE_PROXY_CUH */
