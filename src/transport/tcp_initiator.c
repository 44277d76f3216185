/* The tcp transport's initiator: requests from this PE's threads (the
 * application's, the proxy's) to its peers.  A request that waits for an
 * answer registers a pending entry the progress thread completes when the
 * reply arrives on the same connection (tcp_target.c). */
#include <netinet/tcp.h>
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
#include "transport/tcp_priv.h"

__thread int gshmemi_tcp_in_batch;
/* This thread sent in its batch (the batch's end has something to flush). */
static __thread int batch_sent;

static void set_cork(struct gshmemi_tcp_conn *c, int on)
{
    setsockopt(c->fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
    c->corked = on;
}

void gshmemi_tcp_uncork(struct gshmemi_tcp *t, int pe)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    pthread_mutex_lock(&c->send_lock);
    if (c->corked)
        set_cork(c, 0);
    pthread_mutex_unlock(&c->send_lock);
}

void gshmemi_tcp_lost(struct gshmemi_tcp *t, int pe, const char *what)
{
    char how[128];
    if (t->closing)
        return;
    snprintf(how, sizeof(how), "was lost: its tcp connection %s", what);
    gshmemi_end_for_lost_pe(pe, how);
}

/* A send's failure, once its lock is released: the job ends. */
static void send_failed(struct gshmemi_tcp *t, const char *call, int pe, int st)
{
    if (st == GSHMEM_ERR_TIMEOUT) {
        GSHMEMI_ERROR(TRANSPORT, "%s: pe %d accepted no data for %g s (GSHMEM_TIMEOUT)", call, pe,
                      gshmemi_env.TIMEOUT);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
    }
    if (st != 0) {
        char what[96];
        snprintf(what, sizeof(what), "closed while %s sent to it", call);
        gshmemi_tcp_lost(t, pe, what);
    }
}

/* ---- the progress thread's answers --------------------------------------- */

/* Under c's send lock: its queued answers out, in order, waiting for room
 * up to deadline (0: not at all; what does not fit stays queued). */
static int out_flush(struct gshmemi_tcp_conn *c, uint64_t deadline)
{
    while (__atomic_load_n(&c->out_waiting, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&c->out_lock);
        struct gshmemi_tcp_out *o = c->out_head; /* only a holder of the send lock takes it */
        pthread_mutex_unlock(&c->out_lock);
        size_t sent = o->len - o->sent;
        const int st = deadline == 0 ? gshmemi_sock_send_some(c->fd, o->bytes + o->sent, sent,
                                                              NULL, 0, &sent)
                                     : gshmemi_sock_send(c->fd, o->bytes + o->sent, sent,
                                                         deadline);
        if (st != 0)
            return st;
        o->sent += sent;
        if (sent > 0)
            __atomic_store_n(&c->last_tx, gshmemi_now_ns(), __ATOMIC_RELAXED);
        if (o->sent < o->len)
            return 0;
        pthread_mutex_lock(&c->out_lock);
        if ((c->out_head = o->next) == NULL) {
            c->out_tail = NULL;
            __atomic_store_n(&c->out_waiting, 0, __ATOMIC_RELAXED);
        }
        pthread_mutex_unlock(&c->out_lock);
        free(o);
    }
    return 0;
}

/* a then b at the end of pe's queue, the first `sent` bytes already out. */
static void out_push(struct gshmemi_tcp_conn *c, int pe, const void *a, size_t alen, const void *b,
                     size_t blen, size_t sent)
{
    struct gshmemi_tcp_out *o = malloc(sizeof(*o) + alen + blen);
    if (o == NULL) { /* an answer cannot be dropped: its asker would wait for it */
        GSHMEMI_ERROR(TRANSPORT, "tcp: out of memory for a %zu-byte answer to pe %d", alen + blen,
                      pe);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "tcp");
    }
    memcpy(o->bytes, a, alen);
    if (blen > 0)
        memcpy(o->bytes + alen, b, blen);
    o->len = alen + blen;
    o->sent = sent;
    o->next = NULL;
    pthread_mutex_lock(&c->out_lock);
    if (c->out_tail != NULL)
        c->out_tail->next = o;
    else
        c->out_head = o;
    c->out_tail = o;
    __atomic_store_n(&c->out_waiting, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&c->out_lock);
}

/* The progress thread's send to pe without waiting: the queued answers,
 * then a and b where none is left, the rest of them queued (or, where
 * !must, dropped where nothing of them went).  0 where another thread
 * sends there now (what must go is queued). */
static int answer_now(struct gshmemi_tcp *t, int pe, const void *a, size_t alen, const void *b,
                      size_t blen, int must)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    if (pthread_mutex_trylock(&c->send_lock) != 0) {
        if (must)
            out_push(c, pe, a, alen, b, blen, 0);
        return 0;
    }
    size_t sent = 0;
    int st = out_flush(c, 0);
    if (st == 0 && alen + blen > 0 && !__atomic_load_n(&c->out_waiting, __ATOMIC_RELAXED)) {
        st = gshmemi_sock_send_some(c->fd, a, alen, b, blen, &sent);
        if (sent > 0)
            __atomic_store_n(&c->last_tx, gshmemi_now_ns(), __ATOMIC_RELAXED);
    }
    if (st == 0 && sent < alen + blen && (must || sent > 0))
        out_push(c, pe, a, alen, b, blen, sent);
    if (c->corked)
        set_cork(c, 0); /* (a batch of another thread's corked it: answers leave now) */
    pthread_mutex_unlock(&c->send_lock);
    send_failed(t, "tcp", pe, st);
    return 1;
}

void gshmemi_tcp_answer(struct gshmemi_tcp *t, int pe, const void *a, size_t alen, const void *b,
                        size_t blen)
{
    answer_now(t, pe, a, alen, b, blen, 1);
}

int gshmemi_tcp_answer_more(struct gshmemi_tcp *t, int pe)
{
    return answer_now(t, pe, NULL, 0, NULL, 0, 0);
}

int gshmemi_tcp_answers_end(struct gshmemi_tcp *t, int pe, uint64_t deadline)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    const int all = c->fd >= 0 && out_flush(c, deadline) == 0 && !c->out_waiting;
    while (c->out_head != NULL) {
        struct gshmemi_tcp_out *o = c->out_head;
        c->out_head = o->next;
        free(o);
    }
    c->out_tail = NULL;
    c->out_waiting = 0;
    return all;
}

void gshmemi_tcp_heartbeat(struct gshmemi_tcp *t, int pe)
{
    const struct gshmemi_tcp_frame hb = {.type = GSHMEMI_TCP_HEARTBEAT};
    answer_now(t, pe, &hb, sizeof(hb), NULL, 0, 0);
}

/* ---- sending ------------------------------------------------------------- */

/* Under c's send lock: the queued answers, then the frame and its payload
 * out; the status. */
static int send_locked(struct gshmemi_tcp_conn *c, const struct gshmemi_tcp_frame *frame,
                       const void *payload, size_t len)
{
    uint64_t deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
    int answers = __atomic_load_n(&c->out_waiting, __ATOMIC_ACQUIRE);
    int st = out_flush(c, deadline);
    if (st != 0)
        return st;
    struct gshmemi_tcp_frame fenced;
    const struct gshmemi_tcp_frame *f = frame;
    const int in_batch = gshmemi_tcp_in_batch;
    const int answered = f->type == GSHMEMI_TCP_GET || f->type == GSHMEMI_TCP_QUIET ||
                         (f->type == GSHMEMI_TCP_AMO && f->fetch);
    if (f->type == GSHMEMI_TCP_PUT && c->fence_next) {
        fenced = *f;
        fenced.op |= GSHMEMI_TCP_PUT_FENCED;
        f = &fenced;
        c->fence_next = 0;
    }
    if (in_batch && !answered && !c->corked)
        set_cork(c, 1);
    batch_sent |= in_batch;
    st = gshmemi_sock_send2(c->fd, f, sizeof(*f), payload, len, deadline);
    /* Requests whose completion quiet must wait for; gets and fetching
     * atomics are complete when answered, replies are not requests. */
    if (f->type == GSHMEMI_TCP_PUT || f->type == GSHMEMI_TCP_SIGNAL || f->type == GSHMEMI_TCP_CTRL ||
        (f->type == GSHMEMI_TCP_AMO && !f->fetch))
        __atomic_store_n(&c->sent, c->sent + 1, __ATOMIC_RELEASE);
    answers |= __atomic_load_n(&c->out_waiting, __ATOMIC_ACQUIRE);
    if (st == 0)
        st = out_flush(c, 0); /* (answers queued meanwhile) */
    if (c->corked && (answered || !in_batch || answers))
        set_cork(c, 0); /* out now: an answer is awaited, or the batch is over, or answers went */
    __atomic_store_n(&c->last_tx, gshmemi_now_ns(), __ATOMIC_RELAXED);
    return st;
}

void gshmemi_tcp_send_frame(struct gshmemi_tcp *t, const char *call, int pe,
                            const struct gshmemi_tcp_frame *frame, const void *payload, size_t len)
{
    struct gshmemi_tcp_conn *c = &t->conns[pe];
    pthread_mutex_lock(&c->send_lock);
    const int st = send_locked(c, frame, payload, len);
    pthread_mutex_unlock(&c->send_lock);
    send_failed(t, call, pe, st);
}

/* Sends a request whose reply (payload into p->dst) the progress thread
 * will hand to p. */
static void call_start(struct gshmemi_tcp *t, const char *call, int pe, struct gshmemi_tcp_frame *f,
                       struct gshmemi_tcp_pending *p)
{
    pthread_mutex_lock(&t->lock);
    p->id = f->id = ++t->next_id;
    p->pe = pe;
    p->next = t->pending;
    t->pending = p;
    pthread_mutex_unlock(&t->lock);
    gshmemi_tcp_send_frame(t, call, pe, f, NULL, 0);
}

/* Waits for p's reply; deadline: GSHMEM_TIMEOUT after `since` (0: none). */
static uint64_t call_finish(const char *call, int pe, struct gshmemi_tcp_pending *p, uint64_t since)
{
    struct gshmemi_backoff backoff = {0};
    const uint64_t deadline = gshmemi_deadline_from(since, gshmemi_env.TIMEOUT);
    while (!__atomic_load_n(&p->done, __ATOMIC_ACQUIRE)) {
        gshmemi_backoff_wait(&backoff);
        if (backoff.spins >= 64 && gshmemi_now_ns() > deadline) {
            GSHMEMI_ERROR(TRANSPORT, "%s: pe %d did not answer within %g s (GSHMEM_TIMEOUT)", call,
                          pe, gshmemi_env.TIMEOUT);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
        }
    }
    /* The progress thread unlinked it before marking it done. */
    return p->old;
}

/* ---- the operations ------------------------------------------------------- */

int gshmemi_tcp_put(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off,
                    const void *src, size_t n)
{
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_PUT, .off = off, .len = n};
    if (gshmemi_gpu_is_device_ptr(src)) { /* read it through the GPU */
        void *b = malloc(n);
        if (b == NULL) {
            GSHMEMI_ERROR(TRANSPORT, "%s: out of host memory for a %zu-byte put to pe %d from GPU "
                          "memory", call, n, pe);
            return GSHMEM_ERR_NO_MEMORY;
        }
        gshmemi_gpu_copy(call, b, src, n, 1);
        gshmemi_tcp_send_frame(t, call, pe, &f, b, n);
        free(b);
        return 0;
    }
    gshmemi_tcp_send_frame(t, call, pe, &f, src, n);
    return 0;
}

/* Where the target's elements are apart, frames of them packed, which the
 * target spreads (not a frame an element). */
int gshmemi_tcp_put_strided(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off,
                            size_t dpitch, const void *src, size_t spitch, size_t esize,
                            size_t count)
{
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    const char *s = src;
    if (dpitch == esize || esize > GSHMEMI_TCP_STRIDED_MAX / 2)
        return gshmemi_transport_put_packed(tr, call, pe, off, dpitch, src, spitch, esize, count);
    const size_t per = GSHMEMI_TCP_STRIDED_MAX / esize;
    char *buf = gshmemi_transport_pack_buffer(call, pe, GSHMEMI_MIN(count, per), esize);
    if (buf == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    for (size_t done = 0; done < count; done += per) {
        const size_t k = GSHMEMI_MIN(count - done, per);
        struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_PUT, .op = GSHMEMI_TCP_PUT_STRIDED,
                                      .off = off + done * dpitch, .len = k * esize, .a = dpitch,
                                      .size = (uint32_t)esize};
        gshmemi_transport_gather(call, buf, s + done * spitch, spitch, esize, k);
        gshmemi_tcp_send_frame(t, call, pe, &f, buf, k * esize);
    }
    free(buf);
    return 0;
}

int gshmemi_tcp_signal(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off,
                       uint64_t value, int op)
{
    struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_SIGNAL, .op = (uint32_t)op, .off = off,
                                  .a = value};
    gshmemi_tcp_send_frame(gshmemi_tcp_of(tr), call, pe, &f, NULL, 0);
    return 0;
}

int gshmemi_tcp_ctrl_add(struct gshmemi_transport *tr, const char *call, int pe, size_t word,
                         uint64_t value)
{
    struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_CTRL, .off = word, .a = value};
    gshmemi_tcp_send_frame(gshmemi_tcp_of(tr), call, pe, &f, NULL, 0);
    return 0;
}

/* A get or fetching atomic in flight (the proxy starts a batch's at once
 * and waits for them together: it never waits on one peer at a time). */
struct tcp_token {
    struct gshmemi_tcp_pending p;
    int pe;
    uint64_t since;
    void *gpu_dst; /* a get into GPU memory: the reply lands in p.dst first */
    size_t n;
};

int gshmemi_tcp_get_start(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off,
                          void *dst, size_t n, void **token)
{
    const int to_gpu = gshmemi_gpu_is_device_ptr(dst);
    struct tcp_token *k;
    if (n > GSHMEMI_TCP_GET_CHUNK)
        return GSHMEM_ERR_NOT_SUPPORTED; /* the caller gets it in chunks */
    if ((k = calloc(1, sizeof(*k) + (to_gpu ? n : 0))) == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_GET, .off = off, .len = n};
    k->pe = pe;
    k->n = n;
    k->since = gshmemi_now_ns();
    k->p.len = n;
    k->p.dst = to_gpu ? (void *)(k + 1) : dst; /* into GPU memory: through a bounce */
    k->gpu_dst = to_gpu ? dst : NULL;
    call_start(gshmemi_tcp_of(tr), call, pe, &f, &k->p);
    *token = k;
    return 0;
}

int gshmemi_tcp_atomic_start(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off,
                             int op, size_t size, uint64_t a, uint64_t b, void **token)
{
    struct tcp_token *k = calloc(1, sizeof(*k));
    if (k == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_AMO, .op = (uint32_t)op, .off = off, .a = a,
                                  .b = b, .size = (uint32_t)size, .fetch = 1};
    k->pe = pe;
    k->since = gshmemi_now_ns();
    call_start(gshmemi_tcp_of(tr), call, pe, &f, &k->p);
    *token = k;
    return 0;
}

int gshmemi_tcp_finish(struct gshmemi_transport *tr, const char *call, void *token, uint64_t *old)
{
    struct tcp_token *k = token;
    const uint64_t v = call_finish(call, k->pe, &k->p, k->since);
    (void)tr;
    if (k->gpu_dst != NULL)
        gshmemi_gpu_copy(call, k->gpu_dst, k + 1, k->n, 1);
    free(k);
    if (old != NULL)
        *old = v;
    return 0;
}

int gshmemi_tcp_atomic(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off, int op,
                       size_t size, uint64_t a, uint64_t b, uint64_t *old)
{
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_AMO, .op = (uint32_t)op, .off = off, .a = a,
                                  .b = b, .size = (uint32_t)size, .fetch = old != NULL};
    if (old == NULL) {
        gshmemi_tcp_send_frame(t, call, pe, &f, NULL, 0);
        return 0;
    }
    struct gshmemi_tcp_pending p = {.id = 0};
    const uint64_t since = gshmemi_now_ns();
    call_start(t, call, pe, &f, &p);
    *old = call_finish(call, pe, &p, since);
    return 0;
}

/* A slot among c's chunks of gets in flight: always where the caller has
 * none in flight (a get is never refused: one at a time, as every getter
 * had before the window), else while the window has room. */
static int take_get_slot(struct gshmemi_tcp_conn *c, size_t have)
{
    int n = __atomic_load_n(&c->gets_in_flight, __ATOMIC_RELAXED);
    do {
        if (have > 0 && n >= c->get_window)
            return 0;
    } while (!__atomic_compare_exchange_n(&c->gets_in_flight, &n, n + 1, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return 1;
}

static void give_get_slot(struct gshmemi_tcp_conn *c)
{
    __atomic_sub_fetch(&c->gets_in_flight, 1, __ATOMIC_RELAXED);
}

/* A get's frames through pe's window: as many asked for before the first
 * answer is waited for as the window has room for (`most` at most),
 * answered in order.  ask(ctx, i) sends frame i's request; take(ctx, i)
 * waits for its answer and puts it in place.  Those asked are all taken
 * before an error returns, else their answers would land after it. */
struct get_frames {
    int (*ask)(void *ctx, size_t i);
    int (*take)(void *ctx, size_t i);
    void *ctx;
};

static int get_windowed(struct gshmemi_tcp_conn *c, size_t frames, size_t most,
                        const struct get_frames *g)
{
    size_t started = 0, finished = 0;
    int st = 0;
    while (finished < started || (st == 0 && started < frames)) {
        while (st == 0 && started < frames && started - finished < most &&
               take_get_slot(c, started - finished)) {
            if ((st = g->ask(g->ctx, started)) == 0)
                started++;
            else
                give_get_slot(c);
        }
        if (finished < started) {
            const int fs = g->take(g->ctx, finished++);
            give_get_slot(c);
            st = st != 0 ? st : fs;
        }
    }
    return st;
}

/* A contiguous get: chunks of GSHMEMI_TCP_GET_CHUNK, each a get_start. */
struct contiguous_get {
    struct gshmemi_transport *tr;
    const char *call;
    int pe;
    uint64_t off;
    char *dst;
    size_t n;
    void *token[GSHMEMI_TCP_GET_WINDOW_MAX];
};

static int contiguous_ask(void *ctx, size_t i)
{
    struct contiguous_get *g = ctx;
    const size_t done = i * GSHMEMI_TCP_GET_CHUNK,
                 len = GSHMEMI_MIN(g->n - done, (size_t)GSHMEMI_TCP_GET_CHUNK);
    const int st = gshmemi_tcp_get_start(g->tr, g->call, g->pe, g->off + done, g->dst + done, len,
                                         &g->token[i % GSHMEMI_TCP_GET_WINDOW_MAX]);
    if (st != 0) /* len <= GSHMEMI_TCP_GET_CHUNK: only memory can be short */
        GSHMEMI_ERROR(TRANSPORT, "%s: out of memory for a %zu-byte get from pe %d", g->call, len,
                      g->pe);
    return st;
}

static int contiguous_take(void *ctx, size_t i)
{
    struct contiguous_get *g = ctx;
    return gshmemi_tcp_finish(g->tr, g->call, g->token[i % GSHMEMI_TCP_GET_WINDOW_MAX], NULL);
}

int gshmemi_tcp_get(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off,
                    void *dst, size_t n)
{
    struct contiguous_get g = {.tr = tr, .call = call, .pe = pe, .off = off, .dst = dst, .n = n};
    const struct get_frames frames = {contiguous_ask, contiguous_take, &g};
    return get_windowed(&gshmemi_tcp_of(tr)->conns[pe],
                        (n + GSHMEMI_TCP_GET_CHUNK - 1) / GSHMEMI_TCP_GET_CHUNK,
                        GSHMEMI_TCP_GET_WINDOW_MAX, &frames);
}

/* A strided get: frames of up to `per` elements, which the target packs
 * into its reply, each into its own part of a pack buffer (one for each
 * frame the window may hold) and spread from there. */
struct strided_get {
    struct gshmemi_tcp *t;
    const char *call;
    int pe;
    uint64_t off;
    size_t spitch;
    char *dst;
    size_t dpitch, esize, count, per, parts;
    char *buf;
    struct gshmemi_tcp_pending p[GSHMEMI_TCP_GET_WINDOW_MAX];
    uint64_t since[GSHMEMI_TCP_GET_WINDOW_MAX];
};

static int strided_ask(void *ctx, size_t i)
{
    struct strided_get *g = ctx;
    const size_t done = i * g->per, k = GSHMEMI_MIN(g->count - done, g->per),
                 w = i % GSHMEMI_TCP_GET_WINDOW_MAX;
    struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_GET, .op = GSHMEMI_TCP_GET_STRIDED,
                                  .off = g->off + done * g->spitch, .len = k * g->esize,
                                  .a = g->spitch, .size = (uint32_t)g->esize};
    g->p[w] = (struct gshmemi_tcp_pending){.dst = g->buf + (i % g->parts) * g->per * g->esize,
                                           .len = k * g->esize};
    g->since[w] = gshmemi_now_ns();
    call_start(g->t, g->call, g->pe, &f, &g->p[w]);
    return 0;
}

static int strided_take(void *ctx, size_t i)
{
    struct strided_get *g = ctx;
    const size_t done = i * g->per, w = i % GSHMEMI_TCP_GET_WINDOW_MAX;
    (void)call_finish(g->call, g->pe, &g->p[w], g->since[w]);
    gshmemi_transport_scatter(g->call, g->dst + done * g->dpitch, g->dpitch, g->p[w].dst,
                              g->esize, g->esize, g->p[w].len / g->esize);
    return 0;
}

/* Where pe's elements are apart, gets of them packed, spread here (not a
 * round trip an element). */
int gshmemi_tcp_get_strided(struct gshmemi_transport *tr, const char *call, int pe, uint64_t off,
                            size_t spitch, void *dst, size_t dpitch, size_t esize, size_t count)
{
    if (spitch == esize || esize > GSHMEMI_TCP_GET_CHUNK / 2)
        return gshmemi_transport_get_packed(tr, call, pe, off, spitch, dst, dpitch, esize, count);
    if (count == 0)
        return 0;
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    /* parts: as many frames as this call can have in flight */
    const size_t per = GSHMEMI_TCP_GET_CHUNK / esize, frames = (count + per - 1) / per,
                 parts = GSHMEMI_MIN(frames, (size_t)GSHMEMI_MAX(1, t->conns[pe].get_window));
    struct strided_get g = {.t = t, .call = call, .pe = pe, .off = off, .spitch = spitch,
                            .dst = dst, .dpitch = dpitch, .esize = esize, .count = count,
                            .per = per, .parts = parts};
    if ((g.buf = gshmemi_transport_pack_buffer(call, pe, GSHMEMI_MIN(count, parts * per),
                                               esize)) == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    const struct get_frames frames_of = {strided_ask, strided_take, &g};
    const int st = get_windowed(&t->conns[pe], frames, parts, &frames_of);
    free(g.buf);
    return st;
}

/* Each connection applies in order: one round trip to every peer written
 * to since the last quiet completes all of it. */
int gshmemi_tcp_quiet(struct gshmemi_transport *tr, const char *call)
{
    enum { AT_ONCE = 64 };
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    struct gshmemi_tcp_pending p[AT_ONCE];
    int peer_of[AT_ONCE];
    uint64_t covers[AT_ONCE];

    /* The round trips of up to AT_ONCE peers at once, then their answers.
     * A peer is skipped only where a finished round trip covered every
     * request sent to it before this call (another thread's quiet that is
     * still on its way covers nothing yet).  A quiet with nothing to
     * complete (a kernel's quiet through the proxy, mostly) costs two
     * loads a peer: no clock, no locked instruction. */
    for (int first = 0; first < t->n_peers; first += AT_ONCE) {
        uint64_t since = 0;
        int n = 0;
        for (int i = first; i < t->n_peers && i < first + AT_ONCE; i++) {
            const int pe = t->peers[i];
            struct gshmemi_tcp_conn *c = &t->conns[pe];
            /* every request counted here left before the quiet frame below */
            const uint64_t sent = __atomic_load_n(&c->sent, __ATOMIC_ACQUIRE);
            if (__atomic_load_n(&c->quieted, __ATOMIC_ACQUIRE) >= sent)
                continue;
            if (n == 0)
                since = gshmemi_now_ns();
            struct gshmemi_tcp_frame f = {.type = GSHMEMI_TCP_QUIET};
            memset(&p[n], 0, sizeof(p[n]));
            peer_of[n] = pe;
            covers[n] = sent;
            call_start(t, call, pe, &f, &p[n++]);
        }
        for (int k = 0; k < n; k++) {
            (void)call_finish(call, peer_of[k], &p[k], since);
            uint64_t *q = &t->conns[peer_of[k]].quieted, was = __atomic_load_n(q, __ATOMIC_RELAXED);
            while (was < covers[k] &&
                   !__atomic_compare_exchange_n(q, &was, covers[k], 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
                ;
        }
    }
    return 0;
}

int gshmemi_tcp_fence(struct gshmemi_transport *tr)
{
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    for (int i = 0; i < t->n_peers; i++) {
        struct gshmemi_tcp_conn *c = &t->conns[t->peers[i]];
        pthread_mutex_lock(&c->send_lock);
        c->fence_next = 1;
        pthread_mutex_unlock(&c->send_lock);
    }
    return 0;
}

void gshmemi_tcp_batch_begin(struct gshmemi_transport *tr)
{
    (void)tr;
    gshmemi_tcp_in_batch = 1;
    batch_sent = 0;
}

/* A batch that sent nothing has nothing to flush: a connection corked
 * meanwhile was corked by another thread's batch, which uncorks it
 * itself, as does any send outside a batch. */
void gshmemi_tcp_batch_end(struct gshmemi_transport *tr)
{
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    gshmemi_tcp_in_batch = 0;
    if (!batch_sent)
        return;
    for (int i = 0; i < t->n_peers; i++)
        gshmemi_tcp_uncork(t, t->peers[i]);
}
