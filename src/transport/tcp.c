/*
 * tcp transport: one TCP connection per pair of PEs that do not map each
 * other, opened with the job secret (this file: setup and teardown).  The
 * initiator writes requests from its own thread (tcp_initiator.c); the
 * target's progress thread applies each to its heap in arrival order and
 * answers gets, fetching atomics and quiet (tcp_target.c); the frames are
 * tcp_wire.h's.  A connection that closes without a goodbye is a lost PE:
 * every PE that had one to it says so and ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/sock.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "transport/tcp_priv.h"

#define SOCK_BUF (4 << 20)

/* n CUDA events into marks; nonzero when one cannot be made (those made
 * are freed with the transport). */
static int new_marks(void **marks, int n)
{
    for (int i = 0; i < n; i++)
        if ((marks[i] = gshmemi_gpu_mark_new()) == NULL)
            return 1;
    return 0;
}

/* Chunks of gets on fd's connection in flight at once (one at a time, a
 * get moves a chunk a round trip): about as many replies as the two ends'
 * socket buffers hold (SOCK_BUF asked for, which the kernel caps at
 * net.core.rmem_max and wmem_max and reports doubled; this end's sizes
 * taken for both), so that gets alone do not hold the target's progress
 * thread sending replies while this PE's is busy. */
static int get_window(int fd)
{
    int rcv = 0, snd = 0;
    socklen_t len = sizeof(int);
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, &len) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, &len) != 0)
        return 1;
    const long held = ((long)rcv + snd) / 2 / GSHMEMI_TCP_GET_CHUNK;
    return (int)GSHMEMI_MAX(1, GSHMEMI_MIN(held, GSHMEMI_TCP_GET_WINDOW_MAX));
}

/* Connections whose hello is still coming, read side by side: a silent or
 * slow stranger costs the peers one hello deadline, not one each. */
#define HELLO_PENDING 64
#define HELLO_SECONDS 2 /* a peer sends its hello at once */

struct hello_wait {
    int fd;
    union gshmemi_sockaddr from;
    uint64_t deadline;
    size_t got;
    struct gshmemi_tcp_hello h;
};

static void hello_drop(struct hello_wait *w)
{
    char text[80];
    GSHMEMI_WARN(TRANSPORT, "tcp: dropped a connection from %s: not a PE of this job",
                 gshmemi_sock_str(&w->from, text, sizeof(text)));
    close(w->fd);
}

/* What w's peer has sent: 1 while its hello is incomplete and its deadline
 * ahead; else 0 with the hello whole in w->h, or -1 (a stranger's end). */
static int hello_read(struct hello_wait *w, uint64_t now)
{
    for (;;) {
        const ssize_t n = recv(w->fd, (char *)&w->h + w->got, sizeof(w->h) - w->got, MSG_DONTWAIT);
        if (n > 0 && (w->got += (size_t)n) == sizeof(w->h))
            return 0;
        if (n > 0 || (n < 0 && errno == EINTR))
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return now < w->deadline ? 1 : -1;
        return -1; /* closed, or an error */
    }
}

/* The lower peers' connections (n_expect of them, whose PEs are expect),
 * each known by its hello, by deadline; strangers' are dropped. */
static int accept_peers(struct gshmemi_tcp *t, int listen_fd, const int *expect, int n_expect,
                        uint64_t deadline)
{
    const struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    struct hello_wait w[HELLO_PENDING];
    struct pollfd p[HELLO_PENDING + 1];
    int got = 0, nw = 0, st = 0;
    while (got < n_expect) {
        uint64_t now = gshmemi_now_ns(), next = deadline;
        if (now >= deadline) {
            st = GSHMEM_ERR_TIMEOUT;
            break;
        }
        /* (a full list takes no one new: they wait in the backlog) */
        p[0] = (struct pollfd){.fd = nw < HELLO_PENDING ? listen_fd : -1, .events = POLLIN};
        for (int i = 0; i < nw; i++) {
            p[1 + i] = (struct pollfd){.fd = w[i].fd, .events = POLLIN};
            next = GSHMEMI_MIN(next, w[i].deadline);
        }
        if (poll(p, (nfds_t)(1 + nw), gshmemi_ms_left(next)) < 0 && errno != EINTR) {
            GSHMEMI_ERROR(TRANSPORT, "tcp: waiting for the peers' connections: poll failed: %s",
                          strerror(errno));
            st = GSHMEM_ERR_IO;
            break;
        }
        now = gshmemi_now_ns();
        for (int i = nw - 1; i >= 0; i--) { /* (from the end: the last one fills a gap) */
            const int r = hello_read(&w[i], now);
            if (r == 1)
                continue;
            const struct gshmemi_tcp_hello *h = &w[i].h;
            int ok = 0;
            for (int k = 0; r == 0 && k < n_expect; k++)
                ok |= expect[k] == h->rank && t->conns[h->rank].fd < 0;
            if (ok && gshmemi_tcp_hello_valid(h, bs->secret)) {
                t->conns[h->rank].fd = w[i].fd;
                got++;
            } else {
                hello_drop(&w[i]);
            }
            w[i] = w[--nw];
        }
        while (st == 0 && nw < HELLO_PENDING && (p[0].revents & POLLIN)) {
            int fd;
            const int a = gshmemi_sock_accept(listen_fd, 0, &fd, &w[nw].from);
            if (a == GSHMEM_ERR_TIMEOUT)
                break; /* none left (a deadline of 0: no wait) */
            if (a != 0) {
                GSHMEMI_ERROR(TRANSPORT, "tcp: cannot accept the peers' connections: %s",
                              strerror(errno));
                st = a;
                break;
            }
            w[nw].fd = fd;
            w[nw].got = 0;
            w[nw].deadline = gshmemi_deadline_after(HELLO_SECONDS);
            nw++;
        }
        if (st != 0)
            break;
    }
    for (int i = 0; i < nw; i++)
        hello_drop(&w[i]);
    if (st == GSHMEM_ERR_TIMEOUT)
        for (int i = 0; i < n_expect; i++)
            if (t->conns[expect[i]].fd < 0) {
                GSHMEMI_ERROR(TRANSPORT, "tcp: pe %d never connected within %g s", expect[i],
                              gshmemi_env.BOOTSTRAP_TIMEOUT);
                break;
            }
    return st;
}

static void tcp_close(struct gshmemi_transport *tr);

static int tcp_open(const int *peers, int n_peers, struct gshmemi_transport **out)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    const int me = gshmemi_rt.my_pe, n = gshmemi_rt.n_pes;
    union gshmemi_sockaddr addr;
    struct gshmemi_wire_addr mine, *all = NULL;
    int listen_fd = -1, *lower = NULL, n_lower = 0, st, buf = SOCK_BUF, one = 1;
    const char *ifname = gshmemi_env.TCP_IFNAME[0] ? gshmemi_env.TCP_IFNAME
                                                   : gshmemi_env.BOOTSTRAP_IFNAME;
    uint64_t deadline;
    struct gshmemi_tcp *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    t->wake[0] = t->wake[1] = -1;
    pthread_mutex_init(&t->lock, NULL);
    t->conns = calloc((size_t)n, sizeof(*t->conns));
    t->peers = malloc(sizeof(int) * (size_t)(n_peers + 1));
    lower = malloc(sizeof(int) * (size_t)(n_peers + 1));
    all = malloc(sizeof(*all) * (size_t)n);
    if (t->conns == NULL || t->peers == NULL || lower == NULL || all == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < n; pe++) {
        t->conns[pe].fd = -1;
        pthread_mutex_init(&t->conns[pe].send_lock, NULL);
        pthread_mutex_init(&t->conns[pe].out_lock, NULL);
    }
    memcpy(t->peers, peers, sizeof(int) * (size_t)n_peers);
    t->n_peers = n_peers;
    /* Everyone listens and publishes where; every PE takes part in the
     * all-gather, with or without peers of its own.  Loopback reaches every
     * PE when all are on one machine (simulated nodes too). */
    GSHMEMI_CHECK_GOTO(gshmemi_sock_pick_addr(ifname, gshmemi_env.BOOTSTRAP_FAMILY,
                                              gshmemi_rt.n_machines == 1, &addr), st, out);
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
        struct gshmemi_tcp_hello h = {.magic = GSHMEMI_TCP_MAGIC, .rank = me};
        memcpy(h.secret, bs->secret, sizeof(h.secret));
        gshmemi_sock_from_wire(&all[pe], &to);
        st = gshmemi_sock_connect(&to, deadline, &t->conns[pe].fd);
        if (st == 0)
            st = gshmemi_sock_send(t->conns[pe].fd, &h, sizeof(h), deadline);
        if (st != 0) {
            char text[80];
            GSHMEMI_ERROR(TRANSPORT, "tcp: cannot connect to pe %d at %s: %s", pe,
                          gshmemi_sock_str(&to, text, sizeof(text)), gshmem_status_string(st));
            goto out;
        }
    }
    GSHMEMI_CHECK_GOTO(accept_peers(t, listen_fd, lower, n_lower, deadline), st, out);
    if (!gshmemi_heap.access->host_direct &&
        (new_marks(t->seg_done, GSHMEMI_TCP_RING_SEGS) != 0 ||
         new_marks(t->get_done, GSHMEMI_TCP_GET_SLOTS) != 0)) {
        GSHMEMI_ERROR(TRANSPORT, "tcp: cannot create the CUDA events of the staging ring and "
                                 "bounce");
        st = GSHMEM_ERR_CUDA;
        goto out;
    }
    if ((!gshmemi_heap.access->host_direct &&
         gshmemi_staging_alloc(&t->ring, GSHMEMI_TCP_RING_BYTES, "tcp target's ring") != 0) ||
        gshmemi_staging_alloc(&t->bounce,
                              (gshmemi_heap.access->host_direct ? 1 : GSHMEMI_TCP_GET_SLOTS) *
                                  GSHMEMI_TCP_GET_CHUNK,
                              "tcp target's bounce") != 0) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int i = 0; i < n_peers; i++) {
        int fd = t->conns[peers[i]].fd;
        if ((t->conns[peers[i]].rx = malloc(GSHMEMI_TCP_RX_BUF)) == NULL) {
            st = GSHMEM_ERR_NO_MEMORY;
            goto out;
        }
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        t->conns[peers[i]].get_window = get_window(fd);
    }
    if (pipe2(t->wake, O_CLOEXEC) != 0 ||
        pthread_create(&t->thread, NULL, gshmemi_tcp_progress_main, t) != 0) {
        GSHMEMI_ERROR(TRANSPORT, "tcp: cannot start the progress thread: %s", strerror(errno));
        st = GSHMEM_ERR_INTERNAL;
        goto out;
    }
    pthread_setname_np(t->thread, "gshmem-tcp");
    t->thread_up = 1;
    GSHMEMI_INFO(TRANSPORT, "tcp transport up: %d peers", n_peers);
    *out = &t->base;
    st = 0;
out:
    if (listen_fd >= 0)
        close(listen_fd);
    free(all);
    free(lower);
    if (st != 0)
        tcp_close(&t->base); /* what was opened: sockets, buffers */
    return st;
}

static void tcp_close(struct gshmemi_transport *tr)
{
    struct gshmemi_tcp *t = gshmemi_tcp_of(tr);
    struct gshmemi_tcp_frame bye = {.type = GSHMEMI_TCP_BYE};
    t->closing = 1;
    if (t->thread_up) {
        (void)!write(t->wake[1], "x", 1);
        pthread_join(t->thread, NULL);
    }
    /* Once the progress thread has ended: nothing else sends there now (a
     * reply or heartbeat of its own could otherwise interleave); its
     * answers that still wait go first. */
    for (int i = 0; i < t->n_peers; i++) {
        const uint64_t deadline = gshmemi_deadline_after(1);
        if (gshmemi_tcp_answers_end(t, t->peers[i], deadline))
            (void)gshmemi_sock_send(t->conns[t->peers[i]].fd, &bye, sizeof(bye), deadline);
    }
    for (int pe = 0; t->conns != NULL && pe < gshmemi_rt.n_pes; pe++) {
        if (t->conns[pe].fd >= 0)
            close(t->conns[pe].fd);
        free(t->conns[pe].rx);
        pthread_mutex_destroy(&t->conns[pe].send_lock);
        pthread_mutex_destroy(&t->conns[pe].out_lock);
    }
    if (t->wake[0] >= 0) {
        close(t->wake[0]);
        close(t->wake[1]);
    }
    free(t->conns);
    free(t->peers);
    gshmemi_staging_free(&t->bounce);
    gshmemi_staging_free(&t->ring);
    for (int i = 0; i < GSHMEMI_TCP_RING_SEGS; i++)
        gshmemi_gpu_mark_free(t->seg_done[i]);
    for (int i = 0; i < GSHMEMI_TCP_GET_SLOTS; i++)
        gshmemi_gpu_mark_free(t->get_done[i]);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

const struct gshmemi_transport_ops gshmemi_tcp_ops = {
    .name = "tcp",
    /* setup */
    .open = tcp_open,
    .close = tcp_close,
    /* RMA and atomics */
    .put = gshmemi_tcp_put,
    .put_strided = gshmemi_tcp_put_strided,
    .get_strided = gshmemi_tcp_get_strided,
    .get = gshmemi_tcp_get,
    .atomic = gshmemi_tcp_atomic,
    .signal = gshmemi_tcp_signal,
    .ctrl_add = gshmemi_tcp_ctrl_add,
    /* completion and order */
    .quiet = gshmemi_tcp_quiet,
    .fence = gshmemi_tcp_fence,
    /* the proxy's batches */
    .batch_begin = gshmemi_tcp_batch_begin,
    .batch_end = gshmemi_tcp_batch_end,
    .get_start = gshmemi_tcp_get_start,
    .atomic_start = gshmemi_tcp_atomic_start,
    .finish = gshmemi_tcp_finish,
};
