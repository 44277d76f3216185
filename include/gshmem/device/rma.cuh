/* gshmem device API, part of gshmem_device.cuh: put, get, p, g, iput,
 * iget and put_signal, their internals and the public functions, thread,
 * warp and block forms. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/rma.cuh>"
#endif
#ifndef GSHMEM_DEVICE_RMA_CUH
#define GSHMEM_DEVICE_RMA_CUH

namespace {

template <typename T>
__device__ __forceinline__ void gshmemi_p(const char *call, T *dest, T value, int pe)
{
    T *d = reinterpret_cast<T *>(gshmemi_lookup(call, dest, sizeof(T), pe));
    if (d != nullptr) {
        *d = value;
    } else {
        uint64_t bits = 0;
        memcpy(&bits, &value, sizeof(T));
        gshmemi_push1(call, pe, GSHMEMI_REQ_PUT_INLINE, 0, static_cast<int>(sizeof(T)),
                      gshmemi_heap_off(dest), bits, 0, 0, 2);
    }
}

/* The proxy's halves of a put and of a get.  A blocking call returns when
 * the proxy has read the source (put) or written the destination (get). */
__device__ __forceinline__ void gshmemi_proxy_put_now(const char *call, void *dest, const void *src,
                                                     size_t bytes, int pe, bool wait)
{
    const uint64_t r = gshmemi_proxy_put(call, dest, src, bytes, pe);
    if (wait && r != GSHMEMI_REQ_NONE)
        gshmemi_proxy_wait(call, r);
}

__device__ __forceinline__ void gshmemi_proxy_get_now(const char *call, void *dest, const void *src,
                                                     size_t bytes, int pe, bool wait)
{
    if (!__isGlobal(dest)) {
        gshmemi_proxy_get_small(call, dest, src, bytes, pe); /* done at once, even nbi */
    } else if (bytes > 0) {
        const uint64_t w[3] = {gshmemi_heap_off(src), reinterpret_cast<uint64_t>(dest), bytes};
        const uint64_t r = gshmemi_push(call, pe, GSHMEMI_REQ_GET, 0, 0, w, 3);
        if (wait)
            gshmemi_proxy_wait(call, r);
    }
}

/* The same out of line, for the API's puts and gets: inlined, they made
 * every mapped put and get called in a kernel's loop slower.  The
 * collectives keep them inline (OUTLINE false): a call in the stream
 * kernel that also runs the flag-packet algorithms slowed those. */
__device__ __noinline__ void gshmemi_proxy_put_cold(const char *call, void *dest, const void *src,
                                                   size_t bytes, int pe, bool wait)
{
    gshmemi_proxy_put_now(call, dest, src, bytes, pe, wait);
}

__device__ __noinline__ void gshmemi_proxy_get_cold(const char *call, void *dest, const void *src,
                                                   size_t bytes, int pe, bool wait)
{
    gshmemi_proxy_get_now(call, dest, src, bytes, pe, wait);
}

/* The proxy's half of a group's put: one request for the group, once the
 * group's source is written. */
template <int SCOPE, bool NBI, bool OUTLINE>
__device__ __forceinline__ void gshmemi_proxy_put_group(const char *call, void *dest, const void *src,
                                                     size_t bytes, int pe)
{
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_group_sync<SCOPE>();
    if (lane == 0 && OUTLINE)
        gshmemi_proxy_put_cold(call, dest, src, bytes, pe, !NBI);
    else if (lane == 0)
        gshmemi_proxy_put_now(call, dest, src, bytes, pe, !NBI);
}

/* A blocking group call returns together (the source may then be reused
 * by any thread of the group); an nbi one does not wait for the group, so
 * its warps keep more stores in flight (completion is quiet's).  OUTLINE:
 * the proxy's half out of line (above). */
template <int SCOPE, bool NBI = false, bool OUTLINE = true>
__device__ __forceinline__ void gshmemi_put(const char *call, void *dest, const void *src,
                                            size_t bytes, int pe)
{
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    char *d = gshmemi_lookup(call, dest, bytes, pe);
    if (d != nullptr)
        gshmemi_copy<SCOPE == GSHMEMI_THREAD, SCOPE == GSHMEMI_BLOCK>(d, static_cast<const char *>(src),
                                                                      bytes, lane, n);
    else
        gshmemi_proxy_put_group<SCOPE, NBI, OUTLINE>(call, dest, src, bytes, pe);
    if (!NBI)
        gshmemi_group_sync<SCOPE>();
}

template <int SCOPE, bool NBI = false, bool OUTLINE = true>
__device__ __forceinline__ void gshmemi_get(const char *call, void *dest, const void *src,
                                            size_t bytes, int pe)
{
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    const char *s = gshmemi_lookup(call, src, bytes, pe);
    if (s != nullptr) {
        gshmemi_copy<SCOPE == GSHMEMI_THREAD, SCOPE == GSHMEMI_BLOCK>(static_cast<char *>(dest), s, bytes,
                                                                      lane, n);
    } else if (lane == 0 && OUTLINE) {
        gshmemi_proxy_get_cold(call, dest, src, bytes, pe, !NBI);
    } else if (lane == 0) {
        gshmemi_proxy_get_now(call, dest, src, bytes, pe, !NBI);
    }
    if (!NBI)
        gshmemi_group_sync<SCOPE>();
}

/* Returns the proxy request's number, or GSHMEMI_REQ_NONE for a mapped PE.
 * RELEASE: put_signal's signal, ordered after the data put before it.  A
 * standalone signal_op is a relaxed atomic update (OpenSHMEM, NVSHMEM):
 * gshmem_fence or gshmem_quiet orders earlier puts before it, and a
 * release on every call would cost each one a fence's wait. */
template <bool RELEASE>
__device__ __forceinline__ uint64_t gshmemi_signal(const char *call, uint64_t *sig, uint64_t value,
                                                   int op, int pe)
{
    gshmemi_check_aligned(call, pe, sig, 8);
    unsigned long long *p = reinterpret_cast<unsigned long long *>(gshmemi_lookup(call, sig, 8, pe));
    if (p == nullptr)
        return gshmemi_push1(call, pe, GSHMEMI_REQ_SIGNAL, op == GSHMEM_SIGNAL_ADD ? 1 : 0, 8,
                             gshmemi_heap_off(sig), value, 0, 0, 2);
    if (RELEASE && op == GSHMEM_SIGNAL_ADD)
        asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
    else if (RELEASE)
        asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
    else if (op == GSHMEM_SIGNAL_ADD)
        asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
    else
        asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
    return GSHMEMI_REQ_NONE;
}

template <int SCOPE, bool NBI = false>
__device__ __forceinline__ void gshmemi_put_signal(const char *call, void *dest, const void *src,
                                                   size_t bytes, uint64_t *sig, uint64_t value,
                                                   int op, int pe)
{
    /* Through the proxy the signal's request follows the data's, and the
     * target applies them in that order. */
    gshmemi_put<SCOPE, true>(call, dest, src, bytes, pe);
    gshmemi_group_sync<SCOPE>();
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    /* The release is cumulative: it covers the group's stores, which the
     * group barrier above ordered before it. */
    if (lane == 0) {
        const uint64_t r = gshmemi_signal<true>(call, sig, value, op, pe);
        if (!NBI && r != GSHMEMI_REQ_NONE)
            gshmemi_proxy_wait(call, r); /* the source may be reused */
    }
    gshmemi_group_sync<SCOPE>();
}

/* A load that reaches memory every time (relaxed, system scope), for any
 * type up to 8 bytes (half and bfloat16 have no volatile copy). */
template <typename T>
__device__ __forceinline__ T gshmemi_vload(const T *p)
{
    typedef typename std::conditional<
        sizeof(T) == 1, uint8_t,
        typename std::conditional<sizeof(T) == 2, uint16_t,
                                  typename std::conditional<sizeof(T) == 4, uint32_t,
                                                            uint64_t>::type>::type>::type U;
    static_assert(sizeof(U) == sizeof(T), "gshmemi_vload: 1, 2, 4 or 8 bytes");
    U u = *reinterpret_cast<const volatile U *>(p);
    T v;
    memcpy(&v, &u, sizeof(T));
    return v;
}

/* g: a load of the mapped word, or the proxy's answer. */
template <typename T>
__device__ __forceinline__ T gshmemi_g(const char *call, const T *src, int pe)
{
    const T *p = reinterpret_cast<const T *>(gshmemi_lookup(call, src, sizeof(T), pe));
    if (p != nullptr)
        return gshmemi_vload(p);
    const uint64_t v = gshmemi_proxy_g(call, src, sizeof(T), pe);
    T t;
    memcpy(&t, &v, sizeof(T));
    return t;
}

/* A strided transfer through the proxy, one request for every element
 * (GSHMEMI_REQ_IPUT or _IGET: the remote side's heap offset and pitch,
 * this side's address and pitch), waited for: out of line, as the proxy
 * halves of put and get. */
__device__ __noinline__ void gshmemi_proxy_strided(const char *call, int kind, int size, int pe,
                                                   uint64_t off, uint64_t remote_pitch,
                                                   const void *local, uint64_t local_pitch,
                                                   size_t nelems)
{
    const uint64_t w[5] = {off, reinterpret_cast<uint64_t>(local), nelems, remote_pitch,
                           local_pitch};
    gshmemi_proxy_wait(call, gshmemi_push(call, pe, kind, 0, size, w, 5));
}

/* Strided put and get: element by element where the peer is mapped.
 * Through the proxy, one request for them all where it can reach this
 * side's memory (global memory), the strides are positive and, for a put,
 * a contiguous put of as many bytes would also pass its source by address
 * (the call returns once the proxy has read it); else a request an element
 * (the elements travel inside the requests, or come back in cells). */
template <typename T>
__device__ __forceinline__ void gshmemi_iput(const char *call, T *dest, const T *src, ptrdiff_t dst,
                                             ptrdiff_t sst, size_t nelems, int pe)
{
    if (nelems == 0)
        return;
    T *d = reinterpret_cast<T *>(gshmemi_lookup(call, dest, ((nelems - 1) * dst + 1) * sizeof(T), pe));
    if (d == nullptr && dst > 0 && sst > 0 && nelems * sizeof(T) > GSHMEMI_REQ_INLINE_MAX &&
        __isGlobal(src)) {
        gshmemi_proxy_strided(call, GSHMEMI_REQ_IPUT, sizeof(T), pe, gshmemi_heap_off(dest),
                              dst * sizeof(T), src, sst * sizeof(T), nelems);
        return;
    }
    for (size_t i = 0; i < nelems; i++) {
        if (d != nullptr)
            d[i * dst] = src[i * sst];
        else
            gshmemi_proxy_put(call, dest + i * dst, &src[i * sst], sizeof(T), pe);
    }
}

template <typename T>
__device__ __forceinline__ void gshmemi_iget(const char *call, T *dest, const T *src, ptrdiff_t dst,
                                             ptrdiff_t sst, size_t nelems, int pe)
{
    if (nelems == 0)
        return;
    const T *s = reinterpret_cast<const T *>(
        gshmemi_lookup(call, src, ((nelems - 1) * sst + 1) * sizeof(T), pe));
    if (s == nullptr && dst > 0 && sst > 0 && nelems > 1 && __isGlobal(dest)) {
        gshmemi_proxy_strided(call, GSHMEMI_REQ_IGET, sizeof(T), pe, gshmemi_heap_off(src),
                              sst * sizeof(T), dest, dst * sizeof(T), nelems);
        return;
    }
    for (size_t i = 0; i < nelems; i++) {
        if (s != nullptr) {
            dest[i * dst] = s[i * sst];
        } else {
            const uint64_t v = gshmemi_proxy_g(call, src + i * sst, sizeof(T), pe);
            memcpy(&dest[i * dst], &v, sizeof(T));
        }
    }
}

} // namespace

/* ---- the API ------------------------------------------------------------
 * GSHMEM_FOR_RMA_OPS in the typed, sized and mem forms, and the warp and
 * block forms of put, get and put_signal (GSHMEMI_RMA_GROUP_<SHAPE>).  One
 * definition per shape: F the function, SCOPE the threads that call it
 * together, NBI 1 for the forms that return before the data has moved, T
 * the pointers' type (void for the sized and mem forms), E the element
 * moved (the mem forms': char, one byte). */

#define GSHMEMI_DEV_RMA_PUT(F, SCOPE, NBI, T, E)                                                   \
    __device__ inline void F(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                              \
        gshmemi_put<SCOPE, NBI>(#F, dest, source, nelems * sizeof(E), pe);                         \
    }
#define GSHMEMI_DEV_RMA_GET(F, SCOPE, NBI, T, E)                                                   \
    __device__ inline void F(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                              \
        gshmemi_get<SCOPE, NBI>(#F, dest, source, nelems * sizeof(E), pe);                         \
    }
#define GSHMEMI_DEV_RMA_P(F, SCOPE, NBI, T, E)                                                     \
    __device__ inline void F(T *dest, T value, int pe) { gshmemi_p(#F, dest, value, pe); }
#define GSHMEMI_DEV_RMA_G(F, SCOPE, NBI, T, E)                                                     \
    __device__ inline T F(const T *source, int pe) { return gshmemi_g(#F, source, pe); }
#define GSHMEMI_DEV_RMA_IPUT(F, SCOPE, NBI, T, E)                                                  \
    __device__ inline void F(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,               \
                             size_t nelems, int pe)                                                \
    {                                                                                              \
        gshmemi_iput(#F, static_cast<E *>(dest), static_cast<const E *>(source), dst, sst,         \
                     nelems, pe);                                                                  \
    }
#define GSHMEMI_DEV_RMA_IGET(F, SCOPE, NBI, T, E)                                                  \
    __device__ inline void F(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,               \
                             size_t nelems, int pe)                                                \
    {                                                                                              \
        gshmemi_iget(#F, static_cast<E *>(dest), static_cast<const E *>(source), dst, sst,         \
                     nelems, pe);                                                                  \
    }
#define GSHMEMI_DEV_RMA_PUT_SIGNAL(F, SCOPE, NBI, T, E)                                            \
    __device__ inline void F(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,          \
                             uint64_t signal, int sig_op, int pe)                                  \
    {                                                                                              \
        gshmemi_put_signal<SCOPE, NBI>(#F, dest, source, nelems * sizeof(E), sig_addr, signal,     \
                                       sig_op, pe);                                                \
    }

#ifdef __CUDA_ARCH__
extern "C" {

#define GSHMEMI_DEV_RMA_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    GSHMEMI_DEV_RMA_##SHAPE(gshmem_##NAME##_##STEM##TAIL, GSHMEMI_THREAD, NBI, TYPE, TYPE)
#define GSHMEMI_DEV_RMA(NAME, TYPE, G) GSHMEM_FOR_RMA_OPS(GSHMEMI_DEV_RMA_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_RMA)
#undef GSHMEMI_DEV_RMA
#undef GSHMEMI_DEV_RMA_TYPED

#define GSHMEMI_DEV_RMA_SIZED_OP(STEM, TAIL, SHAPE, NBI, BITS, TYPE)                         \
    GSHMEMI_RMA_SIZED_##SHAPE(NBI, GSHMEMI_DEV_RMA_##SHAPE(gshmem_##STEM##BITS##TAIL,        \
                                                           GSHMEMI_THREAD, NBI, void, TYPE))
#define GSHMEMI_DEV_RMA_SIZED(BITS, TYPE) GSHMEM_FOR_RMA_OPS(GSHMEMI_DEV_RMA_SIZED_OP, BITS, TYPE)
GSHMEM_FOR_RMA_SIZES(GSHMEMI_DEV_RMA_SIZED)
#undef GSHMEMI_DEV_RMA_SIZED
#undef GSHMEMI_DEV_RMA_SIZED_OP

#define GSHMEMI_DEV_RMA_MEM(STEM, TAIL, SHAPE, NBI, A, B)                                    \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, GSHMEMI_DEV_RMA_##SHAPE(gshmem_##STEM##mem##TAIL,           \
                                                         GSHMEMI_THREAD, NBI, void, char))
GSHMEM_FOR_RMA_OPS(GSHMEMI_DEV_RMA_MEM, , )
#undef GSHMEMI_DEV_RMA_MEM

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

/* ---- warp and block forms (device only) ---------------------------------
 * Every thread of the warp (block) calls with the same arguments; the copy
 * is split across them. */
#define GSHMEMI_DEV_RMA_MEM_WARP(STEM, TAIL, SHAPE, NBI, A, B)                               \
    GSHMEMI_RMA_GROUP_##SHAPE(NBI, GSHMEMI_DEV_RMA_##SHAPE(gshmemx_##STEM##mem##TAIL##_warp, \
                                                           GSHMEMI_WARP, NBI, void, char))
#define GSHMEMI_DEV_RMA_MEM_BLOCK(STEM, TAIL, SHAPE, NBI, A, B)                              \
    GSHMEMI_RMA_GROUP_##SHAPE(NBI, GSHMEMI_DEV_RMA_##SHAPE(gshmemx_##STEM##mem##TAIL##_block, \
                                                           GSHMEMI_BLOCK, NBI, void, char))
GSHMEM_FOR_RMA_OPS(GSHMEMI_DEV_RMA_MEM_WARP, , )
GSHMEM_FOR_RMA_OPS(GSHMEMI_DEV_RMA_MEM_BLOCK, , )
#undef GSHMEMI_DEV_RMA_MEM_BLOCK
#undef GSHMEMI_DEV_RMA_MEM_WARP

#define GSHMEMI_DEV_RMA_WARP(STEM, TAIL, SHAPE, NBI, NAME, TYPE)                             \
    GSHMEMI_RMA_GROUP_##SHAPE(NBI,                                                          \
                              GSHMEMI_DEV_RMA_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_warp, \
                                                      GSHMEMI_WARP, NBI, TYPE, TYPE))
#define GSHMEMI_DEV_RMA_BLOCK(STEM, TAIL, SHAPE, NBI, NAME, TYPE)                            \
    GSHMEMI_RMA_GROUP_##SHAPE(NBI,                                                          \
                              GSHMEMI_DEV_RMA_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_block, \
                                                      GSHMEMI_BLOCK, NBI, TYPE, TYPE))
#define GSHMEMI_DEV_RMA_TYPED_WARP(NAME, TYPE, G) \
    GSHMEM_FOR_RMA_OPS(GSHMEMI_DEV_RMA_WARP, NAME, TYPE)
#define GSHMEMI_DEV_RMA_TYPED_BLOCK(NAME, TYPE, G) \
    GSHMEM_FOR_RMA_OPS(GSHMEMI_DEV_RMA_BLOCK, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_RMA_TYPED_WARP)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_RMA_TYPED_BLOCK)
#undef GSHMEMI_DEV_RMA_TYPED_BLOCK
#undef GSHMEMI_DEV_RMA_TYPED_WARP
#undef GSHMEMI_DEV_RMA_BLOCK
#undef GSHMEMI_DEV_RMA_WARP

#endif /* GSHMEM_DEVICE_RMA_CUH */
