/*
 * uid bootstrap: a TCP unique id in the shape NCCL made familiar.
 *
 * One process runs the root service (gshmemx_get_uniqueid, or gshmrun).
 * Every rank listens on a socket of its own, connects to the root and tells
 * it (rank, size, listening address), proving the job secret; the root,
 * once all ranks are in, tells each where its partners listen.  In round k
 * of log2(size) rounds (rounded up) a rank sends to rank + 2^k and
 * receives from rank - 2^k, each over a link of its own (the rank sending
 * opens it, again proving the secret): allgather (Bruck's, each round
 * doubling the blocks a rank holds) and barrier (dissemination) take
 * log2(size) dependent messages, where a ring took size - 1 and 2 size.
 * Data flows one way on a link; the other way carries only abort notices.
 *
 * A connection without the secret is logged and dropped; it never disturbs
 * the job.  Every receive has a deadline.  A lost peer is reported with an
 * abort notice sent on every link, and each rank that learns of it passes
 * it on along its own: a rank waiting on a partner hears it from that
 * partner, so every rank names the PE that was lost, not merely a partner.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/uid_wire.h"
#include "core/sock.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"

/* ---- unique id codec -------------------------------------------------- */

void gshmemi_uid_encode(const gshmemx_uniqueid_t *uid, char *out)
{
    gshmemi_hex(uid->internal, sizeof(uid->internal), out);
}

int gshmemi_uid_decode(const char *text, gshmemx_uniqueid_t *uid)
{
    struct gshmemi_uid_blob blob;
    union gshmemi_sockaddr a;
    char why[80];
    gshmemx_uniqueid_t id;
    if (gshmemi_unhex(text, id.internal, sizeof(id.internal)) != 0 ||
        gshmemi_uid_blob_check(id.internal, sizeof(id.internal), &blob, &a, why, sizeof(why)) != 0)
        return GSHMEM_ERR_INVALID_ARG;
    *uid = id;
    return 0;
}

int gshmemi_uid_root_address(const gshmemx_uniqueid_t *uid, char *buf, size_t len)
{
    struct gshmemi_uid_blob blob;
    union gshmemi_sockaddr a;
    char why[80];
    if (gshmemi_uid_blob_check(uid->internal, sizeof(uid->internal), &blob, &a, why,
                               sizeof(why)) != 0)
        return GSHMEM_ERR_INVALID_ARG;
    gshmemi_sock_str(&a, buf, len);
    return 0;
}

/* ---- root service ------------------------------------------------------ */

/* Connections whose hello is still coming, read side by side: a silent or
 * slow stranger costs the ranks nothing, and is dropped at its deadline. */
#define ROOT_PENDING 64
#define ROOT_HELLO_SECONDS 2 /* an honest rank sends its hello at once */

struct root_pending {
    int fd;
    union gshmemi_sockaddr from;
    uint64_t deadline;
    size_t got;
    unsigned char buf[sizeof(struct gshmemi_uid_root_hello)];
};

struct gshmemi_uid_root {
    int persistent; /* serve one job after another (gshmrun: init after finalize) */
    int listen_fd;
    int stop_pipe[2];
    int gone_pipe[2]; /* wakes the round: the launcher says a rank has gone */
    pthread_mutex_t lock; /* the fields below, which the launcher's thread reads too */
    int gone_rank;       /* the first rank gone before it joined, -1: none */
    char gone_why[120];
    int failed_for;      /* the rank a meeting failed for, -1: none */
    double timeout;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    pthread_t thread;
    int status;
    struct root_pending pend[ROOT_PENDING]; /* kept from one round to the next */
    int npend;
};

struct root_member {
    int fd;
    struct gshmemi_wire_addr listen;
};

static void root_reply_all(struct root_member *m, int nranks, int status, const char *msg)
{
    for (int r = 0; r < nranks; r++) {
        struct gshmemi_uid_root_reply reply;
        if (m[r].fd < 0)
            continue;
        memset(&reply, 0, sizeof(reply));
        reply.status = status;
        if (status == 0) {
            reply.rounds = gshmemi_uid_rounds(nranks);
            for (int k = 0; k < reply.rounds; k++)
                reply.peer[k] = m[(int)(((long)r + (1L << k)) % nranks)].listen;
        } else
            snprintf(reply.msg, sizeof(reply.msg), "%s", msg);
        (void)gshmemi_sock_send(m[r].fd, &reply, sizeof(reply),
                                gshmemi_deadline_after(5));
        close(m[r].fd);
        m[r].fd = -1;
    }
}

static void root_drop(struct root_pending *q, const char *why, const char *detail)
{
    char addr[80];
    GSHMEMI_WARN(BOOTSTRAP, "root dropped a connection from %s: %s%s%s%s",
                 gshmemi_sock_str(&q->from, addr, sizeof(addr)), why, detail ? " (" : "",
                 detail ? detail : "", detail ? ")" : "");
    close(q->fd);
}

/* Reads what pending connection i has sent (readable: poll said so).
 * Returns 1 while its hello is incomplete and its deadline ahead; else
 * takes it out of the pending set: 0 with its checked hello in h and its
 * fd in *fd, or -1 (logged, closed) for anything that is not a rank of
 * this job. */
static int root_pending_read(struct gshmemi_uid_root *root, int i, int readable,
                             struct gshmemi_uid_root_hello *h, int *fd)
{
    struct root_pending q = root->pend[i];
    char why[120];
    int st = 0;
    if (readable) {
        ssize_t r = recv(q.fd, q.buf + q.got, sizeof(q.buf) - q.got, MSG_DONTWAIT);
        if (r > 0)
            q.got += (size_t)r;
        else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            st = r == 0 || errno == ECONNRESET ? GSHMEM_ERR_PEER_LOST : GSHMEM_ERR_IO;
    }
    if (st == 0 && q.got < sizeof(q.buf)) {
        if (gshmemi_now_ns() < q.deadline) {
            root->pend[i] = q;
            return 1;
        }
        st = GSHMEM_ERR_TIMEOUT;
    }
    root->pend[i] = root->pend[--root->npend];
    if (st != 0) {
        root_drop(&q, "no hello", gshmem_status_string(st));
        return -1;
    }
    if (gshmemi_uid_root_hello_check(q.buf, sizeof(q.buf), root->secret, h, why,
                                     sizeof(why)) != 0) {
        root_drop(&q, why, NULL);
        return -1;
    }
    *fd = q.fd;
    return 0;
}

/* Takes every connection waiting on the listening socket, up to the
 * pending set's size (the rest wait in the backlog). */
static void root_accept(struct gshmemi_uid_root *root)
{
    while (root->npend < ROOT_PENDING) {
        struct root_pending *q = &root->pend[root->npend];
        if (gshmemi_sock_accept(root->listen_fd, gshmemi_now_ns(), &q->fd, &q->from) != 0)
            return;
        q->deadline = gshmemi_deadline_after(ROOT_HELLO_SECONDS);
        q->got = 0;
        root->npend++;
    }
}

static int root_round(struct gshmemi_uid_root *root);

static void *root_main(void *arg)
{
    struct gshmemi_uid_root *root = arg;
    do {
        root->status = root_round(root);
    } while (root->persistent && root->status != GSHMEM_ERR_INTERNAL);
    while (root->npend > 0) /* each stranger is named once, even now */
        root_drop(&root->pend[--root->npend], "no hello", "the root stopped");
    return NULL;
}

/* One hello that passed the check: its rank joins the round.  Returns 1
 * once every rank is in, -1 when the round cannot go on (no memory). */
static int root_join_rank(struct gshmemi_uid_root *root, struct root_member **mp, int *nranks,
                          int *joined, uint64_t *deadline, int fd,
                          const struct gshmemi_uid_root_hello *h)
{
    struct root_member *m = *mp;
    if (m == NULL) {
        m = calloc((size_t)h->nranks, sizeof(*m));
        if (m == NULL) {
            close(fd);
            root->status = GSHMEM_ERR_NO_MEMORY;
            return -1;
        }
        *nranks = h->nranks;
        for (int r = 0; r < *nranks; r++)
            m[r].fd = -1;
        *mp = m;
        *deadline = gshmemi_deadline_after(root->timeout); /* runs from the first hello */
    }
    if (h->nranks != *nranks || m[h->rank].fd >= 0) {
        GSHMEMI_WARN(BOOTSTRAP, "root dropped a hello from rank %d of %d: %s", h->rank,
                     h->nranks, h->nranks != *nranks ? "the job has a different size"
                                                     : "that rank is already in");
        close(fd);
        return 0;
    }
    m[h->rank].fd = fd;
    m[h->rank].listen = h->listen;
    return ++*joined == *nranks;
}

/* A rank the launcher saw go has not joined the meeting under way: the
 * ranks that have are told why it cannot complete.  Returns 1 if so. */
static int root_gone_fails(struct gshmemi_uid_root *root, struct root_member *m, int nranks)
{
    pthread_mutex_lock(&root->lock);
    const int r = root->gone_rank;
    char msg[200];
    const int fails = m != NULL && r >= 0 && r < nranks && m[r].fd < 0;
    if (fails) {
        snprintf(msg, sizeof(msg), "pe %d %s before it joined the job (gshmem_init)", r,
                 root->gone_why);
        root->failed_for = r;
    }
    pthread_mutex_unlock(&root->lock);
    if (fails) /* the ranks say it; the launcher names the rank too */
        root_reply_all(m, nranks, GSHMEM_ERR_PEER_LOST, msg);
    return fails;
}

/* Serves one meeting of all ranks. */
static int root_round(struct gshmemi_uid_root *root)
{
    struct root_member *m = NULL;
    int nranks = 0, joined = 0, done = 0;
    uint64_t deadline = UINT64_MAX;

    root->status = GSHMEM_ERR_TIMEOUT;
    while (!done) {
        struct pollfd p[3 + ROOT_PENDING];
        uint64_t wake = deadline;
        const int npend = root->npend;
        p[0] = (struct pollfd){.fd = npend < ROOT_PENDING ? root->listen_fd : -1, .events = POLLIN};
        p[1] = (struct pollfd){.fd = root->stop_pipe[0], .events = POLLIN};
        p[2] = (struct pollfd){.fd = root->gone_pipe[0], .events = POLLIN};
        for (int i = 0; i < npend; i++) {
            p[3 + i] = (struct pollfd){.fd = root->pend[i].fd, .events = POLLIN};
            wake = GSHMEMI_MIN(wake, root->pend[i].deadline);
        }
        int n = poll(p, (nfds_t)(3 + npend), gshmemi_ms_left(wake));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || p[1].revents) {
            root->status = GSHMEM_ERR_INTERNAL;
            break;
        }
        if (p[2].revents) {
            char drain[16];
            (void)!read(root->gone_pipe[0], drain, sizeof(drain));
        }
        if (root_gone_fails(root, m, nranks)) {
            root->status = GSHMEM_ERR_PEER_LOST;
            break;
        }
        if (gshmemi_now_ns() >= deadline) {
            char msg[200];
            int len = snprintf(msg, sizeof(msg), "pe(s)");
            for (int r = 0; r < nranks && len < (int)sizeof(msg) - 16; r++)
                if (m[r].fd < 0)
                    len += snprintf(msg + len, sizeof(msg) - (size_t)len, " %d", r);
            snprintf(msg + len, sizeof(msg) - (size_t)len, " of %d never reached the root within %g s",
                     nranks, root->timeout);
            GSHMEMI_ERROR(BOOTSTRAP, "%s", msg);
            root_reply_all(m, nranks, GSHMEM_ERR_TIMEOUT, msg);
            break;
        }
        /* From the last: taking one out moves the last into its place. */
        for (int i = npend - 1; i >= 0 && !done; i--) {
            struct gshmemi_uid_root_hello h;
            int fd;
            if (root_pending_read(root, i, p[3 + i].revents != 0, &h, &fd) != 0)
                continue;
            int k = root_join_rank(root, &m, &nranks, &joined, &deadline, fd, &h);
            if (k == 0 && root_gone_fails(root, m, nranks)) {
                root->status = GSHMEM_ERR_PEER_LOST;
                done = 1;
            } else if (k < 0)
                done = 1;
            else if (k > 0) {
                root_reply_all(m, nranks, 0, NULL);
                root->status = 0;
                done = 1;
            }
        }
        if (!done && (p[0].revents & POLLIN))
            root_accept(root);
    }
    if (m != NULL) {
        for (int r = 0; r < nranks; r++)
            if (m[r].fd >= 0)
                close(m[r].fd);
        free(m);
    }
    return root->status;
}

int gshmemi_uid_root_rank_gone(struct gshmemi_uid_root *root, int rank, const char *why)
{
    pthread_mutex_lock(&root->lock);
    if (root->gone_rank < 0) {
        root->gone_rank = rank;
        snprintf(root->gone_why, sizeof(root->gone_why), "%s", why);
    }
    pthread_mutex_unlock(&root->lock);
    (void)!write(root->gone_pipe[1], "g", 1);
    return 0;
}

int gshmemi_uid_root_failed_for(struct gshmemi_uid_root *root)
{
    pthread_mutex_lock(&root->lock);
    const int r = root->failed_for;
    pthread_mutex_unlock(&root->lock);
    return r;
}

int gshmemi_uid_root_start(int loopback, int persistent, double timeout,
                           gshmemx_uniqueid_t *uid, struct gshmemi_uid_root **out)
{
    union gshmemi_sockaddr addr;
    struct gshmemi_uid_blob blob;
    struct gshmemi_uid_root *root = calloc(1, sizeof(*root));
    int st;

    if (root == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    root->timeout = timeout;
    root->persistent = persistent;
    GSHMEMI_CHECK_GOTO(gshmemi_sock_pick_addr(gshmemi_env.BOOTSTRAP_IFNAME,
                                              gshmemi_env.BOOTSTRAP_FAMILY, loopback, &addr),
                       st, err_free);
    GSHMEMI_CHECK_GOTO(gshmemi_sock_listen(&addr, &root->listen_fd), st, err_free);
    if (pipe2(root->stop_pipe, O_CLOEXEC) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "pipe failed: %s", strerror(errno));
        st = GSHMEM_ERR_IO;
        goto err_close_listen;
    }
    if (pipe2(root->gone_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "pipe failed: %s", strerror(errno));
        st = GSHMEM_ERR_IO;
        goto err_close_pipe;
    }
    pthread_mutex_init(&root->lock, NULL);
    root->gone_rank = -1;
    root->failed_for = -1;
    if (gshmemi_random_bytes(root->secret, sizeof(root->secret)) != 0) {
        st = GSHMEM_ERR_IO;
        goto err_close_gone;
    }
    memset(uid, 0, sizeof(*uid));
    memset(&blob, 0, sizeof(blob));
    blob.magic = GSHMEMI_UID_MAGIC;
    memcpy(blob.secret, root->secret, sizeof(blob.secret));
    gshmemi_sock_to_wire(&addr, &blob.root);
    memcpy(uid->internal, &blob, sizeof(blob));
    if ((errno = pthread_create(&root->thread, NULL, root_main, root)) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "cannot start the root thread: %s", strerror(errno));
        st = GSHMEM_ERR_INTERNAL;
        goto err_close_gone;
    }
    char text[80];
    GSHMEMI_INFO(BOOTSTRAP, "root listening on %s", gshmemi_sock_str(&addr, text, sizeof(text)));
    *out = root;
    return 0;

err_close_gone:
    pthread_mutex_destroy(&root->lock);
    close(root->gone_pipe[0]);
    close(root->gone_pipe[1]);
err_close_pipe:
    close(root->stop_pipe[0]);
    close(root->stop_pipe[1]);
err_close_listen:
    close(root->listen_fd);
err_free:
    free(root);
    return st;
}

int gshmemi_uid_root_join(struct gshmemi_uid_root *root)
{
    int st;
    pthread_join(root->thread, NULL);
    st = root->status;
    close(root->listen_fd);
    close(root->stop_pipe[0]);
    close(root->stop_pipe[1]);
    close(root->gone_pipe[0]);
    close(root->gone_pipe[1]);
    pthread_mutex_destroy(&root->lock);
    free(root);
    return st;
}

void gshmemi_uid_root_stop(struct gshmemi_uid_root *root)
{
    (void)!write(root->stop_pipe[1], "x", 1);
    (void)gshmemi_uid_root_join(root);
}

/* ---- rank side --------------------------------------------------------- */

struct uid_bootstrap {
    struct gshmemi_bootstrap base;
    int rounds;
    int out_fd[GSHMEMI_UID_MAX_ROUNDS]; /* [k]: we send to rank + 2^k, */
    int in_fd[GSHMEMI_UID_MAX_ROUNDS];  /* receive from rank - 2^k; both carry abort notices */
    double timeout;
    char *scratch; /* allgather: frame header, then the blocks held, nearest rank first */
    size_t scratch_len;
};

static struct uid_bootstrap *uid_of(struct gshmemi_bootstrap *bs)
{
    return (struct uid_bootstrap *)bs;
}

/* The rank `dist` places after (dist > 0) or before this one, mod size. */
static int uid_peer(const struct uid_bootstrap *u, long dist)
{
    const long n = u->base.size;
    return (int)((((long)u->base.rank + dist) % n + n) % n);
}

/* A lost peer: tell every partner (best effort), log once, and fail.
 * Before the log, the node's watch (gshmemi_waiting_now): the PE seen go
 * may only be following another out, which a node-local peer saw first,
 * and the watch then names that one. */
static int uid_lost(struct uid_bootstrap *u, int lost_pe, int reporter, const char *what)
{
    struct gshmemi_uid_frame f = {.kind = GSHMEMI_UID_FRAME_ABORT, .lost_pe = lost_pe};
    for (int k = 0; k < u->rounds; k++) {
        if (u->out_fd[k] >= 0)
            (void)!send(u->out_fd[k], &f, sizeof(f), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (u->in_fd[k] >= 0)
            (void)!send(u->in_fd[k], &f, sizeof(f), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    char op[64];
    snprintf(op, sizeof(op), "the runtime's %s (bootstrap)", what);
    gshmemi_waiting_now(op);
    if (reporter >= 0)
        GSHMEMI_ERROR(BOOTSTRAP, "pe %d was lost (reported by pe %d) during bootstrap %s",
                      lost_pe, reporter, what);
    else
        GSHMEMI_ERROR(BOOTSTRAP, "pe %d was lost during bootstrap %s: its connection closed",
                      lost_pe, what);
    return GSHMEM_ERR_PEER_LOST;
}

/* Round k's step: sends slen bytes to rank + 2^k while receiving one frame
 * of rlen bytes from rank - 2^k (none when rbuf is NULL), watching both
 * links for abort notices and hang-ups; every wait has the deadline. */
static int uid_exchange(struct uid_bootstrap *u, int k, const void *sbuf, size_t slen, void *rbuf,
                        size_t rlen, const char *what)
{
    const int n = u->base.size;
    const int to = uid_peer(u, 1L << k), from = uid_peer(u, -(1L << k));
    const int out = u->out_fd[k], in = u->in_fd[k];
    const int expect = rbuf != NULL;
    uint64_t deadline = gshmemi_deadline_after(u->timeout);
    size_t sent = 0, got = 0, hdr_got = 0;
    struct gshmemi_uid_frame hdr;
    char why[120];
    int lost;

    while (sent < slen || (expect && (hdr_got < sizeof(hdr) || got < rlen))) {
        const int want_recv = expect && (hdr_got < sizeof(hdr) || got < rlen);
        /* `to` matters only while we owe it data: once served it may leave.
         * A loss elsewhere still reaches us, passed on by the partners. */
        struct pollfd p[2] = {
            {.fd = sent < slen ? out : -1, .events = POLLIN | POLLOUT},
            {.fd = want_recv ? in : -1, .events = POLLIN},
        };
        /* In slices, so that a node-local peer stopped or gone is noticed
         * (gshmemi_waiting) before the deadline. */
        int r = poll(p, 2, GSHMEMI_MIN(gshmemi_ms_left(deadline), 100));
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 && gshmemi_now_ns() < deadline) {
            char op[64];
            snprintf(op, sizeof(op), "the runtime's %s (bootstrap)", what);
            gshmemi_waiting(op);
            continue;
        }
        if (r <= 0) {
            if (r == 0)
                GSHMEMI_ERROR(BOOTSTRAP, "bootstrap %s timed out after %g s waiting for pe %d "
                              "(GSHMEM_BOOTSTRAP_TIMEOUT)", what, u->timeout,
                              want_recv ? from : to);
            return r == 0 ? GSHMEM_ERR_TIMEOUT : GSHMEM_ERR_IO;
        }
        /* Anything readable from `to` is an abort notice or its hang-up. */
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            struct gshmemi_uid_frame f;
            ssize_t got_f = recv(out, &f, sizeof(f), MSG_DONTWAIT);
            if (got_f == (ssize_t)sizeof(f) && f.kind == GSHMEMI_UID_FRAME_ABORT) {
                if (gshmemi_uid_frame_check(&f, 0, n, &lost, why, sizeof(why)) == 1)
                    return uid_lost(u, lost, to, what);
                GSHMEMI_ERROR(BOOTSTRAP, "bootstrap %s: pe %d sent %s", what, to, why);
                return GSHMEM_ERR_BOOTSTRAP;
            }
            if (got_f == 0 || (got_f < 0 && errno != EAGAIN && errno != EINTR))
                return uid_lost(u, to, -1, what);
        }
        if ((p[0].revents & POLLOUT) && sent < slen) {
            ssize_t w = send(out, (const char *)sbuf + sent, slen - sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0)
                sent += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EINTR)
                return uid_lost(u, to, -1, what);
        }
        if (want_recv && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const int in_hdr = hdr_got < sizeof(hdr);
            ssize_t got_r = in_hdr ? recv(in, (char *)&hdr + hdr_got, sizeof(hdr) - hdr_got,
                                          MSG_DONTWAIT)
                                   : recv(in, (char *)rbuf + got, rlen - got, MSG_DONTWAIT);
            if (got_r == 0 || (got_r < 0 && errno != EAGAIN && errno != EINTR))
                return uid_lost(u, from, -1, what);
            if (got_r > 0 && !in_hdr) {
                got += (size_t)got_r;
            } else if (got_r > 0 && (hdr_got += (size_t)got_r) == sizeof(hdr)) {
                int c = gshmemi_uid_frame_check(&hdr, rlen, n, &lost, why, sizeof(why));
                if (c == 1)
                    return uid_lost(u, lost, from, what);
                if (c != 0) {
                    GSHMEMI_ERROR(BOOTSTRAP, "bootstrap %s: pe %d sent %s%s", what, from, why,
                                  c == GSHMEM_ERR_ASYMMETRIC ? " (mismatched collective calls?)"
                                                             : "");
                    return c == GSHMEM_ERR_ASYMMETRIC ? c : GSHMEM_ERR_BOOTSTRAP;
                }
            }
        }
    }
    return 0;
}

/* Makes the scratch area at least `need` bytes. */
static int uid_scratch(struct uid_bootstrap *u, size_t need)
{
    if (u->scratch_len >= need)
        return 0;
    char *s = realloc(u->scratch, need);
    if (s == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    u->scratch = s;
    u->scratch_len = need;
    return 0;
}

/* Bruck's allgather: after round k a rank holds the blocks of the
 * min(2^(k+1), size) ranks ending at itself, nearest first; in round k it
 * sends the first min(2^k, size - 2^k) of them on, and receives as many
 * from rank - 2^k, which are the next ones back. */
static int uid_allgather(struct gshmemi_bootstrap *bs, const void *in, void *out, size_t len)
{
    struct uid_bootstrap *u = uid_of(bs);
    const int n = bs->size;
    const size_t hdr = sizeof(struct gshmemi_uid_frame);
    const size_t need = hdr + (size_t)n * len;

    memcpy((char *)out + (size_t)bs->rank * len, in, len);
    if (n == 1)
        return 0;
    GSHMEMI_CHECK(uid_scratch(u, need));
    char *held = u->scratch + hdr; /* held[j]: the block of rank - j */
    memcpy(held, in, len);
    for (int k = 0; k < u->rounds; k++) {
        const size_t have = (size_t)1 << k;
        const size_t count = GSHMEMI_MIN(have, (size_t)n - have);
        struct gshmemi_uid_frame f = {.kind = GSHMEMI_UID_FRAME_DATA, .lost_pe = -1,
                                      .len = count * len};
        memcpy(u->scratch, &f, hdr);
        GSHMEMI_CHECK(uid_exchange(u, k, u->scratch, hdr + count * len, held + have * len,
                                   count * len, "allgather"));
    }
    for (int j = 1; j < n; j++)
        memcpy((char *)out + (size_t)uid_peer(u, -j) * len, held + (size_t)j * len, len);
    return 0;
}

/* Bruck's alltoall: the block for rank me + j starts in slot j; in round k
 * every block whose slot has bit k set moves on to rank + 2^k, into the
 * same slot there, so after the last round slot j holds the block rank
 * me - j sent to this one.  (n/2) log2(n) blocks a rank, not n^2. */
static int uid_alltoall(struct gshmemi_bootstrap *bs, const void *in, void *out, size_t len)
{
    struct uid_bootstrap *u = uid_of(bs);
    const size_t n = (size_t)bs->size, hdr = sizeof(struct gshmemi_uid_frame);
    const size_t need = hdr + 3 * n * len;

    if (n == 1) {
        memcpy(out, in, len);
        return 0;
    }
    GSHMEMI_CHECK(uid_scratch(u, need));
    char *send = u->scratch + hdr, *slot = send + n * len, *recv = slot + n * len;
    for (size_t j = 0; j < n; j++)
        memcpy(slot + j * len, (const char *)in + (size_t)uid_peer(u, (long)j) * len, len);
    for (int k = 0; k < u->rounds; k++) {
        const size_t bit = (size_t)1 << k;
        size_t count = 0;
        for (size_t j = bit; j < n; j++)
            if (j & bit)
                memcpy(send + count++ * len, slot + j * len, len);
        struct gshmemi_uid_frame f = {.kind = GSHMEMI_UID_FRAME_DATA, .lost_pe = -1,
                                      .len = count * len};
        memcpy(u->scratch, &f, hdr);
        GSHMEMI_CHECK(uid_exchange(u, k, u->scratch, hdr + count * len, recv, count * len,
                                   "alltoall"));
        count = 0;
        for (size_t j = bit; j < n; j++)
            if (j & bit)
                memcpy(slot + j * len, recv + count++ * len, len);
    }
    for (size_t j = 0; j < n; j++)
        memcpy((char *)out + (size_t)uid_peer(u, -(long)j) * len, slot + j * len, len);
    return 0;
}

/* Dissemination: after round k a rank knows that the 2^(k+1) - 1 ranks
 * before it have arrived. */
static int uid_barrier(struct gshmemi_bootstrap *bs)
{
    struct uid_bootstrap *u = uid_of(bs);
    const struct gshmemi_uid_frame f = {.kind = GSHMEMI_UID_FRAME_DATA, .lost_pe = -1, .len = 1};
    char msg[sizeof(f) + 1];
    char token;

    memcpy(msg, &f, sizeof(f));
    msg[sizeof(f)] = 1;
    for (int k = 0; k < u->rounds; k++)
        GSHMEMI_CHECK(uid_exchange(u, k, msg, sizeof(msg), &token, 1, "barrier"));
    return 0;
}

static void uid_abort(struct gshmemi_bootstrap *bs, int status, const char *msg)
{
    (void)bs;
    (void)status;
    (void)msg; /* the core has ended local peers and told the launcher */
}

static void uid_close_links(struct uid_bootstrap *u)
{
    for (int k = 0; k < GSHMEMI_UID_MAX_ROUNDS; k++) {
        if (u->out_fd[k] >= 0)
            close(u->out_fd[k]);
        if (u->in_fd[k] >= 0)
            close(u->in_fd[k]);
        u->out_fd[k] = u->in_fd[k] = -1;
    }
}

static void uid_finalize(struct gshmemi_bootstrap *bs)
{
    struct uid_bootstrap *u = uid_of(bs);
    uid_close_links(u);
    free(u->scratch);
    free(u);
}

static const struct gshmemi_bootstrap_ops uid_ops = {
    .name = "uid",
    .allgather = uid_allgather,
    .alltoall = uid_alltoall,
    .barrier = uid_barrier,
    .abort = uid_abort,
    .finalize = uid_finalize,
};

/* Opens the link of every round: connects to rank + 2^k and says who it is. */
static int connect_links(struct uid_bootstrap *u, const union gshmemi_sockaddr *peer,
                         const struct gshmemi_uid_blob *blob, uint64_t deadline)
{
    for (int k = 0; k < u->rounds; k++) {
        struct gshmemi_uid_link_hello h = {.magic = GSHMEMI_UID_LINK_MAGIC,
                                           .rank = u->base.rank, .round = k};
        char text[80];
        memcpy(h.secret, blob->secret, sizeof(h.secret));
        int st = gshmemi_sock_connect(&peer[k], deadline, &u->out_fd[k]);
        if (st != 0) {
            GSHMEMI_ERROR(BOOTSTRAP, "cannot connect to pe %d at %s: %s", uid_peer(u, 1L << k),
                          gshmemi_sock_str(&peer[k], text, sizeof(text)),
                          gshmem_status_string(st));
            return st;
        }
        GSHMEMI_CHECK(gshmemi_sock_send(u->out_fd[k], &h, sizeof(h), deadline));
    }
    return 0;
}

/* Accepts connections until every rank - 2^k has linked to this one with
 * the secret; strangers are logged and dropped. */
static int accept_links(struct uid_bootstrap *u, int listen_fd,
                        const struct gshmemi_uid_blob *blob, uint64_t deadline)
{
    for (int missing = u->rounds; missing > 0;) {
        union gshmemi_sockaddr from;
        unsigned char h[sizeof(struct gshmemi_uid_link_hello)];
        char addr[80], why[120];
        int fd, k, st = gshmemi_sock_accept(listen_fd, deadline, &fd, &from);
        if (st != 0) {
            char who[120];
            int len = 0;
            who[0] = '\0';
            for (k = 0; k < u->rounds && len < (int)sizeof(who) - 16; k++)
                if (u->in_fd[k] < 0)
                    len += snprintf(who + len, sizeof(who) - (size_t)len, " %d",
                                    uid_peer(u, -(1L << k)));
            GSHMEMI_ERROR(BOOTSTRAP, "pe(s)%s never connected to this pe within %g s "
                          "(GSHMEM_BOOTSTRAP_TIMEOUT)", who, u->timeout);
            return st;
        }
        gshmemi_sock_str(&from, addr, sizeof(addr));
        st = gshmemi_sock_recv(fd, h, sizeof(h), gshmemi_deadline_after(2));
        if (st == 0)
            st = gshmemi_uid_link_hello_check(h, sizeof(h), blob->secret, u->base.rank,
                                              u->base.size, &k, why, sizeof(why));
        else
            snprintf(why, sizeof(why), "no hello");
        if (st == 0 && u->in_fd[k] >= 0) {
            snprintf(why, sizeof(why), "a second link for round %d", k);
            st = GSHMEM_ERR_INVALID_ARG;
        }
        if (st != 0) {
            GSHMEMI_WARN(BOOTSTRAP, "rank %d dropped a connection from %s: %s", u->base.rank,
                         addr, why);
            close(fd);
            continue;
        }
        u->in_fd[k] = fd;
        missing--;
    }
    return 0;
}

int gshmemi_bootstrap_uid_open(const gshmemx_uniqueid_t *uid, int rank, int size,
                               double timeout, struct gshmemi_bootstrap **out)
{
    struct gshmemi_uid_blob blob;
    union gshmemi_sockaddr root_addr, me_addr, peer[GSHMEMI_UID_MAX_ROUNDS];
    struct gshmemi_uid_root_hello hello;
    unsigned char reply[sizeof(struct gshmemi_uid_root_reply)];
    char text[80], msg[sizeof(((struct gshmemi_uid_root_reply *)0)->msg)], why[120];
    int root_status;
    int listen_fd = -1, root_fd = -1, st;
    uint64_t deadline = gshmemi_deadline_after(timeout);
    struct uid_bootstrap *u;

    if (gshmemi_uid_blob_check(uid->internal, sizeof(uid->internal), &blob, &root_addr, why,
                               sizeof(why)) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "rank %d: the unique id given to gshmemx_init_attr is %s",
                      rank, why);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (size <= 0 || rank < 0 || rank >= size) {
        GSHMEMI_ERROR(BOOTSTRAP, "rank %d of %d is out of range", rank, size);
        return GSHMEM_ERR_INVALID_ARG;
    }
    u = calloc(1, sizeof(*u));
    if (u == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    u->base.ops = &uid_ops;
    u->base.rank = rank;
    u->base.size = size;
    u->base.local_rank = -1;
    u->base.launcher_ctrl_fd = -1;
    u->rounds = gshmemi_uid_rounds(size);
    for (int k = 0; k < GSHMEMI_UID_MAX_ROUNDS; k++)
        u->out_fd[k] = u->in_fd[k] = -1;
    u->timeout = timeout;
    memcpy(u->base.secret, blob.secret, sizeof(blob.secret));
    u->base.job_id = gshmemi_hash64(blob.secret, sizeof(blob.secret), 0x6a6f62);

    /* Listen where the root's network is: loopback if it is on loopback. */
    GSHMEMI_CHECK_GOTO(gshmemi_sock_pick_addr(gshmemi_env.BOOTSTRAP_IFNAME,
                                              root_addr.sa.sa_family == AF_INET6 ? "ipv6" : "ipv4",
                                              gshmemi_sock_is_loopback(&root_addr), &me_addr),
                       st, err_free);
    GSHMEMI_CHECK_GOTO(gshmemi_sock_listen(&me_addr, &listen_fd), st, err_free);

    st = gshmemi_sock_connect(&root_addr, deadline, &root_fd);
    if (st != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "cannot reach the bootstrap root at %s: %s",
                      gshmemi_sock_str(&root_addr, text, sizeof(text)), gshmem_status_string(st));
        goto err_close_listen;
    }
    memset(&hello, 0, sizeof(hello));
    hello.magic = GSHMEMI_UID_MAGIC;
    memcpy(hello.secret, blob.secret, sizeof(hello.secret));
    hello.rank = rank;
    hello.nranks = size;
    gshmemi_sock_to_wire(&me_addr, &hello.listen);
    st = gshmemi_sock_send(root_fd, &hello, sizeof(hello), deadline);
    if (st == 0) /* the root's own deadline is the timeout too; give it time to explain */
        st = gshmemi_sock_recv(root_fd, reply, sizeof(reply),
                               gshmemi_deadline_after(timeout > 0 ? timeout + 5 : 0));
    close(root_fd);
    if (st != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "no answer from the bootstrap root at %s: %s",
                      gshmemi_sock_str(&root_addr, text, sizeof(text)), gshmem_status_string(st));
        goto err_close_listen;
    }
    st = gshmemi_uid_root_reply_check(reply, sizeof(reply), size, &root_status, peer, msg,
                                      sizeof(msg), why, sizeof(why));
    if (st != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "the bootstrap root at %s sent %s",
                      gshmemi_sock_str(&root_addr, text, sizeof(text)), why);
        goto err_close_listen;
    }
    if (root_status != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "the bootstrap root gave up: %s", msg);
        st = root_status;
        goto err_close_listen;
    }
    deadline = gshmemi_deadline_after(timeout);
    GSHMEMI_CHECK_GOTO(connect_links(u, peer, &blob, deadline), st, err_close_links);
    GSHMEMI_CHECK_GOTO(accept_links(u, listen_fd, &blob, deadline), st, err_close_links);
    close(listen_fd);
    GSHMEMI_INFO(BOOTSTRAP, "uid bootstrap up: rank %d of %d, %d rounds", rank, size, u->rounds);
    *out = &u->base;
    return 0;

err_close_links:
    uid_close_links(u);
err_close_listen:
    close(listen_fd);
err_free:
    free(u);
    return st;
}
