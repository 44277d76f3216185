// Partitioned transfers from kernels: each PE sends to the next around the
// ring and receives from the previous one.  A producer kernel writes each
// partition of its source and marks it ready, from many blocks, in a
// random order per round, by threads, warps and blocks, one partition at
// a time, by ranges and by lists; a consumer kernel on the receiver polls
// parrived (thread, warp and block forms) and checks each partition's data
// as soon as it is reported; then the round's data is checked again on the
// host against a reference computed here.  The receiver's buffer is
// poisoned before each round.  Rounds are started and waited for in stream
// order (gshmemx_pstart_on_stream, gshmemx_pwait_on_stream), with the
// device calls, and from the host around the kernels (gshmemx_pstart,
// gshmemx_pwait); then the whole round is captured in a CUDA graph and
// replayed 100 times.  A first argument sets the bytes of a partition
// (600 by default): 1-8 travel as flag packets where the PEs map each
// other's heap.  A block's list of four splits, by the round, into runs
// of adjacent partitions (4, 1+3, 3+1 or 2+2): from 32768 bytes (40000 in
// the suite) the 3+1 and 2+2 lists put 64 KiB before their last run and
// so set their flags in two batches.  Without a GPU: exit 77.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <unistd.h>

#include <gshmem.h>
#include <gshmem_device.cuh>
#include <gshmemx.h>

#include "gpu_check.h"

static int me, npes, next_pe, prev_pe;

namespace {

constexpr int PARTS = 96;  // partitions of a request
// Bytes per partition: 600 (not a multiple of 16), or the first argument:
// 1-8 bytes travel as flag packets where the PEs map each other.
int bytes = 600;
__constant__ int c_bytes;
constexpr int BLOCKS = 24; // producer blocks, each readying PARTS / BLOCKS partitions
constexpr int PER_BLOCK = PARTS / BLOCKS;
constexpr unsigned char POISON = 0xa5;

// The byte i of partition p sent by pe in round r.
__host__ __device__ inline unsigned char value(int pe, uint64_t r, int p, int i)
{
    uint64_t x = (static_cast<uint64_t>(pe) << 40) ^ (r << 20) ^ (static_cast<uint64_t>(p) << 10) ^
                 static_cast<uint64_t>(i);
    x *= 0x9e3779b97f4a7c15ull;
    return static_cast<unsigned char>(x >> 56);
}

// Block b's partitions in round r: a permutation of [b*PER_BLOCK,
// (b+1)*PER_BLOCK) that changes with the round, and how it readies them:
// 0 one by one by one thread, 1 one by one by warp 0, 2 one by one by the
// block, 3 a range by the block, 4 a list by the block, 5 a range by a
// thread, 6 a list by warp 0.
__device__ inline int block_part(int b, uint64_t r, int k)
{
    return b * PER_BLOCK + static_cast<int>((static_cast<uint64_t>(k) * 3 + r + b) % PER_BLOCK);
}

__global__ void produce(gshmemx_prequest_t send, char *src, const uint64_t *round_of, int me_pe)
{
    const uint64_t r = *round_of;
    const int b = (blockIdx.x * 7 + static_cast<int>(r)) % BLOCKS; // blocks take turns in order
    for (int k = 0; k < PER_BLOCK; k++) {
        const int p = block_part(b, r, k);
        for (int i = threadIdx.x; i < c_bytes; i += blockDim.x)
            src[static_cast<size_t>(p) * c_bytes + i] = static_cast<char>(value(me_pe, r, p, i));
    }
    __syncthreads();
    const int how = static_cast<int>((r + b) % 7);
    __shared__ int list[PER_BLOCK];
    if (threadIdx.x < PER_BLOCK)
        list[threadIdx.x] = block_part(b, r, PER_BLOCK - 1 - static_cast<int>(threadIdx.x));
    __syncthreads();
    switch (how) {
    case 0:
        if (threadIdx.x < PER_BLOCK)
            gshmemx_pready(send, block_part(b, r, threadIdx.x));
        break;
    case 1:
        if (threadIdx.x < 32)
            for (int k = 0; k < PER_BLOCK; k++)
                gshmemx_pready_warp(send, block_part(b, r, k));
        break;
    case 2:
        for (int k = 0; k < PER_BLOCK; k++)
            gshmemx_pready_block(send, block_part(b, r, k));
        break;
    case 3: gshmemx_pready_range_block(send, b * PER_BLOCK, b * PER_BLOCK + PER_BLOCK - 1); break;
    case 4: gshmemx_pready_list_block(send, PER_BLOCK, list); break;
    case 5:
        if (threadIdx.x == 0)
            gshmemx_pready_range(send, b * PER_BLOCK, b * PER_BLOCK + PER_BLOCK - 1);
        break;
    default:
        if (threadIdx.x < 32)
            gshmemx_pready_list_warp(send, PER_BLOCK, list);
    }
}

// Polls three partitions in four until they have arrived (block b polls
// its share, thread, warp or block form by block), then checks their
// bytes; counts the wrong ones into *bad.  The host checks every byte
// after the round's wait.
__global__ void consume(gshmemx_prequest_t recv, const char *dest, const uint64_t *round_of,
                        int from, unsigned long long *bad)
{
    const uint64_t r = *round_of;
    for (int p = blockIdx.x; p < PARTS; p += gridDim.x) {
        if ((p + r) % 4 == 3) // left to the round's wait (flag packets: it puts them in dest)
            continue;
        const int form = (p + static_cast<int>(r)) % 3;
        if (form == 0) {
            if (threadIdx.x == 0)
                while (!gshmemx_parrived(recv, p))
                    ;
            __syncthreads();
        } else if (form == 1) {
            if (threadIdx.x < 32)
                while (!gshmemx_parrived_warp(recv, p))
                    ;
            __syncthreads();
        } else {
            while (!gshmemx_parrived_block(recv, p))
                ;
        }
        unsigned long long wrong = 0;
        for (int i = threadIdx.x; i < c_bytes; i += blockDim.x) {
            const unsigned char v = *reinterpret_cast<const volatile unsigned char *>(
                dest + static_cast<size_t>(p) * c_bytes + i);
            wrong += v != value(from, r, p, i);
        }
        if (wrong)
            atomicAdd(bad, wrong);
        __syncthreads();
    }
}

__global__ void next_round(uint64_t *round_of) { ++*round_of; }

// Bad input from a kernel (`gpu_partitioned misuse CASE`, pe 0; see
// check_negative.py --gpu-partitioned).
__global__ void misuse(gshmemx_prequest_t send, int which)
{
    static __device__ const int twice[2] = {2, 2};
    switch (which) {
    case 0: gshmemx_pready_list(send, 2, twice); break;
    case 1: gshmemx_pready(send, PARTS); break;
    case 2: gshmemx_pready_range(send, 0, PARTS - 3); break;
    case 3: (void)gshmemx_parrived(send, 0); break;
    case 5: gshmemx_pready_list_warp(send, 2, nullptr); break;
    case 7: gshmemx_pready(send, 2); break; // then the host marks it again
    case 8: // a single partition's second mark is looked at after its moves
        gshmemx_pready_block(send, 1);
        gshmemx_pready_block(send, 1);
        break;
    case 9: gshmemx_pready(send, 2); break; // the host has marked it
    default: gshmemx_pready_range_block(send, 3, 1);
    }
}

// The device calls for a round's start and end (one thread each).
__global__ void start_both(gshmemx_prequest_t recv, gshmemx_prequest_t send)
{
    gshmemx_pstart(recv);
    gshmemx_pstart(send);
}
__global__ void wait_both(gshmemx_prequest_t recv, gshmemx_prequest_t send)
{
    gshmemx_pwait(send);
    gshmemx_pwait(recv);
}

} // namespace

// The host's check of a round: every byte of dest as prev_pe sent it.
static void check_round(const char *dest, uint64_t r, const char *what)
{
    std::vector<unsigned char> got(static_cast<size_t>(PARTS) * bytes);
    CUDA(cudaMemcpy(got.data(), dest, got.size(), cudaMemcpyDeviceToHost));
    for (int p = 0; p < PARTS; p++)
        for (int i = 0; i < bytes; i++)
            CHECK(got[static_cast<size_t>(p) * bytes + i] == value(prev_pe, r, p, i),
                  "%s: round %llu, partition %d, byte %d from pe %d: %u, expected %u", what,
                  static_cast<unsigned long long>(r), p, i, prev_pe,
                  got[static_cast<size_t>(p) * bytes + i], value(prev_pe, r, p, i));
}

// pe 0 misuses its send request (pe 1 has started its receive's round).
static int misuse_case(const char *c, gshmemx_prequest_t send, gshmemx_prequest_t recv)
{
    static const char *const cases[] = {"dev-ready-twice",     "dev-ready-range",
                                        "dev-wait-unmarked",   "dev-arrived-on-send",
                                        "dev-start-open",      "dev-list-null",
                                        "dev-range-reversed",  "host-ready-after-kernel",
                                        "dev-ready-again",     "dev-ready-after-host"};
    int which = -1;
    for (int i = 0; i < 10; i++)
        if (std::strcmp(c, cases[i]) == 0)
            which = i;
    CHECK(which >= 0, "unknown case %s", c);
    if (me == 1) {
        gshmemx_pstart(recv);
    } else {
        cudaStream_t s;
        CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        gshmemx_pstart_on_stream(send, s);
        if (which == 9) { // marked by the host, then by a kernel
            CUDA(cudaStreamSynchronize(s));
            gshmemx_pready(send, 2);
        }
        if (which == 4) {
            gshmemx_pstart_on_stream(send, s);
        } else {
            misuse<<<1, which == 5 ? 32 : which == 6 || which == 8 ? 64 : 1, 0, s>>>(send, which);
            if (which == 2)
                gshmemx_pwait_on_stream(send, s);
        }
        cudaStreamSynchronize(s); // fails once the kernel traps
        if (which == 7) // the host's copy does not hold the kernel's mark: the check finds it
            gshmemx_pready(send, 2);
    }
    // pe 0's watch thread ends the job (not in a gshmem wait here: its
    // deadline would race the kernel's failure).
    for (int i = 0; i < 600; i++)
        usleep(100 * 1000);
    std::fprintf(stderr, "gpu_partitioned: %s was not caught\n", c);
    return 3;
}

int main(int argc, char **argv)
{
    if (gpu_count() == 0)
        return 77;
    init_ring(&me, &npes, &next_pe, &prev_pe);
    if (npes < 2) {
        if (me == 0)
            std::printf("gpu_partitioned: needs 2 PEs or more: skipped\n");
        gshmem_finalize();
        return 77;
    }
    if (argc > 1 && std::strcmp(argv[1], "misuse") != 0)
        bytes = std::atoi(argv[1]);
    CHECK(bytes >= 1, "bytes per partition: %d", bytes);
    CUDA(cudaMemcpyToSymbol(c_bytes, &bytes, sizeof(bytes)));
    const size_t total = static_cast<size_t>(PARTS) * bytes;
    char *src = static_cast<char *>(gshmem_malloc(total)); // symmetric: the proxy reads it
    char *dest = static_cast<char *>(gshmem_malloc(total));
    CHECK(src != nullptr && dest != nullptr, "gshmem_malloc");
    cudaPointerAttributes heap;
    if (cudaPointerGetAttributes(&heap, dest) != cudaSuccess || heap.type != cudaMemoryTypeDevice) {
        // (its kernels read and poison the receiver's buffer)
        if (me == 0)
            std::printf("gpu_partitioned: needs the symmetric heap in GPU memory "
                        "(GSHMEM_HEAP=device): skipped\n");
        gshmem_finalize();
        return 77;
    }
    uint64_t *round_of;
    unsigned long long *bad;
    CUDA(cudaMalloc(&round_of, sizeof(*round_of)));
    CUDA(cudaMalloc(&bad, sizeof(*bad)));
    CUDA(cudaMemset(round_of, 0, sizeof(*round_of)));
    CUDA(cudaMemset(bad, 0, sizeof(*bad)));
    cudaStream_t s, c; // producer and consumer streams
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
    cudaEvent_t started;
    CUDA(cudaEventCreateWithFlags(&started, cudaEventDisableTiming));

    gshmemx_prequest_t send, recv;
    CHECK(gshmemx_precv_init(dest, PARTS, bytes, prev_pe, &recv) == 0, "precv_init");
    CHECK(gshmemx_psend_init(dest, src, PARTS, bytes, next_pe, &send) == 0, "psend_init");
    if (argc > 2 && std::strcmp(argv[1], "misuse") == 0)
        return misuse_case(argv[2], send, recv);
    // The way the size goes (read from the requests kernels get, the
    // library's own layout): flag packets for 1-8 bytes between mapped
    // GPU heaps, else data then flag.
    for (gshmemx_prequest_t q : {recv, send}) {
        gshmemi_preq_dev d;
        CUDA(cudaMemcpy(&d, q, sizeof(d), cudaMemcpyDefault));
        const int peer = q == recv ? prev_pe : next_pe;
        const bool packets = bytes <= 8 && gshmem_ptr(dest, peer) != nullptr;
        CHECK((d.packets != 0) == packets, "the %s of %d bytes with pe %d %s flag packets",
              q == recv ? "receive" : "send", bytes, peer, d.packets ? "takes" : "does not take");
    }

    // One round on stream s: poisoned, started, the consumer (on c)
    // polling while the producer runs, waited for; started and waited for
    // by the stream forms, by the device forms in one-thread kernels, or
    // by the host's around the kernels (the host's wait then checks the
    // marks kernels made).
    enum { STREAM_FORMS, DEVICE_FORMS, HOST_FORMS };
    auto enqueue_round = [&](int forms) {
        CUDA(cudaMemsetAsync(dest, POISON, total, s));
        next_round<<<1, 1, 0, s>>>(round_of);
        if (forms == STREAM_FORMS) {
            gshmemx_pstart_on_stream(recv, s);
            gshmemx_pstart_on_stream(send, s);
        } else if (forms == DEVICE_FORMS) {
            start_both<<<1, 1, 0, s>>>(recv, send);
        } else {
            CUDA(cudaStreamSynchronize(s)); // (dest poisoned before the sender may write it)
            gshmemx_pstart(recv);
            gshmemx_pstart(send);
        }
        CUDA(cudaEventRecord(started, s));
        CUDA(cudaStreamWaitEvent(c, started, 0));
        consume<<<8, 128, 0, c>>>(recv, dest, round_of, prev_pe, bad);
        produce<<<BLOCKS, 128, 0, s>>>(send, src, round_of, me);
        CUDA(cudaEventRecord(started, c));
        CUDA(cudaStreamWaitEvent(s, started, 0));
        if (forms == STREAM_FORMS) {
            gshmemx_pwait_on_stream(send, s);
            gshmemx_pwait_on_stream(recv, s);
        } else if (forms == DEVICE_FORMS) {
            wait_both<<<1, 1, 0, s>>>(recv, send);
        } else {
            CUDA(cudaStreamSynchronize(s));
            gshmemx_pwait(send);
            gshmemx_pwait(recv);
        }
    };

    // 1. Stream-ordered start and wait.
    const int ROUNDS = 30;
    uint64_t r = 0;
    for (int k = 0; k < ROUNDS; k++) {
        r++;
        enqueue_round(k % 3);
        CUDA(cudaStreamSynchronize(s));
        check_round(dest, r, "stream rounds");
        CHECK(gshmemx_parrived(recv, PARTS - 1), "parrived after the round's wait");
        gshmem_barrier_all(); // the sender's source is rewritten next round
    }
    unsigned long long wrong = 0;
    CUDA(cudaMemcpy(&wrong, bad, sizeof(wrong), cudaMemcpyDeviceToHost));
    CHECK(wrong == 0, "%llu bytes wrong when parrived reported them arrived", wrong);
    if (me == 0)
        std::printf("stream, device and host rounds: %d rounds of %d x %d bytes, %d producer blocks "
                    "(thread, warp, block; one, range, list), consumers polling: passed\n",
                    ROUNDS, PARTS, bytes, BLOCKS);

    // 2. The round captured in a graph, replayed 100 times (each replay a
    // round; the consumer checks each, the host the last).
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    enqueue_round(STREAM_FORMS);
    CUDA(cudaStreamEndCapture(s, &graph));
    CUDA(cudaGraphInstantiate(&exec, graph, 0));
    const int REPLAYS = 100;
    for (int k = 0; k < REPLAYS; k++) {
        CUDA(cudaGraphLaunch(exec, s));
        CUDA(cudaStreamSynchronize(s));
        gshmem_barrier_all(); // (the graph has no barrier: the source is rewritten next replay)
    }
    r += REPLAYS;
    check_round(dest, r, "graph replays");
    CUDA(cudaMemcpy(&wrong, bad, sizeof(wrong), cudaMemcpyDeviceToHost));
    CHECK(wrong == 0, "%llu bytes wrong when parrived reported them arrived (graph)", wrong);
    if (me == 0)
        std::printf("graph: %d replays, each a round: passed\n", REPLAYS);

    CUDA(cudaGraphExecDestroy(exec));
    CUDA(cudaGraphDestroy(graph));
    CHECK(gshmemx_prequest_free(&send) == 0 && send == nullptr, "free send");
    CHECK(gshmemx_prequest_free(&recv) == 0 && recv == nullptr, "free recv");
    CUDA(cudaEventDestroy(started));
    CUDA(cudaStreamDestroy(s));
    CUDA(cudaStreamDestroy(c));
    CUDA(cudaFree(round_of));
    CUDA(cudaFree(bad));
    gshmem_free(dest);
    gshmem_free(src);
    if (me == 0)
        std::printf("gpu_partitioned: %d PEs, all passed\n", npes);
    gshmem_finalize();
    return 0;
}
