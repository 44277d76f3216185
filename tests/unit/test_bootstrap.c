/* The uid bootstrap in one process: ranks are threads.  Checks the unique id
 * codec, allgather/barrier/alltoall/bcast values, that strangers without the secret
 * are dropped without disturbing the job, and that a rank that never comes
 * is named in the error. */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/uid_wire.h"
#include "core/env.h"
#include "core/log.h"
#include "test_util.h"

#define MAX_RANKS 9
#define BLOCK 200
#define A2A 11 /* bytes of each alltoall block */

struct rank_arg {
    gshmemx_uniqueid_t uid;
    int rank, size;
    double timeout;
    int status;
    int checked;
};

static void *rank_main(void *p)
{
    struct rank_arg *a = p;
    struct gshmemi_bootstrap *bs;
    unsigned char in[BLOCK], out[MAX_RANKS * BLOCK];

    a->status = gshmemi_bootstrap_uid_open(&a->uid, a->rank, a->size, a->timeout, &bs);
    if (a->status != 0)
        return NULL;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < BLOCK; i++)
            in[i] = (unsigned char)(a->rank * 31 + i * 7 + round);
        memset(out, 0xee, sizeof(out));
        if ((a->status = bs->ops->allgather(bs, in, out, BLOCK)) != 0)
            break;
        for (int r = 0; r < a->size; r++)
            for (int i = 0; i < BLOCK; i++)
                if (out[r * BLOCK + i] != (unsigned char)(r * 31 + i * 7 + round))
                    a->status = -100;
        if ((a->status = a->status ? a->status : bs->ops->barrier(bs)) != 0)
            break;
        /* alltoall: rank r's block for rank j is made of (r, j, round) */
        unsigned char to[MAX_RANKS * A2A], from[MAX_RANKS * A2A];
        for (int j = 0; j < a->size; j++)
            for (int i = 0; i < A2A; i++)
                to[j * A2A + i] = (unsigned char)(a->rank * 13 + j * 5 + i + round);
        memset(from, 0xee, sizeof(from));
        /* odd rounds: the generic form the other backends get (no alltoall of their own) */
        const struct gshmemi_bootstrap_ops *ops = bs->ops;
        struct gshmemi_bootstrap_ops generic = *ops;
        generic.alltoall = NULL;
        if (round % 2)
            bs->ops = &generic;
        a->status = gshmemi_bootstrap_alltoall(bs, to, from, A2A);
        bs->ops = ops;
        if (a->status != 0)
            break;
        for (int r = 0; r < a->size; r++)
            for (int i = 0; i < A2A; i++)
                if (from[r * A2A + i] != (unsigned char)(r * 13 + a->rank * 5 + i + round))
                    a->status = -102;
        if (a->status != 0)
            break;
        const int root = a->size > 2 ? 2 : a->size - 1;
        uint64_t v = a->rank == root ? 0xfeedfaceull + (uint64_t)round : 0;
        if ((a->status = gshmemi_bootstrap_bcast(bs, &v, sizeof(v), root)) != 0)
            break;
        if (v != 0xfeedfaceull + (uint64_t)round)
            a->status = -101;
        a->checked++;
    }
    gshmemi_bootstrap_close(bs);
    return NULL;
}

/* Connects to the root and sends bytes that look like a hello with a wrong secret. */
static void intrude(const gshmemx_uniqueid_t *uid, int send_garbage)
{
    char text[80], host[64];
    int port;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    EXPECT(gshmemi_uid_root_address(uid, text, sizeof(text)) == 0, "root address");
    EXPECT(sscanf(text, "%63[^:]:%d", host, &port) == 2, "parse %s", text);
    sa.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    EXPECT(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "intruder connect");
    if (send_garbage) {
        unsigned char junk[sizeof(gshmemx_uniqueid_t)];
        memcpy(junk, uid->internal, sizeof(junk)); /* right magic ... */
        junk[9] ^= 0x5a;                          /* ... wrong secret */
        EXPECT(write(fd, junk, 64) == 64, "intruder write");
    }
    close(fd);
}

static void run_job(int nranks, int start, double root_timeout, int intruders, int expect_ok)
{
    struct gshmemi_uid_root *root;
    struct rank_arg args[MAX_RANKS];
    pthread_t th[MAX_RANKS];
    gshmemx_uniqueid_t uid;

    EXPECT(gshmemi_uid_root_start(1, 0, root_timeout, &uid, &root) == 0, "root start");
    for (int i = 0; i < intruders; i++)
        intrude(&uid, i % 2 == 0);
    for (int r = 0; r < start; r++) {
        args[r] = (struct rank_arg){.uid = uid, .rank = r, .size = nranks, .timeout = 10};
        pthread_create(&th[r], NULL, rank_main, &args[r]);
    }
    for (int r = 0; r < start; r++) {
        pthread_join(th[r], NULL);
        if (expect_ok)
            EXPECT(args[r].status == 0 && args[r].checked == 20,
                   "rank %d: status %d after %d rounds", r, args[r].status, args[r].checked);
        else
            EXPECT(args[r].status == GSHMEM_ERR_TIMEOUT, "rank %d: status %d, expected a timeout",
                   r, args[r].status);
    }
    if (expect_ok)
        EXPECT(gshmemi_uid_root_join(root) == 0, "root status");
    else
        EXPECT(gshmemi_uid_root_join(root) == GSHMEM_ERR_TIMEOUT, "root status");
}

/* The checks of what arrives (uid_wire.h), on messages made by hand: what
 * the fuzzer (tests/fuzz/fuzz_uid_msgs.c) explores, at its edges. */
static void wire_checks(void)
{
    const unsigned char secret[GSHMEMI_SECRET_BYTES] = "0123456789abcde";
    union gshmemi_sockaddr a;
    char why[120], msg[240];
    int status, lost = -1;

    struct gshmemi_uid_blob blob = {.magic = GSHMEMI_UID_MAGIC, .root = {.family = 4}}, b2;
    EXPECT(gshmemi_uid_blob_check(&blob, sizeof(blob), &b2, &a, why, sizeof(why)) == 0 &&
           a.sa.sa_family == AF_INET, "an id");
    blob.root.family = 5;
    EXPECT(gshmemi_uid_blob_check(&blob, sizeof(blob), &b2, &a, why, sizeof(why)) != 0 &&
           strstr(why, "family 5") != NULL, "an id of family 5: %s", why);
    EXPECT(gshmemi_uid_blob_check(&blob, 8, &b2, &a, why, sizeof(why)) != 0, "a short id");

    struct gshmemi_uid_root_hello h = {.magic = GSHMEMI_UID_MAGIC, .rank = 3, .nranks = 4,
                                       .listen = {.family = 6}}, got;
    memcpy(h.secret, secret, sizeof(h.secret));
    EXPECT(gshmemi_uid_root_hello_check(&h, sizeof(h), secret, &got, why, sizeof(why)) == 0,
           "a hello");
    EXPECT(gshmemi_uid_root_hello_check(&h, sizeof(h) - 1, secret, &got, why, sizeof(why)) ==
           GSHMEM_ERR_PERMISSION, "a short hello");
    h.listen.family = 0;
    EXPECT(gshmemi_uid_root_hello_check(&h, sizeof(h), secret, &got, why, sizeof(why)) ==
           GSHMEM_ERR_INVALID_ARG, "a hello of family 0");
    h.listen.family = 4;
    h.rank = 4;
    EXPECT(gshmemi_uid_root_hello_check(&h, sizeof(h), secret, &got, why, sizeof(why)) ==
           GSHMEM_ERR_INVALID_ARG && strcmp(why, "rank 4 of 4 is invalid") == 0, "%s", why);
    h.secret[3] ^= 1;
    EXPECT(gshmemi_uid_root_hello_check(&h, sizeof(h), secret, &got, why, sizeof(why)) ==
           GSHMEM_ERR_PERMISSION && strcmp(why, "wrong job secret") == 0, "%s", why);
    h.magic = 0;
    EXPECT(gshmemi_uid_root_hello_check(&h, sizeof(h), secret, &got, why, sizeof(why)) ==
           GSHMEM_ERR_PERMISSION && strcmp(why, "not a gshmem hello") == 0, "%s", why);

    union gshmemi_sockaddr peer[GSHMEMI_UID_MAX_ROUNDS];
    struct gshmemi_uid_root_reply r = {.status = GSHMEM_ERR_TIMEOUT};
    memset(r.msg, 'm', sizeof(r.msg)); /* unterminated */
    EXPECT(gshmemi_uid_root_reply_check(&r, sizeof(r), 4, &status, peer, msg, sizeof(msg), why,
                                        sizeof(why)) == 0 &&
           status == GSHMEM_ERR_TIMEOUT && strlen(msg) == sizeof(msg) - 1, "a gave-up reply");
    r.status = 5;
    EXPECT(gshmemi_uid_root_reply_check(&r, sizeof(r), 4, &status, peer, msg, sizeof(msg), why,
                                        sizeof(why)) == GSHMEM_ERR_BOOTSTRAP,
           "a reply of status 5");
    r = (struct gshmemi_uid_root_reply){.rounds = 3};
    for (int k = 0; k < 3; k++)
        r.peer[k] = (struct gshmemi_wire_addr){.family = 4, .port = (uint16_t)htons(1000 + k)};
    EXPECT(gshmemi_uid_root_reply_check(&r, sizeof(r), 5, &status, peer, msg, sizeof(msg), why,
                                        sizeof(why)) == 0 && status == 0 &&
           ntohs(peer[2].in.sin_port) == 1002, "a reply for 5 ranks: %s", why);
    EXPECT(gshmemi_uid_root_reply_check(&r, sizeof(r), 4, &status, peer, msg, sizeof(msg), why,
                                        sizeof(why)) == GSHMEM_ERR_BOOTSTRAP &&
           strstr(why, "3 rounds where a job of 4 has 2") != NULL, "%s", why);
    r.peer[2].family = 7;
    EXPECT(gshmemi_uid_root_reply_check(&r, sizeof(r), 5, &status, peer, msg, sizeof(msg), why,
                                        sizeof(why)) == GSHMEM_ERR_BOOTSTRAP,
           "a reply naming family 7");

    /* Rank 5 of 6 links to 0 (round 0), 1 (round 1) and 3 (round 2). */
    struct gshmemi_uid_link_hello lh = {.magic = GSHMEMI_UID_LINK_MAGIC, .rank = 5, .round = 2};
    int round = -1;
    memcpy(lh.secret, secret, sizeof(lh.secret));
    EXPECT(gshmemi_uid_link_hello_check(&lh, sizeof(lh), secret, 3, 6, &round, why,
                                        sizeof(why)) == 0 && round == 2, "a link hello: %s", why);
    EXPECT(gshmemi_uid_link_hello_check(&lh, sizeof(lh), secret, 1, 6, &round, why,
                                        sizeof(why)) == GSHMEM_ERR_INVALID_ARG,
           "a link hello for another rank");
    lh.round = 3;
    EXPECT(gshmemi_uid_link_hello_check(&lh, sizeof(lh), secret, 3, 6, &round, why,
                                        sizeof(why)) == GSHMEM_ERR_INVALID_ARG,
           "a link hello for round 3 of 3");
    lh.round = 0;
    lh.rank = -1;
    EXPECT(gshmemi_uid_link_hello_check(&lh, sizeof(lh), secret, 0, 6, &round, why,
                                        sizeof(why)) == GSHMEM_ERR_INVALID_ARG,
           "a link hello from rank -1");
    lh.rank = 5;
    lh.secret[0] ^= 1;
    EXPECT(gshmemi_uid_link_hello_check(&lh, sizeof(lh), secret, 0, 6, &round, why,
                                        sizeof(why)) == GSHMEM_ERR_PERMISSION &&
           strcmp(why, "wrong job secret") == 0, "%s", why);

    struct gshmemi_uid_frame f = {.kind = GSHMEMI_UID_FRAME_ABORT, .lost_pe = 2};
    EXPECT(gshmemi_uid_frame_check(&f, 0, 4, &lost, why, sizeof(why)) == 1 && lost == 2,
           "an abort notice");
    f.lost_pe = 4;
    EXPECT(gshmemi_uid_frame_check(&f, 0, 4, &lost, why, sizeof(why)) ==
           GSHMEM_ERR_INVALID_ARG, "an abort notice naming pe 4 of 4");
    f = (struct gshmemi_uid_frame){.kind = GSHMEMI_UID_FRAME_DATA, .len = 8};
    EXPECT(gshmemi_uid_frame_check(&f, 8, 4, &lost, why, sizeof(why)) == 0, "data");
    EXPECT(gshmemi_uid_frame_check(&f, 9, 4, &lost, why, sizeof(why)) ==
           GSHMEM_ERR_ASYMMETRIC, "data of another length");
    f.kind = 3;
    EXPECT(gshmemi_uid_frame_check(&f, 8, 4, &lost, why, sizeof(why)) ==
           GSHMEM_ERR_INVALID_ARG, "a frame of kind 3");
}

int main(void)
{
    wire_checks();
    gshmemx_uniqueid_t uid, back;
    char text[2 * GSHMEMX_UNIQUEID_BYTES + 1];
    struct gshmemi_uid_root *root;

    EXPECT(gshmemi_env_load() == 0, "env");
    /* The codec round trip. */
    EXPECT(gshmemi_uid_root_start(1, 0, 5, &uid, &root) == 0, "root");
    gshmemi_uid_encode(&uid, text);
    EXPECT(strlen(text) == 2 * GSHMEMX_UNIQUEID_BYTES, "encoded length");
    EXPECT(gshmemi_uid_decode(text, &back) == 0, "decode");
    EXPECT(memcmp(&uid, &back, sizeof(uid)) == 0, "round trip");
    text[3] = 'x';
    EXPECT(gshmemi_uid_decode(text, &back) != 0, "bad hex accepted");
    EXPECT(gshmemi_uid_decode("abcd", &back) != 0, "short id accepted");
    gshmemi_uid_root_stop(root);

    /* A full job, a job with strangers knocking, and a job missing a rank. */
    for (int n = 1; n <= MAX_RANKS; n++) /* powers of two and the sizes between */
        run_job(n, n, 10, 0, 1);
    run_job(4, 4, 10, 3, 1);
    run_job(3, 2, 1, 0, 0);
    TEST_DONE();
}
