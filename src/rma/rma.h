/* The rma module to other modules: always-on argument checks of host
 * operations, cheap enough for every call, and the remote-address lookup.
 * A failed check logs the call, the PE and the reason, and ends the job. */
#ifndef GSHMEMI_RMA_H
#define GSHMEMI_RMA_H

#include <stddef.h>

#include "core/api.h"
#include "core/runtime.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "heap/static_data.h"
#include "transport/transport.h"

/* Ends the job after logging `call: <formatted reason>`. */
void gshmemi_rma_fail(const char *call, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 2, 3)));
/* Slow path of gshmemi_rma_sym_target: the range in the static data (its
 * address at pe as there, access set), else the job ends saying why. */
char *gshmemi_rma_static_target(const char *call, const char *what, const void *addr, size_t len,
                                int pe, const struct gshmemi_heap_access **access);
/* Slow path: finds and reports what is wrong with a symmetric range. */
void gshmemi_rma_bad_symmetric(const char *call, const char *what, const void *addr, size_t len,
                               int pe, int heap_only) __attribute__((noreturn, cold));

/* The address at pe of the range [addr, addr+len) of the symmetric heap,
 * or NULL where pe's heap is not mapped and the transport reaches it (at
 * the heap offset addr - my_base).  Bad arguments end the job.  For the
 * forms whose memory must be the heap's (stream-ordered, collectives'
 * scratch); host RMA takes gshmemi_rma_sym_target. */
/* Whether [addr, addr+len) lies in the heap, with pe valid and reachable. */
static inline int gshmemi_rma_heap_ok(const void *addr, size_t len, int pe)
{
    const struct gshmemi_heap *h = &gshmemi_heap;
    const char *p = addr;
    return gshmemi_rt.initialized && (unsigned)pe < (unsigned)gshmemi_rt.n_pes &&
           p >= h->my_base && p < h->my_base + h->size &&
           len <= (size_t)(h->my_base + h->size - p) &&
           (h->slot_of_pe[pe] >= 0 || gshmemi_transport != NULL);
}

static inline char *gshmemi_rma_target(const char *call, const char *what, const void *addr,
                                       size_t len, int pe)
{
    if (GSHMEMI_UNLIKELY(!gshmemi_rma_heap_ok(addr, len, pe)))
        gshmemi_rma_bad_symmetric(call, what, addr, len, pe, 1);
    return (char *)gshmemi_heap_peer_addr(addr, pe);
}

/* Like gshmemi_rma_target, for the host forms, which also reach the
 * program's static data: *access says how to reach the returned address
 * (the heap's, or host code's own for static data). */
static inline char *gshmemi_rma_sym_target(const char *call, const char *what, const void *addr,
                                           size_t len, int pe,
                                           const struct gshmemi_heap_access **access)
{
    if (GSHMEMI_UNLIKELY(!gshmemi_rma_heap_ok(addr, len, pe)))
        return gshmemi_rma_static_target(call, what, addr, len, pe, access);
    *access = gshmemi_heap.access;
    return (char *)gshmemi_heap_peer_addr(addr, pe);
}

/* Like gshmemi_rma_sym_target, for atomics and signals: NULL (the transport)
 * also for this PE itself when the transport's atomics are the NIC's, which
 * are atomic only among themselves. */
static inline char *gshmemi_rma_atomic_target(const char *call, const char *what, const void *addr,
                                              size_t len, int pe,
                                              const struct gshmemi_heap_access **access)
{
    char *r = gshmemi_rma_sym_target(call, what, addr, len, pe, access);
    if (GSHMEMI_UNLIKELY(gshmemi_transport != NULL && gshmemi_transport->ops->nic_atomics &&
                         pe == gshmemi_rt.my_pe)) {
        gshmemi_gpu_fence_wait(call); /* after a fence on a GPU heap, its copies first */
        return NULL;
    }
    return r;
}

static inline void gshmemi_rma_check_pe(const char *call, int pe)
{
    if (GSHMEMI_UNLIKELY(!gshmemi_rt.initialized || (unsigned)pe >= (unsigned)gshmemi_rt.n_pes))
        gshmemi_rma_bad_symmetric(call, "dest", NULL, 0, pe, 0);
}

/* A local (not necessarily symmetric) buffer. */
static inline void gshmemi_rma_check_local(const char *call, const char *what, const void *addr,
                                           size_t len)
{
    if (GSHMEMI_UNLIKELY(addr == NULL && len > 0))
        gshmemi_rma_fail(call, "%s is NULL with %zu bytes to transfer", what, len);
}

/* The checks of a transfer of n bytes between pe's copy of the symmetric
 * `sym` and the local buffer `local` (each named as the call names it):
 * returns 0 when there is nothing to move (pe checked), else 1 with
 * *remote set to pe's copy as mapped here (NULL: through the transport)
 * and *access to how it is reached (access NULL: sym must be in the heap). */
static inline int gshmemi_rma_resolve(const char *call, const char *sym_what, const void *sym,
                                      const char *local_what, const void *local, size_t n, int pe,
                                      char **remote, const struct gshmemi_heap_access **access)
{
    if (n == 0) {
        gshmemi_rma_check_pe(call, pe);
        return 0;
    }
    if (access == NULL) /* a stream-ordered form: the heap only */
        *remote = gshmemi_rma_target(call, sym_what, sym, n, pe);
    else
        *remote = gshmemi_rma_sym_target(call, sym_what, sym, n, pe, access);
    gshmemi_rma_check_local(call, local_what, local, n);
    return 1;
}

/* The symmetric offset of a checked symmetric address (for the transport). */
static inline uint64_t gshmemi_rma_off(const void *addr)
{
    return gshmemi_sym_off(addr);
}

/* nelems * esize, or the job ends naming the call. */
static inline size_t gshmemi_rma_bytes(const char *call, size_t nelems, size_t esize)
{
    size_t bytes;
    if (GSHMEMI_UNLIKELY(__builtin_mul_overflow(nelems, esize, &bytes)))
        gshmemi_rma_fail(call, "%zu elements of %zu bytes overflow the address space", nelems, esize);
    return bytes;
}

/* The stream-ordered forms need the heap in GPU memory. */
static inline void gshmemi_rma_need_device_heap(const char *call)
{
    if (GSHMEMI_UNLIKELY(!gshmemi_heap.on_device))
        gshmemi_rma_fail(call, "needs the symmetric heap in GPU memory (GSHMEM_HEAP=device or "
                         "auto on a machine with a GPU)");
}

static inline void gshmemi_rma_check_aligned(const char *call, const char *what,
                                             const void *addr, size_t align)
{
    if (GSHMEMI_UNLIKELY(((size_t)addr & (align - 1)) != 0))
        gshmemi_rma_fail(call, "%s %p is not aligned to %zu bytes", what, addr, align);
}

/* A signal operation (set or add) on pe's copy of sig_addr, ordered after
 * every put this thread issued to pe before it. */
void gshmemi_signal_op(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/* An atomic for the layers above: op (GSHMEMI_AMO_*) on pe's copy of the
 * size-byte word at dest (4 or 8), operands *a and *b (NULL: 0), checked
 * as the user's atomics are.  With old, it has completed on return and
 * *old holds the word's value before; without, the next quiet completes it. */
void gshmemi_rma_atomic(const char *call, void *dest, int pe, int op, size_t size, const void *a,
                        const void *b, void *old);

/* putmem and getmem for the layers above (collectives), checked as the
 * user's calls are; blocking waits for a copy engine's copy, else the next
 * quiet completes it. */
void gshmemi_rma_put(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                     int blocking);
void gshmemi_rma_get(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                     int blocking);
/* nelems elements of esize bytes at element strides dst and sst (blocking). */
void gshmemi_rma_iput(const char *call, void *dest, const void *src, ptrdiff_t dst,
                      ptrdiff_t sst, size_t nelems, size_t esize, int pe);

/* Releases every buffer the application left registered (gshmem_finalize). */
void gshmemi_buffers_release(void);

#endif
