#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/sock.h"
#include "core/api.h"
#include "core/log.h"
#include "core/util.h"

int gshmemi_set_nonblock_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    return 0;
}

socklen_t gshmemi_sock_len(const union gshmemi_sockaddr *a)
{
    return a->sa.sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

int gshmemi_sock_is_loopback(const union gshmemi_sockaddr *a)
{
    if (a->sa.sa_family == AF_INET)
        return (ntohl(a->in.sin_addr.s_addr) >> 24) == 127;
    return IN6_IS_ADDR_LOOPBACK(&a->in6.sin6_addr);
}

const char *gshmemi_sock_str(const union gshmemi_sockaddr *a, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    if (a->sa.sa_family == AF_INET) {
        inet_ntop(AF_INET, &a->in.sin_addr, host, sizeof(host));
        snprintf(buf, len, "%s:%u", host, ntohs(a->in.sin_port));
    } else {
        inet_ntop(AF_INET6, &a->in6.sin6_addr, host, sizeof(host));
        snprintf(buf, len, "[%s]:%u", host, ntohs(a->in6.sin6_port));
    }
    return buf;
}

void gshmemi_sock_to_wire(const union gshmemi_sockaddr *a, struct gshmemi_wire_addr *w)
{
    memset(w, 0, sizeof(*w));
    if (a->sa.sa_family == AF_INET) {
        w->family = 4;
        w->port = a->in.sin_port;
        memcpy(w->addr, &a->in.sin_addr, 4);
    } else {
        w->family = 6;
        w->port = a->in6.sin6_port;
        w->scope_id = a->in6.sin6_scope_id;
        memcpy(w->addr, &a->in6.sin6_addr, 16);
    }
}

void gshmemi_sock_from_wire(const struct gshmemi_wire_addr *w, union gshmemi_sockaddr *a)
{
    memset(a, 0, sizeof(*a));
    if (w->family == 4) {
        a->in.sin_family = AF_INET;
        a->in.sin_port = w->port;
        memcpy(&a->in.sin_addr, w->addr, 4);
    } else {
        a->in6.sin6_family = AF_INET6;
        a->in6.sin6_port = w->port;
        a->in6.sin6_scope_id = w->scope_id;
        memcpy(&a->in6.sin6_addr, w->addr, 16);
    }
}

static int family_wanted(const char *family, int af)
{
    if (strcmp(family, "ipv4") == 0)
        return af == AF_INET;
    if (strcmp(family, "ipv6") == 0)
        return af == AF_INET6;
    return af == AF_INET || af == AF_INET6;
}

/* Chooses the local address to listen on: the named interface (prefix
 * match), else loopback when asked, else the first interface that is up and
 * not loopback; IPv4 before IPv6 within an interface unless told. */
int gshmemi_sock_pick_addr(const char *ifname, const char *family, int loopback,
                           union gshmemi_sockaddr *out)
{
    struct ifaddrs *ifs, *best = NULL;

    if (strcmp(family, "auto") != 0 && strcmp(family, "ipv4") != 0 &&
        strcmp(family, "ipv6") != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "GSHMEM_BOOTSTRAP_FAMILY is '%s': expected auto, ipv4 or ipv6",
                      family);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (getifaddrs(&ifs) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "getifaddrs failed: %s", strerror(errno));
        return GSHMEM_ERR_IO;
    }
    for (int pass = 0; pass < 2 && best == NULL; pass++) {
        /* pass 0: IPv4 preferred in auto; pass 1: anything allowed */
        for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
            if (i->ifa_addr == NULL || !(i->ifa_flags & IFF_UP))
                continue;
            int af = i->ifa_addr->sa_family;
            if (!family_wanted(family, af) || (pass == 0 && strcmp(family, "auto") == 0 && af != AF_INET))
                continue;
            int is_lo = (i->ifa_flags & IFF_LOOPBACK) != 0;
            if (ifname != NULL && ifname[0] != '\0') {
                if (strncmp(i->ifa_name, ifname, strlen(ifname)) != 0)
                    continue;
            } else if (is_lo != !!loopback) {
                continue;
            }
            if (af == AF_INET6 && !is_lo &&
                IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr) &&
                pass == 0)
                continue;
            best = i;
            break;
        }
    }
    if (best == NULL && (ifname == NULL || ifname[0] == '\0') && !loopback) {
        /* A machine with no network: fall back to loopback. */
        freeifaddrs(ifs);
        return gshmemi_sock_pick_addr(ifname, family, 1, out);
    }
    if (best == NULL) {
        GSHMEMI_ERROR(BOOTSTRAP, "no %s address found on interface '%s' (GSHMEM_BOOTSTRAP_IFNAME)",
                      strcmp(family, "auto") == 0 ? "IPv4 or IPv6" : family,
                      ifname != NULL && ifname[0] != '\0' ? ifname : loopback ? "loopback" : "any");
        freeifaddrs(ifs);
        return GSHMEM_ERR_INVALID_ARG;
    }
    memset(out, 0, sizeof(*out));
    memcpy(out, best->ifa_addr,
           best->ifa_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                 : sizeof(struct sockaddr_in));
    if (out->sa.sa_family == AF_INET6 && !IN6_IS_ADDR_LINKLOCAL(&out->in6.sin6_addr))
        out->in6.sin6_scope_id = 0;
    freeifaddrs(ifs);
    return 0;
}

int gshmemi_sock_listen(union gshmemi_sockaddr *addr, int *fd_out)
{
    char buf[80];
    int one = 1;
    socklen_t len = sizeof(*addr);
    int fd = socket(addr->sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "socket failed: %s", strerror(errno));
        return GSHMEM_ERR_IO;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (addr->sa.sa_family == AF_INET)
        addr->in.sin_port = 0;
    else
        addr->in6.sin6_port = 0;
    if (bind(fd, &addr->sa, gshmemi_sock_len(addr)) != 0 || listen(fd, 1024) != 0 ||
        getsockname(fd, &addr->sa, &len) != 0) {
        GSHMEMI_ERROR(BOOTSTRAP, "cannot listen on %s: %s", gshmemi_sock_str(addr, buf, sizeof(buf)),
                      strerror(errno));
        close(fd);
        return GSHMEM_ERR_IO;
    }
    *fd_out = fd;
    return 0;
}

static int wait_fd(int fd, short events, uint64_t deadline)
{
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        int n = poll(&p, 1, gshmemi_ms_left(deadline));
        if (n > 0)
            return 0;
        if (n == 0)
            return GSHMEM_ERR_TIMEOUT;
        if (errno != EINTR)
            return GSHMEM_ERR_IO;
    }
}

int gshmemi_sock_connect(const union gshmemi_sockaddr *addr, uint64_t deadline, int *fd_out)
{
    int one = 1;
    for (;;) {
        int fd = socket(addr->sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        int err = 0;
        socklen_t elen = sizeof(err);

        if (fd < 0)
            return GSHMEM_ERR_IO;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (connect(fd, &addr->sa, gshmemi_sock_len(addr)) == 0) {
            *fd_out = fd;
            return 0;
        }
        if (errno == EINPROGRESS) {
            int st = wait_fd(fd, POLLOUT, deadline);
            if (st != 0) {
                close(fd);
                return st;
            }
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
            if (err == 0) {
                *fd_out = fd;
                return 0;
            }
        } else {
            err = errno;
        }
        close(fd);
        if (err != ECONNREFUSED && err != ETIMEDOUT && err != EAGAIN && err != ECONNRESET)
            return GSHMEM_ERR_IO;
        if (gshmemi_now_ns() >= deadline)
            return GSHMEM_ERR_TIMEOUT;
        struct timespec ts = {0, 10 * 1000 * 1000}; /* the listener is not up yet */
        nanosleep(&ts, NULL);
    }
}

int gshmemi_sock_accept(int listen_fd, uint64_t deadline, int *fd_out, union gshmemi_sockaddr *peer)
{
    int one = 1;
    for (;;) {
        socklen_t len = sizeof(*peer);
        int fd = accept4(listen_fd, &peer->sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            *fd_out = fd;
            return 0;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
            return GSHMEM_ERR_IO;
        int st = wait_fd(listen_fd, POLLIN, deadline);
        if (st != 0)
            return st;
    }
}

/* A transfer's waits: the deadline counts from the last time data moved,
 * so one that keeps moving, however long, never times out, and one that
 * stalls does, as long after as the caller allowed at the start. */
struct stall {
    uint64_t deadline, span; /* span: deadline - the first wait's start */
    int waited, moved;
};

static int wait_moving(int fd, short events, struct stall *w)
{
    if (w->deadline != UINT64_MAX) {
        const uint64_t now = gshmemi_now_ns();
        if (!w->waited)
            w->span = w->deadline > now ? w->deadline - now : 0;
        else if (w->moved)
            w->deadline = now + w->span;
    }
    w->waited = 1;
    w->moved = 0;
    return wait_fd(fd, events, w->deadline);
}

/* Drops the first n bytes of the pair (a, b). */
static void skip_sent(const void **a, size_t *alen, const void **b, size_t *blen, size_t n)
{
    const size_t first = GSHMEMI_MIN(n, *alen);
    if (first > 0) { /* (either may be NULL where it has no bytes) */
        *a = (const char *)*a + first;
        *alen -= first;
    }
    if (n > first) {
        *b = (const char *)*b + (n - first);
        *blen -= n - first;
    }
}

int gshmemi_sock_send_some(int fd, const void *a, size_t alen, const void *b, size_t blen,
                           size_t *sent)
{
    *sent = 0;
    while (alen + blen > 0) {
        struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
        ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            *sent += (size_t)n;
            skip_sent(&a, &alen, &b, &blen, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
            return 0; /* full */
        return (errno == EPIPE || errno == ECONNRESET) ? GSHMEM_ERR_PEER_LOST : GSHMEM_ERR_IO;
    }
    return 0;
}

int gshmemi_sock_send2(int fd, const void *a, size_t alen, const void *b, size_t blen,
                       uint64_t deadline)
{
    struct stall w = {.deadline = deadline};
    for (;;) {
        size_t sent;
        int st = gshmemi_sock_send_some(fd, a, alen, b, blen, &sent);
        if (st != 0)
            return st;
        skip_sent(&a, &alen, &b, &blen, sent);
        if (alen + blen == 0)
            return 0;
        w.moved |= sent > 0;
        if ((st = wait_moving(fd, POLLOUT, &w)) != 0)
            return st;
    }
}

int gshmemi_sock_send(int fd, const void *buf, size_t len, uint64_t deadline)
{
    return gshmemi_sock_send2(fd, buf, len, NULL, 0, deadline);
}

int gshmemi_sock_recv(int fd, void *buf, size_t len, uint64_t deadline)
{
    size_t got;
    return gshmemi_sock_recv_some(fd, buf, len, len, deadline, &got);
}

int gshmemi_sock_recv_some(int fd, void *buf, size_t min, size_t max, uint64_t deadline,
                           size_t *got)
{
    char *p = buf;
    struct stall w = {.deadline = deadline};
    *got = 0;
    while (*got < min) {
        ssize_t n = recv(fd, p, max - *got, 0);
        if (n > 0) {
            p += n;
            *got += (size_t)n;
            w.moved = 1;
            continue;
        }
        if (n == 0)
            return GSHMEM_ERR_PEER_LOST;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            int st = wait_moving(fd, POLLIN, &w);
            if (st != 0)
                return st;
            continue;
        }
        return errno == ECONNRESET ? GSHMEM_ERR_PEER_LOST : GSHMEM_ERR_IO;
    }
    return 0;
}
