/* The uid bootstrap in one process: ranks are threads.  Checks the unique id
 * codec, allgather/barrier/bcast values, that strangers without the secret
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
#include "core/env.h"
#include "core/log.h"
#include "test_util.h"

#define NRANKS 4
#define BLOCK 200

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
    unsigned char in[BLOCK], out[NRANKS * BLOCK];

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
    struct rank_arg args[NRANKS];
    pthread_t th[NRANKS];
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

int main(void)
{
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
    run_job(NRANKS, NRANKS, 10, 0, 1);
    run_job(NRANKS, NRANKS, 10, 3, 1);
    run_job(1, 1, 10, 0, 1);
    run_job(3, 2, 1, 0, 0);
    TEST_DONE();
}
