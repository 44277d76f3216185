/* Pairing a sender's and a receiver's requests without a collective:
 * gshmem_malloc is collective over every PE, so a pair cannot use it.  At
 * init every PE's heap gets a mailbox per peer and a pool of flag words.
 * The k-th receive from S posts {shape, dest, flags} into S's mailbox; the
 * k-th send to R takes R's k-th post and answers with the word R writes its
 * round starts into.  Neither side waits for the other here: a post that
 * does not fit in the ring, a post not yet arrived and an answer not yet
 * read are picked up by the next partitioned call on the PE (progress). */
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "device/device_state.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "partitioned/partitioned.h"
#include "partitioned/partitioned_priv.h"
#include "rma/rma.h"
#include "sync/wait.h"

/* Posts a receiver may have out to one sender before it has read answers. */
#define RING 8
#define FLAGS_MAX (1 << 24)

enum answer_status {
    ANSWER_RECV_FREED = 0, /* the post said its receive was freed: just the ring's turn */
    ANSWER_ACCEPTED = 1,
    ANSWER_REFUSED = 2,
    ANSWER_SEND_FREED = 3,
};

/* Written by a receiver into its sender's mailbox; the stamp (the pair
 * number) last, after the rest. */
struct post {
    uint64_t partitions, bytes, dest_off, flags_off, uid, freed, packets;
    uint64_t stamp;
};
/* Written by a sender into its receiver's mailbox: stamp = seq << 2 | status. */
struct answer {
    uint64_t start_off, uid;
    uint64_t stamp;
};
/* mailbox[p] in this PE's heap: what p writes here. */
struct mailbox {
    struct post post[RING];     /* p receives from this PE */
    struct answer answer[RING]; /* p sends to this PE */
};

struct pair {
    uint64_t sends_made, recvs_made, answers_seen;
    struct gshmemi_preq *sends;  /* not matched yet, in pair order */
    struct gshmemi_preq *recvs;  /* not answered yet, in pair order */
    int active;                  /* in the active list */
};

pthread_mutex_t gshmemi_part_lock = PTHREAD_MUTEX_INITIALIZER;

/* Where the heap is on the GPU, kernels mark partitions and start rounds
 * while the host may be in no gshmem call at all (waiting for a stream):
 * a thread of the module's own moves the pairs on meanwhile, from the
 * first request on. */
static struct {
    pthread_t thread;
    int running;
    int stop;
    int spin; /* a send the host moves for kernels has a round open: no naps */
} pg;

static struct {
    struct mailbox *boxes; /* [n_pes], in the heap */
    uint64_t *pool;        /* [n_flags], in the heap */
    unsigned char *used;   /* [n_flags] */
    size_t n_flags;
    struct pair *pairs;    /* [n_pes] */
    int *active;           /* peers with queued requests */
    int n_active;
    uint32_t uids;
    struct gshmemi_preq *all; /* every request not yet dropped */
    struct gshmemi_preq *spare; /* pinned blocks to reuse (linked by all_next) */
    struct gshmemi_preq *pending; /* sends with partitions to move */
    void *push_stream; /* where the heap is on the GPU: the requests' pushes */
} pt;

/* Set while another call's wait (a barrier, a wait_until, a collective)
 * moves the partitioned requests: what fails there says so, not only
 * that call's name. */
static __thread int moving_for_other;

void gshmemi_part_fail(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char where[160];
    if (moving_for_other) {
        snprintf(where, sizeof(where), "%s, moving this PE's partitioned requests", call);
        call = where;
    }
    gshmemi_vfail(GSHMEMI_SUB_PART, call, fmt, ap);
}

/* From other waits (barriers, wait_until, collectives): a PE that waits
 * there still answers its peers' posts and writes the starts it owes.  A
 * try, so that a wait inside progress itself, or a thread holding the lock,
 * costs nothing. */
static void progress_while_waiting(const char *call)
{
    if (pthread_mutex_trylock(&gshmemi_part_lock) != 0)
        return;
    moving_for_other = 1;
    gshmemi_part_progress(call);
    moving_for_other = 0;
    pthread_mutex_unlock(&gshmemi_part_lock);
}

static void *progress_main(void *arg)
{
    (void)arg;
    gshmemi_gpu_bind_thread("the partitioned transfers' progress");
    while (!__atomic_load_n(&pg.stop, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&gshmemi_part_lock);
        gshmemi_part_progress("the partitioned transfers' progress");
        const int busy = pt.all != NULL, spin = pg.spin;
        pthread_mutex_unlock(&gshmemi_part_lock);
        const struct timespec nap = {0, busy ? 20 * 1000 : 1000 * 1000};
        if (spin) /* a copy waits on this thread's next look */
            sched_yield();
        else
            nanosleep(&nap, NULL);
    }
    return NULL;
}

static void progress_thread_start(const char *call)
{
    if (pg.running || !gshmemi_heap.on_device)
        return;
    int err = pthread_create(&pg.thread, NULL, progress_main, NULL);
    if (err != 0)
        gshmemi_part_fail(call, "cannot start the progress thread kernels' requests need: %s",
                          strerror(err));
    pg.running = 1;
}

int gshmemi_partitioned_init(void)
{
    const long n = gshmemi_env.PARTITION_FLAGS;
    const size_t n_pes = (size_t)gshmemi_rt.n_pes;
    if (n < 1 || n > FLAGS_MAX) {
        GSHMEMI_ERROR(PART, "GSHMEM_PARTITION_FLAGS is %ld: it must be from 1 to %d", n, FLAGS_MAX);
        return GSHMEM_ERR_INVALID_ARG;
    }
    pt.n_flags = (size_t)n;
    pt.used = calloc(pt.n_flags, 1);
    pt.pairs = calloc(n_pes, sizeof(*pt.pairs));
    pt.active = calloc(n_pes, sizeof(*pt.active));
    if (pt.used == NULL || pt.pairs == NULL || pt.active == NULL) {
        gshmemi_partitioned_fini();
        return GSHMEM_ERR_NO_MEMORY;
    }
    pt.boxes = gshmemi_heap_alloc_internal("partitioned transfers' mailboxes",
                                           n_pes * sizeof(struct mailbox));
    pt.pool = pt.boxes == NULL ? NULL
                               : gshmemi_heap_alloc_internal("partitioned transfers' flags",
                                                             pt.n_flags * sizeof(uint64_t));
    if (pt.pool == NULL) {
        gshmemi_partitioned_fini();
        return GSHMEM_ERR_NO_MEMORY;
    }
    gshmemi_wait_progress_set(progress_while_waiting);
    return 0;
}

/* The block's marked[] starts here, in both copies. */
static size_t head_bytes(void) { return GSHMEMI_ALIGN_UP(sizeof(struct gshmemi_preq), 8); }

/* Words a partition of a send on the GPU heap has after the head:
 * marked[], staged[], then the chunks' work words (claim and done, and
 * its queue entry), which start at WORK_AT words a partition. */
enum { SEND_WORDS = 5, WORK_AT = 2 };

struct gshmemi_preq *gshmemi_part_new(const char *call, int is_send, int partitions)
{
    /* marked[] after the request, then (a send's, on the GPU heap) the
     * flag words its host moves copy and the chunks' work words (in the
     * GPU's copy); where the heap is on the GPU, the block is in pinned
     * host memory and a copy of it in GPU memory (the handle) */
    const size_t head = head_bytes();
    const int pinned = gshmemi_heap.on_device;
    const size_t size =
        head + (is_send ? (pinned ? SEND_WORDS : 1) * (size_t)partitions * sizeof(uint64_t) : 0);
    struct gshmemi_preq *q = NULL;
    if (pinned) {
        gshmemi_device_state_load_units(call);
        pthread_mutex_lock(&gshmemi_part_lock);
        if (pt.push_stream == NULL && (pt.push_stream = gshmemi_gpu_stream_new(call)) == NULL)
            gshmemi_part_fail(call, "no stream for the requests' copies in GPU memory");
        for (struct gshmemi_preq **at = &pt.spare; *at != NULL; at = &(*at)->all_next)
            if ((*at)->alloc_size >= size) {
                q = *at;
                *at = q->all_next;
                break;
            }
        pthread_mutex_unlock(&gshmemi_part_lock);
    }
    size_t have = size;
    void *dev = NULL;
    if (q != NULL) {
        have = q->alloc_size;
        dev = q->dev;
        memset(q, 0, have);
    } else {
        q = pinned ? gshmemi_gpu_host_alloc(size) : calloc(1, size);
        if (q != NULL && pinned && (dev = gshmemi_gpu_dev_alloc(size)) == NULL) {
            gshmemi_gpu_host_free(q);
            q = NULL;
        }
    }
    if (q == NULL || (is_send && (q->pending = malloc((size_t)partitions * sizeof(int))) == NULL))
        gshmemi_part_fail(call, "out of %s memory for a request of %d partitions",
                          pinned ? "pinned host or GPU" : "host", partitions);
    q->pinned = pinned;
    q->dev = dev;
    q->alloc_size = have;
    q->d.is_send = is_send;
    q->d.partitions = partitions;
    q->d.marked = is_send ? (uint64_t *)((char *)q + head) : NULL;
    q->staged = is_send && pinned ? q->d.marked + partitions : NULL;
    return q;
}

void gshmemi_part_delete(struct gshmemi_preq *q)
{
    for (int i = 0; i < 2; i++) {
        gshmemi_gpu_mark_free(q->flushed[i]);
        q->flushed[i] = NULL;
    }
    free(q->pending);
    q->pending = NULL;
    free(q->issued);
    q->issued = NULL;
    if (q->pinned) {
        q->all_next = pt.spare;
        pt.spare = q;
    } else {
        free(q);
    }
}

static void drop(struct gshmemi_preq *q)
{
    for (struct gshmemi_preq **at = &pt.pending; q->in_pending && *at != NULL;
         at = &(*at)->pending_next)
        if (*at == q) {
            *at = q->pending_next;
            break;
        }
    if (q->all_prev != NULL)
        q->all_prev->all_next = q->all_next;
    else
        pt.all = q->all_next;
    if (q->all_next != NULL)
        q->all_next->all_prev = q->all_prev;
    gshmemi_part_delete(q);
}

void gshmemi_partitioned_quiesce(void)
{
    gshmemi_wait_progress_set(NULL);
    if (pg.running) {
        __atomic_store_n(&pg.stop, 1, __ATOMIC_RELEASE);
        pthread_join(pg.thread, NULL);
    }
    memset(&pg, 0, sizeof(pg));
}

void gshmemi_partitioned_fini(void)
{
    gshmemi_partitioned_quiesce();
    while (pt.all != NULL)
        drop(pt.all);
    while (pt.spare != NULL) { /* (the GPU is idle here) */
        struct gshmemi_preq *q = pt.spare;
        pt.spare = q->all_next;
        gshmemi_gpu_free(q->dev);
        gshmemi_gpu_host_free(q);
    }
    if (pt.push_stream != NULL)
        gshmemi_gpu_stream_free(pt.push_stream);
    free(pt.used);
    free(pt.pairs);
    free(pt.active);
    memset(&pt, 0, sizeof(pt)); /* the mailboxes and the pool go with the heap */
}

uint64_t gshmemi_part_load(const char *call, const uint64_t *word)
{
    uint64_t v;
    gshmemi_heap.access->read(call, &v, word, sizeof(v));
    return v;
}

/* n bytes from src to the GPU copy at offset `at`.  Pushes go on a stream
 * of their own: the runtime's carries the copies of partitions, which a
 * push must not wait behind. */
static void push_bytes(const char *call, struct gshmemi_preq *q, size_t at, const void *src, size_t n)
{
    gshmemi_gpu_copy_on(call, (char *)q->dev + at, src, n, pt.push_stream);
    gshmemi_gpu_stream_sync(call, pt.push_stream);
}

void gshmemi_part_push(const char *call, struct gshmemi_preq *q, const void *field, size_t n)
{
    if (q->dev != NULL)
        push_bytes(call, q, (size_t)((const char *)field - (const char *)q), field, n);
}

void gshmemi_part_pull(const char *call, struct gshmemi_preq *q, void *field, size_t n)
{
    if (q->dev != NULL)
        gshmemi_gpu_read(call, field, (const char *)q->dev + ((const char *)field - (const char *)q),
                         n);
}

/* The whole request to the GPU's copy, where it has one: the host's, with
 * the GPU's own marked[] and the way back to the host's. */
static void push_all(const char *call, struct gshmemi_preq *q)
{
    if (q->dev == NULL)
        return;
    struct gshmemi_preq_dev d = q->d;
    d.marked = q->d.is_send ? (uint64_t *)((char *)q->dev + head_bytes()) : NULL;
    d.mirror = &q->d;
    d.mirror_marked = q->d.marked;
    d.work = q->d.is_send ? d.marked + WORK_AT * (size_t)q->d.partitions : NULL;
    gshmemi_gpu_copy(call, q->dev, &d, sizeof(d), 1);
    /* marked[] and, from the host's copy (zeroed by gshmemi_part_new), the
     * chunks' work words: a reused block's queue may hold another
     * request's rounds */
    if (q->d.is_send)
        gshmemi_part_push(call, q, q->d.marked,
                          SEND_WORDS * (size_t)q->d.partitions * sizeof(uint64_t));
}

/* What the match set (the peer's uid, flags or start word), then the match:
 * a kernel that sees it matched reads the rest. */
static void push_match(const char *call, struct gshmemi_preq *q)
{
    if (q->dev == NULL)
        return;
    gshmemi_part_push(call, q, &q->d.uid, offsetof(struct gshmemi_preq_dev, marked) -
                                              offsetof(struct gshmemi_preq_dev, uid));
    gshmemi_part_push(call, q, &q->d.match, sizeof(q->d.match));
}

gshmemx_prequest_t gshmemi_part_handle(struct gshmemi_preq *q)
{
    return q->dev != NULL ? (gshmemx_prequest_t)q->dev : q;
}

struct gshmemi_preq *gshmemi_part_find(gshmemx_prequest_t req)
{
    for (struct gshmemi_preq *q = pt.all; q != NULL; q = q->all_next)
        if (gshmemi_part_handle(q) == req && !q->user_freed)
            return q;
    return NULL;
}

/* n zeroed words of the pool (first fit), or NULL. */
static uint64_t *pool_take(const char *call, size_t n, size_t *first)
{
    size_t run = 0;
    for (size_t i = 0; i < pt.n_flags; i++) {
        run = pt.used[i] ? 0 : run + 1;
        if (run == n) {
            *first = i + 1 - n;
            memset(pt.used + *first, 1, n);
            gshmemi_heap.access->memset(call, pt.pool + *first, 0, n * sizeof(uint64_t));
            return pt.pool + *first;
        }
    }
    return NULL;
}

static void pool_give(size_t first, size_t n) { memset(pt.used + first, 0, n); }

static void activate(int peer)
{
    if (!pt.pairs[peer].active) {
        pt.pairs[peer].active = 1;
        pt.active[pt.n_active++] = peer;
    }
}

static void append(struct gshmemi_preq **list, struct gshmemi_preq *q)
{
    while (*list != NULL)
        list = &(*list)->next;
    q->next = NULL;
    *list = q;
}

static uint64_t off(const void *p) { return (uint64_t)((const char *)p - gshmemi_heap.my_base); }

int gshmemi_part_enqueue(const char *call, struct gshmemi_preq *q)
{
    struct pair *pr = &pt.pairs[q->d.peer];
    /* a receive's flags: a word a partition, or a 16-byte packet */
    const size_t words = q->d.is_send ? 1
                         : q->d.packets ? 2 * (size_t)q->d.partitions + 1
                                        : (size_t)q->d.partitions;
    uint64_t *w = pool_take(call, words, &q->pool_first);
    if (w == NULL) {
        GSHMEMI_ERROR(PART, "%s: the pool of partition flags has no %zu free words in a row "
                      "(GSHMEM_PARTITION_FLAGS is %zu): free requests or raise it",
                      call, words, pt.n_flags);
        return GSHMEM_ERR_NO_MEMORY;
    }
    if (pt.uids == UINT32_MAX)
        gshmemi_part_fail(call, "this PE has made 2^32 - 1 partitioned requests, the most it can");
    q->pool_count = words;
    q->d.uid = ++pt.uids;
    q->all_prev = NULL;
    q->all_next = pt.all;
    if (pt.all != NULL)
        pt.all->all_prev = q;
    pt.all = q;
    if (q->d.is_send) {
        q->d.start = w;
        q->d.seq = ++pr->sends_made;
        append(&pr->sends, q);
    } else {
        q->d.flags = q->d.packets ? (uint64_t *)GSHMEMI_ALIGN_UP((uintptr_t)w, 16) : w;
        q->d.seq = ++pr->recvs_made;
        append(&pr->recvs, q);
    }
    activate(q->d.peer);
    push_all(call, q);
    progress_thread_start(call);
    return 0;
}

/* The mailbox `writer` writes into, at every PE (a symmetric address). */
static struct mailbox *box_at(int writer) { return &pt.boxes[writer]; }

static void write_post(const char *call, struct gshmemi_preq *q)
{
    struct post *slot = &box_at(gshmemi_rt.my_pe)->post[q->d.seq % RING];
    const struct post p = {.partitions = (uint64_t)q->d.partitions, .bytes = q->d.bytes,
                           .dest_off = off(q->d.dest), .flags_off = off(q->d.flags), .uid = q->d.uid,
                           .freed = (uint64_t)q->user_freed, .packets = (uint64_t)q->d.packets};
    gshmemi_rma_put(call, slot, &p, offsetof(struct post, stamp), q->d.peer, 1);
    gshmemi_signal_op(call, &slot->stamp, q->d.seq, GSHMEM_SIGNAL_SET, q->d.peer);
    q->posted = 1;
}

static void write_answer(const char *call, int peer, uint64_t seq, enum answer_status status,
                         const struct gshmemi_preq *q)
{
    struct answer *slot = &box_at(gshmemi_rt.my_pe)->answer[seq % RING];
    const struct answer a = {.start_off = q != NULL ? off(q->d.start) : 0,
                             .uid = q != NULL ? q->d.uid : 0};
    gshmemi_rma_put(call, slot, &a, offsetof(struct answer, stamp), peer, 1);
    gshmemi_signal_op(call, &slot->stamp, seq << 2 | status, GSHMEM_SIGNAL_SET, peer);
}

static void release(struct gshmemi_preq *q)
{
    pool_give(q->pool_first, q->pool_count);
    drop(q);
}

/* A peer writes only words whose owner cannot have freed them yet (flags
 * of a round the receiver started; the start word, while the sender's
 * request runs as many rounds as the receiver's), so a freed request tells
 * its peer nothing once matched: a peer still using it times out, naming
 * what it waits for. */
void gshmemi_part_free(const char *call, struct gshmemi_preq *q)
{
    if (q->d.match != PREQ_UNMATCHED) {
        release(q);
        return;
    }
    q->user_freed = 1;
    if (!q->d.is_send && q->posted) { /* a sender yet to take the post sees it freed */
        struct post *slot = &box_at(gshmemi_rt.my_pe)->post[q->d.seq % RING];
        const uint64_t one = 1;
        gshmemi_rma_put(call, &slot->freed, &one, sizeof(one), q->d.peer, 1);
    }
}

/* Sends to `peer`: the next unmatched one takes its post once it is here. */
static void match_sends(const char *call, int peer, struct pair *pr)
{
    struct gshmemi_preq *q;
    while ((q = pr->sends) != NULL) {
        const struct post *slot = &pt.boxes[peer].post[q->d.seq % RING];
        if (gshmemi_part_load(call, &slot->stamp) != q->d.seq)
            return;
        struct post p;
        gshmemi_heap.access->read(call, &p, slot, sizeof(p));
        pr->sends = q->next;
        if (p.freed) { /* the receiver needs no answer but the ring's */
            write_answer(call, peer, q->d.seq, ANSWER_RECV_FREED, NULL);
            __atomic_store_n(&q->d.match, PREQ_PEER_FREED, __ATOMIC_RELEASE);
            push_match(call, q);
        } else if (q->user_freed) {
            write_answer(call, peer, q->d.seq, ANSWER_SEND_FREED, NULL);
        } else if (p.partitions != (uint64_t)q->d.partitions || p.bytes != q->d.bytes ||
                   p.dest_off != off(q->d.dest)) {
            write_answer(call, peer, q->d.seq, ANSWER_REFUSED, NULL);
            gshmemi_part_fail(call, "the pair's request %" PRIu64 " does not match: pe %d (sender) "
                              "has %d partitions of %" PRIu64 " bytes into heap offset %" PRIu64 ", pe %d "
                              "(receiver) has %" PRIu64 " partitions of %" PRIu64 " bytes into "
                              "heap offset %" PRIu64,
                              q->d.seq, gshmemi_rt.my_pe, q->d.partitions, q->d.bytes, off(q->d.dest),
                              peer, p.partitions, p.bytes, p.dest_off);
        } else if (p.packets != (uint64_t)q->d.packets) {
            write_answer(call, peer, q->d.seq, ANSWER_REFUSED, NULL);
            gshmemi_part_fail(call, "the pair's request %" PRIu64 ": pe %d (receiver) %s flag "
                              "packets and pe %d (sender) %s: partitions of 1-8 bytes go as "
                              "packets where each PE maps the other's GPU heap",
                              q->d.seq, peer, p.packets ? "takes" : "does not take",
                              gshmemi_rt.my_pe, q->d.packets ? "sends them" : "cannot send them");
        } else {
            q->d.flags = (uint64_t *)(gshmemi_heap.my_base + p.flags_off);
            q->d.peer_uid = (uint32_t)p.uid;
            __atomic_store_n(&q->d.match, PREQ_MATCHED, __ATOMIC_RELEASE);
            push_match(call, q); /* kernels read it */
            write_answer(call, peer, q->d.seq, ANSWER_ACCEPTED, q);
        }
        if (q->user_freed)
            release(q);
    }
}

/* Receives from `peer`: answers in pair order, then posts that now fit. */
static void read_answers(const char *call, int peer, struct pair *pr)
{
    struct gshmemi_preq *q;
    while ((q = pr->recvs) != NULL && q->posted) {
        const struct answer *slot = &pt.boxes[peer].answer[q->d.seq % RING];
        uint64_t stamp = gshmemi_part_load(call, &slot->stamp);
        if (stamp >> 2 != q->d.seq)
            break;
        struct answer a;
        gshmemi_heap.access->read(call, &a, slot, sizeof(a));
        pr->recvs = q->next;
        pr->answers_seen = q->d.seq;
        if (q->user_freed) {
            release(q);
            continue;
        }
        switch (stamp & 3) {
        case ANSWER_ACCEPTED:
            q->d.start = (uint64_t *)(gshmemi_heap.my_base + a.start_off);
            q->d.peer_uid = (uint32_t)a.uid;
            __atomic_store_n(&q->d.match, PREQ_MATCHED, __ATOMIC_RELEASE);
            push_match(call, q);
            __atomic_thread_fence(__ATOMIC_SEQ_CST); /* before owed is read (a kernel's pstart) */
            gshmemi_part_send_start(call, q);
            break;
        case ANSWER_SEND_FREED:
            __atomic_store_n(&q->d.match, PREQ_PEER_FREED, __ATOMIC_RELEASE);
            push_match(call, q);
            break;
        case ANSWER_REFUSED:
            gshmemi_part_fail(call, "the pair's request %" PRIu64 " does not match: pe %d "
                              "(sender) refused this receive (its gshmemx_psend_init differs "
                              "in partitions, bytes, dest or flag packets)",
                              q->d.seq, peer);
        default:
            gshmemi_part_fail(call, "internal error: answer %" PRIu64 " from pe %d",
                              stamp, peer);
        }
    }
    for (q = pr->recvs; q != NULL && q->d.seq <= pr->answers_seen + RING; q = q->next)
        if (!q->posted)
            write_post(call, q);
}

/* A send the host moves for kernels (d.ce): the partitions they marked in
 * the open round, not taken yet, join the pending ones. */
static void take_marked(const char *call, struct gshmemi_preq *q)
{
    if (!__atomic_load_n(&q->d.open, __ATOMIC_ACQUIRE))
        return;
    const uint64_t r = __atomic_load_n(&q->d.round, __ATOMIC_ACQUIRE);
    if (q->n_pending > 0 && q->pending_round != r)
        return; /* (the host's pwait of that round reports them) */
    int left = 0;
    for (int p = 0; p < q->d.partitions; p++)
        if (q->issued[p] != r) {
            if (__atomic_load_n(&q->d.marked[p], __ATOMIC_ACQUIRE) != r) {
                left++;
                continue;
            }
            q->issued[p] = r;
            q->pending[q->n_pending++] = p;
            q->pending_round = r;
        }
    if (left > 0) /* a kernel will mark more: look again without a nap */
        pg.spin = 1;
    gshmemi_part_flush(call, q);
}

void gshmemi_part_progress(const char *call)
{
    pg.spin = 0;
    for (struct gshmemi_preq *q = pt.all; q != NULL; q = q->all_next) {
        /* a round a kernel started while the match was still to come */
        if (!q->d.is_send && q->d.match == PREQ_MATCHED && q->pinned)
            gshmemi_part_send_start(call, q);
        if (q->d.ce && q->d.match == PREQ_MATCHED && !q->user_freed)
            take_marked(call, q);
    }
    for (struct gshmemi_preq **at = &pt.pending; *at != NULL;) {
        struct gshmemi_preq *q = *at;
        if (q->n_pending > 0 && q->d.match == PREQ_MATCHED)
            gshmemi_part_flush(call, q);
        if (q->n_pending == 0) {
            *at = q->pending_next;
            q->in_pending = 0;
        } else {
            at = &q->pending_next;
        }
    }
    for (int i = 0; i < pt.n_active;) {
        const int peer = pt.active[i];
        struct pair *pr = &pt.pairs[peer];
        match_sends(call, peer, pr);
        read_answers(call, peer, pr);
        if (pr->sends == NULL && pr->recvs == NULL) {
            pr->active = 0;
            pt.active[i] = pt.active[--pt.n_active];
        } else {
            i++;
        }
    }
}

/* The receiver's start of the current round has arrived (send). */
static int start_arrived(const char *call, struct gshmemi_preq *q, uint64_t round)
{
    if (q->start_seen >= round)
        return 1;
    uint64_t w = gshmemi_part_load(call, q->d.start);
    if (!preq_word_reached(w, q->d.uid, round))
        return 0;
    q->start_seen = w & 0xffffffffu;
    return 1;
}

/* Where the run of adjacent partitions that starts at q->pending[i] ends
 * (an index into pending[]): a range, or neighbours marked in turn. */
static int run_end(const struct gshmemi_preq *q, int i)
{
    int j = i + 1;
    while (j < q->n_pending && q->pending[j] == q->pending[j - 1] + 1)
        j++;
    return j;
}

/* The pending partitions of send q as flag packets (gshmemi_preq_packet):
 * each 8-byte half by a 64-bit write of its own, which lands whole. */
static void send_packets(const char *call, struct gshmemi_preq *q, uint64_t word)
{
    const uint32_t round = (uint32_t)word, tag = (uint32_t)(word >> 32) ^ round;
    const size_t bytes = q->d.bytes;
    unsigned char *data = malloc((size_t)q->n_pending * 8);
    if (data == NULL)
        gshmemi_part_fail(call, "out of host memory for %d flag packets", q->n_pending);
    for (int i = 0, j; i < q->n_pending; i = j) {
        j = run_end(q, i); /* a run's bytes in one read */
        const int first = q->pending[i];
        gshmemi_heap.access->read(call, data, q->d.source + (size_t)first * bytes,
                                  (size_t)(j - i) * bytes);
        for (int k = 0; k < j - i; k++) {
            unsigned char v[8] = {0};
            memcpy(v, data + (size_t)k * bytes, bytes);
            uint32_t lo, hi;
            memcpy(&lo, v, 4);
            memcpy(&hi, v + 4, 4);
            const size_t p = (size_t)(first + k);
            gshmemi_signal_op(call, &q->d.flags[2 * p], (uint64_t)round << 32 | lo,
                              GSHMEM_SIGNAL_SET, q->d.peer);
            gshmemi_signal_op(call, &q->d.flags[2 * p + 1], (uint64_t)tag << 32 | hi,
                              GSHMEM_SIGNAL_SET, q->d.peer);
        }
    }
    free(data);
}

int gshmemi_part_packets_in(const char *call, struct gshmemi_preq *q, int lo, int n, int place)
{
    struct gshmemi_preq_packet *got = malloc((size_t)n * sizeof(*got));
    unsigned char *data = malloc((size_t)n * q->d.bytes);
    if (got == NULL || data == NULL)
        gshmemi_part_fail(call, "out of host memory reading %d flag packets", n);
    gshmemi_heap.access->read(call, got, &q->d.flags[2 * (size_t)lo], (size_t)n * sizeof(*got));
    const uint32_t round = (uint32_t)q->d.round, tag = q->d.uid ^ round;
    int in = 0;
    for (; in < n && got[in].round == round && got[in].tag == tag; in++) {
        const uint64_t v = (uint64_t)got[in].hi << 32 | got[in].lo;
        for (size_t b = 0; b < q->d.bytes; b++)
            data[(size_t)in * q->d.bytes + b] = (unsigned char)(v >> (8 * b));
    }
    if (place && in == n) /* (once all are in: a wait's polls copy nothing before) */
        gshmemi_heap.access->copy(call, q->d.dest + (size_t)lo * q->d.bytes, data,
                                  (size_t)n * q->d.bytes, 1);
    free(got);
    free(data);
    return in;
}

/* The flags of the pending partitions (the round's word each), and where
 * `moved` is set the GPU's count of moved partitions after them, as one
 * batch of stream writes behind the data, where the receiver's flags are
 * mapped here: 0 where they are not (the caller writes them). */
static int set_flags(const char *call, struct gshmemi_preq *q, uint64_t word, uint64_t *moved)
{
    const size_t n = (size_t)q->n_pending + (moved != NULL);
    uint64_t **at = malloc(n * sizeof(*at));
    uint64_t *value = malloc(n * sizeof(*value));
    int done = at != NULL && value != NULL && gshmemi_heap_peer_addr(q->d.flags, q->d.peer) != NULL;
    if (done) {
        for (int k = 0; k < q->n_pending; k++) {
            at[k] = gshmemi_heap_peer_addr(&q->d.flags[q->pending[k]], q->d.peer);
            value[k] = word;
        }
        if (moved != NULL) {
            at[n - 1] = moved;
            value[n - 1] = q->moved + (uint64_t)q->n_pending;
        }
        gshmemi_gpu_set_words(call, at, value, n);
    }
    free(at);
    free(value);
    return done;
}

/* The pending partitions of send q: each run of adjacent partitions as one
 * put of their data, then their flags after it.  Returns whether it set
 * `moved` (the GPU's count, where the host moves for kernels) too. */
static int send_runs(const char *call, struct gshmemi_preq *q, uint64_t word, uint64_t *moved)
{
    for (int i = 0, j; i < q->n_pending; i = j) {
        j = run_end(q, i);
        const size_t at = (size_t)q->pending[i] * q->d.bytes;
        gshmemi_rma_put(call, q->d.dest + at, q->d.source + at, (size_t)(j - i) * q->d.bytes,
                        q->d.peer, 0);
    }
    /* Every flag after every run's data, in one batch where the peer is
     * mapped: a copy or a stream write each costs the host microseconds,
     * and a small copy from pinned memory holds the copy engine, and the
     * data behind it, for about as long. */
    if (q->staged != NULL && set_flags(call, q, word, moved))
        return 1;
    for (int i = 0, j; i < q->n_pending; i = j) {
        j = run_end(q, i);
        const int first = q->pending[i];
        if (q->staged != NULL) {
            /* The run's flags in one copy, on the data's stream.  A reader
             * that saw a word half written could only see the new round
             * with the old uid, which is the same one. */
            for (int k = first; k < first + (j - i); k++)
                q->staged[k] = word;
            gshmemi_rma_put(call, &q->d.flags[first], &q->staged[first],
                            (size_t)(j - i) * sizeof(uint64_t), q->d.peer, 0);
        } else {
            for (int k = i; k < j; k++)
                gshmemi_signal_op(call, &q->d.flags[q->pending[k]], word, GSHMEM_SIGNAL_SET,
                                  q->d.peer);
        }
    }
    return 0;
}

/* A send by the copy engines keeps at most two flushes in the operations
 * stream.  Each costs the stream time of its own (its copies' start, the
 * flags' writes) besides its bytes, and kernels mark partitions faster
 * than the stream gets through one flush a partition: while two are
 * queued, the partitions marked wait, and go in one later flush, each run
 * of adjacent ones taken in turn as one copy. */
static int ce_queue_full(const char *call, struct gshmemi_preq *q)
{
    /* (flush k - 2's mark: none before two flushes, nor where none was made) */
    void *const older = q->flushed[q->flushes & 1];
    return older != NULL && !gshmemi_gpu_mark_done(call, older);
}

static void ce_flushed(const char *call, struct gshmemi_preq *q)
{
    void **const at = &q->flushed[q->flushes & 1];
    if (*at == NULL)
        *at = gshmemi_gpu_mark_new(); /* (none: flushes go unthrottled) */
    if (*at != NULL)
        gshmemi_gpu_mark(call, *at);
    q->flushes++;
}

void gshmemi_part_flush(const char *call, struct gshmemi_preq *q)
{
    const int held = q->n_pending > 0 && ce_queue_full(call, q);
    if (held)
        pg.spin = 1; /* (the stream drains within microseconds: look again soon) */
    if (held || q->n_pending == 0 || q->d.match != PREQ_MATCHED ||
        !start_arrived(call, q, q->pending_round)) {
        if (q->n_pending > 0 && !q->in_pending) {
            q->in_pending = 1;
            q->pending_next = pt.pending;
            pt.pending = q;
        }
        return;
    }
    const uint64_t word = preq_word(q->d.peer_uid, q->pending_round);
    /* for a kernel's pwait: the count after the copies, in the same stream */
    uint64_t *const moved = q->d.ce ? &q->dev->moved : NULL;
    int counted = 0;
    if (q->d.packets)
        send_packets(call, q, word);
    else
        counted = send_runs(call, q, word, moved);
    q->moved += (uint64_t)q->n_pending;
    q->n_pending = 0;
    if (moved != NULL && !counted)
        gshmemi_gpu_signal(call, moved, q->moved, GSHMEM_SIGNAL_SET);
    if (q->d.ce)
        ce_flushed(call, q);
}

void gshmemi_part_send_start(const char *call, struct gshmemi_preq *q)
{
    /* A round the host started, or one a kernel started before the match
     * (owed): a kernel that saw the match wrote the start itself, and two
     * writers could set the sender's word back to an older round. */
    const uint64_t r = __atomic_load_n(&q->d.round, __ATOMIC_ACQUIRE);
    if (q->d.match != PREQ_MATCHED || q->start_sent >= r ||
        (q->host_started < r && __atomic_load_n(&q->d.owed, __ATOMIC_ACQUIRE) < r))
        return;
    gshmemi_signal_op(call, q->d.start, preq_word(q->d.peer_uid, r), GSHMEM_SIGNAL_SET, q->d.peer);
    q->start_sent = r;
}
