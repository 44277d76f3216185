/* The uid bootstrap's wire format and the checks of what arrives (uid.c
 * does the talking).  A rank sends the root a hello (the job secret, its
 * rank, the job's size, where it listens); the root answers each with a
 * reply (the addresses of its partners, or why it gave up).  Each rank
 * then connects to rank + 2^k for every round k with a link hello, and
 * every message on a link starts with a frame header.  Both ends run the
 * same build on the same kind of host: fields are in host byte order.
 * Each check takes the bytes as they came and says, in why, what is wrong
 * with them; none trusts a field before it has checked it. */
#ifndef GSHMEMI_BOOTSTRAP_UID_WIRE_H
#define GSHMEMI_BOOTSTRAP_UID_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "core/sock.h"

#define GSHMEMI_UID_MAGIC 0x3164697568736731ull /* "1gshuid1" */
#define GSHMEMI_UID_LINK_MAGIC 0x676e697268736731ull

/* The allgather and barrier run in rounds: in round k each rank sends to
 * rank + 2^k and receives from rank - 2^k (mod the size), 2^rounds >= size. */
#define GSHMEMI_UID_MAX_ROUNDS 31
static inline int gshmemi_uid_rounds(int size)
{
    int k = 0;
    while (k < GSHMEMI_UID_MAX_ROUNDS && (1L << k) < size)
        k++;
    return k;
}

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
    int32_t rounds; /* gshmemi_uid_rounds(size) */
    struct gshmemi_wire_addr peer[GSHMEMI_UID_MAX_ROUNDS]; /* [k]: where rank + 2^k listens */
    char msg[240];
};

/* What a rank sends first on the link it opens to rank + 2^round. */
struct gshmemi_uid_link_hello {
    uint64_t magic;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    int32_t rank;
    int32_t round;
};

enum { GSHMEMI_UID_FRAME_DATA = 1, GSHMEMI_UID_FRAME_ABORT = 2 };
struct gshmemi_uid_frame {
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

/* A rank's check of the root's reply in a job of size ranks: a status
 * that is 0 or a gshmem error, and where it is 0 the partners' addresses,
 * one for each of gshmemi_uid_rounds(size) rounds (into peer).  On
 * success *status is the root's status and msg (msg_len bytes) its
 * message, terminated; a reply that is neither gives GSHMEM_ERR_BOOTSTRAP
 * with why. */
int gshmemi_uid_root_reply_check(const void *buf, size_t n, int size, int *status,
                                 union gshmemi_sockaddr peer[GSHMEMI_UID_MAX_ROUNDS], char *msg,
                                 size_t msg_len, char *why, size_t why_len);

/* A link hello arriving at rank me of size: this job's magic and secret
 * (else GSHMEM_ERR_PERMISSION), from the rank that links to me in its
 * round (else GSHMEM_ERR_INVALID_ARG), with why; *round on success. */
int gshmemi_uid_link_hello_check(const void *buf, size_t n,
                                 const unsigned char secret[GSHMEMI_SECRET_BYTES], int me,
                                 int size, int *round, char *why, size_t why_len);

/* A frame header where rlen payload bytes are expected, in a job of size
 * ranks: 0 for a data frame of that length, 1 for an abort notice naming
 * a PE of the job (*lost_pe); else GSHMEM_ERR_ASYMMETRIC (a data frame of
 * another length: mismatched collective calls) or GSHMEM_ERR_INVALID_ARG,
 * with why. */
int gshmemi_uid_frame_check(const struct gshmemi_uid_frame *f, size_t rlen, int size,
                            int *lost_pe, char *why, size_t why_len);

#endif
