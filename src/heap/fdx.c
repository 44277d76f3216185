#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/log.h"
#include "core/util.h"
#include "heap/fdx.h"

int gshmemi_fdx_msg_check(const void *buf, size_t n, const unsigned char secret[16],
                          struct gshmemi_fdx_msg *msg)
{
    struct gshmemi_fdx_msg m;
    unsigned char diff = 0; /* constant time */
    if (n != sizeof(m))
        return -1;
    memcpy(&m, buf, sizeof(m));
    for (size_t i = 0; i < sizeof(m.secret); i++)
        diff |= m.secret[i] ^ secret[i];
    if (m.magic != GSHMEMI_FDX_MAGIC || diff != 0 || m.from_pe < 0)
        return -1;
    *msg = m;
    return 0;
}

int gshmemi_fdx_sockaddr(uint64_t name_key, int pe, void *out, unsigned *len)
{
    struct sockaddr_un *sun = out;
    memset(sun, 0, sizeof(*sun));
    sun->sun_family = AF_UNIX;
    /* sun_path[0] = 0: the abstract namespace */
    int n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "gshmem-%016llx-%d",
                     (unsigned long long)name_key, pe);
    *len = (unsigned)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    return 0;
}

int gshmemi_fdx_open(struct gshmemi_fdx *x, const unsigned char secret[16], uint64_t job_id,
                     int my_pe)
{
    struct sockaddr_un sun;
    unsigned len;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0) {
        GSHMEMI_ERROR(HEAP, "socket(AF_UNIX) failed: %s", strerror(errno));
        return GSHMEM_ERR_IO;
    }
    x->my_pe = my_pe;
    memcpy(x->secret, secret, sizeof(x->secret));
    x->name_key = gshmemi_hash64(secret, 16, job_id);
    gshmemi_fdx_sockaddr(x->name_key, my_pe, &sun, &len);
    if (bind(fd, (struct sockaddr *)&sun, len) != 0 || listen(fd, 4096) != 0) {
        GSHMEMI_ERROR(HEAP, "cannot listen on the abstract socket @%s: %s", sun.sun_path + 1,
                      strerror(errno));
        close(fd);
        return GSHMEM_ERR_IO;
    }
    x->listen_fd = fd;
    return 0;
}

void gshmemi_fdx_close(struct gshmemi_fdx *x)
{
    if (x->listen_fd >= 0)
        close(x->listen_fd);
    x->listen_fd = -1;
}

static int send_fd(struct gshmemi_fdx *x, int pe, int fd_to_send, uint64_t tag, uint64_t deadline)
{
    struct sockaddr_un sun;
    unsigned len;
    struct gshmemi_fdx_msg msg = {.magic = GSHMEMI_FDX_MAGIC, .from_pe = x->my_pe, .tag = tag};
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = &msg, .iov_len = sizeof(msg)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                        .msg_controllen = sizeof(cbuf)};
    struct cmsghdr *c;

    memcpy(msg.secret, x->secret, sizeof(msg.secret));
    memset(cbuf, 0, sizeof(cbuf));
    c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd_to_send, sizeof(int));
    gshmemi_fdx_sockaddr(x->name_key, pe, &sun, &len);

    for (;;) {
        int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (s < 0)
            return GSHMEM_ERR_IO;
        if (connect(s, (struct sockaddr *)&sun, len) == 0) {
            ssize_t n = sendmsg(s, &mh, MSG_NOSIGNAL);
            int err = errno;
            close(s);
            if (n == (ssize_t)sizeof(msg))
                return 0;
            GSHMEMI_ERROR(HEAP, "cannot send a heap handle to pe %d: %s", pe, strerror(err));
            return GSHMEM_ERR_IO;
        }
        int err = errno;
        close(s);
        /* Refused: the peer has not opened its socket yet. */
        if ((err != ECONNREFUSED && err != ENOENT && err != EAGAIN) ||
            gshmemi_now_ns() >= deadline) {
            GSHMEMI_ERROR(HEAP, "cannot reach pe %d's handle socket: %s", pe,
                          err == ECONNREFUSED ? "nobody listening" : strerror(err));
            return err == ECONNREFUSED ? GSHMEM_ERR_PEER_LOST : GSHMEM_ERR_IO;
        }
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Accepts one connection and reads its message; 1 (logged, dropped) when
 * it is not a PE of this job presenting the secret. */
static int recv_one(struct gshmemi_fdx *x, uint64_t deadline, struct gshmemi_fdx_msg *msg,
                    int *fd_out)
{
    struct ucred cred = {.pid = 0};
    socklen_t clen = sizeof(cred);
    char cbuf[CMSG_SPACE(sizeof(int) * 4)];
    unsigned char buf[sizeof(*msg) + 1]; /* + 1: a longer message is seen as such */
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                        .msg_controllen = sizeof(cbuf)};
    int fd = -1, s;
    ssize_t n;

    for (;;) {
        s = accept4(x->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (s >= 0)
            break;
        if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
            return GSHMEM_ERR_IO;
        struct pollfd p = {.fd = x->listen_fd, .events = POLLIN};
        int k = poll(&p, 1, gshmemi_ms_left(deadline));
        if (k == 0)
            return GSHMEM_ERR_TIMEOUT;
    }
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 || cred.uid != geteuid()) {
        GSHMEMI_WARN(HEAP, "dropped a handle connection from pid %d: uid %d is not ours",
                     (int)cred.pid, (int)cred.uid);
        close(s);
        return 1;
    }
    struct pollfd p = {.fd = s, .events = POLLIN};
    if (poll(&p, 1, GSHMEMI_MIN(gshmemi_ms_left(deadline), 2000)) <= 0) {
        GSHMEMI_WARN(HEAP, "dropped a handle connection from pid %d: no message", (int)cred.pid);
        close(s);
        return 1;
    }
    n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
    close(s);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < nfds; i++) {
                int f;
                memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (fd < 0)
                    fd = f;
                else
                    close(f);
            }
        }
    }
    if (n < 0 || gshmemi_fdx_msg_check(buf, (size_t)n, x->secret, msg) != 0 || fd < 0) {
        GSHMEMI_WARN(HEAP, "dropped a handle connection from pid %d: wrong job secret or "
                     "malformed message", (int)cred.pid);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    *fd_out = fd;
    return 0;
}

int gshmemi_fdx_exchange(struct gshmemi_fdx *x, int my_fd, uint64_t tag, const int *peers,
                         int npeers, int *fds_out, double timeout)
{
    uint64_t deadline = gshmemi_deadline_after(timeout);
    int received = 0, st = 0;

    for (int i = 0; i < npeers; i++)
        fds_out[i] = -1;
    for (int i = 0; i < npeers; i++)
        GSHMEMI_CHECK_GOTO(send_fd(x, peers[i], my_fd, tag, deadline), st, err_close);
    while (received < npeers) {
        struct gshmemi_fdx_msg msg;
        int fd, idx = -1;
        st = recv_one(x, deadline, &msg, &fd);
        if (st == GSHMEM_ERR_TIMEOUT) {
            for (int i = 0; i < npeers; i++)
                if (fds_out[i] < 0) {
                    GSHMEMI_ERROR(HEAP, "pe %d sent no heap handle within %g s", peers[i],
                                  timeout);
                    break;
                }
            goto err_close;
        }
        if (st != 0) {
            if (st == 1)
                continue;
            goto err_close;
        }
        for (int i = 0; i < npeers; i++)
            if (peers[i] == msg.from_pe)
                idx = i;
        if (idx < 0 || fds_out[idx] >= 0 || msg.tag != tag) {
            GSHMEMI_WARN(HEAP, "dropped a heap handle from pe %d: %s", msg.from_pe,
                         idx < 0 ? "not a peer of this exchange"
                                 : msg.tag != tag ? "stale exchange" : "duplicate");
            close(fd);
            continue;
        }
        fds_out[idx] = fd;
        received++;
    }
    return 0;

err_close:
    for (int i = 0; i < npeers; i++)
        if (fds_out[i] >= 0) {
            close(fds_out[i]);
            fds_out[i] = -1;
        }
    return st;
}
