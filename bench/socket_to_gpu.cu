// socket_to_gpu: what getting a TCP stream into GPU memory costs on this
// machine, without gshmem: the floor under tcp_bw's put ratio.
//
//   ./bench/socket_to_gpu [rounds]
//
// A child process writes messages (a 64-byte header, then the payload, one
// writev each, as gshmem's tcp frames) over loopback; this process receives
// each message's payload these ways:
//   bare       no headers: the payloads alone, read into one buffer used
//              again and again (tcp_bw's socket stream);
//   reuse      into one buffer used again and again (at a few hundred KiB
//              it stays in the CPU's cache);
//   ring       into a 4 MiB pinned ring, and no further;
//   ring+copy  into the ring, and a cudaMemcpyAsync of each message to GPU
//              memory, a segment (1 MiB) reused once its copies are done:
//              the tcp target's way on a GPU heap.
// 256 MiB per size and way; the ways alternate, `rounds` times (default 5),
// and each figure is the median over rounds, with the medians of the
// per-round ratios ring+copy / bare and ring+copy / reuse.  The GPU's copy of the last message
// of each size is checked.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "bench_util.h"

#define HEADER 64
#define TOTAL ((size_t)256 << 20)
#define RING ((size_t)4 << 20)
#define SEGS 4

static void die(const char *what)
{
    std::perror(what);
    std::exit(1);
}

static void xfer(int fd, void *b, size_t n, bool sending)
{
    for (char *p = (char *)b; n > 0;) {
        ssize_t k = sending ? write(fd, p, n) : read(fd, p, n);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (k < 0 && errno == EAGAIN) {
            pollfd q = {fd, (short)(sending ? POLLOUT : POLLIN), 0};
            poll(&q, 1, 1000);
        } else {
            die("socket_to_gpu: socket");
        }
    }
}

static char pattern(size_t i, size_t size) { return (char)(i * 7 + size); }

// The child: for each size it is sent, TOTAL bytes of messages (with
// BARE set: of payloads alone), then it waits for a byte that says they
// all arrived.  Size 0 ends it.
#define BARE (1ull << 62)
static void sender(int fd)
{
    std::vector<char> src((size_t)4 << 20);
    char header[HEADER] = {};
    for (;;) {
        size_t size;
        xfer(fd, &size, sizeof(size), false);
        if (size == 0)
            std::exit(0);
        const size_t header_len = size & BARE ? 0 : HEADER;
        size &= ~BARE;
        for (size_t i = 0; i < size; i++)
            src[i] = pattern(i, size);
        for (size_t sent = 0; sent < TOTAL; sent += size) {
            iovec io[2] = {{header, header_len}, {src.data(), size}};
            int first = 0;
            for (size_t left = header_len + size; left > 0;) {
                ssize_t k = writev(fd, io + first, 2 - first);
                if (k <= 0)
                    die("socket_to_gpu: writev");
                left -= (size_t)k;
                while (first < 2 && (size_t)k >= io[first].iov_len)
                    k -= (ssize_t)io[first++].iov_len;
                if (first < 2) {
                    io[first].iov_base = (char *)io[first].iov_base + k;
                    io[first].iov_len -= (size_t)k;
                }
            }
        }
        char done;
        xfer(fd, &done, 1, false);
    }
}

enum { BARE_REUSE, REUSE, RING_ONLY, RING_COPY, WAYS };
static const char *way_name[WAYS] = {"bare", "reuse", "ring", "ring_copy"};

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1, big = 4 << 20;
    sockaddr_in a = {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(a);
    if (bind(listener, (sockaddr *)&a, sizeof(a)) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, (sockaddr *)&a, &alen) != 0)
        die("socket_to_gpu: listen");
    pid_t child = fork(); // before CUDA starts in this process
    if (child == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, (sockaddr *)&a, sizeof(a)) != 0)
            die("socket_to_gpu: connect");
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
        sender(fd);
    }
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0)
        die("socket_to_gpu: accept");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); // as gshmem's: recv, poll when empty

    char *ring, *gpu;
    std::vector<char> reuse((size_t)4 << 20), check((size_t)4 << 20);
    cudaStream_t stream;
    cudaEvent_t seg_done[SEGS];
    if (cudaHostAlloc(&ring, RING, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess ||
        cudaMalloc(&gpu, RING) != cudaSuccess || cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) {
        std::fprintf(stderr, "socket_to_gpu: no GPU (%s)\n", cudaGetErrorString(cudaGetLastError()));
        size_t end = 0;
        xfer(fd, &end, sizeof(end), true);
        waitpid(child, nullptr, 0);
        return 2;
    }
    std::memset(ring, 0, RING);
    for (auto &e : seg_done)
        cudaEventCreateWithFlags(&e, cudaEventDisableTiming);

    std::printf("# socket_to_gpu: a loopback TCP stream of payloads alone (bare) or 64 B headers + "
                "payloads, received into one reused buffer, a pinned ring, and a pinned ring "
                "copied to GPU memory; %d rounds, medians\n", rounds);
    std::printf("# bandwidth = payload bytes / time (GB/s = 1e9 B/s)\n");
    std::printf("%10s %8s %8s %8s %10s %17s %17s\n", "bytes", "bare", "reuse", "ring", "ring+copy",
                "ring+copy / bare", "ring+copy / reuse");
    int bad = 0;
    for (size_t size = 64 << 10; size <= ((size_t)4 << 20); size *= 4) {
        std::vector<double> gbps[WAYS], ratio_bare, ratio_reuse;
        const size_t seg_bytes = RING / SEGS;
        for (int r = 0; r < rounds; r++) {
            double t[WAYS];
            for (int way = 0; way < WAYS; way++) {
                size_t ask = way == BARE_REUSE ? size | BARE : size;
                xfer(fd, &ask, sizeof(ask), true);
                char header[HEADER], done = 1;
                size_t seg = 0, used = 0;
                const double t0 = bench_now_s();
                for (size_t got = 0; got < TOTAL; got += size) {
                    if (way == BARE_REUSE) {
                        xfer(fd, reuse.data(), size, false);
                        continue;
                    }
                    xfer(fd, header, HEADER, false);
                    if (way == REUSE) {
                        xfer(fd, reuse.data(), size, false);
                        continue;
                    }
                    for (size_t part = 0; part < size;) {
                        const size_t n = std::min(size - part, seg_bytes);
                        if (used + n > seg_bytes) { // next segment, once its copies are done
                            cudaEventRecord(seg_done[seg], stream);
                            seg = (seg + 1) % SEGS;
                            cudaEventSynchronize(seg_done[seg]);
                            used = 0;
                        }
                        char *at = ring + seg * seg_bytes + used;
                        xfer(fd, at, n, false);
                        if (way == RING_COPY)
                            cudaMemcpyAsync(gpu + part, at, n, cudaMemcpyHostToDevice, stream);
                        used += n;
                        part += n;
                    }
                }
                cudaStreamSynchronize(stream);
                t[way] = bench_now_s() - t0;
                xfer(fd, &done, 1, true);
                gbps[way].push_back((double)TOTAL / t[way] * 1e-9);
            }
            ratio_bare.push_back(t[BARE_REUSE] / t[RING_COPY]);
            ratio_reuse.push_back(t[REUSE] / t[RING_COPY]);
        }
        cudaMemcpy(check.data(), gpu, size, cudaMemcpyDeviceToHost);
        size_t wrong = 0;
        for (size_t i = 0; i < size; i++)
            wrong += check[i] != pattern(i, size);
        if (wrong != 0 || cudaGetLastError() != cudaSuccess) {
            std::fprintf(stderr, "socket_to_gpu: %zu wrong bytes in GPU memory at %zu bytes (%s)\n",
                         wrong, size, cudaGetErrorString(cudaGetLastError()));
            bad = 1;
        }
        double m[WAYS];
        for (int way = 0; way < WAYS; way++)
            m[way] = bench_median(gbps[way].data(), gbps[way].size());
        const double rb = bench_median(ratio_bare.data(), ratio_bare.size());
        const double rr = bench_median(ratio_reuse.data(), ratio_reuse.size());
        std::printf("%10zu %8.2f %8.2f %8.2f %10.2f %17.3f %17.3f\n", size, m[BARE_REUSE], m[REUSE],
                    m[RING_ONLY], m[RING_COPY], rb, rr);
        std::printf("RESULT op=socket_to_gpu bytes=%zu", size);
        for (int way = 0; way < WAYS; way++)
            std::printf(" %s_GBps=%.3f", way_name[way], m[way]);
        std::printf(" ratio_ring_copy_to_bare=%.3f ratio_ring_copy_to_reuse=%.3f\n", rb, rr);
        std::fflush(stdout);
    }
    size_t end = 0;
    xfer(fd, &end, sizeof(end), true);
    waitpid(child, nullptr, 0);
    return bad;
}
