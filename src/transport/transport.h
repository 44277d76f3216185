/* Transports: how a PE reaches peers whose heap it has not mapped.  A
 * transport is an object (struct gshmemi_transport) whose operations take
 * it and return a status; tcp.c and ibrc.c make one (nic.c picks ibrc's
 * RDMA device).  Addresses are heap offsets, the same on every PE.
 * Host-initiated operations call these from the calling thread; the target
 * side is served by the transport's own thread.  An operation that fails
 * has logged why; a peer's loss ends the job where it is seen. */
#ifndef GSHMEMI_TRANSPORT_H
#define GSHMEMI_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/api.h"
#include "core/runtime.h"

struct gshmemi_transport;

struct gshmemi_transport_ops {
    const char *name;
    /* its atomics are the NIC's: atomic only among themselves, so this PE's
     * own atomics and signals must go through it too */
    int nic_atomics;

    /* setup: connects to every PE in peers (collective) */
    int (*open)(const int *peers, int n_peers, struct gshmemi_transport **out);
    void (*close)(struct gshmemi_transport *t);

    /* RMA: complete locally on return (the source may be reused) */
    int (*put)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
               const void *src, size_t n);
    int (*get)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off, void *dst,
               size_t n);
    /* atomics (core/amo.h), size 4 or 8; with old, its old value there */
    int (*atomic)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off, int op,
                  size_t size, uint64_t a, uint64_t b, uint64_t *old);
    /* signal set (op 0) or add (1), after the puts to pe issued before */
    int (*signal)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                  uint64_t value, int op);
    /* adds to a word of pe's control segment (barriers across nodes) */
    int (*ctrl_add)(struct gshmemi_transport *t, const char *call, int pe, size_t word,
                    uint64_t value);

    /* completion: everything issued to every peer is done at the target */
    int (*quiet)(struct gshmemi_transport *t, const char *call);

    /* optional (NULL in a transport's table: the shared stub below) */
    /* puts issued after this to a peer take effect there after those
     * issued before (stub: nothing to do, every put is kept in order) */
    int (*fence)(struct gshmemi_transport *t);
    /* the calling thread is about to issue many operations (the proxy's
     * batch) and may hold them back until batch_end; an operation that
     * waits for an answer is never held (stub: nothing) */
    void (*batch_begin)(struct gshmemi_transport *t);
    void (*batch_end)(struct gshmemi_transport *t);
    /* a get (dst: host or GPU memory) or a fetching atomic that returns at
     * once with a token; finish waits for it and gives the atomic's old
     * value (stub: GSHMEM_ERR_NOT_SUPPORTED: do it the blocking way) */
    int (*get_start)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                     void *dst, size_t n, void **token);
    int (*atomic_start)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                        int op, size_t size, uint64_t a, uint64_t b, void **token);
    int (*finish)(struct gshmemi_transport *t, const char *call, void *token, uint64_t *old);
    /* count (> 0) elements of esize bytes from src (host or GPU memory) at
     * byte pitch spitch to off, off + dpitch, ... of pe's heap (pitches no
     * smaller than esize); complete locally on return (stub:
     * gshmemi_transport_put_packed) */
    int (*put_strided)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                       size_t dpitch, const void *src, size_t spitch, size_t esize, size_t count);
    /* count (> 0) elements of esize bytes from off, off + spitch, ... of
     * pe's heap to dst (host or GPU memory) at byte pitch dpitch (pitches
     * no smaller than esize); complete on return (stub:
     * gshmemi_transport_get_packed) */
    int (*get_strided)(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                       size_t spitch, void *dst, size_t dpitch, size_t esize, size_t count);
};

/* What every transport's object starts with. */
struct gshmemi_transport {
    const struct gshmemi_transport_ops *ops; /* every op set (the optional ones' stubs filled) */
};

extern const struct gshmemi_transport_ops gshmemi_tcp_ops;
extern const struct gshmemi_transport_ops gshmemi_ibrc_ops; /* built with libibverbs */

/* The transport in use (NULL where every peer is mapped). */
extern struct gshmemi_transport *gshmemi_transport;

/* Opens the transport for the PEs this PE has not mapped (collective). */
int gshmemi_transport_init(void);
void gshmemi_transport_fini(void);

/* put_strided's stub, and a transport's own for the shapes it has no frame
 * for: where the elements are contiguous at the target (dpitch == esize),
 * one put per chunk of them packed (host memory), else one put each. */
int gshmemi_transport_put_packed(struct gshmemi_transport *t, const char *call, int pe,
                                 uint64_t off, size_t dpitch, const void *src, size_t spitch,
                                 size_t esize, size_t count);
/* get_strided's stub, and a transport's own for the shapes it has no frame
 * for: where the elements are contiguous at pe (spitch == esize), one get
 * per chunk of them, spread from host memory, else one get each. */
int gshmemi_transport_get_packed(struct gshmemi_transport *t, const char *call, int pe,
                                 uint64_t off, size_t spitch, void *dst, size_t dpitch,
                                 size_t esize, size_t count);
/* Host memory for count elements of esize bytes packed, for pe's call;
 * NULL (logged) when there is none. */
void *gshmemi_transport_pack_buffer(const char *call, int pe, size_t count, size_t esize);
/* count elements of esize bytes from src (host or GPU memory) at byte
 * pitch spitch into buf (host memory), packed. */
void gshmemi_transport_gather(const char *call, void *buf, const void *src, size_t spitch,
                              size_t esize, size_t count);
/* count elements of esize bytes in buf (host memory) at byte pitch bpitch
 * (esize: packed) to dst (host or GPU memory) at byte pitch dpitch. */
void gshmemi_transport_scatter(const char *call, void *dst, size_t dpitch, const void *buf,
                               size_t bpitch, size_t esize, size_t count);

/* The host API's calls: the operation on the transport in use; a failure
 * (logged where it arose) ends the job. */
static inline void gshmemi_transport_check(const char *call, int st)
{
    if (GSHMEMI_UNLIKELY(st != 0))
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
}
static inline void gshmemi_transport_put(const char *call, int pe, uint64_t off, const void *src,
                                         size_t n)
{
    struct gshmemi_transport *t = gshmemi_transport;
    gshmemi_transport_check(call, t->ops->put(t, call, pe, off, src, n));
}
static inline void gshmemi_transport_put_strided(const char *call, int pe, uint64_t off,
                                                 size_t dpitch, const void *src, size_t spitch,
                                                 size_t esize, size_t count)
{
    struct gshmemi_transport *t = gshmemi_transport;
    gshmemi_transport_check(call, t->ops->put_strided(t, call, pe, off, dpitch, src, spitch,
                                                      esize, count));
}
static inline void gshmemi_transport_get_strided(const char *call, int pe, uint64_t off,
                                                 size_t spitch, void *dst, size_t dpitch,
                                                 size_t esize, size_t count)
{
    struct gshmemi_transport *t = gshmemi_transport;
    gshmemi_transport_check(call, t->ops->get_strided(t, call, pe, off, spitch, dst, dpitch,
                                                      esize, count));
}
static inline void gshmemi_transport_get(const char *call, int pe, uint64_t off, void *dst,
                                         size_t n)
{
    struct gshmemi_transport *t = gshmemi_transport;
    gshmemi_transport_check(call, t->ops->get(t, call, pe, off, dst, n));
}
/* The old value when fetch, else 0. */
static inline uint64_t gshmemi_transport_atomic(const char *call, int pe, uint64_t off, int op,
                                                size_t size, uint64_t a, uint64_t b, int fetch)
{
    struct gshmemi_transport *t = gshmemi_transport;
    uint64_t old = 0;
    gshmemi_transport_check(call, t->ops->atomic(t, call, pe, off, op, size, a, b,
                                                 fetch ? &old : NULL));
    return old;
}
static inline void gshmemi_transport_signal(const char *call, int pe, uint64_t off,
                                            uint64_t value, int op)
{
    struct gshmemi_transport *t = gshmemi_transport;
    gshmemi_transport_check(call, t->ops->signal(t, call, pe, off, value, op));
}
static inline void gshmemi_transport_ctrl_add(const char *call, int pe, size_t word,
                                              uint64_t value)
{
    struct gshmemi_transport *t = gshmemi_transport;
    gshmemi_transport_check(call, t->ops->ctrl_add(t, call, pe, word, value));
}
static inline void gshmemi_transport_quiet(const char *call)
{
    struct gshmemi_transport *t = gshmemi_transport;
    if (t != NULL)
        gshmemi_transport_check(call, t->ops->quiet(t, call));
}
static inline void gshmemi_transport_fence(const char *call)
{
    struct gshmemi_transport *t = gshmemi_transport;
    if (t != NULL)
        gshmemi_transport_check(call, t->ops->fence(t));
}

#endif
