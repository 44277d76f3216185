/* Host put/get/p/g/iput/iget and their nbi and signal forms.  Mapped peers
 * are reached with plain copies into their mapping; every typed family is
 * generated from the type and operation tables of gshmem_types.h. */
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "rma/rma.h"

/* Mapped peers through the heap's access (a copy engine's copy on the
 * GPU heap, waited for unless non-blocking), the others through the
 * transport. */
static inline void rma_put(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                           int blocking)
{
    const struct gshmemi_heap_access *access;
    char *r;
    if (!gshmemi_rma_resolve(call, "dest", dest, "source", src, nbytes, pe, &r, &access))
        return;
    if (GSHMEMI_UNLIKELY(r == NULL))
        gshmemi_transport_put(call, pe, gshmemi_rma_off(dest), src, nbytes);
    else
        access->copy(call, r, src, nbytes, blocking);
}

static inline void rma_get(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                           int blocking)
{
    const struct gshmemi_heap_access *access;
    char *r;
    if (!gshmemi_rma_resolve(call, "source", src, "dest", dest, nbytes, pe, &r, &access))
        return;
    if (GSHMEMI_UNLIKELY(r == NULL))
        gshmemi_transport_get(call, pe, gshmemi_rma_off(src), dest, nbytes);
    else
        access->copy(call, dest, r, nbytes, blocking);
}

/* Bytes spanned by nelems elements at a stride: ((nelems-1)*stride+1)*esize. */
static inline size_t strided_span(const char *call, size_t nelems, ptrdiff_t stride, size_t esize)
{
    size_t span;
    if (GSHMEMI_UNLIKELY(stride <= 0))
        gshmemi_rma_fail(call, "stride %td is not positive", stride);
    if (__builtin_mul_overflow(nelems - 1, (size_t)stride, &span) ||
        __builtin_add_overflow(span, 1, &span) || __builtin_mul_overflow(span, esize, &span))
        gshmemi_rma_fail(call, "%zu elements at stride %td overflow the address space", nelems,
                         stride);
    return span;
}

static inline void rma_iput(const char *call, void *dest, const void *src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t nelems, size_t esize, int pe)
{
    if (nelems == 0) {
        gshmemi_rma_check_pe(call, pe);
        return;
    }
    size_t dspan = strided_span(call, nelems, dst, esize);
    (void)strided_span(call, nelems, sst, esize);
    if (nelems == 1) /* any stride, however large (its bytes may wrap): one element */
        dst = sst = 1;
    const struct gshmemi_heap_access *access;
    char *r = gshmemi_rma_sym_target(call, "dest", dest, dspan, pe, &access);
    const char *s = src;
    gshmemi_rma_check_local(call, "source", src, 1);
    if (r == NULL) /* packed, not a message an element */
        gshmemi_transport_put_strided(call, pe, gshmemi_rma_off(dest), (size_t)dst * esize, s,
                                      (size_t)sst * esize, esize, nelems);
    else
        access->copy_strided(call, r, (size_t)dst * esize, s, (size_t)sst * esize, esize, nelems,
                             1);
}

static inline void rma_iget(const char *call, void *dest, const void *src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t nelems, size_t esize, int pe)
{
    if (nelems == 0) {
        gshmemi_rma_check_pe(call, pe);
        return;
    }
    size_t sspan = strided_span(call, nelems, sst, esize);
    (void)strided_span(call, nelems, dst, esize);
    if (nelems == 1) /* any stride, however large (its bytes may wrap): one element */
        dst = sst = 1;
    const struct gshmemi_heap_access *access;
    const char *r = gshmemi_rma_sym_target(call, "source", src, sspan, pe, &access);
    char *d = dest;
    gshmemi_rma_check_local(call, "dest", dest, 1);
    if (r == NULL) /* packed, not a message an element */
        gshmemi_transport_get_strided(call, pe, gshmemi_rma_off(src), (size_t)sst * esize, d,
                                      (size_t)dst * esize, esize, nelems);
    else
        access->copy_strided(call, d, (size_t)dst * esize, r, (size_t)sst * esize, esize, nelems,
                             1);
}

void gshmemi_signal_op(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    const struct gshmemi_heap_access *access;
    uint64_t *r = (uint64_t *)gshmemi_rma_atomic_target(call, "sig_addr", sig_addr,
                                                        sizeof(*sig_addr), pe, &access);
    gshmemi_rma_check_aligned(call, "sig_addr", sig_addr, sizeof(*sig_addr));
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        gshmemi_rma_fail(call, "sig_op %d is neither GSHMEM_SIGNAL_SET nor GSHMEM_SIGNAL_ADD",
                         sig_op);
    /* A signal in host memory (static data), or through the transport, after
     * puts into a GPU heap's mapping on the runtime's stream: the puts land
     * first, or a flag could be seen before the data. */
    if (!gshmemi_heap.access->host_direct && gshmemi_heap.slot_of_pe[pe] >= 0 &&
        (r == NULL || access->host_direct))
        gshmemi_heap.access->quiet(call);
    if (r == NULL) /* after the puts to pe: the connection keeps order */
        gshmemi_transport_signal(call, pe, gshmemi_rma_off(sig_addr), signal,
                                  sig_op == GSHMEM_SIGNAL_SET ? 0 : 1);
    else /* a release: the data put before the signal is seen before it */
        access->signal(call, r, signal, sig_op == GSHMEM_SIGNAL_SET ? 0 : 1);
}

static inline void rma_put_signal(const char *call, void *dest, const void *src, size_t nbytes,
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                  int blocking)
{
    /* Check the signal before moving data, so a bad call changes nothing. */
    const struct gshmemi_heap_access *access;
    (void)gshmemi_rma_sym_target(call, "sig_addr", sig_addr, sizeof(*sig_addr), pe, &access);
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        gshmemi_rma_fail(call, "sig_op %d is neither GSHMEM_SIGNAL_SET nor GSHMEM_SIGNAL_ADD",
                         sig_op);
    rma_put(call, dest, src, nbytes, pe, 0);
    gshmemi_signal_op(call, sig_addr, signal, sig_op, pe);
    if (blocking) /* the source may be reused on return */
        gshmemi_heap.access->quiet(call);
}

/* ---- GSHMEM_FOR_RMA_OPS in the typed, sized and mem forms --------------
 * One definition per shape: F the function, T its pointers' type (void for
 * the sized and mem forms), E the element moved (the mem forms': char, one
 * byte), NBI 1 for the forms that return before the data has moved. */

#define DEF_PUT(F, NBI, T, E)                                                                     \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, int pe)                            \
    {                                                                                             \
        rma_put(__func__, dest, source, gshmemi_rma_bytes(__func__, nelems, sizeof(E)), pe, !NBI); \
    }
#define DEF_GET(F, NBI, T, E)                                                                     \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, int pe)                            \
    {                                                                                             \
        rma_get(__func__, dest, source, gshmemi_rma_bytes(__func__, nelems, sizeof(E)), pe, !NBI); \
    }
#define DEF_P(F, NBI, T, E)                                                                       \
    GSHMEM_API void F(T *dest, T value, int pe)                                                   \
    {                                                                                             \
        rma_put(__func__, dest, &value, sizeof(T), pe, 1);                                        \
    }
#define DEF_G(F, NBI, T, E)                                                                       \
    GSHMEM_API T F(const T *source, int pe)                                                       \
    {                                                                                             \
        T value;                                                                                  \
        rma_get(__func__, &value, source, sizeof(T), pe, 1);                                      \
        return value;                                                                             \
    }
#define DEF_IPUT(F, NBI, T, E)                                                                    \
    GSHMEM_API void F(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                      int pe)                                                                     \
    {                                                                                             \
        rma_iput(__func__, dest, source, dst, sst, nelems, sizeof(E), pe);                        \
    }
#define DEF_IGET(F, NBI, T, E)                                                                    \
    GSHMEM_API void F(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                      int pe)                                                                     \
    {                                                                                             \
        rma_iget(__func__, dest, source, dst, sst, nelems, sizeof(E), pe);                        \
    }
#define DEF_PUT_SIGNAL(F, NBI, T, E)                                                              \
    GSHMEM_API void F(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,                \
                      uint64_t signal, int sig_op, int pe)                                        \
    {                                                                                             \
        rma_put_signal(__func__, dest, source, gshmemi_rma_bytes(__func__, nelems, sizeof(E)),    \
                       sig_addr, signal, sig_op, pe, !NBI);                                       \
    }

#define DEF_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    DEF_##SHAPE(gshmem_##NAME##_##STEM##TAIL, NBI, TYPE, TYPE)
#define DEF_RMA(NAME, TYPE, G) GSHMEM_FOR_RMA_OPS(DEF_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(DEF_RMA)
GSHMEM_FOR_RMA_HOST_TYPES(DEF_RMA)

#define DEF_SIZED(STEM, TAIL, SHAPE, NBI, BITS, TYPE) \
    GSHMEMI_RMA_SIZED_##SHAPE(NBI, DEF_##SHAPE(gshmem_##STEM##BITS##TAIL, NBI, void, TYPE))
#define DEF_RMA_SIZED(BITS, TYPE) GSHMEM_FOR_RMA_OPS(DEF_SIZED, BITS, TYPE)
GSHMEM_FOR_RMA_SIZES(DEF_RMA_SIZED)

#define DEF_MEM(STEM, TAIL, SHAPE, NBI, A, B) \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, DEF_##SHAPE(gshmem_##STEM##mem##TAIL, NBI, void, char))
GSHMEM_FOR_RMA_OPS(DEF_MEM, , )

GSHMEM_API void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    gshmemi_signal_op(__func__, sig_addr, signal, sig_op, pe);
}

void gshmemi_rma_put(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                     int blocking)
{
    rma_put(call, dest, src, nbytes, pe, blocking);
}

void gshmemi_rma_iput(const char *call, void *dest, const void *src, ptrdiff_t dst,
                      ptrdiff_t sst, size_t nelems, size_t esize, int pe)
{
    rma_iput(call, dest, src, dst, sst, nelems, esize, pe);
}

void gshmemi_rma_get(const char *call, void *dest, const void *src, size_t nbytes, int pe,
                     int blocking)
{
    rma_get(call, dest, src, nbytes, pe, blocking);
}
