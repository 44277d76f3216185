/* The uid bootstrap's messages as they arrive from the network
 * (bootstrap/uid_wire.h): the root's hello, the root's reply, the link
 * hello and the frame header.  The first byte picks the message, the rest
 * are its bytes (and the job's size, the receiving rank or the expected
 * length where the check needs them); whatever a check accepts must be what the code after it relies
 * on. */
#include <stdint.h>

#include <gshmem.h>

#include "bootstrap/uid_wire.h"
#include "fuzz.h"

static void root_hello(const uint8_t *d, size_t n)
{
    struct gshmemi_uid_root_hello h;
    char why[120] = "";
    int st = gshmemi_uid_root_hello_check(d, n, fuzz_secret, &h, why, sizeof(why));
    if (st != 0) {
        FUZZ_CHECK(st == GSHMEM_ERR_PERMISSION || st == GSHMEM_ERR_INVALID_ARG, "status %d", st);
        fuzz_check_why(why, sizeof(why));
        return;
    }
    FUZZ_CHECK(n == sizeof(h) && h.magic == GSHMEMI_UID_MAGIC, "not a hello");
    FUZZ_CHECK(memcmp(h.secret, fuzz_secret, sizeof(fuzz_secret)) == 0, "wrong secret taken");
    FUZZ_CHECK(h.nranks > 0 && h.rank >= 0 && h.rank < h.nranks, "rank %d of %d", h.rank,
               h.nranks);
    FUZZ_CHECK(h.listen.family == 4 || h.listen.family == 6, "family %u", h.listen.family);
}

static void root_reply(const uint8_t *d, size_t n)
{
    union gshmemi_sockaddr peer[GSHMEMI_UID_MAX_ROUNDS];
    char msg[240], why[120] = "", text[80];
    int status = 1;
    if (n < 1)
        return;
    const int size = d[0] % 40 + 1;
    memset(msg, 'x', sizeof(msg));
    int st = gshmemi_uid_root_reply_check(d + 1, n - 1, size, &status, peer, msg, sizeof(msg),
                                          why, sizeof(why));
    if (st != 0) {
        FUZZ_CHECK(st == GSHMEM_ERR_BOOTSTRAP, "status %d", st);
        fuzz_check_why(why, sizeof(why));
        return;
    }
    FUZZ_CHECK(status <= 0 && strcmp(gshmem_status_string(status), "unknown status") != 0,
               "root status %d", status);
    FUZZ_CHECK(memchr(msg, '\0', sizeof(msg)) != NULL, "message not terminated");
    if (status == 0) {
        for (int k = 0; k < gshmemi_uid_rounds(size); k++) {
            FUZZ_CHECK(peer[k].sa.sa_family == AF_INET || peer[k].sa.sa_family == AF_INET6,
                       "family %d", peer[k].sa.sa_family);
            gshmemi_sock_str(&peer[k], text, sizeof(text));
            FUZZ_CHECK(memchr(text, '\0', sizeof(text)) != NULL, "address text not terminated");
        }
    }
}

static void link_hello(const uint8_t *d, size_t n)
{
    char why[120] = "";
    int round = -7;
    if (n < 2)
        return;
    const int size = d[0] % 40 + 1, me = d[1] % 41 - 1; /* -1 and size too: nobody valid */
    int st = gshmemi_uid_link_hello_check(d + 2, n - 2, fuzz_secret, me, size, &round, why,
                                          sizeof(why));
    if (st != 0) {
        FUZZ_CHECK(st == GSHMEM_ERR_PERMISSION || st == GSHMEM_ERR_INVALID_ARG, "status %d", st);
        fuzz_check_why(why, sizeof(why));
        return;
    }
    struct gshmemi_uid_link_hello h;
    FUZZ_CHECK(n - 2 == sizeof(h), "%zu bytes taken", n - 2);
    memcpy(&h, d + 2, sizeof(h));
    FUZZ_CHECK(h.magic == GSHMEMI_UID_LINK_MAGIC &&
               memcmp(h.secret, fuzz_secret, sizeof(fuzz_secret)) == 0, "a stranger taken");
    FUZZ_CHECK(round == h.round && round >= 0 && round < gshmemi_uid_rounds(size) &&
               h.rank >= 0 && h.rank < size && (h.rank + (1 << round)) % size == me,
               "rank %d round %d taken for rank %d of %d", h.rank, round, me, size);
}

static void frame(const uint8_t *d, size_t n)
{
    struct gshmemi_uid_frame f;
    uint32_t rlen;
    uint16_t size;
    char why[120] = "";
    int lost = -7;
    if (n < sizeof(f) + sizeof(rlen) + sizeof(size))
        return;
    memcpy(&f, d, sizeof(f));
    memcpy(&rlen, d + sizeof(f), sizeof(rlen));
    memcpy(&size, d + sizeof(f) + sizeof(rlen), sizeof(size));
    size = (uint16_t)(size % 4096 + 1);
    int k = gshmemi_uid_frame_check(&f, rlen, size, &lost, why, sizeof(why));
    if (k == 0) {
        FUZZ_CHECK(f.kind == GSHMEMI_UID_FRAME_DATA && f.len == rlen, "frame taken");
    } else if (k == 1) {
        FUZZ_CHECK(f.kind == GSHMEMI_UID_FRAME_ABORT, "kind %u", f.kind);
        FUZZ_CHECK(lost >= 0 && lost < size, "lost pe %d of %d", lost, size);
    } else {
        FUZZ_CHECK(k == GSHMEM_ERR_ASYMMETRIC || k == GSHMEM_ERR_INVALID_ARG, "status %d", k);
        fuzz_check_why(why, sizeof(why));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    switch (data[0] % 4) {
    case 0: root_hello(data + 1, size - 1); break;
    case 1: root_reply(data + 1, size - 1); break;
    case 2: link_hello(data + 1, size - 1); break;
    case 3: frame(data + 1, size - 1); break;
    }
    return 0;
}
