/* gshmem device API, part of gshmem_device.cuh: partitioned transfers from
 * kernels (gshmemx.h's partitioned section): a send's partitions marked
 * ready, a receive's tested for arrival, and a round started and waited
 * for, by a thread, or by a warp or block together (_warp, _block).  The
 * request is the handle the host's init returned; its match is the host's
 * work (the library's progress
 * thread), the rest is done here.  The request kernels get is the GPU's
 * copy; what they change (a round, open, owed, and a partition's mark
 * where the host moves the partitions) they write to the host's copy too
 * (mirror).  A ready call in a kernel waits (under
 * GSHMEM_TIMEOUT) until the request is matched and the receiver has
 * started the round, then moves its partitions: a put and a flag after it,
 * by stores where the receiver is mapped, else through the proxy. */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/partitioned.cuh>"
#endif
#ifndef GSHMEM_DEVICE_PARTITIONED_CUH
#define GSHMEM_DEVICE_PARTITIONED_CUH

namespace {

__device__ __noinline__ void gshmemi_preq_fail(const char *call, int kind, int peer,
                                               uint64_t partition, uint64_t partitions,
                                               uint64_t round, uint64_t found = 0)
{
    gshmemi_fail(call, GSHMEMI_DEV_FAIL_PARTITIONED, peer,
                 reinterpret_cast<const void *>(partition), partitions, kind, round, found);
}

__device__ __forceinline__ struct gshmemi_preq_dev *gshmemi_preq(const char *call,
                                                                 gshmemx_prequest_t req)
{
    if (req == nullptr)
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_NULL, -1, 0, 0, 0);
    return reinterpret_cast<struct gshmemi_preq_dev *>(req);
}

/* The fields the host or another agent may change, read from memory. */
__device__ __forceinline__ uint64_t gshmemi_preq_round(const struct gshmemi_preq_dev *q)
{
    return *reinterpret_cast<const volatile uint64_t *>(&q->round);
}
__device__ __forceinline__ int gshmemi_preq_open(const struct gshmemi_preq_dev *q)
{
    return *reinterpret_cast<const volatile int32_t *>(&q->open);
}
__device__ __forceinline__ uint64_t gshmemi_preq_word(uint32_t uid, uint64_t round)
{
    return static_cast<uint64_t>(uid) << 32 | round;
}
__device__ __forceinline__ bool gshmemi_preq_reached(uint64_t w, uint32_t uid, uint64_t round)
{
    return static_cast<uint32_t>(w >> 32) == uid && (w & 0xffffffffu) >= round;
}

/* Fails where partition p is not one of the request's parts. */
__device__ __forceinline__ void gshmemi_preq_in_range(const char *call,
                                                      const struct gshmemi_preq_dev *q, int parts,
                                                      int p, uint64_t r)
{
    if (p < 0 || p >= parts)
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_RANGE, q->peer, static_cast<uint64_t>(p),
                          static_cast<uint64_t>(parts), r);
}

/* Marks partition p (in range: gshmemi_preq_in_range) in round r
 * (marked[] loaded with the caller's other fields; the caller counts its
 * marks in q->marks).  Returns the round the partition was marked in
 * before, which is r where it is ready twice: the caller checks it
 * (gshmemi_preq_twice) after its next marks are issued, or once its moves
 * are under way, not one round trip before them.  Where mirror_marked is
 * set (the host moves the partitions) the host's copy learns it too;
 * otherwise the host's calls that check marks (pwait, ready) read the
 * GPU's. */
__device__ __forceinline__ uint64_t gshmemi_preq_mark(uint64_t *marked, uint64_t *mirror_marked,
                                                      int p, uint64_t r)
{
    /* (the GPU's copy: only this GPU's kernels use it.  A global
     * exchange: a generic one is a branch whose answer is waited for at
     * once) */
    uint64_t old;
    asm volatile("atom.relaxed.gpu.global.exch.b64 %0, [%1], %2;"
                 : "=l"(old) : "l"(&marked[p]), "l"(r) : "memory");
    if (mirror_marked != nullptr)
        *reinterpret_cast<volatile uint64_t *>(&mirror_marked[p]) = r;
    return old;
}

/* Partitions a ready call marks together before it looks at their
 * answers: each look waits for its exchange, and an exchange issued after
 * a look would wait a memory round trip more. */
constexpr int gshmemi_pmark_batch = 8;

/* Bytes a ready call to a mapped peer puts before it sets their flags
 * (after one fence): enough that a list of small partitions pays a fence
 * for many, few enough that the receiver of large ones hears of each
 * soon (a block copies this in about a microsecond). */
constexpr uint64_t gshmemi_pflags_bytes = 64 << 10;

/* Fails where a mark's previous round (gshmemi_preq_mark) is this one. */
__device__ __forceinline__ void gshmemi_preq_twice(const char *call, struct gshmemi_preq_dev *q,
                                                   uint64_t before, int p, uint64_t r)
{
    if (before == r)
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_TWICE, q->peer, static_cast<uint64_t>(p),
                          static_cast<uint64_t>(q->partitions), r);
}

/* Waits until the request is matched and the receiver has started round r. */
__device__ __forceinline__ void gshmemi_preq_wait_start(const char *call,
                                                        struct gshmemi_preq_dev *q, uint64_t r)
{
    gshmemi_deadline deadline;
    int m;
    for (unsigned spins = 1;
         (m = gshmemi_load_acquire(&q->match)) == GSHMEMI_PREQ_UNMATCHED; spins++)
        if ((spins & 255) == 0 && deadline.passed())
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_NOT_MATCHED, q->peer, 0, 0, r, q->seq);
    if (m == GSHMEMI_PREQ_PEER_FREED)
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_PEER_FREED, q->peer, 0, 0, r, q->seq);
    for (unsigned spins = 1; !gshmemi_preq_reached(gshmemi_load_acquire(q->start), q->uid, r);
         spins++)
        if ((spins & 255) == 0 && deadline.passed())
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_NOT_STARTED, q->peer, 0, 0, r, q->seq);
}

/* A chunked send's partitions list[0..n) (lo..lo+n-1 where list is
 * NULL), readied in round r: their claim words set with chunk 0 taken (by
 * the group readying them) and their done words to r, then each put in
 * queue[] for the stream wait's blocks. */
__device__ __forceinline__ void gshmemi_pqueue(struct gshmemi_preq_dev *q, int lo, int n,
                                               const int *list, uint64_t r)
{
    uint64_t *const work = q->work, *const queue = work + 2 * static_cast<size_t>(q->partitions);
    /* done words, then claim words, then entries: a block that claims a
     * chunk (and acquires after its first claim) counts it into a done
     * word already reset */
    for (int i = 0; i < n; i++)
        *reinterpret_cast<volatile uint64_t *>(&work[2 * (list != nullptr ? list[i] : lo + i) + 1]) =
            r << 32;
    __threadfence();
    for (int i = 0; i < n; i++)
        *reinterpret_cast<volatile uint64_t *>(&work[2 * (list != nullptr ? list[i] : lo + i)]) =
            r << 32 | 1;
    __threadfence();
    for (int i = 0; i < n; i++) {
        const int p = list != nullptr ? list[i] : lo + i;
        const unsigned long long slot =
            atomicAdd(reinterpret_cast<unsigned long long *>(&q->queued), 1ull);
        *reinterpret_cast<volatile uint64_t *>(&queue[slot]) = r << 32 | static_cast<uint32_t>(p);
    }
}

/* Chunks a partition of a chunked send has (the last may be short). */
__device__ __forceinline__ uint64_t gshmemi_pchunk_count(uint64_t bytes, uint64_t chunk)
{
    return (bytes + chunk - 1) / chunk;
}

/* A claim of partition p's next chunk: (round << 32) | chunk.  Relaxed:
 * the next chunk is claimed while the current one moves, and an acquire
 * would hold the claimer's own share of that copy behind the claim's
 * round trip, every chunk.  A group that did not ready the partition
 * acquires once, after its first claim (gshmemi_pchunks). */
__device__ __forceinline__ uint64_t gshmemi_pclaim(unsigned long long *claim)
{
    unsigned long long c;
    asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], 1;" : "=l"(c) : "l"(claim) : "memory");
    return c;
}

/* Which partitions a ready call queues (gshmemi_pqueue), once its group
 * has begun moving the first one's chunk 0. */
struct gshmemi_pready_args {
    int lo, n;
    const int *list;
    uint64_t before; /* the first one's previous mark (gshmemi_preq_mark) */
};

/* A chunked send's partition p of round r (q->chunk set): the group takes
 * its chunks one at a time from its claim word (the next claimed while
 * this one moves) until none is left.  The group that readied p starts
 * with chunk 0, taken for it (to_queue: where its first partition is p,
 * what its first thread queues meanwhile).  If the group moved every chunk,
 * its flag's release covers them; otherwise each group adds what it moved
 * to the done word with a system-scope release, and the one that
 * completes it acquires before the flag's release. */
template <int SCOPE>
__device__ __forceinline__ void gshmemi_pchunks(const char *call, struct gshmemi_preq_dev *q,
                                                int p, uint64_t r, uint64_t *f, uint64_t word,
                                                unsigned lane, unsigned nt, bool readier,
                                                const struct gshmemi_pready_args *to_queue)
{
    const uint64_t bytes = q->bytes, chunk = q->chunk, n = gshmemi_pchunk_count(bytes, chunk);
    const int peer = q->peer;
    unsigned long long *const claim = reinterpret_cast<unsigned long long *>(q->work + 2 * p);
    const uint64_t at = static_cast<uint64_t>(p) * bytes;
    char *const d = gshmemi_lookup(call, q->dest + at, bytes, peer);
    const char *const s = q->source + at;
    uint64_t c = r << 32, moved = 0;
    if (!readier) {
        if (lane == 0) {
            c = gshmemi_pclaim(claim);
            /* with the claim, an acquire: the readier's reset of the done
             * word and the producer's writes of the partition come before */
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
        }
        c = gshmemi_group_broadcast<SCOPE>(lane, c);
    }
    while ((c >> 32) == r && (c & 0xffffffffu) < n) {
        const uint64_t i = c & 0xffffffffu, off = i * chunk;
        uint64_t next = 0;
        if (lane == 0) {
            if (to_queue != nullptr) {
                /* (queued twice, a partition would reset its words and
                 * take a second entry past queue[]'s end) */
                gshmemi_preq_twice(call, q, to_queue->before, p, r);
                gshmemi_pqueue(q, to_queue->lo, to_queue->n, to_queue->list, r);
                to_queue = nullptr;
            }
            next = gshmemi_pclaim(claim);
        }
        /* (not the block's short path, one vector in flight at a time,
         * which a chunk of four vectors a thread would take) */
        gshmemi_copy<SCOPE == GSHMEMI_THREAD, false>(d + off, s + off,
                                                      bytes - off < chunk ? bytes - off : chunk, lane, nt);
        moved++;
        c = gshmemi_group_broadcast<SCOPE>(lane, next);
    }
    if (moved == 0)
        return;
    gshmemi_group_sync<SCOPE>();
    if (lane == 0) {
        bool last = moved == n;
        if (!last) {
            unsigned long long old;
            asm volatile("atom.acq_rel.sys.global.add.u64 %0, [%1], %2;"
                         : "=l"(old) : "l"(claim + 1), "l"(moved) : "memory");
            last = (old & 0xffffffffu) + moved == n;
        }
        if (last) {
            (void)gshmemi_signal<true>(call, f + p, word, GSHMEM_SIGNAL_SET, peer);
            asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(&q->chunks_done) : "memory");
        }
    }
    gshmemi_group_sync<SCOPE>();
}

/* Ready: partitions list[0..n) (lo..lo+n-1 where list is NULL), n >= 1
 * (the list form returns on none), every thread of the group calling with
 * the same arguments.  One thread checks and marks them all, then waits
 * for the receiver; the group moves them.  Where the host moves them (ce:
 * large partitions to a mapped GPU heap, by the copy engines), marking is
 * all: the call returns at once. */
template <int SCOPE>
__device__ __forceinline__ void gshmemi_pready(const char *call, gshmemx_prequest_t req, int lo,
                                               int n, const int *list)
{
    unsigned lane, nt;
    gshmemi_group<SCOPE>(&lane, &nt);
    struct gshmemi_preq_dev *q = gshmemi_preq(call, req);
    /* set at init, before any kernel has the handle */
    const int ce = q->ce, peer = q->peer, packets = q->packets;
    const uint64_t chunk = q->chunk;
    if (ce) {
        /* The host copies the partitions once it sees them marked: the
         * group's writes of them first, then the marks.  GPU scope rests
         * on the hardware (the PTX model covers neither the copy engines
         * nor the host here): every client of this GPU's memory, the copy
         * engines too, reads it through its L2, where the fence has put
         * the writes before a mark leaves for host memory.  A fence at
         * system scope waited microseconds a call behind the copies'
         * traffic, and the producer with it. */
        gshmemi_group_sync<SCOPE>();
        if (lane == 0)
            __threadfence();
    }
    uint64_t word = 0, flags = 0, r = 0;
    /* The first partition's previous mark, looked at once the start's
     * hint has let the moves go (after them, or, chunked, before its
     * queueing), not a round trip before them: a partition readied twice
     * has then moved twice, and the job ends.  The rest are looked at
     * after each batch of them is marked. */
    uint64_t before; /* (no initial value: a copy of one would wait for the exchange) */
    int p0 = lo;
    /* (the moves' fields, set at init: loaded by every thread now, beside
     * the first thread's checks, not one round trip after them) */
    char *const dest = q->dest;
    const char *const source = q->source;
    const uint64_t bytes = q->bytes;
    if (lane == 0) {
        /* Every word the checks read, loaded together: a call's time in
         * front of its moves is its memory round trips, one per check
         * read in turn. */
        const int is_send = q->is_send, open = gshmemi_preq_open(q);
        r = gshmemi_preq_round(q);
        const int match = *reinterpret_cast<const volatile int32_t *>(&q->match);
        const uint64_t *start = q->start;
        /* (the match's fields by loads that miss no later write: a plain
         * load may hit a line this SM cached before the match) */
        uint64_t *f = *reinterpret_cast<uint64_t *const volatile *>(&q->flags);
        const uint32_t peer_uid = *reinterpret_cast<const volatile uint32_t *>(&q->peer_uid),
                       uid = q->uid;
        const int parts = q->partitions;
        uint64_t *const marked = q->marked, *const mirror_marked = ce ? q->mirror_marked : nullptr;
        /* the hint of the receiver's start (partitioned.h), and the first
         * partition: here, with the rest (no load is issued past a
         * failure's call) */
        const uint64_t seen = *reinterpret_cast<const volatile uint64_t *>(&q->seen);
        p0 = list != nullptr ? list[0] : lo;
        if (!is_send)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_ROLE, peer, 0, 0, 0);
        if (!open)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_NO_ROUND, peer, 0, 0, r);
        if (ce && match == GSHMEMI_PREQ_PEER_FREED)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_PEER_FREED, peer, 0, 0, r, q->seq);
        /* the call's marks counted at once (a pwait compares the count with
         * the partitions); the count before them says whether this call
         * is the round's first */
        uint64_t marks_before;
        asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;"
                     : "=l"(marks_before) : "l"(&q->marks), "l"(static_cast<uint64_t>(n)) : "memory");
        gshmemi_preq_in_range(call, q, parts, p0, r);
        before = gshmemi_preq_mark(marked, mirror_marked, p0, r);
        /* the rest in batches: their partitions (a list's loads) and
         * their check, their exchanges with no call between them, then
         * their answers */
        constexpr int B = gshmemi_pmark_batch;
        for (int i = 1; i < n; i += B) {
            const int k = n - i < B ? n - i : B;
            int p[B], bad = -1;
            uint64_t b[B];
#pragma unroll
            for (int j = 0; j < B; j++)
                if (j < k)
                    p[j] = list != nullptr ? list[i + j] : lo + i + j;
#pragma unroll
            for (int j = B - 1; j >= 0; j--)
                if (j < k && (p[j] < 0 || p[j] >= parts))
                    bad = j;
            /* (p[bad] here, not the value kept in the loop above: 0.1 us
             * a partition less, as compiled) */
            if (bad >= 0)
                gshmemi_preq_in_range(call, q, parts, p[bad], r);
#pragma unroll
            for (int j = 0; j < B; j++)
                if (j < k)
                    b[j] = gshmemi_preq_mark(marked, mirror_marked, p[j], r);
#pragma unroll
            for (int j = 0; j < B; j++)
                if (j < k)
                    gshmemi_preq_twice(call, q, b[j], p[j], r);
        }
        if (!ce) {
            /* The match's fields (flags, the peer's uid) were in place
             * before the host pushed the match itself, and no store below
             * can land before the load of the start it waits on (nor
             * before the load of the hint that a store after such a load
             * wrote): loads without system-scope ordering where both are
             * in, the ordered wait otherwise.  The start word is read
             * only where the hint is short of the round: one memory round
             * trip in front of the moves, not two. */
            if (match != GSHMEMI_PREQ_MATCHED || !gshmemi_preq_reached(seen, uid, r)) {
                const uint64_t started = *reinterpret_cast<const volatile uint64_t *>(start);
                /* (the exchange's answer came with the start's: a partition
                 * a host ready moved fails here, not after a wait) */
                gshmemi_preq_twice(call, q, before, p0, r);
                if (match != GSHMEMI_PREQ_MATCHED || !gshmemi_preq_reached(started, uid, r)) {
                    gshmemi_preq_wait_start(call, q, r);
                    f = q->flags;
                    word = gshmemi_preq_word(q->peer_uid, r);
                } else {
                    word = gshmemi_preq_word(peer_uid, r);
                }
                /* (by the round's first call alone: hundreds of calls at
                 * once storing the one word held the request's other
                 * words behind them) */
                if (marks_before == 0)
                    *reinterpret_cast<volatile uint64_t *>(&q->seen) = gshmemi_preq_word(uid, r);
            } else {
                word = gshmemi_preq_word(peer_uid, r);
            }
            flags = reinterpret_cast<uintptr_t>(f);
        }
    }
    if (ce) {
        if (lane == 0)
            gshmemi_preq_twice(call, q, before, p0, r);
        gshmemi_group_sync<SCOPE>();
        return;
    }
    /* every thread moves with what the first one checked */
    gshmemi_group_broadcast2<SCOPE>(lane, &word, &flags);
    uint64_t *const f = reinterpret_cast<uint64_t *>(flags);
    if (chunk != 0) {
        /* The stream wait's blocks may start now (they wait for SMs): with
         * its last partitions readied at its end, a producer's few ready
         * calls would otherwise move them alone, an SM's rate each. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
        /* (only the first thread, which holds `before`, queues) */
        const struct gshmemi_pready_args all = {lo, n, list, before};
        for (int i = 0; i < n; i++)
            gshmemi_pchunks<SCOPE>(call, q, list != nullptr ? list[i] : lo + i,
                                   word & 0xffffffffu, f, word, lane, nt, true,
                                   i == 0 ? &all : nullptr);
    } else if (packets) { /* a partition and its flag in one store, a thread each */
        const uint32_t t0 = static_cast<uint32_t>(word), t1 = static_cast<uint32_t>(word >> 32) ^ t0;
        for (int i = static_cast<int>(lane); i < n; i += static_cast<int>(nt)) {
            const int p = list != nullptr ? list[i] : lo + i;
            gshmemi_packet_store(gshmemi_lookup(call, f + 2 * static_cast<size_t>(p), 16, peer),
                                 gshmemi_packet_chunk(source + static_cast<uint64_t>(p) * bytes, bytes, 0),
                                 t0, t1);
        }
    } else {
        /* A run of adjacent partitions (a range, or neighbours in a list)
         * goes as one put: through the proxy one data request, not one a
         * partition, its flags' requests after it.  To a mapped peer the
         * flags of what was put follow one fence once
         * gshmemi_pflags_bytes have been put, or the call's last run has:
         * a fence a partition was most of a list's time with small ones
         * (one call of one partition keeps its put_signal). */
        const bool mapped = gshmemi_peer_base(gshmemi_s(), peer) != nullptr;
        uint64_t put = 0; /* bytes put since the last flags */
        for (int i = 0, i0 = 0, j; i < n; i = j) {
            const int p = list != nullptr ? list[i] : lo + i;
            for (j = i + 1; j < n && (list != nullptr ? list[j] : lo + j) == p + (j - i); j++)
                ;
            const uint64_t at = static_cast<uint64_t>(p) * bytes;
            if (n == 1) {
                gshmemi_put_signal<SCOPE, true>(call, dest + at, source + at, bytes, &f[p], word,
                                                GSHMEM_SIGNAL_SET, peer);
                break;
            }
            gshmemi_put<SCOPE, true>(call, dest + at, source + at, (j - i) * bytes, peer);
            put += (j - i) * bytes;
            if (mapped && put < gshmemi_pflags_bytes && j < n)
                continue;
            gshmemi_group_sync<SCOPE>();
            if (lane == 0) {
                /* (mapped: the fence releases the group's stores, which
                 * the barrier above ordered before it, before every flag;
                 * through the proxy the signals' requests follow the put's) */
                if (mapped)
                    gshmemi_fence_acq_rel();
                for (int k = i0; k < j; k++)
                    (void)gshmemi_signal<false>(call, &f[list != nullptr ? list[k] : lo + k], word,
                                                GSHMEM_SIGNAL_SET, peer);
            }
            gshmemi_group_sync<SCOPE>();
            i0 = j;
            put = 0;
        }
    }
    if (lane == 0)
        gshmemi_preq_twice(call, q, before, p0, word & 0xffffffffu);
}

template <int SCOPE>
__device__ __forceinline__ void gshmemi_pready_range(const char *call, gshmemx_prequest_t req,
                                                     int lo, int hi)
{
    struct gshmemi_preq_dev *q = gshmemi_preq(call, req);
    if (lo < 0 || hi < lo || hi >= q->partitions)
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_BAD_RANGE, q->peer,
                          static_cast<uint64_t>(static_cast<uint32_t>(lo)),
                          static_cast<uint64_t>(q->partitions), gshmemi_preq_round(q),
                          static_cast<uint64_t>(static_cast<uint32_t>(hi)));
    gshmemi_pready<SCOPE>(call, req, lo, hi - lo + 1, nullptr);
}

template <int SCOPE>
__device__ __forceinline__ void gshmemi_pready_list(const char *call, gshmemx_prequest_t req,
                                                    int n, const int *list)
{
    struct gshmemi_preq_dev *q = gshmemi_preq(call, req);
    if (n < 0 || (n > 0 && list == nullptr))
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_LIST, q->peer, list != nullptr, 0,
                          gshmemi_preq_round(q), static_cast<uint64_t>(static_cast<uint32_t>(n)));
    if (n > 0)
        gshmemi_pready<SCOPE>(call, req, 0, n, list);
}

/* Whether partition p of round r has arrived at receive q: its flag, or
 * its packet, whose data this then puts in place. */
__device__ __forceinline__ bool gshmemi_preq_arrived(struct gshmemi_preq_dev *q, int p, uint64_t r)
{
    if (!q->packets)
        return gshmemi_preq_reached(gshmemi_load_acquire(&q->flags[p]), q->uid, r);
    const uint32_t t0 = static_cast<uint32_t>(r);
    uint64_t v;
    if (!gshmemi_packet_try(&q->flags[2 * static_cast<size_t>(p)], t0, q->uid ^ t0, &v))
        return false;
    gshmemi_packet_unchunk(q->dest + static_cast<uint64_t>(p) * q->bytes, q->bytes, 0, v);
    return true;
}

/* A receive's wait past the deadline at partition p: why, naming how many
 * are missing. */
__device__ __noinline__ void gshmemi_preq_missing(const char *call, struct gshmemi_preq_dev *q,
                                                  int p, uint64_t r)
{
    const int m = gshmemi_load_acquire(&q->match);
    if (m != GSHMEMI_PREQ_MATCHED)
        gshmemi_preq_fail(call, m == GSHMEMI_PREQ_PEER_FREED ? GSHMEMI_PREQ_FAIL_SEND_FREED
                                                            : GSHMEMI_PREQ_FAIL_RECV_UNMATCHED,
                          q->peer, 0, 0, r, q->seq);
    int missing = 0;
    for (int j = p; j < q->partitions; j++)
        missing += !gshmemi_preq_arrived(q, j, r);
    gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_MISSING, q->peer, static_cast<uint64_t>(p),
                      static_cast<uint64_t>(q->partitions), r, static_cast<uint64_t>(missing));
}

/* Arrival of partition p in the current round (after its wait: true); the
 * group's threads all get the value one of them read. */
template <int SCOPE>
__device__ __forceinline__ int gshmemi_parrived(const char *call, gshmemx_prequest_t req, int p)
{
    unsigned lane, nt;
    gshmemi_group<SCOPE>(&lane, &nt);
    struct gshmemi_preq_dev *q = gshmemi_preq(call, req);
    int got = 0;
    if (lane == 0) {
        if (q->is_send)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_ROLE, q->peer, 0, 0, 0);
        if (gshmemi_load_acquire(&q->match) == GSHMEMI_PREQ_PEER_FREED)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_SEND_FREED, q->peer, 0, 0, 0, q->seq);
        const uint64_t r = gshmemi_preq_round(q);
        if (r == 0)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_NO_ROUND, q->peer, 0, 0, 0);
        if (p < 0 || p >= q->partitions)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_RANGE, q->peer, static_cast<uint64_t>(p),
                              static_cast<uint64_t>(q->partitions), r);
        got = !gshmemi_preq_open(q) || gshmemi_preq_arrived(q, p, r);
    }
    got = gshmemi_group_broadcast<SCOPE>(lane, got);
    gshmemi_group_sync<SCOPE>(); /* (a packet's data, put in dest by lane 0) */
    return got;
}

/* A round's start (one thread): the receiver tells its sender at once
 * where matched; otherwise the host's progress does once the match is in. */
__device__ __forceinline__ void gshmemi_pstart(const char *call, gshmemx_prequest_t req)
{
    struct gshmemi_preq_dev *q = gshmemi_preq(call, req);
    const uint64_t r = gshmemi_preq_round(q) + 1;
    if (gshmemi_preq_open(q))
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_OPEN, q->peer, 0, 0, r - 1);
    if (r >= 0xffffffffu) /* (words for peers hold the round in 32 bits) */
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_ROUNDS, q->peer, 0, 0, r - 1);
    *reinterpret_cast<volatile uint64_t *>(&q->round) = r;
    *reinterpret_cast<volatile uint64_t *>(&q->marks) = 0;
    *reinterpret_cast<volatile uint64_t *>(&q->queued) = 0;
    *reinterpret_cast<volatile uint64_t *>(&q->chunks_done) = 0;
    *reinterpret_cast<volatile uint64_t *>(&q->helped) = 0;
    /* open after round: a ready call reads open, then round */
    asm volatile("st.release.sys.global.b32 [%0], %1;" ::"l"(&q->open), "r"(1) : "memory");
    if (q->mirror != nullptr) {
        *reinterpret_cast<volatile uint64_t *>(&q->mirror->round) = r;
        /* open after round, for the host's progress, which reads open first */
        asm volatile("st.release.sys.global.b32 [%0], %1;" ::"l"(&q->mirror->open), "r"(1)
                     : "memory");
    }
    if (q->is_send)
        return;
    if (gshmemi_load_acquire(&q->match) == GSHMEMI_PREQ_MATCHED) {
        (void)gshmemi_signal<true>(call, q->start, gshmemi_preq_word(q->peer_uid, r),
                                   GSHMEM_SIGNAL_SET, q->peer);
    } else {
        /* the host's progress writes it once matched: one writer a round,
         * so that no late write of an older round sets the sender's word
         * back */
        *reinterpret_cast<volatile uint64_t *>(&q->owed) = r;
        if (q->mirror != nullptr)
            *reinterpret_cast<volatile uint64_t *>(&q->mirror->owed) = r;
    }
}

/* A block of a chunked send's stream wait, beside the producer's end:
 * takes chunks of the partitions readied last (the 32 latest in queue[])
 * while any is left, until every partition is readied or the wait's
 * first block has seen the producer end.  A partition it leaves is moved
 * by the group that readied it, which claims until none is left: the
 * help only shortens the tail, where few groups hold the last partitions. */
__device__ __forceinline__ void gshmemi_phelp(const char *call, gshmemx_prequest_t req)
{
    unsigned lane, nt;
    gshmemi_group<GSHMEMI_BLOCK>(&lane, &nt);
    const struct gshmemi_preq_dev *q = reinterpret_cast<const struct gshmemi_preq_dev *>(req);
    const uint64_t r = gshmemi_preq_round(q);
    const int parts = q->partitions;
    const uint64_t n = gshmemi_pchunk_count(q->bytes, q->chunk);
    const uint64_t *const work = q->work, *const queue = work + 2 * static_cast<size_t>(parts);
    uint64_t word = 0, flags = 0;
    for (;;) {
        int p = -1; /* -1: none left to help with */
        if (lane < 32) {
            for (unsigned spins = 0;; spins++) {
                const uint64_t queued = *reinterpret_cast<const volatile uint64_t *>(&q->queued);
                const int j = static_cast<int>(queued) - 1 - static_cast<int>(lane);
                uint64_t e = 0;
                bool has = false;
                if (j >= 0) {
                    e = *reinterpret_cast<const volatile uint64_t *>(&queue[j]);
                    if (e >> 32 == r) {
                        const uint64_t c = *reinterpret_cast<const volatile uint64_t *>(
                            &work[2 * (e & 0xffffffffu)]);
                        has = c >> 32 == r && (c & 0xffffffffu) < n;
                    }
                }
                const unsigned with = __ballot_sync(0xffffffffu, has);
                if (with != 0) { /* blocks spread over the partitions found */
                    unsigned m = with;
                    for (unsigned k = blockIdx.x % __popc(with); k > 0; k--)
                        m &= m - 1;
                    p = static_cast<int>(__shfl_sync(0xffffffffu, e, __ffs(m) - 1) & 0xffffffffu);
                    break;
                }
                if (queued >= static_cast<uint64_t>(parts) ||
                    *reinterpret_cast<const volatile uint64_t *>(&q->ended) == r)
                    break;
                if (spins > 16)
                    __nanosleep(200);
            }
            if (lane == 0 && p >= 0 && flags == 0) {
                __threadfence();
                /* matched before any partition was queued: read once a
                 * queued entry is seen */
                flags = reinterpret_cast<uintptr_t>(
                    *reinterpret_cast<uint64_t *const volatile *>(&q->flags));
                word = gshmemi_preq_word(*reinterpret_cast<const volatile uint32_t *>(&q->peer_uid),
                                         r);
            }
        }
        p = gshmemi_group_broadcast<GSHMEMI_BLOCK>(lane, p);
        if (p < 0)
            break;
        word = gshmemi_group_broadcast<GSHMEMI_BLOCK>(lane, word);
        flags = gshmemi_group_broadcast<GSHMEMI_BLOCK>(lane, flags);
        gshmemi_pchunks<GSHMEMI_BLOCK>(call, const_cast<struct gshmemi_preq_dev *>(q), p, r,
                                       reinterpret_cast<uint64_t *>(flags), word, lane, nt, false,
                                       nullptr);
    }
    /* its last claim made: the round may end (a claim of a later round's
     * chunk would take it from that round's movers) */
    if (lane == 0)
        asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(&q->helped) : "memory");
}

/* A round's end (one thread): a send's partitions all marked and moved
 * (each ready call has moved its own before it returned, or, in chunks,
 * has counted it once moved; where the host moves them, its count of
 * moved partitions reaches the round's), then a quiet; a receive's all
 * arrived.  helpers: the blocks of the stream wait taking chunks. */
__device__ __forceinline__ void gshmemi_pwait(const char *call, gshmemx_prequest_t req,
                                              unsigned helpers = 0)
{
    struct gshmemi_preq_dev *q = gshmemi_preq(call, req);
    /* loaded together, as a ready call's */
    const uint64_t r = gshmemi_preq_round(q);
    const int open = gshmemi_preq_open(q), is_send = q->is_send, parts = q->partitions;
    const uint64_t marks = *reinterpret_cast<const volatile uint64_t *>(&q->marks);
    const int ce = q->ce;
    struct gshmemi_preq_dev *const mirror = q->mirror;
    if (is_send && q->chunk != 0) /* the stream wait's other blocks stop looking */
        *reinterpret_cast<volatile uint64_t *>(&q->ended) = r;
    if (!open)
        gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_NO_ROUND, q->peer, 0, 0, r);
    if (is_send) {
        /* each partition is marked once a round: a count of all of them
         * needs no look at marked[] (one memory round trip a partition) */
        int missing = 0, first = -1;
        if (marks != static_cast<uint64_t>(parts))
            for (int p = 0; p < parts; p++)
                if (*reinterpret_cast<const volatile uint64_t *>(&q->marked[p]) != r) {
                    missing++;
                    first = first < 0 ? p : first;
                }
        if (missing > 0)
            gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_NOT_MARKED, q->peer,
                              static_cast<uint64_t>(first), static_cast<uint64_t>(parts), r,
                              static_cast<uint64_t>(missing));
        if (q->chunk != 0) {
            /* Chunks the stream wait's blocks took may still be moving: every
             * partition a kernel marked is counted once its last chunk has
             * moved (those the host marked, it moves itself). */
            gshmemi_deadline deadline;
            for (unsigned spins = 1;; spins++) {
                /* (both loaded together, then one fence: a round trip a look) */
                const uint64_t done = *reinterpret_cast<const volatile uint64_t *>(&q->chunks_done),
                               helped = *reinterpret_cast<const volatile uint64_t *>(&q->helped);
                if (done >= marks && helped >= helpers)
                    break;
                if ((spins & 255) == 0 && deadline.passed())
                    gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_CHUNKS, q->peer,
                                      done < marks ? marks - done : 0, 0, r,
                                      helped < helpers ? helpers - helped : 0);
            }
            gshmemi_fence_acq_rel();
        }
        if (ce) { /* the host moves them: its count, written after the copies */
            const uint64_t all = r * static_cast<uint64_t>(parts);
            gshmemi_deadline deadline;
            for (unsigned spins = 1; gshmemi_load_acquire(&q->moved) < all; spins++) {
                if ((spins & 255) != 0)
                    continue;
                const int m = gshmemi_load_acquire(&q->match);
                if (m == GSHMEMI_PREQ_PEER_FREED)
                    gshmemi_preq_fail(call, GSHMEMI_PREQ_FAIL_PEER_FREED, q->peer, 0, 0, r, q->seq);
                if (deadline.passed())
                    gshmemi_preq_fail(call, m == GSHMEMI_PREQ_MATCHED ? GSHMEMI_PREQ_FAIL_NOT_STARTED
                                                                     : GSHMEMI_PREQ_FAIL_NOT_MATCHED,
                                      q->peer, 0, 0, r, q->seq);
            }
        }
        /* the host's copy learns the round closed ahead of the fence, which
         * then waits for that store across PCIe and the partitions' stores
         * together, not one after the other */
        if (mirror != nullptr)
            *reinterpret_cast<volatile int32_t *>(&mirror->open) = 0;
        gshmemi_fence_sc();
        gshmemi_proxy_quiet(call); /* the source may be reused */
    } else {
        gshmemi_deadline deadline;
        if (q->packets) {
            for (int p = 0; p < parts; p++)
                for (unsigned spins = 1; !gshmemi_preq_arrived(q, p, r); spins++)
                    if ((spins & 255) == 0 && deadline.passed())
                        gshmemi_preq_missing(call, q, p, r);
        } else {
            /* Flags read 8 at a time, without ordering, then one fence for
             * all: a load with acquire semantics at system scope is a fence
             * of its own. */
            const uint32_t uid = q->uid;
            unsigned spins = 0;
            for (int p = 0; p < parts;) {
                constexpr int K = 8;
                uint64_t w[K];
                const int k = parts - p < K ? parts - p : K;
#pragma unroll
                for (int i = 0; i < K; i++)
                    if (i < k)
                        w[i] = *reinterpret_cast<const volatile uint64_t *>(&q->flags[p + i]);
                int in = 0;
                while (in < k && gshmemi_preq_reached(w[in], uid, r))
                    in++;
                p += in;
                if (in < k && (++spins & 255) == 0 && deadline.passed())
                    gshmemi_preq_missing(call, q, p, r);
            }
            gshmemi_fence_acq_rel(); /* the data behind the flags read above */
        }
        if (mirror != nullptr)
            *reinterpret_cast<volatile int32_t *>(&mirror->open) = 0;
    }
    *reinterpret_cast<volatile int32_t *>(&q->open) = 0;
}

} // namespace

/* ---- the API ------------------------------------------------------------ */

#ifdef __CUDA_ARCH__
extern "C" {
__device__ inline void gshmemx_pready(gshmemx_prequest_t req, int partition)
{
    gshmemi_pready<GSHMEMI_THREAD>("gshmemx_pready", req, partition, 1, nullptr);
}
__device__ inline void gshmemx_pready_range(gshmemx_prequest_t req, int lo, int hi)
{
    gshmemi_pready_range<GSHMEMI_THREAD>("gshmemx_pready_range", req, lo, hi);
}
__device__ inline void gshmemx_pready_list(gshmemx_prequest_t req, int n, const int *list)
{
    gshmemi_pready_list<GSHMEMI_THREAD>("gshmemx_pready_list", req, n, list);
}
__device__ inline int gshmemx_parrived(gshmemx_prequest_t req, int partition)
{
    return gshmemi_parrived<GSHMEMI_THREAD>("gshmemx_parrived", req, partition);
}
__device__ inline void gshmemx_pstart(gshmemx_prequest_t req)
{
    gshmemi_pstart("gshmemx_pstart", req);
}
__device__ inline void gshmemx_pwait(gshmemx_prequest_t req) { gshmemi_pwait("gshmemx_pwait", req); }
} /* extern "C" */
#endif /* __CUDA_ARCH__ */

/* ---- warp and block forms (device only) ---------------------------------
 * Every thread of the warp (block) calls with the same arguments. */
#define GSHMEMI_DEV_PART_GROUP(SUFFIX, SCOPE)                                                    \
    __device__ inline void gshmemx_pready##SUFFIX(gshmemx_prequest_t req, int partition)        \
    {                                                                                           \
        gshmemi_pready<SCOPE>("gshmemx_pready" #SUFFIX, req, partition, 1, nullptr);            \
    }                                                                                           \
    __device__ inline void gshmemx_pready_range##SUFFIX(gshmemx_prequest_t req, int lo, int hi) \
    {                                                                                           \
        gshmemi_pready_range<SCOPE>("gshmemx_pready_range" #SUFFIX, req, lo, hi);               \
    }                                                                                           \
    __device__ inline void gshmemx_pready_list##SUFFIX(gshmemx_prequest_t req, int n,           \
                                                       const int *list)                         \
    {                                                                                           \
        gshmemi_pready_list<SCOPE>("gshmemx_pready_list" #SUFFIX, req, n, list);                \
    }                                                                                           \
    __device__ inline int gshmemx_parrived##SUFFIX(gshmemx_prequest_t req, int partition)       \
    {                                                                                           \
        return gshmemi_parrived<SCOPE>("gshmemx_parrived" #SUFFIX, req, partition);             \
    }
GSHMEMI_DEV_PART_GROUP(_warp, GSHMEMI_WARP)
GSHMEMI_DEV_PART_GROUP(_block, GSHMEMI_BLOCK)
#undef GSHMEMI_DEV_PART_GROUP

#endif /* GSHMEM_DEVICE_PARTITIONED_CUH */
