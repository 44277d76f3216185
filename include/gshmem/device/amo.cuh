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

/* ---- the API ------------------------------------------------------------ */

#ifdef __CUDA_ARCH__
extern "C" {

/* ---- atomics ---- */
#define GSHMEMI_DEV_AMO_EXTENDED(NAME, TYPE, G)                                                    \
    __device__ inline TYPE gshmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_fetch", source, GSHMEMI_AMO_FETCH,       \
                                 static_cast<TYPE>(0), static_cast<TYPE>(0), pe, [](auto *w) {     \
            return *static_cast<volatile typename gshmemi_wordof<TYPE>::type *>(w);                \
        });                                                                                        \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)              \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf("gshmem_" #NAME "_atomic_set", dest, GSHMEMI_AMO_SET, value, pe)) \
            atomicExch_system(w, gshmemi_w(value));                                                \
    }                                                                                              \
    __device__ inline TYPE gshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)             \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_swap", dest, GSHMEMI_AMO_SWAP, value,    \
                                 static_cast<TYPE>(0), pe,                                         \
                                 [&](auto *w) { return atomicExch_system(w, gshmemi_w(value)); }); \
    }
GSHMEM_FOR_AMO_EXTENDED_TYPES(GSHMEMI_DEV_AMO_EXTENDED)
#undef GSHMEMI_DEV_AMO_EXTENDED

/* An atomic with one operand, fetching and not: FN applies it to a mapped
 * word. */
#define GSHMEMI_DEV_AMO_RMW(NAME, TYPE, OP, KIND, FN)                                              \
    __device__ inline TYPE gshmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)       \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_fetch_" #OP, dest, KIND, value,          \
                                 static_cast<TYPE>(0), pe,                                         \
                                 [&](auto *w) { return FN(w, gshmemi_w(value)); });                \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)             \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf("gshmem_" #NAME "_atomic_" #OP, dest, KIND, value, pe))       \
            gshmemi_red_##OP(w, gshmemi_w(value));                                                 \
    }

#define GSHMEMI_DEV_AMO_STANDARD(NAME, TYPE, G)                                                    \
    __device__ inline TYPE gshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value,  \
                                                               int pe)                             \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_compare_swap", dest, GSHMEMI_AMO_CSWAP,  \
                                 cond, value, pe, [&](auto *w) {                                   \
            return atomicCAS_system(w, gshmemi_w(cond), gshmemi_w(value));                         \
        });                                                                                        \
    }                                                                                              \
    __device__ inline TYPE gshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                    \
    {                                                                                              \
        return gshmemi_amo_fetch("gshmem_" #NAME "_atomic_fetch_inc", dest, GSHMEMI_AMO_ADD,       \
                                 static_cast<TYPE>(1), static_cast<TYPE>(0), pe, [](auto *w) {     \
            return atomicAdd_system(w, gshmemi_w(static_cast<TYPE>(1)));                           \
        });                                                                                        \
    }                                                                                              \
    __device__ inline void gshmem_##NAME##_atomic_inc(TYPE *dest, int pe)                          \
    {                                                                                              \
        if (auto *w = gshmemi_amo_nf("gshmem_" #NAME "_atomic_inc", dest, GSHMEMI_AMO_ADD,         \
                                     static_cast<TYPE>(1), pe))                                    \
            gshmemi_red_add(w, gshmemi_w(static_cast<TYPE>(1)));                                   \
    }                                                                                              \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, add, GSHMEMI_AMO_ADD, atomicAdd_system)
GSHMEM_FOR_AMO_STANDARD_TYPES(GSHMEMI_DEV_AMO_STANDARD)
#undef GSHMEMI_DEV_AMO_STANDARD

#define GSHMEMI_DEV_AMO_BITWISE(NAME, TYPE, G)                                                     \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, and, GSHMEMI_AMO_AND, atomicAnd_system)                        \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, or, GSHMEMI_AMO_OR, atomicOr_system)                           \
    GSHMEMI_DEV_AMO_RMW(NAME, TYPE, xor, GSHMEMI_AMO_XOR, atomicXor_system)
GSHMEM_FOR_AMO_BITWISE_TYPES(GSHMEMI_DEV_AMO_BITWISE)
#undef GSHMEMI_DEV_AMO_BITWISE
#undef GSHMEMI_DEV_AMO_RMW

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

#endif /* GSHMEM_DEVICE_AMO_CUH */
