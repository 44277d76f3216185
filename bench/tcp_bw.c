/*
 * tcp_bw: putmem, getmem and iget bandwidth through the tcp transport (run
 * with GSHMEM_DISABLE_P2P=1, so the peer's heap is not mapped), each next
 * to a plain TCP socket between the same two processes (over loopback)
 * moving the same bytes the same way, in the same run.
 *
 *   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/tcp_bw [max_bytes [ops]]
 *
 * ops: a comma-separated list of put, iput, get, iget (all when absent).
 * PE 0 calls, PE 1 is the target.  put: `iters` putmem calls then
 * gshmem_quiet (all data at the target).  iput: the same with
 * gshmem_uint64_iput of bytes / 8 elements packed at PE 0 to every other
 * word at the target.  get: `iters` getmem calls (each returns with its
 * data).  iget: `iters` gshmem_uint64_iget calls of bytes / 8 elements
 * every other word at the target, packed at PE 0.  (For iput and iget the
 * bytes counted are the elements'.)  Socket, between the same two
 * processes: put's and iput's bytes as one stream, then a one-byte
 * acknowledgement the other way; get's and iget's as a 64-byte request answered by the
 * bytes, `iters` times (a blocking call's floor without gshmem: no
 * frames, no copies).  Median of 5 runs; bandwidth = bytes
 * moved / time (GB/s = 1e9 B/s).  Each op's data is checked once a size.
 * Works on either heap (host or GPU).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gshmem.h>

#include "bench_util.h"

#define RUNS 5

enum op { PUT, IPUT, GET, IGET, N_OPS };
static const char *const op_name[N_OPS] = {"put", "iput", "get", "iget"};

static void xfer(int fd, void *buf, size_t len, int sending)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = sending ? write(fd, p, len) : read(fd, p, len);
        if (n <= 0) {
            perror("tcp_bw: socket");
            gshmem_global_exit(1);
        }
        p += n;
        len -= (size_t)n;
    }
}

/* The reference stream: PE 1 listens on loopback, PE 0 connects. */
static int connect_pair(int me)
{
    int *port = gshmem_calloc(1, sizeof(int));
    int fd = -1, lfd = -1, one = 1, big = 4 << 20;
    if (me == 1) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(a);
        if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
            bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 1) != 0 ||
            getsockname(lfd, (struct sockaddr *)&a, &len) != 0) {
            perror("tcp_bw: the reference socket's listener");
            gshmem_global_exit(1);
        }
        gshmem_int_p(port, ntohs(a.sin_port), 0);
    }
    gshmem_barrier_all();
    if (me == 0) {
        /* (through gshmem: the heap may be GPU memory) */
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)gshmem_int_g(port, 0)),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
            connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
            perror("tcp_bw: connect");
            gshmem_global_exit(1);
        }
    } else {
        if ((fd = accept(lfd, NULL, NULL)) < 0) {
            perror("tcp_bw: accept");
            gshmem_global_exit(1);
        }
        close(lfd);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    gshmem_barrier_all();
    gshmem_free(port);
    return fd;
}

/* The socket's way of moving what `iters` calls move: a put's bytes as one
 * stream from PE 0, acknowledged once at the end; a get's as `iters`
 * requests of a frame's size from PE 0, each answered with its bytes
 * before the next is sent (gshmem's gets are blocking calls). */
static void socket_reference(int fd, int me, int put, char *local, char *scratch, size_t size,
                             long iters)
{
    char ack = 0, ask[64] = {0};
    for (long i = 0; i < iters; i++) {
        if (put) {
            xfer(fd, me == 0 ? local : scratch, size, me == 0);
            continue;
        }
        xfer(fd, ask, sizeof(ask), me == 0);
        xfer(fd, me == 0 ? local : scratch, size, me == 1);
    }
    if (put)
        xfer(fd, &ack, 1, me == 1);
}

/* One op of size bytes from PE 0 (PE 1 only waits). */
static void call(enum op op, char *sym, char *local, size_t size)
{
    switch (op) {
    case PUT:
        gshmem_putmem(sym, local, size, 1);
        break;
    case IPUT:
        gshmem_uint64_iput((uint64_t *)(void *)sym, (const uint64_t *)(void *)local, 2, 1,
                           size / 8, 1);
        break;
    case GET:
        gshmem_getmem(local, sym, size, 1);
        break;
    default:
        gshmem_uint64_iget((uint64_t *)(void *)local, (const uint64_t *)(void *)sym, 1, 2,
                           size / 8, 1);
        break;
    }
}

/* Byte i of a pattern that does not repeat within a run's bytes (a word's
 * hash): a chunk or frame landing in another's place shows. */
static char pattern(size_t i, uint64_t salt)
{
    const uint64_t word = ((uint64_t)(i >> 3) + salt) * 0x9E3779B97F4A7C15ull;
    return (char)(word >> (56 - 8 * (i & 7)));
}

/* Whether op moved size bytes right, PE 0 (the caller) and PE 1 (the
 * target) agreeing on what the other holds: both fill their buffers with
 * patterns of their own, PE 0 calls, the receiving side compares. */
static int checked(enum op op, int me, char *sym, char *local, char *want, size_t size)
{
    const size_t span = op == IGET || op == IPUT ? 2 * size : size;
    for (size_t i = 0; i < span; i++) /* the target's bytes: PE 1's pattern */
        want[i] = pattern(i, 2 * size + 1);
    if (me == 1) /* (through gshmem: the heap may be GPU memory) */
        gshmem_putmem(sym, want, span, 1);
    for (size_t i = 0; i < size; i++)
        local[i] = pattern(i, 2 * size);
    gshmem_barrier_all();
    if (me == 0)
        call(op, sym, local, size);
    gshmem_barrier_all();
    int bad = 0;
    if (op == PUT && me == 1) {
        gshmem_getmem(want, sym, size, 1);
        for (size_t i = 0; i < size; i++)
            bad |= want[i] != pattern(i, 2 * size);
    } else if (op == IPUT && me == 1) { /* every other word PE 0's, the others untouched */
        gshmem_getmem(local, sym, span, 1);
        for (size_t e = 0; e < size / 8; e++)
            for (size_t j = 0; j < 8; j++)
                bad |= local[16 * e + j] != pattern(8 * e + j, 2 * size) ||
                       local[16 * e + 8 + j] != want[16 * e + 8 + j];
    } else if (op == GET && me == 0) {
        bad = memcmp(local, want, size) != 0;
    } else if (op == IGET && me == 0) {
        for (size_t e = 0; e < size / 8; e++)
            bad |= memcmp(local + 8 * e, want + 16 * e, 8) != 0;
    }
    gshmem_barrier_all();
    return !bad;
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)64 << 20;
    int want_op[N_OPS] = {1, 1, 1, 1};
    gshmem_init();
    int me = gshmem_my_pe();
    if (argc > 2) {
        memset(want_op, 0, sizeof(want_op));
        for (const char *at = argv[2];; at++) { /* names, each followed by a comma or the end */
            const size_t len = strcspn(at, ",");
            int o = 0;
            while (o < N_OPS && (strlen(op_name[o]) != len || strncmp(at, op_name[o], len) != 0))
                o++;
            if (o == N_OPS) {
                if (me == 0)
                    fprintf(stderr, "tcp_bw: no op %.*s (put, iput, get, iget)\n", (int)len, at);
                gshmem_global_exit(2);
            }
            want_op[o] = 1;
            at += len;
            if (*at == '\0')
                break;
        }
    }
    if (gshmem_n_pes() != 2 || max < (64 << 10)) {
        if (me == 0)
            fprintf(stderr, "tcp_bw: run with 2 PEs, max_bytes at least 65536\n");
        gshmem_global_exit(2);
    }
    char *sym = gshmem_malloc(2 * max), *local = malloc(2 * max), *want = malloc(2 * max);
    if (sym == NULL || local == NULL || want == NULL) {
        fprintf(stderr, "tcp_bw: pe %d: out of memory for %zu bytes\n", me, max);
        gshmem_global_exit(1);
    }
    int fd = connect_pair(me);

    if (me == 0) {
        char name[GSHMEM_MAX_NAME_LEN];
        gshmem_info_get_name(name);
        printf("# %s tcp_bw: PE 0 calls, PE 1 is the target, through the tcp transport (peer not "
               "mapped: %s), median of %d runs\n", name, gshmem_pe_accessible(1) ? "NO" : "yes",
               RUNS);
        printf("# bandwidth = bytes moved / time (GB/s = 1e9 B/s); iput, iget: 8-byte elements "
               "every other word at PE 1, the elements' bytes\n");
        printf("# socket: put and iput one stream, get and iget a request then its bytes each "
               "call; ratio: of the medians; run ratio: the median of each run's gshmem / socket "
               "(the two alternate, so it follows the host's drift)\n");
        printf("%5s %10s %12s %12s %8s %10s\n", "op", "bytes", "gshmem GB/s", "socket GB/s",
               "ratio", "run ratio");
    }
    for (int o = 0; o < N_OPS; o++) {
        if (!want_op[o])
            continue;
        for (size_t size = 64 << 10; size <= max; size *= 4) {
            long iters = (long)(((size_t)256 << 20) / size);
            iters = iters < 4 ? 4 : iters;
            if (!checked((enum op)o, me, sym, local, want, size)) {
                fprintf(stderr, "tcp_bw: pe %d: %s of %zu bytes: wrong data\n", me, op_name[o],
                        size);
                gshmem_global_exit(1);
            }
            double tg[RUNS], ts[RUNS], rr[RUNS];
            for (int r = 0; r < RUNS; r++) {
                gshmem_barrier_all();
                double t0 = bench_now_s();
                if (me == 0) {
                    for (long i = 0; i < iters; i++)
                        call((enum op)o, sym, local, size);
                    if (o == PUT || o == IPUT)
                        gshmem_quiet();
                }
                tg[r] = bench_now_s() - t0;
                gshmem_barrier_all();
                t0 = bench_now_s();
                socket_reference(fd, me, o == PUT || o == IPUT, local, want, size, iters);
                ts[r] = bench_now_s() - t0;
                rr[r] = ts[r] / tg[r];
            }
            if (me == 0) {
                double g = (double)size * iters / bench_median(tg, RUNS) * 1e-9;
                double s = (double)size * iters / bench_median(ts, RUNS) * 1e-9;
                double run_ratio = bench_median(rr, RUNS);
                printf("%5s %10zu %12.2f %12.2f %8.3f %10.3f\n", op_name[o], size, g, s, g / s,
                       run_ratio);
                printf("RESULT op=tcp_%s bytes=%zu GBps=%.3f socket_GBps=%.3f run_ratio=%.3f\n",
                       op_name[o], size, g, s, run_ratio);
                fflush(stdout);
            }
        }
    }
    close(fd);
    gshmem_barrier_all();
    gshmem_free(sym);
    free(want);
    free(local);
    gshmem_finalize();
    return 0;
}
