/* gshmem device API, part of gshmem_device.cuh: teams in kernels (queries,
 * team_sync and barrier in thread, warp and block forms).  Only the calling
 * group of each member PE takes part; no collective launch is needed. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/coll/team.cuh>"
#endif
#ifndef GSHMEM_DEVICE_COLL_TEAM_CUH
#define GSHMEM_DEVICE_COLL_TEAM_CUH

namespace {

/* The team `team` names on this PE; a handle that names none stops the job
 * naming the call (its other members would wait for ever). */
__device__ __forceinline__ const struct gshmemi_device_team &gshmemi_team(const char *call,
                                                                          gshmem_team_t team)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (!s.initialized)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_NOT_INIT, team, nullptr, 0);
    if (team < 0 || team >= s.n_teams || s.teams[team].n == 0)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_TEAM, team, nullptr, 0);
    return s.teams[team];
}

/* The member k places after member `from` of an n-member team, in team
 * order (0 <= k <= n), with no division: the collectives look members up
 * before their first store, where a division's time shows. */
__device__ __forceinline__ int gshmemi_member_after(int from, int k, int n)
{
    const int m = from + k;
    return m >= n ? m - n : m;
}

/* Heap offsets (the same on every PE) of a team slot's device words
 * (GSHMEMI_DEVICE_TEAM_*) and of its collective area (enum gshmemi_coll_area). */
__device__ __forceinline__ uint64_t gshmemi_team_words_off(gshmem_team_t team)
{
    return gshmemi_s().team_words_off + 8ull * GSHMEMI_DEVICE_TEAM_WORDS * static_cast<uint64_t>(team);
}
__device__ __forceinline__ uint64_t gshmemi_coll_area_off(gshmem_team_t team)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    return s.coll_off + s.coll_slot_bytes * static_cast<uint64_t>(team);
}

/* One thread's dissemination barrier over the team's members: round r adds
 * one (a release) to the round-r word of the member 2^r further on, then
 * waits until its own has reached this barrier's number.  The words are
 * the team slot's in every PE's heap. */
__device__ __noinline__ void gshmemi_team_sync_thread(const char *call, gshmem_team_t team)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    const uint64_t base = gshmemi_team_words_off(team);
    unsigned long long *mine = reinterpret_cast<unsigned long long *>(s.heap_base + base);
    const unsigned long long target = mine[GSHMEMI_DEVICE_TEAM_EPOCH] + 1;
    mine[GSHMEMI_DEVICE_TEAM_EPOCH] = target;
    for (int r = 0, d = 1; d < t.n; r++, d <<= 1) {
        const int to = t.pes[(t.my + d) % t.n];
        const uint64_t off = base + 8ull * (GSHMEMI_DEVICE_TEAM_ROUNDS + r);
        char *peer = gshmemi_peer_base(s, to);
        if (peer == nullptr)
            gshmemi_push1(call, to, GSHMEMI_REQ_SIGNAL, 1 /* add */, 8, off, 1, 0, 0, 2);
        else
            asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(peer + off) : "memory");
        gshmemi_wait(call, &mine[GSHMEMI_DEVICE_TEAM_ROUNDS + r], GSHMEM_CMP_GE, target);
    }
}

/* The group meets its team: with quiet first (a barrier), every put the
 * group made before is complete everywhere when any member leaves.  The
 * group's stores, ordered before the first thread's release by the group
 * barrier, are covered by it (release is cumulative). */
template <int SCOPE>
__device__ __forceinline__ void gshmemi_team_sync_group(const char *call, gshmem_team_t team,
                                                        bool quiet)
{
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    gshmemi_group_sync<SCOPE>();
    if (lane == 0) {
        if (quiet) {
            gshmemi_fence_sc();
            gshmemi_proxy_quiet(call);
        }
        gshmemi_team_sync_thread(call, team);
    }
    gshmemi_group_sync<SCOPE>();
}

/* GSHMEM_DEBUG_CHECKS: dest overlaps source only as the collective's
 * in-place form allows (the host forms' rule, gshmemi_coll_check_overlap):
 * the bytes each covers here, by the kind's shape; alltoalls' strided
 * spans from dst, sst and the element size. */
__device__ __noinline__ void gshmemi_coll_check_overlap(const char *call,
                                                        const struct gshmemi_device_team &t, int kind,
                                                        uint64_t bytes, int root, const void *dest,
                                                        const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                                        size_t esize)
{
    if (bytes == 0)
        return;
    const char *d = static_cast<const char *>(dest), *sp = static_cast<const char *>(src);
    const uint64_t all = bytes * static_cast<uint64_t>(t.n), mine = bytes * static_cast<uint64_t>(t.my);
    uint64_t db = bytes, sb = bytes;
    int form = GSHMEMI_COLL_IN_PLACE_SAME;
    switch (kind / 16) {
    case GSHMEMI_COLL_KIND_BROADCAST:
        sb = t.my == root ? bytes : 0; /* only the root reads source */
        break;
    case GSHMEMI_COLL_KIND_FCOLLECT:
        db = all, form = GSHMEMI_COLL_IN_PLACE_SOURCE_BLOCK;
        break;
    case GSHMEMI_COLL_KIND_COLLECT:
        form = GSHMEMI_COLL_IN_PLACE_NONE;
        break;
    case GSHMEMI_COLL_KIND_ALLTOALL:
        db = sb = all, form = GSHMEMI_COLL_IN_PLACE_NONE;
        break;
    case GSHMEMI_COLL_KIND_ALLTOALLS: {
        if (dst < 1 || sst < 1)
            return; /* (no span to compare: strides must be positive) */
        const uint64_t last = bytes / esize * static_cast<uint64_t>(t.n) - 1;
        db = (last * static_cast<uint64_t>(dst) + 1) * esize;
        sb = (last * static_cast<uint64_t>(sst) + 1) * esize;
        form = GSHMEMI_COLL_IN_PLACE_NONE;
        break;
    }
    case GSHMEMI_COLL_KIND_REDUCESCATTER:
        sb = all, form = GSHMEMI_COLL_IN_PLACE_DEST_BLOCK;
        break;
    default: /* reduce, the scans */
        break;
    }
    const bool in_place = (form == GSHMEMI_COLL_IN_PLACE_SAME && d == sp) ||
                          (form == GSHMEMI_COLL_IN_PLACE_SOURCE_BLOCK && d + mine == sp) ||
                          (form == GSHMEMI_COLL_IN_PLACE_DEST_BLOCK && sp + mine == d);
    if (db > 0 && sb > 0 && !in_place && d < sp + sb && sp < d + db)
        gshmemi_fail(call, GSHMEMI_DEV_FAIL_COLL_OVERLAP, -1, dest, db, form,
                     reinterpret_cast<uint64_t>(src), sb);
}

/* GSHMEM_DEBUG_CHECKS: the group's PE passed what the team's next member
 * passed (kind, bytes per member, root: enum GSHMEMI_COLL_ARG_*), as the
 * host forms check it (src/coll/collectives.c): each member shows its
 * words in the slot's device words, meets, compares its next member's
 * (the last compares none, so one PE sees a difference), meets again.
 * First, before the meeting, dest and source (gshmemi_coll_check_overlap). */
template <int SCOPE>
__device__ __noinline__ void gshmemi_coll_check_args(const char *call, gshmem_team_t team, int kind,
                                                     uint64_t bytes, int root, const void *dest,
                                                     const void *src, ptrdiff_t dst = 1,
                                                     ptrdiff_t sst = 1, size_t esize = 1)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (!s.debug_checks)
        return;
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    gshmemi_coll_check_overlap(call, t, kind, bytes, root, dest, src, dst, sst, esize);
    uint64_t *words = reinterpret_cast<uint64_t *>(s.heap_base + gshmemi_team_words_off(team)) +
                      GSHMEMI_DEVICE_TEAM_ARGS;
    const uint64_t mine[GSHMEMI_COLL_ARGS] = {static_cast<uint64_t>(kind), bytes,
                                              static_cast<uint64_t>(static_cast<int64_t>(root))};
    unsigned lane, n;
    gshmemi_group<SCOPE>(&lane, &n);
    if (lane == 0)
        for (int w = 0; w < GSHMEMI_COLL_ARGS; w++)
            reinterpret_cast<volatile uint64_t *>(words)[w] = mine[w];
    gshmemi_team_sync_group<SCOPE>(call, team, false);
    if (lane == 0 && t.my + 1 < t.n) {
        const int next = t.pes[t.my + 1];
        for (int w = 0; w < GSHMEMI_COLL_ARGS; w++) {
            const uint64_t theirs = gshmemi_g<uint64_t>(call, words + w, next);
            if (theirs != mine[w] &&
                (w != GSHMEMI_COLL_ARG_BYTES || kind != GSHMEMI_COLL_KIND(COLLECT, NONE)))
                gshmemi_fail(call, GSHMEMI_DEV_FAIL_COLL_ARGS, next,
                             reinterpret_cast<const void *>(static_cast<uintptr_t>(w)), 0, 0,
                             theirs, mine[w]);
        }
    }
    gshmemi_team_sync_group<SCOPE>(call, team, false);
}

} // namespace

#ifdef __CUDA_ARCH__
extern "C" {

__device__ inline int gshmem_team_my_pe(gshmem_team_t team)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    return team >= 0 && team < s.n_teams && s.teams[team].n > 0 ? s.teams[team].my : -1;
}

__device__ inline int gshmem_team_n_pes(gshmem_team_t team)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    return team >= 0 && team < s.n_teams && s.teams[team].n > 0 ? s.teams[team].n : -1;
}

__device__ inline int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe,
                                               gshmem_team_t dest_team)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (src_team < 0 || src_team >= s.n_teams || dest_team < 0 || dest_team >= s.n_teams)
        return -1;
    const struct gshmemi_device_team &a = s.teams[src_team], &b = s.teams[dest_team];
    if (a.n == 0 || b.n == 0 || src_pe < 0 || src_pe >= a.n)
        return -1;
    const int world = a.pes[src_pe];
    for (int i = 0; i < b.n; i++)
        if (b.pes[i] == world)
            return i;
    return -1;
}

__device__ inline void *gshmem_team_ptr(gshmem_team_t team, const void *dest, int pe)
{
    const int world = gshmem_team_translate_pe(team, pe, GSHMEM_TEAM_WORLD);
    return world < 0 ? nullptr : gshmem_ptr(dest, world);
}

__device__ inline int gshmem_team_sync(gshmem_team_t team)
{
    gshmemi_team_sync_group<GSHMEMI_THREAD>("gshmem_team_sync", team, false);
    return 0;
}

__device__ inline int gshmem_barrier(gshmem_team_t team)
{
    gshmemi_team_sync_group<GSHMEMI_THREAD>("gshmem_barrier", team, true);
    return 0;
}

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

__device__ inline int gshmemx_team_sync_warp(gshmem_team_t team)
{
    gshmemi_team_sync_group<GSHMEMI_WARP>("gshmemx_team_sync_warp", team, false);
    return 0;
}
__device__ inline int gshmemx_team_sync_block(gshmem_team_t team)
{
    gshmemi_team_sync_group<GSHMEMI_BLOCK>("gshmemx_team_sync_block", team, false);
    return 0;
}
__device__ inline int gshmemx_barrier_warp(gshmem_team_t team)
{
    gshmemi_team_sync_group<GSHMEMI_WARP>("gshmemx_barrier_warp", team, true);
    return 0;
}
__device__ inline int gshmemx_barrier_block(gshmem_team_t team)
{
    gshmemi_team_sync_group<GSHMEMI_BLOCK>("gshmemx_barrier_block", team, true);
    return 0;
}

#endif /* GSHMEM_DEVICE_COLL_TEAM_CUH */
