/* gshmem device API, part of gshmem_device.cuh: collectives in kernels,
 * thread (gshmem_int_sum_reduce), warp and block forms
 * (gshmemx_int_sum_reduce_block), from the operation tables.  Only the
 * calling group of each member PE takes part.  Each call starts with the
 * team's barrier, moves or combines the data with the group's threads and
 * ends with quiet and the barrier; on teams whose members are all mapped,
 * payloads up to GSHMEM_COLL_LL_MAX go by flag packets instead, with no
 * barrier (coll/ll.cuh).  Reductions: member i combines part i
 * of every member's source, in team order (the host forms' bits exactly),
 * and stores it into every member's dest; they read mapped members'
 * sources directly and fetch the others' by gets through the proxy. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/coll/collectives.cuh>"
#endif
#ifndef GSHMEM_DEVICE_COLL_COLLECTIVES_CUH
#define GSHMEM_DEVICE_COLL_COLLECTIVES_CUH

namespace {

/* ---- combining: the host forms' arithmetic (src/coll/collectives.c) ---- */

/* Integers in the unsigned type of their width, or unsigned int where they
 * are narrower (a narrower one is promoted to int, where products of two
 * 16-bit values overflow): sums and products wrap; floats as they are;
 * 16-bit floats in float, rounded once a step. */
template <typename T, bool INTEGRAL = std::is_integral<T>::value>
struct gshmemi_arith;
template <typename T>
struct gshmemi_arith<T, true> {
    typedef typename std::common_type<typename std::make_unsigned<T>::type, unsigned>::type U;
    static __device__ __forceinline__ T SUM(T a, T b) { return static_cast<T>(U(a) + U(b)); }
    static __device__ __forceinline__ T PROD(T a, T b) { return static_cast<T>(U(a) * U(b)); }
    static __device__ __forceinline__ T MIN(T a, T b) { return b < a ? b : a; }
    static __device__ __forceinline__ T MAX(T a, T b) { return b > a ? b : a; }
    static __device__ __forceinline__ T AND(T a, T b) { return a & b; }
    static __device__ __forceinline__ T OR(T a, T b) { return a | b; }
    static __device__ __forceinline__ T XOR(T a, T b) { return a ^ b; }
};
template <typename T>
struct gshmemi_arith<T, false> {
    static __device__ __forceinline__ T SUM(T a, T b) { return a + b; }
    static __device__ __forceinline__ T PROD(T a, T b) { return a * b; }
    static __device__ __forceinline__ T MIN(T a, T b) { return b < a ? b : a; }
    static __device__ __forceinline__ T MAX(T a, T b) { return b > a ? b : a; }
};
#define GSHMEMI_ARITH_16(T, TO_FLOAT, FROM_FLOAT)                                                  \
    template <>                                                                                    \
    struct gshmemi_arith<T, false> {                                                               \
        static __device__ __forceinline__ T SUM(T a, T b)                                          \
        {                                                                                          \
            return FROM_FLOAT(TO_FLOAT(a) + TO_FLOAT(b));                                          \
        }                                                                                          \
        static __device__ __forceinline__ T PROD(T a, T b)                                         \
        {                                                                                          \
            return FROM_FLOAT(TO_FLOAT(a) * TO_FLOAT(b));                                          \
        }                                                                                          \
        static __device__ __forceinline__ T MIN(T a, T b)                                          \
        {                                                                                          \
            return TO_FLOAT(b) < TO_FLOAT(a) ? b : a;                                              \
        }                                                                                          \
        static __device__ __forceinline__ T MAX(T a, T b)                                          \
        {                                                                                          \
            return TO_FLOAT(b) > TO_FLOAT(a) ? b : a;                                              \
        }                                                                                          \
    };
GSHMEMI_ARITH_16(__half, __half2float, __float2half_rn)
GSHMEMI_ARITH_16(__nv_bfloat16, __bfloat162float, __float2bfloat16_rn)
#undef GSHMEMI_ARITH_16

/* Member i's copy of a symmetric address, which must be mapped here. */
template <typename T>
__device__ __forceinline__ T *gshmemi_coll_peer(const char *call, const T *sym, int pe)
{
    T *p = reinterpret_cast<T *>(gshmemi_lookup(call, sym, sizeof(T), pe));
    if (p == nullptr)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_UNMAPPED, pe, sym, sizeof(T));
    return p;
}

/* Part i of n of count elements: [*first, *first + *len). */
__device__ __forceinline__ void gshmemi_coll_part(size_t count, int n, int i, size_t *first,
                                                  size_t *len)
{
    const size_t q = count / static_cast<size_t>(n), r = count % static_cast<size_t>(n);
    *first = static_cast<size_t>(i) * q + (static_cast<size_t>(i) < r ? static_cast<size_t>(i) : r);
    *len = q + (static_cast<size_t>(i) < r ? 1 : 0);
}

/* One element: the combination of members [0, upto)'s src[e], in order. */
template <typename T, typename OP>
__device__ __forceinline__ T gshmemi_coll_combine(const char *call,
                                                  const struct gshmemi_device_team &t, int upto,
                                                  const T *src, size_t e, OP op)
{
    T acc = gshmemi_vload(gshmemi_coll_peer(call, src, t.pes[0]) + e);
    for (int i = 1; i < upto; i++)
        acc = op(acc, gshmemi_vload(gshmemi_coll_peer(call, src, t.pes[i]) + e));
    return acc;
}

/* ---- the collectives ------------------------------------------------------ */

template <int SCOPE>
__device__ __forceinline__ void gshmemi_coll_broadcast(const char *call, gshmem_team_t team,
                                                       void *dest, const void *src, size_t nbytes,
                                                       int root)
{
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    if (root < 0 || root >= t.n)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_PE_RANGE, root, nullptr, 0);
    if (gshmemi_ll_fits(t, nbytes))
        return gshmemi_ll_move<SCOPE>(call, team, t, GSHMEMI_LL_BROADCAST, dest, src, nbytes, root);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    if (t.my == root)
        for (int i = 0; i < t.n; i++)
            if (i != root || dest != src)
                gshmemi_put<SCOPE, true, false>(call, dest, src, nbytes, t.pes[i]);
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

template <int SCOPE>
__device__ __forceinline__ void gshmemi_coll_fcollect(const char *call, gshmem_team_t team,
                                                      void *dest, const void *src, size_t nbytes)
{
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    if (gshmemi_ll_fits(t, nbytes))
        return gshmemi_ll_move<SCOPE>(call, team, t, GSHMEMI_LL_FCOLLECT, dest, src, nbytes, 0);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    for (int k = 1; k <= t.n; k++)
        gshmemi_put<SCOPE, true, false>(call,
                                        static_cast<char *>(dest) + static_cast<size_t>(t.my) * nbytes,
                                        src, nbytes, t.pes[(t.my + k) % t.n]);
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

/* Every member's size first (the team's slot's block of the heap the
 * runtime keeps for them: n_pes words a slot, slot 0's first), then every
 * block at its offset. */
template <int SCOPE>
__device__ __forceinline__ void gshmemi_coll_collect(const char *call, gshmem_team_t team,
                                                     void *dest, const void *src, size_t nbytes)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    uint64_t *sizes = reinterpret_cast<uint64_t *>(s.heap_base + s.coll_sizes_off) +
                      static_cast<size_t>(team) * static_cast<size_t>(s.n_pes);
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    for (int i = static_cast<int>(lane); i < t.n; i += static_cast<int>(n))
        gshmemi_p<uint64_t>(call, &sizes[t.my], nbytes, t.pes[i]);
    gshmemi_team_sync_group<SCOPE>(call, team, true);
    uint64_t off = 0;
    for (int i = 0; i < t.my; i++)
        off += gshmemi_vload(&sizes[i]);
    for (int k = 1; k <= t.n; k++)
        gshmemi_put<SCOPE, true, false>(call, static_cast<char *>(dest) + off, src, nbytes,
                                        t.pes[(t.my + k) % t.n]);
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

template <int SCOPE>
__device__ __forceinline__ void gshmemi_coll_alltoall(const char *call, gshmem_team_t team,
                                                      void *dest, const void *src, size_t nbytes)
{
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    if (gshmemi_ll_fits(t, nbytes))
        return gshmemi_ll_move<SCOPE>(call, team, t, GSHMEMI_LL_ALLTOALL, dest, src, nbytes, 0);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    for (int k = 1; k <= t.n; k++) {
        const int j = (t.my + k) % t.n;
        gshmemi_put<SCOPE, true, false>(call,
                                        static_cast<char *>(dest) + static_cast<size_t>(t.my) * nbytes,
                                        static_cast<const char *>(src) + static_cast<size_t>(j) * nbytes,
                                        nbytes, t.pes[j]);
    }
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

template <int SCOPE>
__device__ __forceinline__ void gshmemi_coll_alltoalls(const char *call, gshmem_team_t team,
                                                       void *dest, const void *src, ptrdiff_t dst,
                                                       ptrdiff_t sst, size_t nelems, size_t esize)
{
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    for (int k = 1; k <= t.n; k++) {
        const int j = (t.my + k) % t.n;
        for (size_t e = lane; e < nelems; e += n)
            gshmemi_put<GSHMEMI_THREAD, true, false>(
                call,
                static_cast<char *>(dest) + (static_cast<size_t>(t.my) * nelems + e) * static_cast<size_t>(dst) * esize,
                static_cast<const char *>(src) + (static_cast<size_t>(j) * nelems + e) * static_cast<size_t>(sst) * esize,
                esize, t.pes[j]);
    }
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

/* ---- teams with members reached only through the proxy ------------------
 * Reductions and scans read every member's source.  Mapped members' are
 * loaded directly; the others' are first fetched by gets into this PE's
 * staging area (the packet buffers of the slot's collective area: flag
 * packets never run on such a team), S elements per member at a time. */

template <typename T>
__device__ __forceinline__ T *gshmemi_coll_stage(gshmem_team_t team, int members, size_t *per_member)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    const size_t bytes = 2ull * static_cast<size_t>(s.n_pes) * s.coll_ll_packets * 16;
    *per_member = bytes / (sizeof(T) * static_cast<size_t>(members));
    return reinterpret_cast<T *>(s.heap_base + gshmemi_coll_area_off(team) + s.coll_ll_off);
}

/* Elements [c0, c0 + cl) of members [0, upto)'s src combined in team
 * order into out[0, cl); member m's fetched into stage + m * S. */
template <int SCOPE, typename T, typename OP>
__device__ __forceinline__ void gshmemi_coll_combine_staged(const char *call,
                                                            const struct gshmemi_device_team &t,
                                                            int upto, const T *src, size_t c0,
                                                            size_t cl, T *stage, size_t S, T *out,
                                                            OP op)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    for (int m = 0; m < upto; m++)
        if (gshmemi_peer_base(s, t.pes[m]) == nullptr)
            gshmemi_get<SCOPE, true, false>(call, stage + static_cast<size_t>(m) * S, src + c0,
                                            cl * sizeof(T), t.pes[m]);
    gshmemi_group_sync<SCOPE>();
    if (lane == 0)
        gshmemi_proxy_quiet(call); /* the gets have landed */
    gshmemi_group_sync<SCOPE>();
    for (size_t e = lane; e < cl; e += n) {
        T acc;
        for (int m = 0; m < upto; m++) {
            char *base = gshmemi_peer_base(s, t.pes[m]);
            const T *p = base != nullptr
                             ? reinterpret_cast<const T *>(base + (reinterpret_cast<const char *>(src + c0 + e) - s.heap_base))
                             : stage + static_cast<size_t>(m) * S + e;
            const T v = gshmemi_vload(p);
            acc = m == 0 ? v : op(acc, v);
        }
        out[e] = acc;
    }
    gshmemi_group_sync<SCOPE>();
}

/* reduce: this member's part, combined into its own dest and put from
 * there to every other member (a proxy put needs a symmetric source);
 * reducescatter: this member's block of every source into its dest. */
template <int SCOPE, typename T, typename OP>
__device__ __noinline__ void gshmemi_coll_reduce_staged(const char *call, gshmem_team_t team,
                                                           const struct gshmemi_device_team &t,
                                                           T *dest, const T *src, size_t nreduce,
                                                           bool scatter, OP op)
{
    size_t S, first = 0, len = nreduce;
    T *stage = gshmemi_coll_stage<T>(team, t.n, &S);
    if (!scatter)
        gshmemi_coll_part(nreduce, t.n, t.my, &first, &len);
    const T *from = scatter ? src + static_cast<size_t>(t.my) * nreduce : src;
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    for (size_t c0 = first; c0 < first + len; c0 += S) {
        const size_t cl = first + len - c0 < S ? first + len - c0 : S;
        gshmemi_coll_combine_staged<SCOPE>(call, t, t.n, from, c0, cl, stage, S, dest + c0, op);
        for (int k = 1; k < t.n && !scatter; k++)
            gshmemi_put<SCOPE, true, false>(call, dest + c0, dest + c0, cl * sizeof(T),
                                            t.pes[(t.my + k) % t.n]);
    }
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

/* Chunk by chunk: combine into this member's own part of the stage, meet
 * (every member has read the chunk: dest may be source), copy to dest. */
template <int SCOPE, typename T, typename OP>
__device__ __noinline__ void gshmemi_coll_scan_staged(const char *call, gshmem_team_t team,
                                                         const struct gshmemi_device_team &t,
                                                         T *dest, const T *src, size_t nelems,
                                                         int upto, OP op)
{
    size_t S;
    T *stage = gshmemi_coll_stage<T>(team, t.n, &S);
    T *mine = stage + static_cast<size_t>(t.my) * S;
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    for (size_t c0 = 0; c0 < nelems; c0 += S) {
        const size_t cl = nelems - c0 < S ? nelems - c0 : S;
        if (upto > 0)
            gshmemi_coll_combine_staged<SCOPE>(call, t, upto, src, c0, cl, stage, S, mine, op);
        gshmemi_team_sync_group<SCOPE>(call, team, false);
        for (size_t e = lane; e < cl; e += n) {
            T acc;
            memset(&acc, 0, sizeof(acc)); /* zero: every type's zero here */
            dest[c0 + e] = upto > 0 ? mine[e] : acc;
        }
        gshmemi_group_sync<SCOPE>();
    }
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

template <int SCOPE, typename T, typename OP>
__device__ __forceinline__ void gshmemi_coll_reduce(const char *call, gshmem_team_t team, T *dest,
                                                    const T *src, size_t nreduce, OP op)
{
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    if (gshmemi_ll_fits(t, nreduce * sizeof(T)))
        return gshmemi_ll_reduce<SCOPE>(call, team, t, dest, src, nreduce, false, op);
    if (!t.mapped)
        return gshmemi_coll_reduce_staged<SCOPE>(call, team, t, dest, src, nreduce, false, op);
    unsigned lane, n;
    size_t first, len;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_coll_part(nreduce, t.n, t.my, &first, &len);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    for (size_t e = first + lane; e < first + len; e += n) {
        const T acc = gshmemi_coll_combine(call, t, t.n, src, e, op);
        for (int k = 0; k < t.n; k++)
            gshmemi_coll_peer(call, dest, t.pes[(t.my + k) % t.n])[e] = acc;
    }
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

template <int SCOPE, typename T, typename OP>
__device__ __forceinline__ void gshmemi_coll_reducescatter(const char *call, gshmem_team_t team,
                                                           T *dest, const T *src, size_t nreduce,
                                                           OP op)
{
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    if (gshmemi_ll_fits(t, nreduce * sizeof(T)))
        return gshmemi_ll_reduce<SCOPE>(call, team, t, dest, src, nreduce, true, op);
    if (!t.mapped)
        return gshmemi_coll_reduce_staged<SCOPE>(call, team, t, dest, src, nreduce, true, op);
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    const T *block = src + static_cast<size_t>(t.my) * nreduce;
    for (size_t e = lane; e < nreduce; e += n)
        dest[e] = gshmemi_coll_combine(call, t, t.n, block, e, op);
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

/* Where dest is not source, every member writes its results straight into
 * its dest, and the closing barrier tells it that the others have read its
 * source.  In place, by chunks of gshmemi_scan_held results a thread, held
 * until every member has read that chunk of the sources (one meeting a
 * chunk, so every member's group must be as large); where dest overlaps
 * source from above, from the last chunk down. */
constexpr int gshmemi_scan_held = 8;
template <int SCOPE, typename T, typename OP>
__device__ __forceinline__ void gshmemi_coll_scan(const char *call, gshmem_team_t team, T *dest,
                                                  const T *src, size_t nelems, OP op, bool inclusive)
{
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    const int upto = inclusive ? t.my + 1 : t.my;
    if (!t.mapped)
        return gshmemi_coll_scan_staged<SCOPE>(call, team, t, dest, src, nelems, upto, op);
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    T zero;
    memset(&zero, 0, sizeof(zero)); /* every type's zero here */
    const bool in_place = dest < src + nelems && src < dest + nelems;
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    if (!in_place) {
        for (size_t e = lane; e < nelems; e += n)
            dest[e] = upto > 0 ? gshmemi_coll_combine(call, t, upto, src, e, op) : zero;
    } else {
        const size_t chunk = static_cast<size_t>(n) * gshmemi_scan_held;
        const size_t chunks = (nelems + chunk - 1) / chunk;
        for (size_t c = 0; c < chunks; c++) {
            const size_t base = (dest > src ? chunks - 1 - c : c) * chunk;
            T held[gshmemi_scan_held];
#pragma unroll
            for (int k = 0; k < gshmemi_scan_held; k++) {
                const size_t e = base + static_cast<size_t>(k) * n + lane;
                held[k] = e < nelems && upto > 0 ? gshmemi_coll_combine(call, t, upto, src, e, op) : zero;
            }
            gshmemi_team_sync_group<SCOPE>(call, team, false);
#pragma unroll
            for (int k = 0; k < gshmemi_scan_held; k++) {
                const size_t e = base + static_cast<size_t>(k) * n + lane;
                if (e < nelems)
                    dest[e] = held[k];
            }
        }
    }
    gshmemi_team_sync_group<SCOPE>(call, team, true);
}

/* The combining functions the tables' OP names. */
#define GSHMEMI_COLL_OP(T, OP) [](T a, T b) { return gshmemi_arith<T>::OP(a, b); }

} // namespace

/* ---- the API: thread, warp and block forms from the tables ---------------- */

#define GSHMEMI_DEV_COLL_BROADCAST(F, SCOPE, PTYPE, ETYPE)                                         \
    __device__ inline int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems,   \
                            int PE_root)                                                           \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(BROADCAST, NONE),               \
                                       nelems * sizeof(ETYPE), PE_root, dest, source);             \
        gshmemi_coll_broadcast<SCOPE>(#F, team, dest, source, nelems * sizeof(ETYPE), PE_root);    \
        return 0;                                                                                  \
    }
#define GSHMEMI_DEV_COLL_FCOLLECT(F, SCOPE, PTYPE, ETYPE)                                          \
    __device__ inline int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems)   \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(FCOLLECT, NONE),                \
                                       nelems * sizeof(ETYPE), -1, dest, source);                  \
        gshmemi_coll_fcollect<SCOPE>(#F, team, dest, source, nelems * sizeof(ETYPE));              \
        return 0;                                                                                  \
    }
#define GSHMEMI_DEV_COLL_COLLECT(F, SCOPE, PTYPE, ETYPE)                                           \
    __device__ inline int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems)   \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(COLLECT, NONE),                 \
                                       nelems * sizeof(ETYPE), -1, dest, source);                  \
        gshmemi_coll_collect<SCOPE>(#F, team, dest, source, nelems * sizeof(ETYPE));               \
        return 0;                                                                                  \
    }
#define GSHMEMI_DEV_COLL_ALLTOALL(F, SCOPE, PTYPE, ETYPE)                                          \
    __device__ inline int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems)   \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(ALLTOALL, NONE),                \
                                       nelems * sizeof(ETYPE), -1, dest, source);                  \
        gshmemi_coll_alltoall<SCOPE>(#F, team, dest, source, nelems * sizeof(ETYPE));              \
        return 0;                                                                                  \
    }
#define GSHMEMI_DEV_COLL_ALLTOALLS(F, SCOPE, PTYPE, ETYPE)                                         \
    __device__ inline int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, ptrdiff_t dst,   \
                            ptrdiff_t sst, size_t nelems)                                          \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(ALLTOALLS, NONE),               \
                                       nelems * sizeof(ETYPE), -1,                                 \
                                       dest, source, dst, sst, sizeof(ETYPE));                     \
        gshmemi_coll_alltoalls<SCOPE>(#F, team, dest, source, dst, sst, nelems, sizeof(ETYPE));    \
        return 0;                                                                                  \
    }

#define GSHMEMI_DEV_REDUCE_REDUCE(F, SCOPE, T, OP)                                                  \
    __device__ inline int F(gshmem_team_t team, T *dest, const T *source, size_t nreduce)          \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(REDUCE, OP),                    \
                                       nreduce * sizeof(T), -1, dest, source);                     \
        gshmemi_coll_reduce<SCOPE>(#F, team, dest, source, nreduce, GSHMEMI_COLL_OP(T, OP));       \
        return 0;                                                                                  \
    }
#define GSHMEMI_DEV_REDUCE_REDUCESCATTER(F, SCOPE, T, OP)                                           \
    __device__ inline int F(gshmem_team_t team, T *dest, const T *source, size_t nreduce)          \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(REDUCESCATTER, OP),             \
                                       nreduce * sizeof(T), -1, dest, source);                     \
        gshmemi_coll_reducescatter<SCOPE>(#F, team,                                                \
                                       dest, source, nreduce, GSHMEMI_COLL_OP(T, OP));             \
        return 0;                                                                                  \
    }
#define GSHMEMI_DEV_REDUCE_INSCAN(F, SCOPE, T, OP)                                                  \
    __device__ inline int F(gshmem_team_t team, T *dest, const T *source, size_t nelems)           \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(INSCAN, OP), nelems * sizeof(T), \
                                       -1, dest, source);                                          \
        gshmemi_coll_scan<SCOPE>(#F, team, dest, source, nelems, GSHMEMI_COLL_OP(T, OP), true);    \
        return 0;                                                                                  \
    }
#define GSHMEMI_DEV_REDUCE_EXSCAN(F, SCOPE, T, OP)                                                  \
    __device__ inline int F(gshmem_team_t team, T *dest, const T *source, size_t nelems)           \
    {                                                                                              \
        gshmemi_coll_check_args<SCOPE>(#F, team, GSHMEMI_COLL_KIND(EXSCAN, OP), nelems * sizeof(T), \
                                       -1, dest, source);                                          \
        gshmemi_coll_scan<SCOPE>(#F, team, dest, source, nelems, GSHMEMI_COLL_OP(T, OP), false);   \
        return 0;                                                                                  \
    }

/* Thread forms: the host's names, defined in the device pass only. */
#ifdef __CUDA_ARCH__
extern "C" {
#define GSHMEMI_DEV_COLL_THREAD(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    GSHMEMI_DEV_COLL_##SHAPE(gshmem_##NAME##_##STEM##TAIL, GSHMEMI_THREAD, TYPE, TYPE)
#define GSHMEMI_DEV_COLL_THREAD_TYPE(NAME, TYPE, G) \
    GSHMEM_FOR_COLL_OPS(GSHMEMI_DEV_COLL_THREAD, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_COLL_THREAD_TYPE)
#define GSHMEMI_DEV_COLL_THREAD_MEM(STEM, TAIL, SHAPE, V, A, B) \
    GSHMEMI_DEV_COLL_##SHAPE(gshmem_##STEM##mem##TAIL, GSHMEMI_THREAD, void, char)
GSHMEM_FOR_COLL_OPS(GSHMEMI_DEV_COLL_THREAD_MEM, , )
#define GSHMEMI_DEV_REDUCE_THREAD(STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    GSHMEMI_DEV_REDUCE_##SHAPE(gshmem_##NAME##_##STEM##TAIL, GSHMEMI_THREAD, TYPE, OP)
#define GSHMEMI_DEV_REDUCE_THREAD_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(GSHMEMI_DEV_REDUCE_THREAD, NAME, TYPE)
#define GSHMEMI_DEV_REDUCE_THREAD_ARITH(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(GSHMEMI_DEV_REDUCE_THREAD, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(GSHMEMI_DEV_REDUCE_THREAD_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(GSHMEMI_DEV_REDUCE_THREAD_ARITH)
} /* extern "C" */
#endif /* __CUDA_ARCH__ */

/* Warp and block forms: gshmemx_<name>_warp, gshmemx_<name>_block. */
#define GSHMEMI_DEV_COLL_GROUP(STEM, TAIL, SHAPE, V, NAME, TYPE)                                   \
    GSHMEMI_DEV_COLL_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_warp, GSHMEMI_WARP, TYPE, TYPE)       \
    GSHMEMI_DEV_COLL_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_block, GSHMEMI_BLOCK, TYPE, TYPE)
#define GSHMEMI_DEV_COLL_GROUP_TYPE(NAME, TYPE, G) \
    GSHMEM_FOR_COLL_OPS(GSHMEMI_DEV_COLL_GROUP, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(GSHMEMI_DEV_COLL_GROUP_TYPE)
#define GSHMEMI_DEV_COLL_GROUP_MEM(STEM, TAIL, SHAPE, V, A, B)                                     \
    GSHMEMI_DEV_COLL_##SHAPE(gshmemx_##STEM##mem##TAIL##_warp, GSHMEMI_WARP, void, char)           \
    GSHMEMI_DEV_COLL_##SHAPE(gshmemx_##STEM##mem##TAIL##_block, GSHMEMI_BLOCK, void, char)
GSHMEM_FOR_COLL_OPS(GSHMEMI_DEV_COLL_GROUP_MEM, , )
#define GSHMEMI_DEV_REDUCE_GROUP(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                \
    GSHMEMI_DEV_REDUCE_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_warp, GSHMEMI_WARP, TYPE, OP)       \
    GSHMEMI_DEV_REDUCE_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_block, GSHMEMI_BLOCK, TYPE, OP)
#define GSHMEMI_DEV_REDUCE_GROUP_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(GSHMEMI_DEV_REDUCE_GROUP, NAME, TYPE)
#define GSHMEMI_DEV_REDUCE_GROUP_ARITH(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(GSHMEMI_DEV_REDUCE_GROUP, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(GSHMEMI_DEV_REDUCE_GROUP_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(GSHMEMI_DEV_REDUCE_GROUP_ARITH)

#endif /* GSHMEM_DEVICE_COLL_COLLECTIVES_CUH */
