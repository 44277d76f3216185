/*
 * tcp transport: one TCP connection per pair of PEs that do not map each
 * other, opened with the job secret.  The initiator writes requests from
 * its own thread; the target's progress thread applies each to its heap in
 * arrival order and answers gets, fetching atomics and quiet.  Into a GPU
 * heap, small puts go to the GPU together, in no particular order among
 * themselves, unless a fence came between (PUT_FENCED).  Replies come back on the
 * same connection and are handed to the waiting caller.
 *
 * A connection that closes without a goodbye is a lost PE: every PE that
 * had one to it says so and ends.
 */
#include <errno.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/sock.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/ctrl.h"
#include "heap/heap.h"
#include "transport/transport.h"

#define TCP_MAGIC 0x706374686d687367ull
#define GET_CHUNK (64u << 10) /* a reply never fills the peer's socket buffer */
#define SOCK_BUF (4 << 20)
#define RX_BUF (256u << 10)    /* per connection: many small frames per receive */
#define SMALL_PUT 4096         /* GPU heap: puts up to this are batched from RX_BUF */
#define PUT_BATCH 128
#define BULK (16u << 10)       /* payloads this large are received straight into place */
#define RING_BYTES (4u << 20)  /* GPU heap: larger puts pass through this pinned ring */
#define RING_SEGS 4            /* in segments, each reused once the copies that read it are done */

enum frame_type {
    F_PUT = 1, F_GET, F_AMO, F_SIGNAL, F_CTRL, F_QUIET, F_REPLY, F_BYE, F_HEARTBEAT,
};
/* A put's op: a fence came before it, so the target applies it after every
 * put before it (small puts into a GPU heap otherwise go out together, in
 * no particular order). */
#define PUT_FENCED 1u

struct frame {
    uint32_t type;
    uint32_t op;
    uint64_t id;  /* matches a reply to its request */
    uint64_t off; /* heap offset, or control word */
    uint64_t len; /* payload bytes that follow (put, reply) or asked for (get) */
    uint64_t a, b;
    uint32_t size;
    uint32_t fetch;
};

struct hello {
    uint64_t magic;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    int32_t rank;
    int32_t pad;
};

/* A caller waiting for a reply. */
struct pending {
    uint64_t id;
    void *dst;
    size_t len;
    uint64_t old;
    int done;
    struct pending *next;
};

struct conn {
    int fd;
    int bye; /* the peer said goodbye: its closing is no loss */
    int dirty; /* requests since the last quiet */
    uint64_t last_rx, last_tx; /* for heartbeats and silence */
    pthread_mutex_t send_lock;
    int corked; /* TCP_CORK is on: a batch's requests leave together */
    int fence_next; /* the next put is fenced (the target keeps it behind earlier ones) */
    char *rx; /* received, not yet taken: [rx_head, rx_tail) */
    size_t rx_head, rx_tail;
    int bulk; /* the last frame was a put of BULK bytes or more: a stream of them */
};

/* The GPU heap's puts, copied to the GPU in one batch (one driver call
 * instead of one each, which the progress thread would otherwise spend
 * between receives): small ones straight from the receive buffers (read
 * before the call returns), larger ones from the pinned ring (in stream
 * order).  Issued before any other operation is applied, before a receive
 * buffer or the ring is reused, and before a put to the same bytes or
 * after a fence. */
struct put_batch {
    void *dst[PUT_BATCH];
    const void *src[PUT_BATCH];
    size_t size[PUT_BATCH];
    unsigned char now[PUT_BATCH]; /* the source is reused: read it during the call */
    size_t n;
};

static struct {
    struct conn *conns; /* by PE; fd -1 where none */
    int *peers;
    int n_peers;
    pthread_t thread;
    int thread_up;
    int wake[2];
    volatile int closing;
    pthread_mutex_t lock; /* pending list */
    struct pending *pending;
    uint64_t next_id;
    void *bounce; /* device heap: staging for the progress thread's gets (GET_CHUNK
                   * bytes, pinned at init: cudaFreeHost would wait for the whole
                   * GPU, kernels waiting on the proxy included) */
    struct put_batch batch;
    char *ring; /* device heap: pinned staging for larger puts */
    int seg;          /* the segment being filled */
    size_t seg_used;  /* bytes of it */
    void *seg_done[RING_SEGS]; /* after the last copies from each segment */
} tcp;

/* ---- sending ------------------------------------------------------------- */

/* This thread is in a batch (the proxy's): requests that wait for no
 * answer are corked until the batch ends, many to a segment. */
static __thread int in_batch;

static void set_cork(struct conn *c, int on)
{
    setsockopt(c->fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
    c->corked = on;
}

/* What a batch held back on c leaves now. */
static void uncork(struct conn *c)
{
    pthread_mutex_lock(&c->send_lock);
    if (c->corked)
        set_cork(c, 0);
    pthread_mutex_unlock(&c->send_lock);
}

static void lost(int pe, const char *what)
{
    char how[128];
    if (tcp.closing)
        return;
    snprintf(how, sizeof(how), "was lost: its tcp connection %s", what);
    gshmemi_end_for_lost_pe(pe, how);
}

static void send_frame(const char *call, int pe, const struct frame *frame, const void *payload,
                       size_t len)
{
    struct conn *c = &tcp.conns[pe];
    uint64_t deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
    struct frame fenced;
    const struct frame *f = frame;
    int st;

    const int answered = f->type == F_GET || f->type == F_QUIET || (f->type == F_AMO && f->fetch);
    pthread_mutex_lock(&c->send_lock);
    if (f->type == F_PUT && c->fence_next) {
        fenced = *f;
        fenced.op |= PUT_FENCED;
        f = &fenced;
        c->fence_next = 0;
    }
    if (in_batch && !answered && !c->corked)
        set_cork(c, 1);
    st = gshmemi_sock_send2(c->fd, f, sizeof(*f), payload, len, deadline);
    /* Requests whose completion quiet must wait for; gets and fetching
     * atomics are complete when answered, replies are not requests. */
    if (f->type == F_PUT || f->type == F_SIGNAL || f->type == F_CTRL ||
        (f->type == F_AMO && !f->fetch))
        __atomic_store_n(&c->dirty, 1, __ATOMIC_RELAXED);
    if (c->corked && (answered || !in_batch))
        set_cork(c, 0); /* out now: an answer is awaited, or the batch is over */
    __atomic_store_n(&c->last_tx, gshmemi_now_ns(), __ATOMIC_RELAXED);
    pthread_mutex_unlock(&c->send_lock);
    if (st == GSHMEM_ERR_TIMEOUT) {
        GSHMEMI_ERROR(RMA, "%s: pe %d accepted no data for %g s (GSHMEM_TIMEOUT)", call, pe,
                      gshmemi_env.TIMEOUT);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
    }
    if (st != 0)
        lost(pe, "closed while sending");
}

/* Sends a request whose reply (payload into p->dst) the progress thread
 * will hand to p. */
static void call_start(const char *call, int pe, struct frame *f, const void *payload, size_t plen,
                       struct pending *p)
{
    pthread_mutex_lock(&tcp.lock);
    p->id = f->id = ++tcp.next_id;
    p->next = tcp.pending;
    tcp.pending = p;
    pthread_mutex_unlock(&tcp.lock);
    send_frame(call, pe, f, payload, plen);
}

/* Waits for p's reply; deadline: GSHMEM_TIMEOUT after `since`. */
static uint64_t call_finish(const char *call, int pe, struct pending *p, uint64_t since)
{
    struct gshmemi_backoff backoff = {0};
    const uint64_t deadline = since + (uint64_t)(gshmemi_env.TIMEOUT * 1e9);
    while (!__atomic_load_n(&p->done, __ATOMIC_ACQUIRE)) {
        gshmemi_backoff_wait(&backoff);
        if (backoff.spins >= 64 && gshmemi_now_ns() > deadline) {
            GSHMEMI_ERROR(RMA, "%s: pe %d did not answer within %g s (GSHMEM_TIMEOUT)", call, pe,
                          gshmemi_env.TIMEOUT);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
        }
    }
    /* The progress thread unlinked it before marking it done. */
    return p->old;
}

/* Sends a request and waits for its reply (payload into dst). */
static uint64_t call_and_wait(const char *call, int pe, struct frame *f, const void *payload,
                              size_t plen, void *dst, size_t dlen)
{
    struct pending p = {.dst = dst, .len = dlen};
    const uint64_t since = gshmemi_now_ns();
    call_start(call, pe, f, payload, plen, &p);
    return call_finish(call, pe, &p, since);
}

/* ---- the target's side ----------------------------------------------------- */

/* The progress thread's staging buffer for the GPU heap: pinned, so the
 * copy engines move it at full speed. */
static void put_batch_flush(void)
{
    if (tcp.batch.n == 0)
        return;
    gshmemi_gpu_copy_batch("tcp", tcp.batch.dst, tcp.batch.src, tcp.batch.size, tcp.batch.n,
                           tcp.batch.now, NULL);
    tcp.batch.n = 0;
}

static int recv_failed(int pe, int st)
{
    if (st != 0 && !tcp.conns[pe].bye)
        lost(pe, st == GSHMEM_ERR_TIMEOUT ? "stalled in the middle of a message" : "closed");
    return st;
}

/* At least want bytes in pe's receive buffer, receiving as much as the
 * socket has: up to RX_BUF, or only what is wanted in a stream of bulk
 * puts (whose payloads are better received straight into place than
 * through this buffer and a copy). */
static int rx_fill(int pe, size_t want)
{
    struct conn *c = &tcp.conns[pe];
    size_t got;
    int st;

    if (c->rx_tail - c->rx_head >= want)
        return 0;
    put_batch_flush(); /* it may point into this buffer */
    memmove(c->rx, c->rx + c->rx_head, c->rx_tail - c->rx_head);
    c->rx_tail -= c->rx_head;
    c->rx_head = 0;
    st = gshmemi_sock_recv_some(c->fd, c->rx + c->rx_tail, want - c->rx_tail,
                                c->bulk ? want - c->rx_tail : RX_BUF - c->rx_tail,
                                gshmemi_deadline_after(gshmemi_env.TIMEOUT), &got);
    c->rx_tail += got;
    return recv_failed(pe, st);
}

/* In a stream of bulk puts: whether the next frame's header has started
 * to arrive, read without waiting (into free room at the buffer's end, so
 * nothing a pending batch points at moves). */
static int rx_next_header(int pe)
{
    struct conn *c = &tcp.conns[pe];
    if (RX_BUF - c->rx_tail < sizeof(struct frame) - (c->rx_tail - c->rx_head))
        return 0;
    ssize_t n = recv(c->fd, c->rx + c->rx_tail, sizeof(struct frame) - (c->rx_tail - c->rx_head),
                     MSG_DONTWAIT);
    if (n <= 0)
        return 0; /* nothing yet (or the end, which poll reports) */
    c->rx_tail += (size_t)n;
    return 1;
}

/* The next len bytes of pe's stream into buf: what is buffered, then a
 * bulk remainder straight from the socket. */
static int recv_all(int pe, void *buf, size_t len)
{
    struct conn *c = &tcp.conns[pe];
    size_t have = GSHMEMI_MIN(len, c->rx_tail - c->rx_head);
    int st;

    memcpy(buf, c->rx + c->rx_head, have);
    c->rx_head += have;
    buf = (char *)buf + have;
    len -= have;
    if (len == 0)
        return 0;
    if (len >= BULK)
        return recv_failed(pe, gshmemi_sock_recv(c->fd, buf, len,
                                                 gshmemi_deadline_after(gshmemi_env.TIMEOUT)));
    if ((st = rx_fill(pe, len)) != 0)
        return st;
    memcpy(buf, c->rx + c->rx_head, len);
    c->rx_head += len;
    return 0;
}

static int overlaps_batch(const char *p, size_t len)
{
    for (size_t i = 0; i < tcp.batch.n; i++)
        if (p < (char *)tcp.batch.dst[i] + tcp.batch.size[i] && (char *)tcp.batch.dst[i] < p + len)
            return 1;
    return 0;
}

static void put_batch_add(char *dst, const void *src, size_t len, int now)
{
    if (tcp.batch.n == PUT_BATCH || overlaps_batch(dst, len))
        put_batch_flush(); /* in the order of a later put to the same bytes */
    tcp.batch.dst[tcp.batch.n] = dst;
    tcp.batch.src[tcp.batch.n] = src;
    tcp.batch.size[tcp.batch.n] = len;
    tcp.batch.now[tcp.batch.n++] = (unsigned char)now;
}

/* The ring's next segment, once the copies from it are done: the copies
 * from the others go on meanwhile (waiting for all of them stopped the
 * receiving each time the ring wrapped). */
static void ring_next_segment(void)
{
    put_batch_flush(); /* the copies reading this segment are in the stream */
    gshmemi_gpu_mark("tcp", tcp.seg_done[tcp.seg]);
    tcp.seg = (tcp.seg + 1) % RING_SEGS;
    gshmemi_gpu_mark_wait("tcp", tcp.seg_done[tcp.seg]);
    tcp.seg_used = 0;
}

/* A put into the GPU heap: small ones from the receive buffer, larger ones
 * through the pinned ring. */
static void put_to_gpu(int pe, char *p, size_t len)
{
    const size_t seg_bytes = RING_BYTES / RING_SEGS;
    struct conn *c = &tcp.conns[pe];
    if (len <= SMALL_PUT) {
        if (rx_fill(pe, len) != 0)
            return;
        put_batch_add(p, c->rx + c->rx_head, len, 1);
        c->rx_head += len;
        return;
    }
    for (size_t done = 0; done < len;) {
        size_t chunk = GSHMEMI_MIN(len - done, seg_bytes);
        if (tcp.seg_used + chunk > seg_bytes)
            ring_next_segment();
        char *at = tcp.ring + (size_t)tcp.seg * seg_bytes + tcp.seg_used;
        if (recv_all(pe, at, chunk) != 0)
            return;
        put_batch_add(p + done, at, chunk, 0);
        tcp.seg_used += (chunk + 63) & ~(size_t)63;
        done += chunk;
    }
}

/* Where a request may write: [off, off+len) inside this PE's heap. */
static char *heap_range(int pe, uint64_t off, uint64_t len)
{
    if (off > gshmemi_heap.size || len > gshmemi_heap.size - off) {
        GSHMEMI_ERROR(CORE, "tcp: pe %d asked for heap range [%llu, +%llu) beyond this heap (%zu "
                      "bytes)", pe, (unsigned long long)off, (unsigned long long)len,
                      gshmemi_heap.size);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
    }
    return gshmemi_heap.my_base + off;
}

/* Where an atomic may apply: an aligned word of 4 or 8 bytes in this PE's
 * heap, with an op core/amo.h knows. */
static char *amo_word(int pe, const struct frame *f)
{
    if ((f->size != 4 && f->size != 8) || !gshmemi_amo_valid((int)f->op) || (f->off & (f->size - 1))) {
        GSHMEMI_ERROR(CORE, "tcp: pe %d sent an atomic of op %u on %u bytes at heap offset %llu",
                      pe, f->op, f->size, (unsigned long long)f->off);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
    }
    return heap_range(pe, f->off, f->size);
}

/* `first` and the atomics pe sent right after it (already received) are
 * applied in their order by one call of the heap's access (on the GPU heap
 * one kernel), and the fetching ones are answered together: one launch and
 * one wait for a proxy's whole batch instead of one each. */
static void serve_amos(int pe, const struct frame *first)
{
    struct conn *c = &tcp.conns[pe];
    struct frame f[GSHMEMI_AMO_BATCH];
    struct gshmemi_amo_req ops[GSHMEMI_AMO_BATCH];
    uint64_t old[GSHMEMI_AMO_BATCH];
    size_t n = 0;
    int fetch = 0;

    f[n++] = *first;
    while (n < GSHMEMI_AMO_BATCH && c->rx_tail - c->rx_head >= sizeof(struct frame) &&
           ((const struct frame *)(const void *)(c->rx + c->rx_head))->type == F_AMO) {
        memcpy(&f[n++], c->rx + c->rx_head, sizeof(struct frame));
        c->rx_head += sizeof(struct frame);
    }
    for (size_t i = 0; i < n; i++) {
        ops[i] = (struct gshmemi_amo_req){.addr = amo_word(pe, &f[i]),
                                          .a = f[i].a, .b = f[i].b, .op = (int32_t)f[i].op,
                                          .size = (int32_t)f[i].size};
        fetch |= f[i].fetch != 0;
    }
    gshmemi_heap.access->atomics("tcp", ops, n, fetch ? old : NULL);
    if (!fetch)
        return;
    in_batch = 1; /* the answers leave corked, together */
    for (size_t i = 0; i < n; i++) {
        if (!f[i].fetch)
            continue;
        struct frame r = {.type = F_REPLY, .id = f[i].id, .a = old[i]};
        send_frame("tcp", pe, &r, NULL, 0);
    }
    in_batch = 0;
    uncork(c);
}

/* One frame from pe; returns nonzero when the connection is gone. */
static int serve_one(int pe)
{
    struct frame f, r;
    char *p;

    if (recv_all(pe, &f, sizeof(f)) != 0)
        return 1;
    tcp.conns[pe].last_rx = gshmemi_now_ns();
    tcp.conns[pe].bulk = f.type == F_PUT && f.len >= BULK;
    memset(&r, 0, sizeof(r));
    r.type = F_REPLY;
    r.id = f.id;
    /* On the GPU heap everything else is applied in the operations
     * stream's order, after the puts before it. */
    if (f.type != F_PUT)
        put_batch_flush();
    switch (f.type) {
    case F_PUT:
        p = heap_range(pe, f.off, f.len);
        if (gshmemi_heap.access->host_direct) {
            recv_all(pe, p, f.len);
            break;
        }
        if (f.op & PUT_FENCED)
            put_batch_flush();
        put_to_gpu(pe, p, f.len);
        break;
    case F_GET:
        p = heap_range(pe, f.off, f.len);
        r.len = f.len;
        if (f.len > GET_CHUNK) { /* tcp_get never asks for more */
            GSHMEMI_ERROR(CORE, "tcp: pe %d asked for a %llu-byte get, over the %u bytes a get "
                          "may ask for", pe, (unsigned long long)f.len, GET_CHUNK);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
        }
        if (!gshmemi_heap.access->host_direct) {
            gshmemi_heap.access->copy("tcp", tcp.bounce, p, f.len, 1);
            p = tcp.bounce;
        }
        send_frame("tcp", pe, &r, p, f.len);
        break;
    case F_AMO:
        serve_amos(pe, &f);
        break;
    case F_SIGNAL:
        p = heap_range(pe, f.off, sizeof(uint64_t));
        gshmemi_heap.access->signal("tcp", (uint64_t *)p, f.a, (int)f.op);
        break;
    case F_CTRL:
        if (f.off < GSHMEMI_CTRL_SIZE / sizeof(uint64_t))
            __atomic_fetch_add(gshmemi_ctrl_word(gshmemi_rt.my_pe, f.off), f.a, __ATOMIC_RELEASE);
        break;
    case F_QUIET:
        gshmemi_heap.access->quiet("tcp");
        send_frame("tcp", pe, &r, NULL, 0);
        break;
    case F_REPLY: {
        struct pending **pp, *w = NULL;
        pthread_mutex_lock(&tcp.lock);
        for (pp = &tcp.pending; *pp != NULL; pp = &(*pp)->next) {
            if ((*pp)->id == f.id) {
                w = *pp;
                *pp = w->next;
                break;
            }
        }
        pthread_mutex_unlock(&tcp.lock);
        if (w == NULL) {
            GSHMEMI_ERROR(CORE, "tcp: pe %d answered request %llu that nobody asked", pe,
                          (unsigned long long)f.id);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
        }
        if (f.len > 0)
            recv_all(pe, w->dst, f.len);
        w->old = f.a;
        __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
        break;
    }
    case F_BYE:
        tcp.conns[pe].bye = 1;
        break;
    case F_HEARTBEAT:
        break;
    default:
        GSHMEMI_ERROR(CORE, "tcp: pe %d sent a frame of unknown type %u", pe, f.type);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
    }
    return 0;
}

/* Every whole frame pe has sent (they are buffered: poll would not tell
 * of them again), then the batch of puts goes to the GPU. */
static void serve(int pe)
{
    struct conn *c = &tcp.conns[pe];
    do {
        if (serve_one(pe) != 0)
            break;
    } while (!c->bye && (c->rx_tail - c->rx_head >= sizeof(struct frame) ||
                         (c->bulk && rx_next_header(pe))));
    put_batch_flush();
}

static void *progress_main(void *arg)
{
    struct pollfd *p = calloc((size_t)tcp.n_peers + 1, sizeof(*p));
    (void)arg;
    if (p == NULL)
        return NULL;
    gshmemi_gpu_bind_thread("tcp target"); /* nothing where no GPU is open */
    const uint64_t silence = (uint64_t)(gshmemi_env.HEARTBEAT_TIMEOUT * 1e9);
    for (int i = 0; i < tcp.n_peers; i++)
        tcp.conns[tcp.peers[i]].last_rx = gshmemi_now_ns();
    for (;;) {
        int n = 0;
        /* Heartbeats on idle connections; a silent peer is a lost one. */
        uint64_t now = gshmemi_now_ns();
        for (int i = 0; i < tcp.n_peers && silence > 0; i++) {
            struct conn *c = &tcp.conns[tcp.peers[i]];
            if (c->bye)
                continue;
            if (now - c->last_rx > silence) {
                char what[96];
                snprintf(what, sizeof(what), "was silent for %g s (GSHMEM_HEARTBEAT_TIMEOUT)",
                         gshmemi_env.HEARTBEAT_TIMEOUT);
                lost(tcp.peers[i], what);
            }
            if (now - __atomic_load_n(&c->last_tx, __ATOMIC_RELAXED) > 1000000000ull) {
                struct frame hb = {.type = F_HEARTBEAT};
                send_frame("tcp heartbeat", tcp.peers[i], &hb, NULL, 0);
            }
        }
        for (int i = 0; i < tcp.n_peers; i++)
            p[n++] = (struct pollfd){.fd = tcp.conns[tcp.peers[i]].bye ? -1
                                                                        : tcp.conns[tcp.peers[i]].fd,
                                     .events = POLLIN};
        p[n++] = (struct pollfd){.fd = tcp.wake[0], .events = POLLIN};
        if (poll(p, (nfds_t)n, 250) < 0 && errno != EINTR)
            break;
        if (p[n - 1].revents)
            break;
        for (int i = 0; i < tcp.n_peers; i++)
            if (p[i].revents & (POLLIN | POLLHUP | POLLERR))
                serve(tcp.peers[i]);
    }
    free(p);
    return NULL;
}

/* ---- the initiator's side -------------------------------------------------- */

static void tcp_put(const char *call, int pe, uint64_t off, const void *src, size_t n)
{
    struct frame f = {.type = F_PUT, .off = off, .len = n};
    if (gshmemi_gpu_is_device_ptr(src)) { /* read it through the GPU */
        void *b = malloc(n);
        if (b == NULL)
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
        gshmemi_gpu_copy(call, b, src, n, 1);
        send_frame(call, pe, &f, b, n);
        free(b);
        return;
    }
    send_frame(call, pe, &f, src, n);
}


static uint64_t tcp_atomic(const char *call, int pe, uint64_t off, int op, size_t size, uint64_t a,
                           uint64_t b, int fetch)
{
    struct frame f = {.type = F_AMO, .op = (uint32_t)op, .off = off, .a = a, .b = b,
                      .size = (uint32_t)size, .fetch = (uint32_t)fetch};
    if (!fetch) {
        send_frame(call, pe, &f, NULL, 0);
        return 0;
    }
    return call_and_wait(call, pe, &f, NULL, 0, NULL, 0);
}

static void tcp_signal(const char *call, int pe, uint64_t off, uint64_t value, int op)
{
    struct frame f = {.type = F_SIGNAL, .op = (uint32_t)op, .off = off, .a = value};
    send_frame(call, pe, &f, NULL, 0);
}

static void tcp_ctrl_add(const char *call, int pe, size_t word, uint64_t value)
{
    struct frame f = {.type = F_CTRL, .off = word, .a = value};
    send_frame(call, pe, &f, NULL, 0);
}

/* A get or fetching atomic in flight (the proxy starts a batch's at once
 * and waits for them together: it never waits on one peer at a time). */
struct tcp_token {
    struct pending p;
    int pe;
    uint64_t since;
    void *gpu_dst; /* a get into GPU memory: the reply lands in p.dst first */
    size_t n;
};

static void *tcp_get_start(const char *call, int pe, uint64_t off, void *dst, size_t n)
{
    const int to_gpu = gshmemi_gpu_is_device_ptr(dst);
    struct tcp_token *t;
    if (n > GET_CHUNK || (t = calloc(1, sizeof(*t) + (to_gpu ? n : 0))) == NULL)
        return NULL; /* the caller does it the blocking way */
    struct frame f = {.type = F_GET, .off = off, .len = n};
    t->pe = pe;
    t->n = n;
    t->since = gshmemi_now_ns();
    t->p.len = n;
    t->p.dst = to_gpu ? (void *)(t + 1) : dst; /* into GPU memory: through a bounce */
    t->gpu_dst = to_gpu ? dst : NULL;
    call_start(call, pe, &f, NULL, 0, &t->p);
    return t;
}

static void *tcp_atomic_start(const char *call, int pe, uint64_t off, int op, size_t size,
                              uint64_t a, uint64_t b)
{
    struct tcp_token *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    struct frame f = {.type = F_AMO, .op = (uint32_t)op, .off = off, .a = a, .b = b,
                      .size = (uint32_t)size, .fetch = 1};
    t->pe = pe;
    t->since = gshmemi_now_ns();
    call_start(call, pe, &f, NULL, 0, &t->p);
    return t;
}

static uint64_t tcp_finish(const char *call, void *token)
{
    struct tcp_token *t = token;
    uint64_t old = call_finish(call, t->pe, &t->p, t->since);
    if (t->gpu_dst != NULL)
        gshmemi_gpu_copy(call, t->gpu_dst, t + 1, t->n, 1);
    free(t);
    return old;
}

/* A get of any size: chunks of GET_CHUNK, one at a time. */
static void tcp_get(const char *call, int pe, uint64_t off, void *dst, size_t n)
{
    for (size_t done = 0; done < n; done += GET_CHUNK) {
        size_t len = GSHMEMI_MIN(n - done, (size_t)GET_CHUNK);
        void *t = tcp_get_start(call, pe, off + done, (char *)dst + done, len);
        if (t == NULL) { /* len <= GET_CHUNK: only memory can be short */
            GSHMEMI_ERROR(RMA, "%s: out of memory for a %zu-byte get from pe %d", call, len, pe);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
        }
        (void)tcp_finish(call, t);
    }
}

/* Each connection applies in order: one round trip to every peer written
 * to since the last quiet completes all of it. */
static void tcp_quiet(const char *call)
{
    enum { AT_ONCE = 64 };
    struct pending p[AT_ONCE];
    int peer_of[AT_ONCE];

    /* The round trips of up to AT_ONCE peers at once, then their answers. */
    for (int first = 0; first < tcp.n_peers; first += AT_ONCE) {
        const uint64_t since = gshmemi_now_ns();
        int n = 0;
        for (int i = first; i < tcp.n_peers && i < first + AT_ONCE; i++) {
            int pe = tcp.peers[i];
            /* Cleared before the round trip: a request sent meanwhile by
             * another thread marks it again for the next quiet. */
            if (!__atomic_exchange_n(&tcp.conns[pe].dirty, 0, __ATOMIC_ACQ_REL))
                continue;
            struct frame f = {.type = F_QUIET};
            memset(&p[n], 0, sizeof(p[n]));
            peer_of[n] = pe;
            call_start(call, pe, &f, NULL, 0, &p[n++]);
        }
        for (int k = 0; k < n; k++)
            (void)call_finish(call, peer_of[k], &p[k], since);
    }
}

static void tcp_fence(void)
{
    for (int i = 0; i < tcp.n_peers; i++) {
        struct conn *c = &tcp.conns[tcp.peers[i]];
        pthread_mutex_lock(&c->send_lock);
        c->fence_next = 1;
        pthread_mutex_unlock(&c->send_lock);
    }
}

static void tcp_batch_begin(void) { in_batch = 1; }

static void tcp_batch_end(void)
{
    in_batch = 0;
    for (int i = 0; i < tcp.n_peers; i++)
        uncork(&tcp.conns[tcp.peers[i]]);
}

/* ---- setup ------------------------------------------------------------------ */

static int accept_peers(int listen_fd, const int *expect, int n_expect, uint64_t deadline)
{
    const struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    int got = 0;
    while (got < n_expect) {
        union gshmemi_sockaddr from;
        struct hello h;
        int fd, st = gshmemi_sock_accept(listen_fd, deadline, &fd, &from), ok = 0;
        if (st != 0) {
            for (int i = 0; i < n_expect; i++)
                if (tcp.conns[expect[i]].fd < 0) {
                    GSHMEMI_ERROR(CORE, "tcp: pe %d never connected within %g s", expect[i],
                                  gshmemi_env.BOOTSTRAP_TIMEOUT);
                    break;
                }
            return st;
        }
        if (gshmemi_sock_recv(fd, &h, sizeof(h), gshmemi_deadline_after(2)) == 0 &&
            h.magic == TCP_MAGIC && memcmp(h.secret, bs->secret, sizeof(h.secret)) == 0) {
            for (int i = 0; i < n_expect; i++)
                if (expect[i] == h.rank && tcp.conns[h.rank].fd < 0)
                    ok = 1;
        }
        if (!ok) {
            char text[80];
            GSHMEMI_WARN(CORE, "tcp: dropped a connection from %s: not a PE of this job",
                         gshmemi_sock_str(&from, text, sizeof(text)));
            close(fd);
            continue;
        }
        tcp.conns[h.rank].fd = fd;
        got++;
    }
    return 0;
}

static void tcp_close(void);

static int tcp_open(const int *peers, int n_peers)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    const int me = gshmemi_rt.my_pe, n = gshmemi_rt.n_pes;
    union gshmemi_sockaddr addr;
    struct gshmemi_wire_addr mine, *all = NULL;
    int listen_fd = -1, *lower = NULL, n_lower = 0, st, buf = SOCK_BUF, one = 1;
    const char *ifname = gshmemi_env.TCP_IFNAME[0] ? gshmemi_env.TCP_IFNAME
                                                   : gshmemi_env.BOOTSTRAP_IFNAME;
    uint64_t deadline;

    memset(&tcp, 0, sizeof(tcp));
    tcp.wake[0] = tcp.wake[1] = -1;
    pthread_mutex_init(&tcp.lock, NULL);
    tcp.conns = calloc((size_t)n, sizeof(*tcp.conns));
    tcp.peers = malloc(sizeof(int) * (size_t)(n_peers + 1));
    lower = malloc(sizeof(int) * (size_t)(n_peers + 1));
    all = malloc(sizeof(*all) * (size_t)n);
    if (tcp.conns == NULL || tcp.peers == NULL || lower == NULL || all == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < n; pe++) {
        tcp.conns[pe].fd = -1;
        pthread_mutex_init(&tcp.conns[pe].send_lock, NULL);
    }
    memcpy(tcp.peers, peers, sizeof(int) * (size_t)n_peers);
    tcp.n_peers = n_peers;
    /* Everyone listens and publishes where; every PE takes part in the
     * all-gather, with or without peers of its own. */
    GSHMEMI_CHECK_GOTO(gshmemi_sock_pick_addr(ifname, gshmemi_env.BOOTSTRAP_FAMILY,
                                              gshmemi_rt.n_nodes == 1, &addr), st, out);
    GSHMEMI_CHECK_GOTO(gshmemi_sock_listen(&addr, &listen_fd), st, out);
    gshmemi_sock_to_wire(&addr, &mine);
    GSHMEMI_CHECK_GOTO(bs->ops->allgather(bs, &mine, all, sizeof(mine)), st, out);
    deadline = gshmemi_deadline_after(gshmemi_env.BOOTSTRAP_TIMEOUT);
    /* The lower PE of each pair connects. */
    for (int i = 0; i < n_peers; i++) {
        int pe = peers[i];
        if (pe < me) {
            lower[n_lower++] = pe;
            continue;
        }
        union gshmemi_sockaddr to;
        struct hello h = {.magic = TCP_MAGIC, .rank = me};
        memcpy(h.secret, bs->secret, sizeof(h.secret));
        gshmemi_sock_from_wire(&all[pe], &to);
        st = gshmemi_sock_connect(&to, deadline, &tcp.conns[pe].fd);
        if (st == 0)
            st = gshmemi_sock_send(tcp.conns[pe].fd, &h, sizeof(h), deadline);
        if (st != 0) {
            char text[80];
            GSHMEMI_ERROR(CORE, "tcp: cannot connect to pe %d at %s: %s", pe,
                          gshmemi_sock_str(&to, text, sizeof(text)), gshmem_status_string(st));
            goto out;
        }
    }
    GSHMEMI_CHECK_GOTO(accept_peers(listen_fd, lower, n_lower, deadline), st, out);
    for (int i = 0; !gshmemi_heap.access->host_direct && i < RING_SEGS; i++)
        if ((tcp.seg_done[i] = gshmemi_gpu_mark_new()) == NULL) {
            GSHMEMI_ERROR(CORE, "tcp: cannot create the CUDA events of the staging ring");
            st = GSHMEM_ERR_CUDA;
            goto out;
        }
    if (!gshmemi_heap.access->host_direct && ((tcp.ring = gshmemi_gpu_host_alloc_near(RING_BYTES)) == NULL ||
                                   (tcp.bounce = gshmemi_gpu_host_alloc_near(GET_CHUNK)) == NULL)) {
        GSHMEMI_ERROR(CORE, "tcp: cannot allocate %u bytes of pinned staging",
                      RING_BYTES + GET_CHUNK);
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int i = 0; i < n_peers; i++) {
        int fd = tcp.conns[peers[i]].fd;
        if ((tcp.conns[peers[i]].rx = malloc(RX_BUF)) == NULL) {
            st = GSHMEM_ERR_NO_MEMORY;
            goto out;
        }
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    if (pipe2(tcp.wake, O_CLOEXEC) != 0 ||
        pthread_create(&tcp.thread, NULL, progress_main, NULL) != 0) {
        GSHMEMI_ERROR(CORE, "tcp: cannot start the progress thread: %s", strerror(errno));
        st = GSHMEM_ERR_INTERNAL;
        goto out;
    }
    pthread_setname_np(tcp.thread, "gshmem-tcp");
    tcp.thread_up = 1;
    GSHMEMI_INFO(CORE, "tcp transport up: %d peers", n_peers);
    st = 0;
out:
    if (listen_fd >= 0)
        close(listen_fd);
    free(all);
    free(lower);
    if (st != 0)
        tcp_close(); /* what was opened: sockets, buffers */
    return st;
}

static void tcp_close(void)
{
    struct frame bye = {.type = F_BYE};
    for (int i = 0; i < tcp.n_peers; i++)
        if (tcp.conns[tcp.peers[i]].fd >= 0)
            (void)gshmemi_sock_send(tcp.conns[tcp.peers[i]].fd, &bye, sizeof(bye),
                                    gshmemi_deadline_after(1));
    tcp.closing = 1;
    if (tcp.thread_up) {
        (void)!write(tcp.wake[1], "x", 1);
        pthread_join(tcp.thread, NULL);
    }
    for (int pe = 0; tcp.conns != NULL && pe < gshmemi_rt.n_pes; pe++) {
        if (tcp.conns[pe].fd >= 0)
            close(tcp.conns[pe].fd);
        free(tcp.conns[pe].rx);
        pthread_mutex_destroy(&tcp.conns[pe].send_lock);
    }
    if (tcp.wake[0] >= 0) {
        close(tcp.wake[0]);
        close(tcp.wake[1]);
    }
    free(tcp.conns);
    free(tcp.peers);
    gshmemi_gpu_host_free(tcp.bounce);
    gshmemi_gpu_host_free(tcp.ring);
    for (int i = 0; i < RING_SEGS; i++)
        gshmemi_gpu_mark_free(tcp.seg_done[i]);
    pthread_mutex_destroy(&tcp.lock);
    memset(&tcp, 0, sizeof(tcp));
}

const struct gshmemi_transport_ops gshmemi_tcp_ops = {
    .name = "tcp",
    .open = tcp_open,
    .close = tcp_close,
    .put = tcp_put,
    .get = tcp_get,
    .atomic = tcp_atomic,
    .signal = tcp_signal,
    .ctrl_add = tcp_ctrl_add,
    .quiet = tcp_quiet,
    .fence = tcp_fence,
    .batch_begin = tcp_batch_begin,
    .batch_end = tcp_batch_end,
    .get_start = tcp_get_start,
    .atomic_start = tcp_atomic_start,
    .finish = tcp_finish,
};
