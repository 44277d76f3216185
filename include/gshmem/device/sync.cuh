/* gshmem device API, part of gshmem_device.cuh: waits and tests
 * (wait_until and test families), signal fetch, wait and op, fence and
 * quiet. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/sync.cuh>"
#endif
#ifndef GSHMEM_DEVICE_SYNC_CUH
#define GSHMEM_DEVICE_SYNC_CUH

namespace {

__device__ __forceinline__ void gshmemi_fence_acq_rel() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
__device__ __forceinline__ void gshmemi_fence_sc() { asm volatile("fence.sc.sys;" ::: "memory"); }

/* An acquire load at system scope: what the writer released before the
 * value is visible to this thread's later accesses, with no fence (a fence
 * would also wait for this thread's own outstanding stores). */
template <typename T>
__device__ __forceinline__ T gshmemi_load_acquire(const T *p)
{
    T v;
    if (sizeof(T) == 8) {
        uint64_t u;
        asm volatile("ld.acquire.sys.global.b64 %0, [%1];" : "=l"(u) : "l"(p) : "memory");
        memcpy(&v, &u, 8);
    } else if (sizeof(T) == 4) {
        uint32_t u;
        asm volatile("ld.acquire.sys.global.b32 %0, [%1];" : "=r"(u) : "l"(p) : "memory");
        memcpy(&v, &u, 4);
    } else {
        static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "2, 4 or 8 bytes");
        uint16_t u;
        asm volatile("ld.acquire.sys.global.b16 %0, [%1];" : "=h"(u) : "l"(p) : "memory");
        memcpy(&v, &u, 2);
    }
    return v;
}

template <typename T>
__device__ __forceinline__ bool gshmemi_compare(T v, int cmp, T ref)
{
    switch (cmp) {
    case GSHMEM_CMP_EQ: return v == ref;
    case GSHMEM_CMP_NE: return v != ref;
    case GSHMEM_CMP_GT: return v > ref;
    case GSHMEM_CMP_LE: return v <= ref;
    case GSHMEM_CMP_LT: return v < ref;
    case GSHMEM_CMP_GE: return v >= ref;
    }
    return false;
}

template <typename T>
__device__ __forceinline__ uint64_t gshmemi_bits(T v)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}

/* Spins with acquire loads (no fence: the ping-pong latency is the price
 * of ordering, DESIGN.md section 5).  Past GSHMEM_TIMEOUT the job ends
 * naming the call, the values and `pe`: the PE that was to store the
 * value (default: this one). */
template <typename T>
__device__ __forceinline__ T gshmemi_wait(const char *call, T *ivar, int cmp, T value, int pe = -1)
{
    T v;
    gshmemi_deadline deadline;
    for (unsigned spins = 1; !gshmemi_compare(v = gshmemi_load_acquire(ivar), cmp, value); spins++)
        if ((spins & 1023) == 0 && deadline.passed())
            gshmemi_fail(call, GSHMEMI_DEV_FAIL_TIMEOUT, pe < 0 ? gshmemi_s().my_pe : pe, ivar, sizeof(T), cmp,
                         gshmemi_bits(value), gshmemi_bits(v));
    return v;
}

template <typename T>
__device__ __forceinline__ bool gshmemi_test(T *ivar, int cmp, T value)
{
    return gshmemi_compare(gshmemi_load_acquire(ivar), cmp, value);
}

/* Multi-word waits and tests: entries with status[i] != 0 are left out. */
template <typename T>
__device__ __forceinline__ bool gshmemi_entry(T *ivars, size_t i, int cmp, const T *values, T value)
{
    return gshmemi_compare(gshmemi_load_acquire(ivars + i), cmp,
                           values != nullptr ? values[i] : value);
}

template <typename T>
__device__ __forceinline__ int gshmemi_test_all(T *ivars, size_t n, const int *status, int cmp,
                                                const T *values, T value)
{
    for (size_t i = 0; i < n; i++)
        if ((status == nullptr || status[i] == 0) && !gshmemi_entry(ivars, i, cmp, values, value))
            return 0;
    return 1;
}

template <typename T>
__device__ __forceinline__ size_t gshmemi_test_any(T *ivars, size_t n, const int *status, int cmp,
                                                   const T *values, T value)
{
    for (size_t i = 0; i < n; i++)
        if ((status == nullptr || status[i] == 0) && gshmemi_entry(ivars, i, cmp, values, value))
            return i;
    return SIZE_MAX;
}

template <typename T>
__device__ __forceinline__ size_t gshmemi_test_some(T *ivars, size_t n, size_t *indices,
                                                    const int *status, int cmp, const T *values,
                                                    T value)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((status == nullptr || status[i] == 0) && gshmemi_entry(ivars, i, cmp, values, value))
            indices[k++] = i;
    return k;
}

__device__ __forceinline__ bool gshmemi_all_excluded(size_t n, const int *status)
{
    for (size_t i = 0; status != nullptr && i < n; i++)
        if (status[i] == 0)
            return false;
    return status != nullptr || n == 0;
}

/* Waits built on the tests; the deadline as for gshmemi_wait. */
template <typename F>
__device__ __forceinline__ void gshmemi_spin(const char *call, const void *at, F done)
{
    gshmemi_deadline deadline;
    for (unsigned spins = 1; !done(); spins++)
        if ((spins & 255) == 0 && deadline.passed())
            gshmemi_fail(call, GSHMEMI_DEV_FAIL_TIMEOUT, gshmemi_s().my_pe, at, 0);
}

} // namespace

/* ---- the API ------------------------------------------------------------ */

#ifdef __CUDA_ARCH__
extern "C" {

/* ---- signals ---- */
__device__ inline uint64_t gshmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(sig_addr) : "memory");
    return v;
}
__device__ inline uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return gshmemi_wait("gshmem_signal_wait_until", sig_addr, cmp, cmp_value);
}
__device__ inline void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    (void)gshmemi_signal<false>("gshmemx_signal_op", sig_addr, signal, sig_op, pe);
}

/* ---- point-to-point synchronisation ----
 * GSHMEM_FOR_P2P_SYNC_OPS: one definition per shape and NBI (0: the wait,
 * 1: the test), F the function, T the type. */
#define GSHMEMI_DEV_SYNC_ONE_0(F, T)                                                               \
    __device__ inline void F(T *ivar, int cmp, T cmp_value)                                        \
    {                                                                                              \
        gshmemi_wait(#F, ivar, cmp, cmp_value);                                                    \
    }
#define GSHMEMI_DEV_SYNC_ALL_0(F, T)                                                               \
    __device__ inline void F(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)     \
    {                                                                                              \
        gshmemi_spin(#F, ivars, [&] {                                                              \
            return gshmemi_test_all(ivars, nelems, status, cmp, (const T *)nullptr,                \
                                    cmp_value) != 0;                                               \
        });                                                                                        \
    }
#define GSHMEMI_DEV_SYNC_ANY_0(F, T)                                                               \
    __device__ inline size_t F(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)   \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return SIZE_MAX;                                                                       \
        size_t r = SIZE_MAX;                                                                       \
        gshmemi_spin(#F, ivars, [&] {                                                              \
            return (r = gshmemi_test_any(ivars, nelems, status, cmp, (const T *)nullptr,           \
                                         cmp_value)) != SIZE_MAX;                                  \
        });                                                                                        \
        return r;                                                                                  \
    }
#define GSHMEMI_DEV_SYNC_SOME_0(F, T)                                                              \
    __device__ inline size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                               int cmp, T cmp_value)                                               \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return 0;                                                                              \
        size_t k = 0;                                                                              \
        gshmemi_spin(#F, ivars, [&] {                                                              \
            return (k = gshmemi_test_some(ivars, nelems, indices, status, cmp,                     \
                                          (const T *)nullptr, cmp_value)) != 0;                    \
        });                                                                                        \
        return k;                                                                                  \
    }
#define GSHMEMI_DEV_SYNC_ALL_VECTOR_0(F, T)                                                        \
    __device__ inline void F(T *ivars, size_t nelems, const int *status, int cmp,                  \
                             const T *cmp_values)                                                  \
    {                                                                                              \
        gshmemi_spin(#F, ivars, [&] {                                                              \
            return gshmemi_test_all(ivars, nelems, status, cmp, cmp_values,                        \
                                    static_cast<T>(0)) != 0;                                       \
        });                                                                                        \
    }
#define GSHMEMI_DEV_SYNC_ANY_VECTOR_0(F, T)                                                        \
    __device__ inline size_t F(T *ivars, size_t nelems, const int *status, int cmp,                \
                               const T *cmp_values)                                                \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return SIZE_MAX;                                                                       \
        size_t r = SIZE_MAX;                                                                       \
        gshmemi_spin(#F, ivars, [&] {                                                              \
            return (r = gshmemi_test_any(ivars, nelems, status, cmp, cmp_values,                   \
                                         static_cast<T>(0))) != SIZE_MAX;                          \
        });                                                                                        \
        return r;                                                                                  \
    }
#define GSHMEMI_DEV_SYNC_SOME_VECTOR_0(F, T)                                                       \
    __device__ inline size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                               int cmp, const T *cmp_values)                                       \
    {                                                                                              \
        if (gshmemi_all_excluded(nelems, status))                                                  \
            return 0;                                                                              \
        size_t k = 0;                                                                              \
        gshmemi_spin(#F, ivars, [&] {                                                              \
            return (k = gshmemi_test_some(ivars, nelems, indices, status, cmp, cmp_values,         \
                                          static_cast<T>(0))) != 0;                                \
        });                                                                                        \
        return k;                                                                                  \
    }
#define GSHMEMI_DEV_SYNC_ONE_1(F, T)                                                               \
    __device__ inline int F(T *ivar, int cmp, T cmp_value)                                         \
    {                                                                                              \
        return gshmemi_test(ivar, cmp, cmp_value) ? 1 : 0;                                         \
    }
#define GSHMEMI_DEV_SYNC_ALL_1(F, T)                                                               \
    __device__ inline int F(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)      \
    {                                                                                              \
        return gshmemi_test_all(ivars, nelems, status, cmp, (const T *)nullptr, cmp_value);        \
    }
#define GSHMEMI_DEV_SYNC_ANY_1(F, T)                                                               \
    __device__ inline size_t F(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)   \
    {                                                                                              \
        return gshmemi_test_any(ivars, nelems, status, cmp, (const T *)nullptr, cmp_value);        \
    }
#define GSHMEMI_DEV_SYNC_SOME_1(F, T)                                                              \
    __device__ inline size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                               int cmp, T cmp_value)                                               \
    {                                                                                              \
        return gshmemi_test_some(ivars, nelems, indices, status, cmp, (const T *)nullptr,          \
                                 cmp_value);                                                       \
    }
#define GSHMEMI_DEV_SYNC_ALL_VECTOR_1(F, T)                                                        \
    __device__ inline int F(T *ivars, size_t nelems, const int *status, int cmp,                   \
                            const T *cmp_values)                                                   \
    {                                                                                              \
        return gshmemi_test_all(ivars, nelems, status, cmp, cmp_values, static_cast<T>(0));        \
    }
#define GSHMEMI_DEV_SYNC_ANY_VECTOR_1(F, T)                                                        \
    __device__ inline size_t F(T *ivars, size_t nelems, const int *status, int cmp,                \
                               const T *cmp_values)                                                \
    {                                                                                              \
        return gshmemi_test_any(ivars, nelems, status, cmp, cmp_values, static_cast<T>(0));        \
    }
#define GSHMEMI_DEV_SYNC_SOME_VECTOR_1(F, T)                                                       \
    __device__ inline size_t F(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                               int cmp, const T *cmp_values)                                       \
    {                                                                                              \
        return gshmemi_test_some(ivars, nelems, indices, status, cmp, cmp_values,                  \
                                 static_cast<T>(0));                                               \
    }

#define GSHMEMI_DEV_SYNC_TYPED(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    GSHMEMI_DEV_SYNC_##SHAPE##_##NBI(gshmem_##NAME##_##STEM##TAIL, TYPE)
#define GSHMEMI_DEV_SYNC(NAME, TYPE, G) GSHMEM_FOR_P2P_SYNC_OPS(GSHMEMI_DEV_SYNC_TYPED, NAME, TYPE)
GSHMEM_FOR_P2P_SYNC_TYPES(GSHMEMI_DEV_SYNC)
#undef GSHMEMI_DEV_SYNC
#undef GSHMEMI_DEV_SYNC_TYPED

/* ---- ordering and synchronisation ---- */
__device__ inline void gshmem_fence(void)
{
    gshmemi_fence_acq_rel();
    if (gshmemi_s().has_proxy) /* the proxy's transport keeps later puts behind */
        gshmemi_push1("gshmem_fence", gshmemi_s().my_pe, GSHMEMI_REQ_FENCE, 0, 0, 0, 0, 0, 0, 0);
}
__device__ inline void gshmem_quiet(void)
{
    gshmemi_fence_sc();
    gshmemi_proxy_quiet("gshmem_quiet");
}

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

#endif /* GSHMEM_DEVICE_SYNC_CUH */
