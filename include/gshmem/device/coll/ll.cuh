/* gshmem device API, part of gshmem_device.cuh: the collectives' flag-packet
 * (LL) algorithms, for teams whose members are all mapped and payloads of
 * at most coll_ll_max bytes per member (GSHMEM_COLL_LL_MAX).
 *
 * One shot, no barrier: each member stores its data straight into the
 * receivers' buffers in the team slot's collective area as 16-byte packets
 * {data low, n, data high, ~n}, where n is the slot's collective number
 * (kept per PE, the same on every member since all call the team's
 * collectives in the same order; with its complement, a zeroed packet
 * matches no n, 0 included after 2^32 collectives).  A receiver polls each
 * packet until both halves carry n: data and flag arrive in one store, so
 * nothing else is waited for.  Collectives alternate between two buffers
 * by n's parity.  A member tells every other member that it has finished
 * collective n - 1 when it starts collective n (sent at the end of n - 1,
 * that store would lengthen n - 1 itself), and a sender waits for that
 * word to reach n - 2 before it reuses a buffer.  It has nearly always
 * arrived where the receiver sends too (a member that sent collective n - 1
 * had started it); a root that broadcasts again and again waits for the
 * others to have started the broadcast before last.  Reductions combine in
 * team order, as every other algorithm does, so the bits do not depend on
 * the algorithm.
 *
 * The stream forms pass the members' areas as the host computed them
 * (struct gshmemi_ll_areas), so that their kernels load no team state
 * before the first store; the device forms compute them from the team.
 * A stream kernel may run on several blocks, each on its share of the
 * packets (its window): one of them tells the others' areas, and the last
 * to finish numbers the next collective.
 */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/coll/ll.cuh>"
#endif
#ifndef GSHMEM_DEVICE_COLL_LL_CUH
#define GSHMEM_DEVICE_COLL_LL_CUH

namespace {

/* ---- packets (copy.cuh's, tagged with n and its complement) ---- */

__device__ __forceinline__ void gshmemi_ll_store(uint4 *p, uint64_t data, uint32_t n)
{
    gshmemi_packet_store(p, data, n, ~n);
}

__device__ __forceinline__ bool gshmemi_ll_try(const uint4 *p, uint32_t n, uint64_t *data)
{
    return gshmemi_packet_try(p, n, ~n, data);
}

__device__ __forceinline__ uint64_t gshmemi_ll_chunk(const char *src, size_t nbytes, size_t k)
{
    return gshmemi_packet_chunk(src, nbytes, k);
}

__device__ __forceinline__ void gshmemi_ll_unchunk(char *dst, size_t nbytes, size_t k, uint64_t v)
{
    gshmemi_packet_unchunk(dst, nbytes, k, v);
}

__device__ __forceinline__ size_t gshmemi_ll_npackets(size_t nbytes) { return (nbytes + 7) / 8; }

/* ---- one collective's frame ---- */

struct gshmemi_ll {
    const struct gshmemi_device_team *t; /* read for the members' PEs only (names, device forms' areas) */
    const struct gshmemi_ll_areas *areas; /* the members' areas from the host, or NULL */
    char *area;          /* this PE's collective area of the slot */
    uint64_t area_off;   /* its offset in every heap */
    uint32_t n;          /* this collective's number on the slot */
    int members, my;     /* the team's size, this PE's index */
    unsigned part, parts; /* this block's share of the packets, of that many (stream kernels) */
    unsigned long long *count;
    const char *call;
    gshmem_team_t team;
    int seen; /* stream kernels: the slot's team generation (gshmemi_ll_alive) */
};

/* Member m's collective area of the slot, as mapped here. */
__device__ __forceinline__ char *gshmemi_ll_area(const struct gshmemi_ll &ll, int m)
{
    if (ll.areas != nullptr)
        return ll.areas->area[m];
    return m == ll.my ? ll.area : gshmemi_peer_base(gshmemi_s(), ll.t->pes[m]) + ll.area_off;
}

/* Waits for packet p of collective n from member `from` (its PE named if
 * it never comes). */
__device__ __forceinline__ uint64_t gshmemi_ll_wait(const struct gshmemi_ll &ll, const uint4 *p, int from)
{
    uint64_t v;
    gshmemi_deadline deadline;
    for (unsigned spins = 1; !gshmemi_ll_try(p, ll.n, &v); spins++)
        if ((spins & 1023) == 0 && deadline.passed())
            gshmemi_fail(ll.call, GSHMEMI_DEV_FAIL_TIMEOUT, ll.t->pes[from], p, 16, GSHMEM_CMP_EQ, ll.n, v);
    return v;
}

/* Whether a payload of `bytes` per member goes by flag packets on team t. */
__device__ __forceinline__ bool gshmemi_ll_fits(const struct gshmemi_device_team &t, size_t bytes)
{
    const uint32_t max = gshmemi_s().coll_ll_max;
    return t.mapped && t.n > 1 && max > 0 && bytes <= max;
}

__device__ __forceinline__ volatile uint32_t *gshmemi_ll_ack(char *area, int member)
{
    return reinterpret_cast<volatile uint32_t *>(area + GSHMEMI_COLL_AREA_LL_ACKS) + member;
}

/* The frame of the group's next collective on the team, all but its
 * number (gshmemi_ll_number): what it needs before then is loaded first
 * (gshmemi_ll_prefetch). */
template <int SCOPE, bool SHARES = true>
__device__ __forceinline__ struct gshmemi_ll gshmemi_ll_frame(const char *call, gshmem_team_t team,
                                                             const struct gshmemi_device_team &t,
                                                             const struct gshmemi_ll_areas *areas)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    struct gshmemi_ll ll;
    ll.t = &t;
    ll.areas = areas;
    ll.call = call;
    ll.team = team;
    ll.area_off = gshmemi_coll_area_off(team);
    ll.area = s.heap_base + ll.area_off;
    if (areas != nullptr) {
        ll.members = areas->n, ll.my = areas->my;
        ll.count = areas->count;
    } else {
        ll.members = t.n, ll.my = t.my;
        ll.count = reinterpret_cast<unsigned long long *>(s.heap_base + gshmemi_team_words_off(team)) +
                   GSHMEMI_DEVICE_TEAM_LL_EPOCH;
    }
    ll.n = 0;
    ll.part = 0, ll.parts = 1;
    if (SHARES && areas != nullptr && SCOPE == GSHMEMI_BLOCK)
        ll.part = blockIdx.x, ll.parts = gridDim.x;
    return ll;
}

/* a / b, in 32 bits where both fit: a 64-bit division is a long sequence
 * of instructions, and the frame's arithmetic runs before a small
 * collective's first store. */
__device__ __forceinline__ size_t gshmemi_ll_div(size_t a, size_t b)
{
    if (((a | b) >> 32) == 0)
        return static_cast<unsigned>(a) / static_cast<unsigned>(b);
    return a / b;
}

/* The collective's number, and every other member learns that the group
 * has finished the one before.  A plain store, not a release: every read
 * of that one's buffer returned its value before the group barrier that
 * ended it (each read's flag was checked), and the sender polls this word
 * before it stores again; the order rests on that dependency and barrier,
 * which the hardware keeps, not on the PTX model's release, which would
 * cost a round trip. */
template <int SCOPE>
__device__ __forceinline__ void gshmemi_ll_number(struct gshmemi_ll &ll)
{
    // (A stream kernel's slot's team generation, issued with the number's
    // load and compared only after the sends: gshmemi_ll_alive.)
    if (ll.areas != nullptr && ll.areas->generation != 0)
        ll.seen = *reinterpret_cast<const volatile int *>(&ll.t->generation);
    ll.n = static_cast<uint32_t>(*reinterpret_cast<volatile unsigned long long *>(ll.count) + 1);
    unsigned lane, nthr;
    gshmemi_group<SCOPE>(&lane, &nthr);
    for (int k = 1 + static_cast<int>(lane); ll.part == 0 && k < ll.members;
         k += static_cast<int>(nthr))
        *gshmemi_ll_ack(gshmemi_ll_area(ll, gshmemi_member_after(ll.my, k, ll.members)), ll.my) = ll.n - 1;
}

/* A stream kernel's team still holds the slot it was enqueued on (the
 * generation the host passed under GSHMEM_DEBUG_CHECKS): a CUDA graph
 * replayed after gshmem_team_destroy stops the job here, before it waits
 * for anyone.  Checked after the group's own packets (and acknowledgements)
 * have gone, which may already have reached the slot's next team (or
 * before a send waits for its receiver: gshmemi_ll_may_send), so that the
 * load costs no round trip before them; the job ends either way. */
__device__ __forceinline__ void gshmemi_ll_alive(const struct gshmemi_ll &ll)
{
    if (ll.areas != nullptr && ll.areas->generation != 0 && ll.seen != ll.areas->generation)
        gshmemi_fail(ll.call, GSHMEMI_DEV_FAIL_TEAM_GONE, ll.team, nullptr, 0);
}

/* This group's packets [*q0, *q1) of np: all, or its block's share
 * (divisions only for a share, in 32 bits where they fit). */
__device__ __forceinline__ void gshmemi_ll_window(const struct gshmemi_ll &ll, size_t np,
                                                  size_t *q0, size_t *q1)
{
    if (ll.parts == 1) {
        *q0 = 0, *q1 = np;
        return;
    }
    *q0 = gshmemi_ll_div(np * ll.part, ll.parts);
    *q1 = gshmemi_ll_div(np * (ll.part + 1), ll.parts);
}

/* Bytes [*b0, *b1) of nbytes that packets [q0, q1) carry. */
__device__ __forceinline__ void gshmemi_ll_window_bytes(size_t nbytes, size_t q0, size_t q1,
                                                        size_t *b0, size_t *b1)
{
    *b0 = q0 * 8 < nbytes ? q0 * 8 : nbytes;
    *b1 = q1 * 8 < nbytes ? q1 * 8 : nbytes;
}

/* Packet q from member `from` to this collective's buffer on member `to`
 * (to's heap as mapped here). */
__device__ __forceinline__ uint4 *gshmemi_ll_packet(const struct gshmemi_ll &ll, int to, int from,
                                                    size_t q)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    char *base = gshmemi_ll_area(ll, to) + s.coll_ll_off;
    const size_t buf = (static_cast<size_t>(ll.n & 1) * static_cast<size_t>(s.n_pes) +
                        static_cast<size_t>(from)) *
                       s.coll_ll_packets;
    return reinterpret_cast<uint4 *>(base) + buf + q;
}

/* Whether a member whose acknowledgement word holds `ack` has finished the
 * collective before collective n's last (whose buffer n reuses).  A
 * wrapping compare: right for n = 1, 2 against a zeroed word too, and past
 * 2^32 collectives on the slot. */
__device__ __forceinline__ bool gshmemi_ll_acked(uint32_t ack, uint32_t n)
{
    return static_cast<int32_t>(ack - (n - 2)) >= 0;
}

/* Waits until member `to` has finished the collective before last. */
__device__ __forceinline__ void gshmemi_ll_may_send(const struct gshmemi_ll &ll, int to)
{
    volatile uint32_t *ack = gshmemi_ll_ack(ll.area, to);
    if (gshmemi_ll_acked(*ack, ll.n))
        return;
    gshmemi_ll_alive(ll); /* (a stream kernel's team is still there: before it waits for anyone) */
    gshmemi_deadline deadline;
    for (unsigned spins = 1; !gshmemi_ll_acked(*ack, ll.n); spins++)
        if ((spins & 1023) == 0 && deadline.passed())
            gshmemi_fail(ll.call, GSHMEMI_DEV_FAIL_TIMEOUT, ll.t->pes[to],
                         const_cast<const uint32_t *>(ack), 4, GSHMEM_CMP_GE, ll.n - 2, *ack);
}

/* The member that item i of a group's packets goes to (sending) or comes
 * from (receiving), w packets a member: the others in turn from the next
 * one up; in *j the item's packet among that member's w. */
__device__ __forceinline__ int gshmemi_ll_peer(const struct gshmemi_ll &ll, size_t i, size_t w, size_t *j)
{
    const size_t k = gshmemi_ll_div(i, w);
    *j = i - k * w;
    return gshmemi_member_after(ll.my, static_cast<int>(k) + 1, ll.members);
}

/* A thread's first packet to send: its receiver's acknowledgement word
 * and the 8 bytes the packet carries (unused where the thread sends
 * nothing).  Loaded before the collective's number, where they waited for
 * it and then for each other: a chain of three memory latencies at the
 * head of every small collective. */
struct gshmemi_ll_first {
    uint64_t chunk;
    uint32_t ack;
};

template <int SCOPE, typename DATA>
__device__ __forceinline__ struct gshmemi_ll_first gshmemi_ll_prefetch(const struct gshmemi_ll &ll,
                                                                      size_t bytes, bool root_only,
                                                                      int root, DATA data)
{
    struct gshmemi_ll_first f;
    f.ack = 0, f.chunk = 0;
    size_t q0, q1;
    gshmemi_ll_window(ll, gshmemi_ll_npackets(bytes), &q0, &q1);
    const size_t w = q1 - q0;
    unsigned lane, nthr;
    gshmemi_group<SCOPE>(&lane, &nthr);
    if ((root_only && ll.my != root) || lane >= w * static_cast<size_t>(ll.members - 1))
        return f;
    size_t j;
    const int to = gshmemi_ll_peer(ll, lane, w, &j);
    f.ack = *gshmemi_ll_ack(ll.area, to);
    f.chunk = gshmemi_ll_chunk(data(to), bytes, q0 + j);
    return f;
}

/* The group sends `bytes` of data(to) to every other member `to`:
 * data(to) points at the payload for that member; `first` is this
 * thread's first packet, prefetched. */
template <int SCOPE, typename DATA>
__device__ __forceinline__ void gshmemi_ll_send(const struct gshmemi_ll &ll, size_t bytes,
                                                bool root_only, int root, DATA data,
                                                const struct gshmemi_ll_first &first)
{
    size_t q0, q1;
    gshmemi_ll_window(ll, gshmemi_ll_npackets(bytes), &q0, &q1);
    const size_t w = q1 - q0;
    unsigned lane, nthr;
    gshmemi_group<SCOPE>(&lane, &nthr);
    if (root_only && ll.my != root)
        return;
    const size_t total = w * static_cast<size_t>(ll.members - 1);
    int cleared = -1; /* the member whose word this thread last found ready */
    for (size_t i = lane; i < total; i += nthr) {
        size_t j;
        const int to = gshmemi_ll_peer(ll, i, w, &j);
        const size_t q = q0 + j;
        uint64_t chunk;
        if (i == lane) { /* the prefetched packet: wait only if its word was behind */
            if (!gshmemi_ll_acked(first.ack, ll.n))
                gshmemi_ll_may_send(ll, to);
            cleared = to;
            chunk = first.chunk;
        } else {
            if (to != cleared)
                gshmemi_ll_may_send(ll, to), cleared = to;
            chunk = gshmemi_ll_chunk(data(to), bytes, q);
        }
        gshmemi_ll_store(gshmemi_ll_packet(ll, to, ll.my, q), chunk, ll.n);
    }
}

/* The group has read everything addressed to this PE (the others learn
 * it when the group begins its next collective on the team), and that
 * collective gets the next number. */
template <int SCOPE>
__device__ __forceinline__ void gshmemi_ll_end(const struct gshmemi_ll &ll)
{
    unsigned lane, nthr;
    gshmemi_group<SCOPE>(&lane, &nthr);
    gshmemi_group_sync<SCOPE>();
    if (lane == 0 && ll.parts == 1) {
        *reinterpret_cast<volatile unsigned long long *>(ll.count) = ll.n;
    } else if (lane == 0) {
        /* Every block read n before it counts itself here; the next
         * kernel in stream order sees the word cleared and n. */
        unsigned long long *done =
            ll.count + (GSHMEMI_DEVICE_TEAM_LL_BLOCKS - GSHMEMI_DEVICE_TEAM_LL_EPOCH);
        __threadfence();
        if (atomicAdd(done, 1ULL) == ll.parts - 1) {
            *reinterpret_cast<volatile unsigned long long *>(done) = 0;
            *reinterpret_cast<volatile unsigned long long *>(ll.count) = ll.n;
        }
    }
    gshmemi_group_sync<SCOPE>();
}

/* Whether [a, a + an) and [b, b + bn) share a byte: the group must then
 * finish reading before it writes. */
__device__ __forceinline__ bool gshmemi_overlap(const void *a, size_t an, const void *b, size_t bn)
{
    const char *x = static_cast<const char *>(a), *y = static_cast<const char *>(b);
    return x < y + bn && y < x + an;
}

/* ---- the collectives ---- */

/* Combines a word (8 or 16 bytes) of T elements, element by element:
 * acc OP in (the grid algorithms use it on 16-byte vectors). */
template <typename T, typename W, typename OP>
__device__ __forceinline__ W gshmemi_combine_packed(W acc, W in, OP op)
{
    constexpr int K = sizeof(W) / sizeof(T);
    T a[K], b[K];
    memcpy(a, &acc, sizeof(W));
    memcpy(b, &in, sizeof(W));
#pragma unroll
    for (int i = 0; i < K; i++)
        a[i] = op(a[i], b[i]);
    memcpy(&acc, a, sizeof(W));
    return acc;
}

/* Reduce (all members get the combination of all sources) and
 * reducescatter (member i gets block i's); block: the elements each
 * member sends to each other (0: the whole source to all). */
template <int SCOPE, typename T, typename OP, bool SHARES = true>
__device__ __forceinline__ void gshmemi_ll_reduce(const char *call, gshmem_team_t team,
                                                  const struct gshmemi_device_team &t, T *dest,
                                                  const T *src, size_t nelems, bool scatter, OP op,
                                                  const struct gshmemi_ll_areas *areas = nullptr)
{
    const size_t bytes = nelems * sizeof(T);
    struct gshmemi_ll ll = gshmemi_ll_frame<SCOPE, SHARES>(call, team, t, areas);
    const int members = ll.members, my = ll.my;
    const char *source = reinterpret_cast<const char *>(src);
    const auto data = [&](int to) {
        return scatter ? source + static_cast<size_t>(to) * bytes : source;
    };
    const struct gshmemi_ll_first first = gshmemi_ll_prefetch<SCOPE>(ll, bytes, false, 0, data);
    gshmemi_ll_number<SCOPE>(ll);
    gshmemi_ll_send<SCOPE>(ll, bytes, false, 0, data, first);
    gshmemi_ll_alive(ll);
    if (gshmemi_overlap(dest, bytes, src, scatter ? bytes * members : bytes))
        gshmemi_group_sync<SCOPE>();
    const char *own = scatter ? source + static_cast<size_t>(my) * bytes : source;
    unsigned lane, nthr;
    gshmemi_group<SCOPE>(&lane, &nthr);
    size_t q0, q1;
    gshmemi_ll_window(ll, gshmemi_ll_npackets(bytes), &q0, &q1);
    for (size_t q = q0 + lane; q < q1; q += nthr) {
        uint64_t acc = my == 0 ? gshmemi_ll_chunk(own, bytes, q)
                               : gshmemi_ll_wait(ll, gshmemi_ll_packet(ll, my, 0, q), 0);
        for (int i = 1; i < members; i++) {
            const uint64_t in = i == my ? gshmemi_ll_chunk(own, bytes, q)
                                        : gshmemi_ll_wait(ll, gshmemi_ll_packet(ll, my, i, q), i);
            acc = gshmemi_combine_packed<T>(acc, in, op);
        }
        gshmemi_ll_unchunk(reinterpret_cast<char *>(dest), bytes, q, acc);
    }
    gshmemi_ll_end<SCOPE>(ll);
}

/* fcollect (every member's block to all, at its index), alltoall (block j
 * of each member to member j) and broadcast (the root's block to all). */
enum { GSHMEMI_LL_FCOLLECT, GSHMEMI_LL_ALLTOALL, GSHMEMI_LL_BROADCAST };

template <int SCOPE, bool SHARES = true>
__device__ __forceinline__ void gshmemi_ll_move(const char *call, gshmem_team_t team,
                                                const struct gshmemi_device_team &t, int shape,
                                                void *dest, const void *src, size_t nbytes, int root,
                                                const struct gshmemi_ll_areas *areas = nullptr)
{
    struct gshmemi_ll ll = gshmemi_ll_frame<SCOPE, SHARES>(call, team, t, areas);
    const int members = ll.members, my = ll.my;
    const char *source = static_cast<const char *>(src);
    char *out = static_cast<char *>(dest);
    const bool bcast = shape == GSHMEMI_LL_BROADCAST;
    const auto data = [&](int to) {
        return shape == GSHMEMI_LL_ALLTOALL ? source + static_cast<size_t>(to) * nbytes : source;
    };
    const struct gshmemi_ll_first first = gshmemi_ll_prefetch<SCOPE>(ll, nbytes, bcast, root, data);
    gshmemi_ll_number<SCOPE>(ll);
    gshmemi_ll_send<SCOPE>(ll, nbytes, bcast, root, data, first);
    gshmemi_ll_alive(ll);
    const size_t in_bytes = shape == GSHMEMI_LL_ALLTOALL ? nbytes * members : nbytes;
    const size_t out_bytes = bcast ? nbytes : nbytes * members;
    if (gshmemi_overlap(dest, out_bytes, src, in_bytes))
        gshmemi_group_sync<SCOPE>();
    unsigned lane, nthr;
    gshmemi_group<SCOPE>(&lane, &nthr);
    size_t q0, q1, b0, b1;
    gshmemi_ll_window(ll, gshmemi_ll_npackets(nbytes), &q0, &q1);
    gshmemi_ll_window_bytes(nbytes, q0, q1, &b0, &b1);
    const size_t w = q1 - q0;
    if (bcast) {
        if (my == root) {
            if (dest != src)
                gshmemi_copy(out + b0, source + b0, b1 - b0, lane, nthr);
        } else {
            for (size_t q = q0 + lane; q < q1; q += nthr)
                gshmemi_ll_unchunk(out, nbytes, q, gshmemi_ll_wait(ll, gshmemi_ll_packet(ll, my, root, q), root));
        }
    } else {
        /* This PE's own block: a local copy unless already in place. */
        const char *own = shape == GSHMEMI_LL_ALLTOALL ? source + static_cast<size_t>(my) * nbytes
                                                       : source;
        char *mine = out + static_cast<size_t>(my) * nbytes;
        if (mine != own)
            gshmemi_copy(mine + b0, own + b0, b1 - b0, lane, nthr);
        const size_t total = w * static_cast<size_t>(members - 1);
        for (size_t i = lane; i < total; i += nthr) {
            size_t j;
            const int from = gshmemi_ll_peer(ll, i, w, &j);
            const size_t q = q0 + j;
            gshmemi_ll_unchunk(out + static_cast<size_t>(from) * nbytes, nbytes, q,
                               gshmemi_ll_wait(ll, gshmemi_ll_packet(ll, my, from, q), from));
        }
    }
    gshmemi_ll_end<SCOPE>(ll);
}

} // namespace

#endif /* GSHMEM_DEVICE_COLL_LL_CUH */
