/* gshmem device API, part of gshmem_device.cuh: atomics, their internals
 * (word types, red, the mapped and proxy paths) and the public functions. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/amo.cuh>"
#endif
#ifndef GSHMEM_DEVICE_AMO_CUH
#define GSHMEM_DEVICE_AMO_CUH

namespace {

/* Atomics on a PE's word, by size: the types' bits go through unsigned
 * words of the same size (two's complement makes add the same). */
template <typename T> struct gshmemi_word;
template <> struct gshmemi_word<uint32_t> { typedef unsigned int type; };
template <> struct gshmemi_word<uint64_t> { typedef unsigned long long type; };
template <typename T>
struct gshmemi_wordof {
    typedef typename gshmemi_word<typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type>::type type;
};

template <typename T>
__device__ __forceinline__ typename gshmemi_wordof<T>::type gshmemi_w(T v)
{
    typename gshmemi_wordof<T>::type w;
    memcpy(&w, &v, sizeof(T));
    return w;
}

template <typename T>
__device__ __forceinline__ T gshmemi_t(typename gshmemi_wordof<T>::type w)
{
    T v;
    memcpy(&v, &w, sizeof(T));
    return v;
}

/* Non-fetching atomics on a mapped word as reductions (red): relaxed at
 * system scope like atomic*_system, but the thread does not wait for the
 * old value, so one thread keeps several in flight (quiet completes them). */
#define GSHMEMI_RED(OP, PTXOP)                                                                     \
    __device__ __forceinline__ void gshmemi_red_##OP(unsigned *w, unsigned v)                      \
    {                                                                                              \
        asm volatile("red.relaxed.sys.global." PTXOP "32 [%0], %1;" ::"l"(w), "r"(v) : "memory");  \
    }                                                                                              \
    __device__ __forceinline__ void gshmemi_red_##OP(unsigned long long *w, unsigned long long v)  \
    {                                                                                              \
        asm volatile("red.relaxed.sys.global." PTXOP "64 [%0], %1;" ::"l"(w), "l"(v) : "memory");  \
    }
GSHMEMI_RED(add, "add.u")
GSHMEMI_RED(and, "and.b")
GSHMEMI_RED(or, "or.b")
GSHMEMI_RED(xor, "xor.b")
#undef GSHMEMI_RED

/* A fetching atomic: `on_word` applied to the mapped word, or the request
 * (op with a and b) through the proxy, answered in the request's cell. */
template <typename T, typename F>
__device__ __forceinline__ T gshmemi_amo_fetch(const char *call, const T *dest, int op, T a, T b,
                                               int pe, F on_word)
{
    using W = typename gshmemi_wordof<T>::type;
    gshmemi_check_aligned(call, pe, dest, sizeof(T));
    char *p = gshmemi_lookup(call, dest, sizeof(T), pe);
    if (p != nullptr)
        return gshmemi_t<T>(on_word(reinterpret_cast<W *>(p)));
    return gshmemi_t<T>(static_cast<W>(gshmemi_proxy_fetch(
        call, pe, GSHMEMI_REQ_AMO, op, static_cast<int>(sizeof(T)), gshmemi_heap_off(dest),
        static_cast<uint64_t>(gshmemi_w(a)), static_cast<uint64_t>(gshmemi_w(b)),
        GSHMEMI_REQ_TO_CELL, 4)));
}

/* A non-fetching atomic: the mapped word, or NULL once the request for the
 * proxy is pushed. */
template <typename T>
__device__ __forceinline__ typename gshmemi_wordof<T>::type *
gshmemi_amo_nf(const char *call, T *dest, int op, T a, int pe)
{
    gshmemi_check_aligned(call, pe, dest, sizeof(T));
    char *p = gshmemi_lookup(call, dest, sizeof(T), pe);
    if (p == nullptr)
        gshmemi_push1(call, pe, GSHMEMI_REQ_AMO, op, static_cast<int>(sizeof(T)),
                      gshmemi_heap_off(dest), static_cast<uint64_t>(gshmemi_w(a)), 0, 0, 4);
    return reinterpret_cast<typename gshmemi_wordof<T>::type *>(p);
}

} // namespace

/* ---- the API ------------------------------------------------------------
 * GSHMEM_FOR_AMO_*_OPS.  One definition per shape: F the function, AMO the
 * operation (the proxy's GSHMEMI_AMO_<AMO>; on a mapped word,
 * GSHMEMI_DEV_FETCH_<AMO> fetching and GSHMEMI_DEV_UPDATE_<AMO> not), T the
 * type. */

#define GSHMEMI_DEV_FETCH_SWAP atomicExch_system
#define GSHMEMI_DEV_FETCH_ADD atomicAdd_system
#define GSHMEMI_DEV_FETCH_AND atomicAnd_system
#define GSHMEMI_DEV_FETCH_OR atomicOr_system
#define GSHMEMI_DEV_FETCH_XOR atomicXor_system
#define GSHMEMI_DEV_UPDATE_SET atomicExch_system
#define GSHMEMI_DEV_UPDATE_ADD gshmemi_red_add
#define GSHMEMI_DEV_UPDATE_AND gshmemi_red_and
#define GSHMEMI_DEV_UPDATE_OR gshmemi_red_or
#define GSHMEMI_DEV_UPDATE_XOR gshmemi_red_xor

#define GSHMEMI_DEV_AMO_FETCH(F, AMO, T)                                                           \
    __device__ inline T F(const T *source, int pe)                                                 \
    {                                                                                              \
        return gshmemi_amo_fetch(#F, source, GSHMEMI_AMO_##AMO, static_cast<T>(0),                 \
                                 static_cast<T>(0), pe, [](auto *w) {                              \
            return *static_cast<volatile typename gshmemi_wordof<T>::type *>(w);                   \
        });                                                                                        \
    }
#define GSHMEMI_DEV_AMO_OP(F, AMO, T)                                                              \
    __device__ inline void F(T *dest, T value, int pe)                                             \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf(#F, dest, GSHMEMI_AMO_##AMO, value, pe))                      \
            GSHMEMI_DEV_UPDATE_##AMO(w, gshmemi_w(value));                                         \
    }
#define GSHMEMI_DEV_AMO_FETCH_OP(F, AMO, T)                                                        \
    __device__ inline T F(T *dest, T value, int pe)                                                \
    {                                                                                              \
        return gshmemi_amo_fetch(#F, dest, GSHMEMI_AMO_##AMO, value, static_cast<T>(0), pe,        \
                                 [&](auto *w) {                                                    \
            return GSHMEMI_DEV_FETCH_##AMO(w, gshmemi_w(value));                                   \
        });                                                                                        \
    }
#define GSHMEMI_DEV_AMO_CSWAP(F, AMO, T)                                                           \
    __device__ inline T F(T *dest, T cond, T value, int pe)                                        \
    {                                                                                              \
        return gshmemi_amo_fetch(#F, dest, GSHMEMI_AMO_##AMO, cond, value, pe, [&](auto *w) {      \
            return atomicCAS_system(w, gshmemi_w(cond), gshmemi_w(value));                         \
        });                                                                                        \
    }
#define GSHMEMI_DEV_AMO_INC(F, AMO, T)                                                             \
    __device__ inline void F(T *dest, int pe)                                                      \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf(#F, dest, GSHMEMI_AMO_##AMO, static_cast<T>(1), pe))          \
            GSHMEMI_DEV_UPDATE_##AMO(w, gshmemi_w(static_cast<T>(1)));                             \
    }
#define GSHMEMI_DEV_AMO_FETCH_INC(F, AMO, T)                                                       \
    __device__ inline T F(T *dest, int pe)                                                         \
    {                                                                                              \
        return gshmemi_amo_fetch(#F, dest, GSHMEMI_AMO_##AMO, static_cast<T>(1),                   \
                                 static_cast<T>(0), pe, [](auto *w) {                              \
            return GSHMEMI_DEV_FETCH_##AMO(w, gshmemi_w(static_cast<T>(1)));                       \
        });                                                                                        \
    }

#ifdef __CUDA_ARCH__
extern "C" {

#define GSHMEMI_DEV_AMO_TYPED(STEM, TAIL, SHAPE, AMO, NAME, TYPE) \
    GSHMEMI_DEV_AMO_##SHAPE(gshmem_##NAME##_##STEM##TAIL, AMO, TYPE)
#define GSHMEMI_DEV_AMO_EXTENDED(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_EXTENDED_OPS(GSHMEMI_DEV_AMO_TYPED, NAME, TYPE)
#define GSHMEMI_DEV_AMO_STANDARD(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_STANDARD_OPS(GSHMEMI_DEV_AMO_TYPED, NAME, TYPE)
#define GSHMEMI_DEV_AMO_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_AMO_BITWISE_OPS(GSHMEMI_DEV_AMO_TYPED, NAME, TYPE)
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_DEV_AMO_EXTENDED)
GSHMEM_FOR_AMO_STANDARD_TYPES(GSHMEMI_DEV_AMO_STANDARD)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_DEV_AMO_BITWISE)
#undef GSHMEMI_DEV_AMO_BITWISE
#undef GSHMEMI_DEV_AMO_STANDARD
#undef GSHMEMI_DEV_AMO_EXTENDED
#undef GSHMEMI_DEV_AMO_TYPED

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

#endif /* GSHMEM_DEVICE_AMO_CUH */
