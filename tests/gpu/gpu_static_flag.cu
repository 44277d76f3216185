// Host puts into the GPU heap ordered before a flag in host memory (a
// static variable: symmetric whatever the heap is): put_signal (1 MiB and
// 2 KiB; nbi), put_nbi + fence + p, iput + fence + p, put_nbi + fence +
// atomic set, put_nbi + fence + p into the heap + p, put_nbi + fence + a
// store through gshmem_ptr (where the peer's static data is mapped; else
// p).  Once a PE sees its
// flag it launches a kernel on a stream of its own that reads every
// element in place.  Puts into a mapped GPU heap, and through tcp the
// target's puts into GPU memory, are copies on the runtime's stream, while
// host memory is written at once: a flag there must wait for those copies.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <gshmem.h>
#include <gshmemx.h>

#include "gpu_check.h"

static int me, npes, next_pe, prev_pe;
static uint64_t flag; // static data: host memory, set by the previous PE

namespace {

constexpr size_t WORDS = (1u << 20) / 8; // 1 MiB: through the target's staging ring
constexpr size_t SMALL = 256;            // 2 KiB: the target's batch of small puts
constexpr int ROUNDS = 80;

__host__ __device__ uint64_t word(int pe, int round, size_t i)
{
    uint64_t x = (static_cast<uint64_t>(pe) << 48) ^ (static_cast<uint64_t>(round) << 32) ^ i;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

__global__ void count_wrong(const uint64_t *data, size_t n, size_t stride, int pe, int round,
                            unsigned long long *wrong)
{
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        if (data[i * stride] != word(pe, round, i))
            atomicAdd(wrong, 1ull);
}

const char *const modes[] = {"putmem_signal of 1 MiB", "putmem_signal of 2 KiB",
                             "putmem_nbi, fence, p", "iput to every other word, fence, p",
                             "putmem_nbi, fence, atomic_set",
                             "putmem_nbi, fence, p into the heap, p",
                             "putmem_signal_nbi of 1 MiB",
                             "putmem_nbi, fence, a store through gshmem_ptr"};
constexpr int MODES = sizeof(modes) / sizeof(modes[0]);

} // namespace

int main()
{
    if (gpu_count() == 0)
        return 77;
    init_ring(&me, &npes, &next_pe, &prev_pe);
    uint64_t *data = static_cast<uint64_t *>(gshmem_malloc((WORDS + 1) * 8));
    CHECK(data != nullptr, "gshmem_malloc of 1 MiB and a word");
    const char *no_p2p = std::getenv("GSHMEM_DISABLE_P2P");
    if (no_p2p != nullptr && std::strcmp(no_p2p, "0") == 0) // the mapped run: mapped indeed
        CHECK(gshmem_ptr(data, next_pe) != nullptr, "pe %d's heap is not mapped here", next_pe);
    cudaPointerAttributes attr;
    CUDA(cudaPointerGetAttributes(&attr, data));
    if (attr.type != cudaMemoryTypeDevice) { // a host heap: no copies to wait for
        if (me == 0)
            std::printf("the heap is host memory: skipped\n");
        gshmem_finalize();
        return 77;
    }
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long *wrong;
    CUDA(cudaMalloc(&wrong, sizeof(*wrong)));
    uint64_t *src; // pinned: a put's copy from it does not wait for the host's staging
    CUDA(cudaMallocHost(&src, WORDS * 8));

    int through_ptr = 0;
    for (int r = 1; r <= ROUNDS; r++) {
        const int mode = r % MODES;
        const size_t n = mode == 1 ? SMALL : mode == 3 ? WORDS / 2 : WORDS;
        const size_t stride = mode == 3 ? 2 : 1;
        for (size_t i = 0; i < n; i++)
            src[i] = word(me, r, i);
        switch (mode) {
        case 0:
        case 1:
            gshmem_putmem_signal(data, src, n * 8, &flag, static_cast<uint64_t>(r),
                                 GSHMEM_SIGNAL_SET, next_pe);
            break;
        case 2:
            gshmem_putmem_nbi(data, src, n * 8, next_pe);
            gshmem_fence();
            gshmem_uint64_p(&flag, static_cast<uint64_t>(r), next_pe);
            break;
        case 3:
            gshmem_uint64_iput(data, src, 2, 1, n, next_pe);
            gshmem_fence();
            gshmem_uint64_p(&flag, static_cast<uint64_t>(r), next_pe);
            break;
        case 4:
            gshmem_putmem_nbi(data, src, n * 8, next_pe);
            gshmem_fence();
            gshmem_uint64_atomic_set(&flag, static_cast<uint64_t>(r), next_pe);
            break;
        case 5: // (through tcp, only the first put after a fence is marked so)
            gshmem_putmem_nbi(data, src, n * 8, next_pe);
            gshmem_fence();
            gshmem_uint64_p(&data[WORDS], static_cast<uint64_t>(r), next_pe);
            gshmem_uint64_p(&flag, static_cast<uint64_t>(r), next_pe);
            break;
        case 6:
            gshmem_putmem_signal_nbi(data, src, n * 8, &flag, static_cast<uint64_t>(r),
                                     GSHMEM_SIGNAL_SET, next_pe);
            break;
        default: { // the first time gshmem_ptr waits for the fence, later the fence waits
            gshmem_putmem_nbi(data, src, n * 8, next_pe);
            gshmem_fence();
            uint64_t *peer = static_cast<uint64_t *>(gshmem_ptr(&flag, next_pe));
            if (peer != nullptr) {
                __atomic_store_n(peer, static_cast<uint64_t>(r), __ATOMIC_RELEASE);
                through_ptr++;
            } else {
                gshmem_uint64_p(&flag, static_cast<uint64_t>(r), next_pe);
            }
            break;
        }
        }
        gshmem_uint64_wait_until(&flag, GSHMEM_CMP_GE, static_cast<uint64_t>(r));
        unsigned long long got = 0;
        CUDA(cudaMemsetAsync(wrong, 0, sizeof(*wrong), s));
        count_wrong<<<264, 256, 0, s>>>(data, n, stride, prev_pe, r, wrong);
        CUDA(cudaGetLastError());
        CUDA(cudaMemcpyAsync(&got, wrong, sizeof(got), cudaMemcpyDeviceToHost, s));
        CUDA(cudaStreamSynchronize(s));
        CHECK(got == 0, "round %d, %s from pe %d: %llu of %zu words not there when the flag was",
              r, modes[mode], prev_pe, got, n);
        gshmem_barrier_all(); // the next round's puts may land
    }
    CUDA(cudaFree(wrong));
    CUDA(cudaFreeHost(src));
    CUDA(cudaStreamDestroy(s));
    gshmem_free(data);
    gshmem_barrier_all();
    if (me == 0)
        std::printf("gpu_static_flag: %d PEs, %d rounds (%d flags stored through gshmem_ptr), "
                    "every word in place when its flag was set\n", npes, ROUNDS, through_ptr);
    gshmem_finalize();
    return 0;
}
