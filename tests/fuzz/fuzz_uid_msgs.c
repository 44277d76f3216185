/* The uid bootstrap's messages as they arrive from the network
 * (bootstrap/uid_wire.h): the root's hello, the root's reply, the ring
 * hello and the ring frame header.  The first byte picks the message, the
 * rest are its bytes (and, for the ring, the job's size and the expected
 * length); whatever a check accepts must be what the code after it relies
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
    union gshmemi_sockaddr next;
    char msg[240], why[120] = "", text[80];
    int status = 1;
    memset(msg, 'x', sizeof(msg));
    int st = gshmemi_uid_root_reply_check(d, n, &status, &next, msg, sizeof(msg), why,
                                          sizeof(why));
    if (st != 0) {
        FUZZ_CHECK(st == GSHMEM_ERR_BOOTSTRAP, "status %d", st);
        fuzz_check_why(why, sizeof(why));
        return;
    }
    FUZZ_CHECK(status <= 0 && strcmp(gshmem_status_string(status), "unknown status") != 0,
               "root status %d", status);
    FUZZ_CHECK(memchr(msg, '\0', sizeof(msg)) != NULL, "message not terminated");
    if (status == 0) {
        FUZZ_CHECK(next.sa.sa_family == AF_INET || next.sa.sa_family == AF_INET6, "family %d",
                   next.sa.sa_family);
        gshmemi_sock_str(&next, text, sizeof(text));
        FUZZ_CHECK(memchr(text, '\0', sizeof(text)) != NULL, "address text not terminated");
    }
}

static void ring_hello(const uint8_t *d, size_t n)
{
    char why[120] = "";
    int prev;
    if (n < 1)
        return;
    prev = d[0] % 8 - 1; /* -1 too: nobody valid */
    int st = gshmemi_uid_ring_hello_check(d + 1, n - 1, fuzz_secret, prev, why, sizeof(why));
    if (st != 0) {
        fuzz_check_why(why, sizeof(why));
        return;
    }
    struct gshmemi_uid_ring_hello h;
    FUZZ_CHECK(n - 1 == sizeof(h), "%zu bytes taken", n - 1);
    memcpy(&h, d + 1, sizeof(h));
    FUZZ_CHECK(h.magic == GSHMEMI_UID_RING_MAGIC && h.rank == prev &&
               memcmp(h.secret, fuzz_secret, sizeof(fuzz_secret)) == 0, "a stranger taken");
}

static void ring_frame(const uint8_t *d, size_t n)
{
    struct gshmemi_uid_ring_frame f;
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
    int k = gshmemi_uid_ring_frame_check(&f, rlen, size, &lost, why, sizeof(why));
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
    case 2: ring_hello(data + 1, size - 1); break;
    case 3: ring_frame(data + 1, size - 1); break;
    }
    return 0;
}
