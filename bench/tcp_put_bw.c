/*
 * tcp_put_bw: putmem bandwidth through the tcp transport (run with
 * GSHMEM_DISABLE_P2P=1, so the peer's heap is not mapped), next to a plain
 * TCP stream between the same two processes over the same interface, in
 * the same run.
 *
 *   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/tcp_put_bw [max_bytes]
 *
 * PE 0 sends, PE 1 receives.  gshmem: `iters` putmem calls then gshmem_quiet
 * (all data at the target).  Socket: the same bytes written to a connected
 * socket, then a one-byte acknowledgement from the reader.  Median of 5 runs;
 * bandwidth = bytes moved by one side / time (GB/s = 1e9 B/s).  The data of
 * every size is checked once.  Works on either heap (host or GPU).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gshmem.h>

#include "bench_util.h"

#define RUNS 5

static void xfer(int fd, void *buf, size_t len, int sending)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = sending ? write(fd, p, len) : read(fd, p, len);
        if (n <= 0) {
            perror("tcp_put_bw: socket");
            gshmem_global_exit(1);
        }
        p += n;
        len -= (size_t)n;
    }
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)64 << 20;
    gshmem_init();
    int me = gshmem_my_pe();
    if (gshmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "tcp_put_bw: run with 2 PEs\n");
        gshmem_global_exit(2);
    }
    char *dst = gshmem_malloc(max), *local = malloc(max), *check = malloc(max);
    int *port = gshmem_calloc(1, sizeof(int));

    /* The reference stream: PE 1 listens on loopback, PE 0 connects. */
    int fd = -1, lfd = -1, one = 1, big = 4 << 20;
    if (me == 1) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(a);
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        bind(lfd, (struct sockaddr *)&a, sizeof(a));
        listen(lfd, 1);
        getsockname(lfd, (struct sockaddr *)&a, &len);
        int p = ntohs(a.sin_port);
        gshmem_int_p(port, p, 0);
    }
    gshmem_barrier_all();
    if (me == 0) {
        int p;
        gshmem_getmem(&p, port, sizeof(p), 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
            perror("tcp_put_bw: connect");
            gshmem_global_exit(1);
        }
    } else {
        fd = accept(lfd, NULL, NULL);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));

    if (me == 0) {
        char name[GSHMEM_MAX_NAME_LEN];
        gshmem_info_get_name(name);
        printf("# %s tcp_put_bw: PE 0 -> PE 1 through the tcp transport (peer not mapped: %s), "
               "median of %d runs\n", name, gshmem_pe_accessible(1) ? "NO" : "yes", RUNS);
        printf("# bandwidth = bytes moved by one side / time (GB/s = 1e9 B/s)\n");
        printf("# ratio: of the medians; run ratio: the median of each run's gshmem / socket "
               "(the two alternate, so it follows the host's drift)\n");
        printf("%10s %12s %12s %8s %10s\n", "bytes", "gshmem GB/s", "socket GB/s", "ratio",
               "run ratio");
    }
    for (size_t size = 64 << 10; size <= max; size *= 4) {
        long iters = (long)(((size_t)256 << 20) / size);
        iters = iters < 4 ? 4 : iters;
        /* check once */
        for (size_t i = 0; i < size; i++)
            local[i] = (char)(i * 7 + size);
        if (me == 0)
            gshmem_putmem(dst, local, size, 1);
        gshmem_barrier_all();
        if (me == 1) {
            gshmem_getmem(check, dst, size, 1);
            if (memcmp(check, local, size) != 0) {
                fprintf(stderr, "tcp_put_bw: wrong data at %zu bytes\n", size);
                gshmem_global_exit(1);
            }
        }
        double tg[RUNS], ts[RUNS], rr[RUNS];
        for (int r = 0; r < RUNS; r++) {
            gshmem_barrier_all();
            double t0 = bench_now_s();
            if (me == 0) {
                for (long i = 0; i < iters; i++)
                    gshmem_putmem(dst, local, size, 1);
                gshmem_quiet();
            }
            tg[r] = bench_now_s() - t0;
            gshmem_barrier_all();
            char ack = 0;
            t0 = bench_now_s();
            for (long i = 0; i < iters; i++)
                xfer(fd, me == 0 ? local : check, size, me == 0);
            xfer(fd, &ack, 1, me == 1);
            ts[r] = bench_now_s() - t0;
            rr[r] = ts[r] / tg[r];
        }
        if (me == 0) {
            double g = (double)size * iters / bench_median(tg, RUNS) * 1e-9;
            double s = (double)size * iters / bench_median(ts, RUNS) * 1e-9;
            double run_ratio = bench_median(rr, RUNS);
            printf("%10zu %12.2f %12.2f %8.3f %10.3f\n", size, g, s, g / s, run_ratio);
            printf("RESULT op=tcp_put bytes=%zu GBps=%.3f socket_GBps=%.3f run_ratio=%.3f\n", size,
                   g, s, run_ratio);
            fflush(stdout);
        }
    }
    close(fd);
    if (lfd >= 0)
        close(lfd);
    gshmem_barrier_all();
    gshmem_free(port);
    gshmem_free(dst);
    free(check);
    free(local);
    gshmem_finalize();
    return 0;
}
