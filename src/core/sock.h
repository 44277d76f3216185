/* TCP and Unix socket helpers with deadlines: every wait is poll()ed with
 * the time left, never a blocking call. */
#ifndef GSHMEMI_CORE_SOCK_H
#define GSHMEMI_CORE_SOCK_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

union gshmemi_sockaddr {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
    struct sockaddr_storage ss;
};

/* Address as it travels in messages and unique ids. */
struct gshmemi_wire_addr {
    uint16_t family; /* 4 or 6 */
    uint16_t port;   /* network order */
    uint32_t scope_id;
    uint8_t addr[16];
};

int gshmemi_sock_pick_addr(const char *ifname, const char *family, int loopback,
                           union gshmemi_sockaddr *out);
int gshmemi_sock_is_loopback(const union gshmemi_sockaddr *a);
void gshmemi_sock_to_wire(const union gshmemi_sockaddr *a, struct gshmemi_wire_addr *w);
void gshmemi_sock_from_wire(const struct gshmemi_wire_addr *w, union gshmemi_sockaddr *a);
socklen_t gshmemi_sock_len(const union gshmemi_sockaddr *a);
const char *gshmemi_sock_str(const union gshmemi_sockaddr *a, char *buf, size_t len);

/* Listens on addr (port 0 picks one); writes back the bound address. */
int gshmemi_sock_listen(union gshmemi_sockaddr *addr, int *fd_out);
/* Connects, retrying refused connections until the deadline. */
int gshmemi_sock_connect(const union gshmemi_sockaddr *addr, uint64_t deadline, int *fd_out);
int gshmemi_sock_accept(int listen_fd, uint64_t deadline, int *fd_out,
                        union gshmemi_sockaddr *peer);

/* Return 0, GSHMEM_ERR_TIMEOUT, GSHMEM_ERR_PEER_LOST (closed or reset) or
 * GSHMEM_ERR_IO; they do not log: the caller knows whom it talked to.  The
 * deadline is for a stall: each time data moves, the time left is what it
 * was at the first wait. */
int gshmemi_sock_send(int fd, const void *buf, size_t len, uint64_t deadline);
/* a then b, in one system call where the socket takes both (one segment
 * for a small frame and its payload; no separate segment for a header) */
int gshmemi_sock_send2(int fd, const void *a, size_t alen, const void *b, size_t blen,
                       uint64_t deadline);
/* What of a then b the socket takes now, without waiting (*sent bytes;
 * fewer where it is full). */
int gshmemi_sock_send_some(int fd, const void *a, size_t alen, const void *b, size_t blen,
                           size_t *sent);
int gshmemi_sock_recv(int fd, void *buf, size_t len, uint64_t deadline);
/* Receives at least min and at most max bytes; *got says how many. */
int gshmemi_sock_recv_some(int fd, void *buf, size_t min, size_t max, uint64_t deadline,
                           size_t *got);

int gshmemi_set_nonblock_cloexec(int fd);

#endif
