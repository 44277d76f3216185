/* The tcp transport's target: one progress thread per PE receives every
 * peer's frames and applies each to this PE's heap in arrival order,
 * answering gets, fetching atomics and quiet on the same connection; it
 * also hands replies to this PE's waiting callers, sends heartbeats on
 * idle connections and reports a peer that falls silent.  Into a heap host
 * code cannot write (GPU memory), small puts go to the GPU together from
 * the receive buffers, in no particular order among themselves unless a
 * fence came between, and larger ones through a pinned ring.  A strided
 * put's elements arrive packed and are spread from the receive buffer (into
 * GPU memory: from the ring); a strided get's leave packed.  Gets of GPU
 * memory that arrived together are copied out together, each reply
 * leaving beside the copies of the next. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/sock.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/ctrl.h"
#include "heap/heap.h"
#include "heap/static_data.h"
#include "transport/tcp_priv.h"

#define SMALL_PUT 4096  /* GPU heap: puts up to this are batched from the receive buffer */
#define BULK (16u << 10) /* payloads this large are received straight into place */

/* ---- receiving ------------------------------------------------------------- */

/* The batch of puts bound for the GPU goes to it now. */
static void put_batch_flush(struct gshmemi_tcp *t)
{
    if (t->batch.n == 0)
        return;
    gshmemi_gpu_copy_batch("tcp", t->batch.dst, t->batch.src, t->batch.size, t->batch.n,
                           t->batch.now, NULL);
    t->batch.n = 0;
    t->gpu_pending = 1;
}

static int recv_failed(struct gshmemi_tcp *t, int pe, int st)
{
    if (st != 0 && !t->conns[pe].bye)
        gshmemi_tcp_lost(t, pe, st == GSHMEM_ERR_TIMEOUT ? "stalled in the middle of a message"
                                                         : "closed");
    return st;
}

/* Waits until pe's socket has bytes or deadline passes; meanwhile this
 * PE's queued answers leave wherever there is room: a peer may wait for
 * the rest of one before it sends the rest of what this thread waits for.
 * Returns GSHMEM_ERR_IO where poll fails. */
static int wait_readable(struct gshmemi_tcp *t, int pe, uint64_t deadline)
{
    struct pollfd *p = t->waits;
    int n = 0, busy = 0;
    p[n++] = (struct pollfd){.fd = t->conns[pe].fd, .events = POLLIN};
    for (int i = 0; i < t->n_peers; i++) {
        const struct gshmemi_tcp_conn *c = &t->conns[t->peers[i]];
        if (!c->bye && __atomic_load_n(&c->out_waiting, __ATOMIC_ACQUIRE)) {
            t->wait_pes[n] = t->peers[i];
            p[n++] = (struct pollfd){.fd = c->fd, .events = POLLOUT};
        }
    }
    for (;;) {
        const int ms = gshmemi_ms_left(deadline);
        if (poll(p, (nfds_t)n, busy ? GSHMEMI_MIN(ms, 1) : ms) < 0 && errno != EINTR)
            return GSHMEM_ERR_IO;
        if (p[0].revents || gshmemi_now_ns() >= deadline)
            return 0;
        busy = 0;
        for (int i = 1; i < n; i++) {
            /* Where another thread sends, it sends them, or they are tried
             * after a millisecond (not at once: poll would spin). */
            if (p[i].fd < 0 || !(p[i].events == 0 || (p[i].revents & POLLOUT)))
                continue;
            const int pe_i = t->wait_pes[i], sent = gshmemi_tcp_answer_more(t, pe_i);
            busy |= !sent;
            if (sent && !__atomic_load_n(&t->conns[pe_i].out_waiting, __ATOMIC_ACQUIRE))
                p[i].fd = -1; /* all gone */
            p[i].events = sent ? POLLOUT : 0;
        }
    }
}

/* At least min and at most max bytes of pe's stream into buf (*got says
 * how many), as long as the bytes keep coming: a stall of GSHMEM_TIMEOUT
 * fails. */
static int recv_some(struct gshmemi_tcp *t, int pe, char *buf, size_t min, size_t max, size_t *got)
{
    const int fd = t->conns[pe].fd;
    uint64_t deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
    *got = 0;
    while (*got < min) {
        const ssize_t n = recv(fd, buf + *got, max - *got, MSG_DONTWAIT);
        if (n > 0) {
            *got += (size_t)n;
            deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
        } else if (n == 0) {
            return GSHMEM_ERR_PEER_LOST;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (gshmemi_now_ns() >= deadline)
                return GSHMEM_ERR_TIMEOUT;
            const int st = wait_readable(t, pe, deadline);
            if (st != 0)
                return st;
        } else if (errno != EINTR) {
            return errno == ECONNRESET ? GSHMEM_ERR_PEER_LOST : GSHMEM_ERR_IO;
        }
    }
    return 0;
}

/* At least want bytes in pe's receive buffer, receiving as much as the
 * socket has: up to its size, or only what is wanted in a stream of bulk
 * puts (whose payloads are better received straight into place than
 * through this buffer and a copy). */
static int rx_fill(struct gshmemi_tcp *t, int pe, size_t want)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    size_t got;
    int st;

    if (c->rx_tail - c->rx_head >= want)
        return 0;
    put_batch_flush(t); /* it may point into this buffer */
    memmove(c->rx, c->rx + c->rx_head, c->rx_tail - c->rx_head);
    c->rx_tail -= c->rx_head;
    c->rx_head = 0;
    st = recv_some(t, pe, c->rx + c->rx_tail, want - c->rx_tail,
                   c->bulk ? want - c->rx_tail : GSHMEMI_TCP_RX_BUF - c->rx_tail, &got);
    c->rx_tail += got;
    return recv_failed(t, pe, st);
}

/* In a stream of bulk puts: whether the next frame's header has started
 * to arrive, read without waiting (into free room at the buffer's end, so
 * nothing a pending batch points at moves). */
static int rx_next_header(struct gshmemi_tcp *t, int pe)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    const size_t need = sizeof(struct gshmemi_tcp_frame) - (c->rx_tail - c->rx_head);
    if (GSHMEMI_TCP_RX_BUF - c->rx_tail < need)
        return 0;
    ssize_t n = recv(c->fd, c->rx + c->rx_tail, need, MSG_DONTWAIT);
    if (n <= 0)
        return 0; /* nothing yet (or the end, which poll reports) */
    c->rx_tail += (size_t)n;
    return 1;
}

/* Queued answers out where there is room, and heartbeats on connections
 * this PE sent nothing on for a second (where peers watch for silence). */
static void keep_alive(struct gshmemi_tcp *t, uint64_t now)
{
    for (int i = 0; i < t->n_peers; i++) {
        const struct gshmemi_tcp_conn *c = &t->conns[t->peers[i]];
        if (c->bye)
            continue;
        if (__atomic_load_n(&c->out_waiting, __ATOMIC_ACQUIRE))
            gshmemi_tcp_answer_more(t, t->peers[i]);
        if (gshmemi_env.HEARTBEAT_TIMEOUT > 0 &&
            now - __atomic_load_n(&c->last_tx, __ATOMIC_RELAXED) > 1000000000ull)
            gshmemi_tcp_heartbeat(t, t->peers[i]);
    }
}

/* A large payload straight from the socket, in slices: between them pe is
 * known to be alive and the other peers hear from this PE, however long
 * the whole takes. */
#define SLICE (8u << 20)
static int recv_bulk(struct gshmemi_tcp *t, int pe, char *buf, size_t len)
{
    for (size_t done = 0; done < len;) {
        const size_t n = GSHMEMI_MIN(len - done, SLICE);
        size_t got;
        const int st = recv_some(t, pe, buf + done, n, n, &got);
        if (st != 0)
            return recv_failed(t, pe, st);
        done += n;
        if (done < len) {
            const uint64_t now = gshmemi_now_ns();
            t->conns[pe].last_rx = now;
            keep_alive(t, now);
        }
    }
    return 0;
}

/* The next len bytes of pe's stream into buf: what is buffered, then a
 * bulk remainder straight from the socket. */
static int recv_all(struct gshmemi_tcp *t, int pe, void *buf, size_t len)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    size_t have = GSHMEMI_MIN(len, c->rx_tail - c->rx_head);
    int st;

    memcpy(buf, c->rx + c->rx_head, have);
    c->rx_head += have;
    buf = (char *)buf + have;
    len -= have;
    if (len == 0)
        return 0;
    if (len >= BULK)
        return recv_bulk(t, pe, buf, len);
    if ((st = rx_fill(t, pe, len)) != 0)
        return st;
    memcpy(buf, c->rx + c->rx_head, len);
    c->rx_head += len;
    return 0;
}

/* ---- puts into GPU memory ---------------------------------------------------- */

static int overlaps_batch(const struct gshmemi_tcp *t, const char *p, size_t len)
{
    for (size_t i = 0; i < t->batch.n; i++)
        if (p < (char *)t->batch.dst[i] + t->batch.size[i] && (char *)t->batch.dst[i] < p + len)
            return 1;
    return 0;
}

static void put_batch_add(struct gshmemi_tcp *t, char *dst, const void *src, size_t len, int now)
{
    if (t->batch.n == GSHMEMI_TCP_PUT_BATCH || overlaps_batch(t, dst, len))
        put_batch_flush(t); /* in the order of a later put to the same bytes */
    t->batch.dst[t->batch.n] = dst;
    t->batch.src[t->batch.n] = src;
    t->batch.size[t->batch.n] = len;
    t->batch.now[t->batch.n++] = (unsigned char)now;
}

/* The ring's next segment, once the copies from it are done: the copies
 * from the others go on meanwhile (waiting for all of them stopped the
 * receiving each time the ring wrapped). */
static void ring_next_segment(struct gshmemi_tcp *t)
{
    put_batch_flush(t); /* the copies reading this segment are in the stream */
    gshmemi_gpu_mark("tcp", t->seg_done[t->seg]);
    t->seg = (t->seg + 1) % GSHMEMI_TCP_RING_SEGS;
    gshmemi_gpu_mark_wait("tcp", t->seg_done[t->seg]);
    t->seg_used = 0;
}

#define SEG_BYTES ((size_t)GSHMEMI_TCP_RING_BYTES / GSHMEMI_TCP_RING_SEGS)

/* Room in the ring for len bytes (a segment at most). */
static char *ring_claim(struct gshmemi_tcp *t, size_t len)
{
    if (t->seg_used + len > SEG_BYTES)
        ring_next_segment(t);
    char *at = t->ring.base + (size_t)t->seg * SEG_BYTES + t->seg_used;
    t->seg_used += (len + 63) & ~(size_t)63;
    return at;
}

/* A put into the GPU heap: small ones from the receive buffer, larger ones
 * through the pinned ring. */
static void put_to_gpu(struct gshmemi_tcp *t, int pe, char *p, size_t len)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    if (len <= SMALL_PUT) {
        if (rx_fill(t, pe, len) != 0)
            return;
        put_batch_add(t, p, c->rx + c->rx_head, len, 1);
        c->rx_head += len;
        return;
    }
    for (size_t done = 0; done < len;) {
        size_t chunk = GSHMEMI_MIN(len - done, SEG_BYTES);
        char *at = ring_claim(t, chunk);
        if (recv_all(t, pe, at, chunk) != 0)
            return;
        put_batch_add(t, p + done, at, chunk, 0);
        done += chunk;
    }
}

/* A strided put's packed elements (GSHMEMI_TCP_STRIDED_MAX bytes at most)
 * to their places, after the puts before it: from the receive buffer, or
 * into GPU memory from the pinned ring without waiting (the copy engine
 * spreads small elements from pinned memory faster, and the receiving
 * goes on meanwhile). */
_Static_assert(GSHMEMI_TCP_STRIDED_MAX <= GSHMEMI_TCP_RX_BUF,
               "a strided put's payload fits the receive buffer");
_Static_assert(GSHMEMI_TCP_STRIDED_MAX <= SEG_BYTES, "and a segment of the ring");
static int put_strided(struct gshmemi_tcp *t, int pe, const struct gshmemi_tcp_frame *f, char *p,
                       const struct gshmemi_heap_access *access)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    const size_t count = f->len / f->size;
    put_batch_flush(t);
    if (!access->host_direct) {
        char *at = ring_claim(t, f->len);
        if (recv_all(t, pe, at, f->len) != 0)
            return 1;
        access->copy_strided("tcp", p, f->a, at, f->size, f->size, count, 0);
        t->gpu_pending = 1;
        return 0;
    }
    if (rx_fill(t, pe, f->len) != 0)
        return 1;
    access->copy_strided("tcp", p, f->a, c->rx + c->rx_head, f->size, f->size, count, 1);
    c->rx_head += f->len;
    return 0;
}

/* ---- serving --------------------------------------------------------------- */

/* Before a write to host memory (static data) on a GPU heap that is
 * ordered after the writes before it (`always`: a signal, an atomic) or
 * follows a fence from pe: what this thread issued into GPU memory and did
 * not wait for lands first, or a flag there could be seen before the data. */
static void gpu_writes_land(struct gshmemi_tcp *t, int pe, const struct gshmemi_heap_access *access,
                            int always)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    if (!access->host_direct || gshmemi_heap.access->host_direct || !(always || c->fenced))
        return;
    c->fenced = 0;
    put_batch_flush(t);
    if (t->gpu_pending) {
        gshmemi_heap.access->quiet("tcp");
        t->gpu_pending = 0;
    }
}

/* A frame pe sent that this PE cannot serve ends the job, naming pe. */
static void check_frame(int pe, const struct gshmemi_tcp_frame *f)
{
    char why[160];
    size_t heap_size = __atomic_load_n(&gshmemi_heap.size, __ATOMIC_ACQUIRE); /* it may grow */
    if (gshmemi_tcp_frame_check(f, heap_size, gshmemi_static.size, why, sizeof(why)) != 0) {
        GSHMEMI_ERROR(TRANSPORT, "tcp: pe %d sent %s", pe, why);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
    }
}

/* f[0] and the frames of its type pe sent right after it (already
 * received), up to most in all: how many f holds then. */
static size_t take_same(struct gshmemi_tcp *t, int pe, struct gshmemi_tcp_frame *f, size_t most)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    size_t n = 1;
    /* Copied out to be looked at: a frame after a payload of any length
     * starts at any byte of the receive buffer. */
    while (n < most && c->rx_tail - c->rx_head >= sizeof(struct gshmemi_tcp_frame)) {
        memcpy(&f[n], c->rx + c->rx_head, sizeof(struct gshmemi_tcp_frame));
        if (f[n].type != f[0].type)
            break;
        check_frame(pe, &f[n++]);
        c->rx_head += sizeof(struct gshmemi_tcp_frame);
    }
    return n;
}

/* `first` and the atomics pe sent right after it (already received) are
 * applied in their order by one call of the heap's access (on the GPU heap
 * one kernel), and the fetching ones are answered together: one launch and
 * one wait for a proxy's whole batch instead of one each. */
static void serve_amos(struct gshmemi_tcp *t, int pe, const struct gshmemi_tcp_frame *first)
{
    struct gshmemi_tcp_frame f[GSHMEMI_AMO_BATCH];
    struct gshmemi_amo_req ops[GSHMEMI_AMO_BATCH];
    uint64_t old[GSHMEMI_AMO_BATCH];
    f[0] = *first;
    const size_t n = take_same(t, pe, f, GSHMEMI_AMO_BATCH);
    int fetch = 0;

    const struct gshmemi_heap_access *access[GSHMEMI_AMO_BATCH];
    int mixed = 0;
    for (size_t i = 0; i < n; i++) {
        ops[i] = (struct gshmemi_amo_req){.addr = gshmemi_sym_local(f[i].off, &access[i]),
                                          .a = f[i].a, .b = f[i].b, .op = (int32_t)f[i].op,
                                          .size = (int32_t)f[i].size};
        fetch |= f[i].fetch != 0;
        mixed |= access[i] != access[0];
    }
    /* (heap and static data mixed: each by its own access, still in order) */
    for (size_t i = 0, k; i < n; i += k) {
        k = mixed ? 1 : n;
        gpu_writes_land(t, pe, access[i], 1); /* (no frame says a fence came before one) */
        access[i]->atomics("tcp", &ops[i], k, fetch ? &old[i] : NULL);
        t->gpu_pending |= !access[i]->host_direct;
    }
    if (!fetch)
        return;
    struct gshmemi_tcp_frame r[GSHMEMI_AMO_BATCH]; /* the answers leave together */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].fetch)
            r[k++] = (struct gshmemi_tcp_frame){.type = GSHMEMI_TCP_REPLY, .id = f[i].id,
                                                .a = old[i]};
    gshmemi_tcp_answer(t, pe, r, k * sizeof(r[0]), NULL, 0);
}

/* `first` and, on the GPU heap, the gets pe sent right after it (already
 * received): every copy out of GPU memory starts at once, each into its
 * own slot of the bounce, and each reply leaves once its copy is done,
 * beside the copies of the next. */
static void serve_gets(struct gshmemi_tcp *t, int pe, const struct gshmemi_tcp_frame *first)
{
    struct gshmemi_tcp_frame f[GSHMEMI_TCP_GET_SLOTS];
    const char *from[GSHMEMI_TCP_GET_SLOTS];
    unsigned char on_stream[GSHMEMI_TCP_GET_SLOTS];
    f[0] = *first;
    const size_t n = take_same(t, pe, f, gshmemi_heap.access->host_direct ? 1
                                                                          : GSHMEMI_TCP_GET_SLOTS);
    for (size_t i = 0; i < n; i++) {
        const struct gshmemi_heap_access *access;
        const char *p = gshmemi_sym_local(f[i].off, &access);
        char *slot = t->bounce.base + i * GSHMEMI_TCP_GET_CHUNK;
        on_stream[i] = !access->host_direct; /* on the operations stream, after the puts before */
        from[i] = slot;
        if (f[i].op & GSHMEMI_TCP_GET_STRIDED) /* its elements packed */
            access->copy_strided("tcp", slot, f[i].size, p, f[i].a, f[i].size,
                                 f[i].len / f[i].size, 0);
        else if (on_stream[i])
            access->copy("tcp", slot, p, f[i].len, 0);
        else
            from[i] = p;
        if (on_stream[i])
            gshmemi_gpu_mark("tcp", t->get_done[i]);
    }
    for (size_t i = 0; i < n; i++) {
        struct gshmemi_tcp_frame r = {.type = GSHMEMI_TCP_REPLY, .id = f[i].id, .len = f[i].len};
        if (on_stream[i])
            gshmemi_gpu_mark_wait("tcp", t->get_done[i]);
        gshmemi_tcp_answer(t, pe, &r, sizeof(r), from[i], f[i].len);
    }
}

/* A reply to this PE's request: its bytes into the waiting caller's buffer. */
static int take_reply(struct gshmemi_tcp *t, int pe, const struct gshmemi_tcp_frame *f)
{
    struct gshmemi_tcp_pending **pp, *w = NULL;
    pthread_mutex_lock(&t->lock);
    for (pp = &t->pending; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == f->id) {
            w = *pp;
            *pp = w->next;
            break;
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (w == NULL || f->len != w->len || w->pe != pe) {
        GSHMEMI_ERROR(TRANSPORT, "tcp: pe %d answered request %llu %s", pe,
                      (unsigned long long)f->id,
                      w == NULL ? "that nobody asked"
                      : w->pe != pe ? "that was sent to another pe"
                                    : "with a payload of the wrong size");
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
    }
    if (f->len > 0 && recv_all(t, pe, w->dst, f->len) != 0)
        return 1;
    w->old = f->a;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return 0;
}

/* One frame from pe; returns nonzero when the connection is gone. */
static int serve_one(struct gshmemi_tcp *t, int pe)
{
    const struct gshmemi_heap_access *access = gshmemi_heap.access;
    struct gshmemi_tcp_frame f, r;
    char *p;

    if (recv_all(t, pe, &f, sizeof(f)) != 0)
        return 1;
    check_frame(pe, &f);
    t->conns[pe].last_rx = gshmemi_now_ns();
    t->conns[pe].heard = 1;
    /* (not a strided put's payload, whatever its size: it is spread from a buffer) */
    t->conns[pe].bulk = f.type == GSHMEMI_TCP_PUT && f.len >= BULK &&
                        !(f.op & GSHMEMI_TCP_PUT_STRIDED);
    memset(&r, 0, sizeof(r));
    r.type = GSHMEMI_TCP_REPLY;
    r.id = f.id;
    /* On the GPU heap everything else is applied in the operations
     * stream's order, after the puts before it (in static data, where
     * ordered, once they have landed: gpu_writes_land). */
    if (f.type != GSHMEMI_TCP_PUT)
        put_batch_flush(t);
    /* For the frames that touch symmetric memory: in it (checked above),
     * and how it is reached (static data is host memory). */
    p = f.type == GSHMEMI_TCP_PUT || f.type == GSHMEMI_TCP_SIGNAL
            ? gshmemi_sym_local(f.off, &access)
            : NULL;
    switch (f.type) {
    case GSHMEMI_TCP_PUT:
        t->conns[pe].fenced |= (f.op & GSHMEMI_TCP_PUT_FENCED) != 0;
        gpu_writes_land(t, pe, access, 0);
        if (f.op & GSHMEMI_TCP_PUT_STRIDED)
            return put_strided(t, pe, &f, p, access);
        if (access->host_direct)
            return recv_all(t, pe, p, f.len);
        if (f.op & GSHMEMI_TCP_PUT_FENCED)
            put_batch_flush(t);
        put_to_gpu(t, pe, p, f.len);
        break;
    case GSHMEMI_TCP_GET:
        serve_gets(t, pe, &f);
        break;
    case GSHMEMI_TCP_AMO:
        serve_amos(t, pe, &f);
        break;
    case GSHMEMI_TCP_SIGNAL:
        gpu_writes_land(t, pe, access, 1);
        access->signal("tcp", (uint64_t *)(void *)p, f.a, (int)f.op);
        t->gpu_pending |= !access->host_direct;
        break;
    case GSHMEMI_TCP_CTRL:
        __atomic_fetch_add(gshmemi_ctrl_word(gshmemi_rt.my_pe, f.off), f.a, __ATOMIC_RELEASE);
        break;
    case GSHMEMI_TCP_QUIET:
        gshmemi_heap.access->quiet("tcp");
        t->gpu_pending = 0;
        gshmemi_tcp_answer(t, pe, &r, sizeof(r), NULL, 0);
        break;
    case GSHMEMI_TCP_REPLY:
        return take_reply(t, pe, &f);
    case GSHMEMI_TCP_BYE:
        t->conns[pe].bye = 1;
        break;
    default: /* a heartbeat: that pe lives (last_rx) */
        break;
    }
    return 0;
}

/* Every whole frame pe has sent (they are buffered: poll would not tell
 * of them again), then the batch of puts goes to the GPU. */
static void serve(struct gshmemi_tcp *t, int pe)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    do {
        if (serve_one(t, pe) != 0)
            break;
        c->last_rx = gshmemi_now_ns(); /* (a frame's payload may take long to arrive) */
    } while (!c->bye && (c->rx_tail - c->rx_head >= sizeof(struct gshmemi_tcp_frame) ||
                         (c->bulk && rx_next_header(t, pe))));
    put_batch_flush(t);
}

void *gshmemi_tcp_progress_main(void *arg)
{
    struct gshmemi_tcp *t = arg;
    struct pollfd *p = calloc((size_t)t->n_peers + 1, sizeof(*p));
    unsigned char *busy = calloc((size_t)t->n_peers + 1, 1); /* another thread sent: answers wait */
    t->waits = calloc((size_t)t->n_peers + 1, sizeof(*t->waits));
    t->wait_pes = calloc((size_t)t->n_peers + 1, sizeof(*t->wait_pes));
    /* Without them nobody would serve the peers: they would wait for GSHMEM_TIMEOUT. */
    if (p == NULL || busy == NULL || t->waits == NULL || t->wait_pes == NULL) {
        GSHMEMI_ERROR(TRANSPORT, "tcp: out of memory for the progress thread's poll list");
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
    }
    gshmemi_gpu_bind_thread("tcp target"); /* nothing where no GPU is open */
    const uint64_t silence = (uint64_t)(gshmemi_env.HEARTBEAT_TIMEOUT * 1e9);
    /* Until a peer's first frame, it may still be admitting its own
     * connections (behind strangers at its listener, a hello deadline
     * each): its heartbeats start with its progress thread. */
    const uint64_t setup = GSHMEMI_MAX(silence, (uint64_t)(gshmemi_env.BOOTSTRAP_TIMEOUT * 1e9));
    for (int i = 0; i < t->n_peers; i++)
        t->conns[t->peers[i]].last_rx = gshmemi_now_ns();
    for (;;) {
        int n = 0, retry = 0;
        for (int i = 0; i < t->n_peers; i++) {
            const struct gshmemi_tcp_conn *c = &t->conns[t->peers[i]];
            /* Queued answers go when there is room, unless another thread
             * sends there: it sends them too, else they are tried soon. */
            const int out = __atomic_load_n(&c->out_waiting, __ATOMIC_ACQUIRE);
            retry |= out && busy[i];
            p[n++] = (struct pollfd){.fd = c->bye ? -1 : c->fd,
                                     .events = (short)(POLLIN | (out && !busy[i] ? POLLOUT : 0))};
        }
        p[n++] = (struct pollfd){.fd = t->wake[0], .events = POLLIN};
        if (poll(p, (nfds_t)n, retry ? 1 : 250) < 0 && errno != EINTR) {
            GSHMEMI_ERROR(TRANSPORT, "tcp: the progress thread's poll failed: %s", strerror(errno));
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
        }
        if (p[n - 1].revents)
            break;
        for (int i = 0; i < t->n_peers; i++) {
            if (p[i].revents & (POLLIN | POLLHUP | POLLERR))
                serve(t, t->peers[i]);
            if (busy[i] || (p[i].revents & POLLOUT))
                busy[i] = !gshmemi_tcp_answer_more(t, t->peers[i]);
        }
        /* Heartbeats on idle connections; a silent peer is a lost one,
         * unless what it sent waits unread (this thread was busy with
         * another peer): it is served next. */
        const uint64_t now = gshmemi_now_ns();
        if (silence == 0)
            continue;
        keep_alive(t, now);
        for (int i = 0; i < t->n_peers; i++) {
            struct gshmemi_tcp_conn *c = &t->conns[t->peers[i]];
            struct pollfd waiting = {.fd = c->fd, .events = POLLIN};
            if (c->bye || now - c->last_rx <= (c->heard ? silence : setup) ||
                poll(&waiting, 1, 0) > 0)
                continue;
            char what[96];
            snprintf(what, sizeof(what), "was silent for %g s (GSHMEM_HEARTBEAT_TIMEOUT)",
                     gshmemi_env.HEARTBEAT_TIMEOUT);
            gshmemi_tcp_lost(t, t->peers[i], what);
        }
    }
    free(t->wait_pes);
    free(t->waits);
    free(busy);
    free(p);
    return NULL;
}
