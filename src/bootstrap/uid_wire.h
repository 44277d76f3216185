/* The uid bootstrap's wire format and the checks of what arrives (uid.c
 * does the talking).  A rank sends the root a hello (the job secret, its
 * rank, the job's size, where it listens); the root answers each with a
 * reply (the next rank's address, or why it gave up).  Ranks then connect
 * to their next with a ring hello, and every ring message starts with a
 * frame header.  Both ends run the same build on the same kind of host:
 * fields are in host byte order.  Each check takes the bytes as they came
 * and says, in why, what is wrong with them; none trusts a field before it
 * has checked it. */
#ifndef GSHMEMI_BOOTSTRAP_UID_WIRE_H
#define GSHMEMI_BOOTSTRAP_UID_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "core/sock.h"

#define GSHMEMI_UID_MAGIC 0x3164697568736731ull /* "1gshuid1" */
#define GSHMEMI_UID_RING_MAGIC 0x676e697268736731ull

/* What a unique id holds (inside gshmemx_uniqueid_t). */
struct gshmemi_uid_blob {
    uint64_t magic;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    struct gshmemi_wire_addr root;
};
_Static_assert(sizeof(struct gshmemi_uid_blob) <= GSHMEMX_UNIQUEID_BYTES, "unique id too small");

struct gshmemi_uid_root_hello {
    uint64_t magic;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    int32_t rank;
    int32_t nranks;
    struct gshmemi_wire_addr listen;
};

struct gshmemi_uid_root_reply {
    int32_t status; /* 0 or a gshmem_status_t */
    int32_t pad;
    struct gshmemi_wire_addr next;
    char msg[240];
};

struct gshmemi_uid_ring_hello {
    uint64_t magic;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    int32_t rank;
    int32_t pad;
};

enum { GSHMEMI_UID_FRAME_DATA = 1, GSHMEMI_UID_FRAME_ABORT = 2 };
struct gshmemi_uid_ring_frame {
    uint32_t kind;
    int32_t lost_pe;
    uint64_t len;
};

/* Constant-time comparison of two job secrets. */
int gshmemi_uid_secret_equal(const unsigned char *a, const unsigned char *b);

/* Whether the n bytes of a unique id are one gshmemx_get_uniqueid made:
 * the magic, and a root address of a family this build speaks.  On
 * success the blob and the root's address; else the reason in why. */
int gshmemi_uid_blob_check(const void *id, size_t n, struct gshmemi_uid_blob *blob,
                           union gshmemi_sockaddr *root, char *why, size_t why_len);

/* The root's check of a hello (n bytes received): this job's magic and
 * secret, a rank within a positive size, a listening address.  0 or
 * GSHMEM_ERR_PERMISSION (not this job's: a stranger) or
 * GSHMEM_ERR_INVALID_ARG (this job's secret, but nonsense), with why. */
int gshmemi_uid_root_hello_check(const void *buf, size_t n,
                                 const unsigned char secret[GSHMEMI_SECRET_BYTES],
                                 struct gshmemi_uid_root_hello *h, char *why, size_t why_len);

/* A rank's check of the root's reply: a status that is 0 or a gshmem
 * error, and where it is 0 the next rank's address.  On success *status
 * is the root's status and msg (msg_len bytes) its message, terminated;
 * a reply that is neither gives GSHMEM_ERR_BOOTSTRAP with why. */
int gshmemi_uid_root_reply_check(const void *buf, size_t n, int *status,
                                 union gshmemi_sockaddr *next, char *msg, size_t msg_len,
                                 char *why, size_t why_len);

/* A ring hello from the rank expected (prev): as the root's check. */
int gshmemi_uid_ring_hello_check(const void *buf, size_t n,
                                 const unsigned char secret[GSHMEMI_SECRET_BYTES], int prev,
                                 char *why, size_t why_len);

/* A ring frame header where rlen payload bytes are expected, in a job of
 * size ranks: 0 for a data frame of that length, 1 for an abort notice
 * naming a PE of the job (*lost_pe); else GSHMEM_ERR_ASYMMETRIC (a data
 * frame of another length: mismatched collective calls) or
 * GSHMEM_ERR_INVALID_ARG, with why. */
int gshmemi_uid_ring_frame_check(const struct gshmemi_uid_ring_frame *f, size_t rlen, int size,
                                 int *lost_pe, char *why, size_t why_len);

#endif
