/* The uid bootstrap's checks of what arrives from the network (uid_wire.h). */
#include <stdio.h>
#include <string.h>

#include <gshmem.h>

#include "bootstrap/uid_wire.h"

int gshmemi_uid_secret_equal(const unsigned char *a, const unsigned char *b)
{
    unsigned char diff = 0; /* constant time */
    for (int i = 0; i < GSHMEMI_SECRET_BYTES; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}

static int addr_check(const struct gshmemi_wire_addr *w, const char *what, char *why,
                      size_t why_len)
{
    if (w->family != 4 && w->family != 6) {
        snprintf(why, why_len, "%s of unknown address family %u", what, w->family);
        return -1;
    }
    return 0;
}

int gshmemi_uid_blob_check(const void *id, size_t n, struct gshmemi_uid_blob *blob,
                           union gshmemi_sockaddr *root, char *why, size_t why_len)
{
    struct gshmemi_uid_blob b;
    if (n < sizeof(b)) {
        snprintf(why, why_len, "%zu bytes, fewer than a unique id holds", n);
        return GSHMEM_ERR_INVALID_ARG;
    }
    memcpy(&b, id, sizeof(b));
    if (b.magic != GSHMEMI_UID_MAGIC) {
        snprintf(why, why_len, "not one gshmemx_get_uniqueid made");
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (addr_check(&b.root, "a root address", why, why_len) != 0)
        return GSHMEM_ERR_INVALID_ARG;
    gshmemi_sock_from_wire(&b.root, root);
    *blob = b;
    return 0;
}

int gshmemi_uid_root_hello_check(const void *buf, size_t n,
                                 const unsigned char secret[GSHMEMI_SECRET_BYTES],
                                 struct gshmemi_uid_root_hello *h, char *why, size_t why_len)
{
    struct gshmemi_uid_root_hello m;
    if (n != sizeof(m)) {
        snprintf(why, why_len, "a hello of %zu bytes", n);
        return GSHMEM_ERR_PERMISSION;
    }
    memcpy(&m, buf, sizeof(m));
    if (m.magic != GSHMEMI_UID_MAGIC || !gshmemi_uid_secret_equal(m.secret, secret)) {
        snprintf(why, why_len, m.magic != GSHMEMI_UID_MAGIC ? "not a gshmem hello"
                                                             : "wrong job secret");
        return GSHMEM_ERR_PERMISSION;
    }
    if (m.nranks <= 0 || m.rank < 0 || m.rank >= m.nranks) {
        snprintf(why, why_len, "rank %d of %d is invalid", m.rank, m.nranks);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (addr_check(&m.listen, "a listening address", why, why_len) != 0)
        return GSHMEM_ERR_INVALID_ARG;
    *h = m;
    return 0;
}

int gshmemi_uid_root_reply_check(const void *buf, size_t n, int size, int *status,
                                 union gshmemi_sockaddr peer[GSHMEMI_UID_MAX_ROUNDS], char *msg,
                                 size_t msg_len, char *why, size_t why_len)
{
    struct gshmemi_uid_root_reply r;
    if (n != sizeof(r)) {
        snprintf(why, why_len, "a reply of %zu bytes", n);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    memcpy(&r, buf, sizeof(r));
    if (r.status > 0 || r.status < GSHMEM_ERR_UNREACHABLE) {
        snprintf(why, why_len, "a reply of unknown status %d", r.status);
        return GSHMEM_ERR_BOOTSTRAP;
    }
    if (r.status == 0) {
        const int rounds = gshmemi_uid_rounds(size);
        if (r.rounds != rounds) {
            snprintf(why, why_len, "a reply of %d rounds where a job of %d has %d", r.rounds,
                     size, rounds);
            return GSHMEM_ERR_BOOTSTRAP;
        }
        for (int k = 0; k < rounds; k++)
            if (addr_check(&r.peer[k], "a partner's address", why, why_len) != 0)
                return GSHMEM_ERR_BOOTSTRAP;
        for (int k = 0; k < rounds; k++)
            gshmemi_sock_from_wire(&r.peer[k], &peer[k]);
    }
    r.msg[sizeof(r.msg) - 1] = '\0';
    if (msg_len > 0)
        snprintf(msg, msg_len, "%s", r.msg);
    *status = r.status;
    return 0;
}

int gshmemi_uid_link_hello_check(const void *buf, size_t n,
                                 const unsigned char secret[GSHMEMI_SECRET_BYTES], int me,
                                 int size, int *round, char *why, size_t why_len)
{
    struct gshmemi_uid_link_hello h;
    if (n != sizeof(h)) {
        snprintf(why, why_len, "a hello of %zu bytes", n);
        return GSHMEM_ERR_PERMISSION;
    }
    memcpy(&h, buf, sizeof(h));
    if (h.magic != GSHMEMI_UID_LINK_MAGIC || !gshmemi_uid_secret_equal(h.secret, secret)) {
        snprintf(why, why_len, h.magic != GSHMEMI_UID_LINK_MAGIC ? "not a gshmem hello"
                                                                  : "wrong job secret");
        return GSHMEM_ERR_PERMISSION;
    }
    if (h.rank < 0 || h.rank >= size || h.round < 0 || h.round >= gshmemi_uid_rounds(size) ||
        (int)(((long)h.rank + (1L << h.round)) % size) != me) {
        snprintf(why, why_len, "a hello from rank %d for round %d, which does not link to rank "
                 "%d of %d", h.rank, h.round, me, size);
        return GSHMEM_ERR_INVALID_ARG;
    }
    *round = h.round;
    return 0;
}

int gshmemi_uid_frame_check(const struct gshmemi_uid_frame *f, size_t rlen, int size,
                            int *lost_pe, char *why, size_t why_len)
{
    switch (f->kind) {
    case GSHMEMI_UID_FRAME_DATA:
        if (f->len != rlen) {
            snprintf(why, why_len, "%llu bytes where %zu were expected",
                     (unsigned long long)f->len, rlen);
            return GSHMEM_ERR_ASYMMETRIC;
        }
        return 0;
    case GSHMEMI_UID_FRAME_ABORT:
        if (f->lost_pe < 0 || f->lost_pe >= size) {
            snprintf(why, why_len, "an abort notice naming pe %d of %d", f->lost_pe, size);
            return GSHMEM_ERR_INVALID_ARG;
        }
        *lost_pe = f->lost_pe;
        return 1;
    default:
        snprintf(why, why_len, "a frame of unknown kind %u", f->kind);
        return GSHMEM_ERR_INVALID_ARG;
    }
}
