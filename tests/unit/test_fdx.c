/* The fd exchange between node-local PEs, in one process: two endpoints
 * swap memfds while strangers knock with the wrong secret, a stale tag and
 * a PE that is not in the exchange; only the right fds are taken. */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/util.h"
#include "heap/fdx.h"
#include "test_util.h"

static const unsigned char secret[16] = "0123456789abcdef";
static const uint64_t job = 42;

struct side {
    struct gshmemi_fdx x;
    int pe, peer, fd, got, status;
};

static void *exchange(void *p)
{
    struct side *s = p;
    s->status = gshmemi_fdx_exchange(&s->x, s->fd, 7, &s->peer, 1, &s->got, 10);
    return NULL;
}

/* Sends an fd to pe's socket with the given secret, tag and sender. */
static void knock(int pe, const unsigned char *sec, uint64_t tag, int from)
{
    struct {
        uint64_t magic;
        unsigned char secret[16];
        int32_t from_pe, pad;
        uint64_t tag;
    } msg = {0x786466686d687367ull, {0}, from, 0, tag};
    struct sockaddr_un sun;
    unsigned len;
    int fd = memfd_create("intruder", 0);
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&msg, sizeof(msg)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                        .msg_controllen = sizeof(cbuf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

    memcpy(msg.secret, sec, 16);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    gshmemi_fdx_sockaddr(gshmemi_hash64(secret, 16, job), pe, &sun, &len);
    int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    EXPECT(connect(s, (struct sockaddr *)&sun, len) == 0, "intruder connect");
    EXPECT(sendmsg(s, &mh, 0) == (ssize_t)sizeof(msg), "intruder send");
    close(s);
    close(fd);
}

int main(void)
{
    struct side a = {.pe = 0, .peer = 1}, b = {.pe = 1, .peer = 0};
    pthread_t ta, tb;
    unsigned char wrong[16];

    EXPECT(gshmemi_env_load() == 0, "env");
    /* The message check (what tests/fuzz/fuzz_fdx.c explores). */
    struct gshmemi_fdx_msg m = {.magic = GSHMEMI_FDX_MAGIC, .from_pe = 3, .tag = 7}, msg;
    unsigned char longer[sizeof(m) + 1] = {0};
    memcpy(m.secret, secret, 16);
    memcpy(longer, &m, sizeof(m));
    EXPECT(gshmemi_fdx_msg_check(&m, sizeof(m), secret, &msg) == 0 && msg.from_pe == 3, "a msg");
    EXPECT(gshmemi_fdx_msg_check(longer, sizeof(longer), secret, &msg) != 0, "a longer msg");
    m.from_pe = -1;
    EXPECT(gshmemi_fdx_msg_check(&m, sizeof(m), secret, &msg) != 0, "from pe -1");
    m.from_pe = 3;
    m.secret[15] ^= 1;
    EXPECT(gshmemi_fdx_msg_check(&m, sizeof(m), secret, &msg) != 0, "a wrong secret");
    memcpy(wrong, secret, 16);
    wrong[0] ^= 1;
    EXPECT(gshmemi_fdx_open(&a.x, secret, job, 0) == 0, "open 0");
    EXPECT(gshmemi_fdx_open(&b.x, secret, job, 1) == 0, "open 1");
    a.fd = memfd_create("a", 0);
    b.fd = memfd_create("b", 0);
    EXPECT(ftruncate(a.fd, 4096) == 0 && ftruncate(b.fd, 8192) == 0, "size");

    /* Strangers first: they are queued before the real peer. */
    knock(0, wrong, 7, 1); /* wrong secret */
    knock(0, secret, 6, 1); /* stale exchange */
    knock(0, secret, 7, 5); /* not a peer of this exchange */
    pthread_create(&ta, NULL, exchange, &a);
    pthread_create(&tb, NULL, exchange, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    EXPECT(a.status == 0 && b.status == 0, "status %d %d", a.status, b.status);
    /* Each side got the other's memfd: sizes tell them apart. */
    EXPECT(lseek(a.got, 0, SEEK_END) == 8192, "pe 0 got the wrong fd");
    EXPECT(lseek(b.got, 0, SEEK_END) == 4096, "pe 1 got the wrong fd");

    /* A peer that never sends: the error names it, within the deadline. */
    int got;
    int peer = 1;
    EXPECT(gshmemi_fdx_exchange(&a.x, a.fd, 8, &peer, 1, &got, 0.5) != 0, "no timeout");
    close(a.got);
    close(b.got);
    close(a.fd);
    close(b.fd);
    gshmemi_fdx_close(&a.x);
    gshmemi_fdx_close(&b.x);
    TEST_DONE();
}
