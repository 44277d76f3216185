// The stream-ordered forms on the GPU heap, between every PE and the next:
// put/get/put_signal (mem and typed), signal_op, signal_wait_until (driver
// stream waits and the kernel path), quiet, barrier_all and sync_all, each
// checked by value on the GPU; then the same pattern captured in a CUDA
// graph and replayed; then registered host buffers.  Exit 77 without a GPU.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>
#include <gshmem.h>
#include <gshmemx.h>

#include "gpu_check.h"

#define N (1 << 20) /* ints per message */
#define REPLAYS 10

static int me, npes, to, from;


__global__ void fill(int *p, int base)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        p[i] = base + i;
}

// Counts mismatches: p[i] should be base + i + *offset (offset may be NULL).
__global__ void verify(const int *p, int base, const int *offset, int *bad)
{
    const int off = offset != nullptr ? *offset : 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        if (p[i] != base + i + off)
            atomicAdd(bad, 1);
}

// Bytes [0, span) of p: those in [off, off + n) are the bytes of the ints
// base + i (fill's pattern), the others still the poison 0xEE.
__global__ void verify_bytes(const unsigned char *p, size_t off, size_t n, size_t span, int base, int *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < span; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned v = (unsigned)(base + (int)(i / 4));
        const unsigned char want = i >= off && i < off + n ? (unsigned char)(v >> (8 * (i % 4))) : 0xEE;
        if (p[i] != want)
            atomicAdd(bad, 1);
    }
}

__global__ void bump(int *p)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x)
        p[i] += 1;
}

__global__ void count(int *iter) { *iter += 1; }

static int bad_count(int *bad, cudaStream_t s)
{
    int h = -1;
    CUDA(cudaMemcpyAsync(&h, bad, sizeof(int), cudaMemcpyDeviceToHost, s));
    CUDA(cudaStreamSynchronize(s));
    CUDA(cudaMemsetAsync(bad, 0, sizeof(int), s));
    return h;
}

static uint64_t read_u64(uint64_t *sym, cudaStream_t s)
{
    uint64_t v;
    CUDA(cudaMemcpyAsync(&v, sym, sizeof(v), cudaMemcpyDeviceToHost, s));
    CUDA(cudaStreamSynchronize(s));
    return v;
}

int main()
{
    const int ngpu = gpu_count();
    if (ngpu == 0)
        return 77;
    init_ring(&me, &npes, &to, &from);
    const size_t bytes = N * sizeof(int);
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *src = (int *)gshmem_malloc(bytes), *dst = (int *)gshmem_malloc(bytes);
    int *back = (int *)gshmem_malloc(bytes);
    uint64_t *sig = (uint64_t *)gshmem_calloc(4, sizeof(uint64_t));
    int *bad, *iter;
    CUDA(cudaMalloc(&bad, sizeof(int)));
    CUDA(cudaMalloc(&iter, sizeof(int)));
    CUDA(cudaMemset(bad, 0, sizeof(int)));
    CUDA(cudaMemset(iter, 0, sizeof(int)));

    // putmem, getmem, barrier_all
    fill<<<128, 256, 0, s>>>(src, me * 1000);
    gshmemx_barrier_all_on_stream(s);
    gshmemx_putmem_on_stream(dst, src, bytes, to, s);
    gshmemx_barrier_all_on_stream(s);
    verify<<<128, 256, 0, s>>>(dst, from * 1000, nullptr, bad);
    CHECK(bad_count(bad, s) == 0, "putmem_on_stream");
    gshmemx_getmem_on_stream(back, src, bytes, to, s);
    gshmemx_barrier_all_on_stream(s); /* every get has read its source before the next fill */
    verify<<<128, 256, 0, s>>>(back, to * 1000, nullptr, bad);
    CHECK(bad_count(bad, s) == 0, "getmem_on_stream");

    // 200 barriers back to back, a put between each pair: a PE that ran a
    // barrier ahead, or a barrier that let a PE through early, shows as data
    // of the wrong round (the stream barrier counts with the host)
    for (int it = 0; it < 200; it++) {
        fill<<<128, 256, 0, s>>>(src, me * 100000 + it * 7);
        gshmemx_barrier_all_on_stream(s);
        gshmemx_putmem_on_stream(dst, src, bytes, to, s);
        gshmemx_barrier_all_on_stream(s);
        verify<<<128, 256, 0, s>>>(dst, from * 100000 + it * 7, nullptr, bad);
    }
    CHECK(bad_count(bad, s) == 0, "putmem_on_stream between 400 stream barriers");

    // put with signal; the stream waits (EQ: the driver's stream wait)
    gshmemx_sync_all_on_stream(s);
    fill<<<128, 256, 0, s>>>(src, me * 2000);
    gshmemx_putmem_signal_on_stream(dst, src, bytes, &sig[0], 1, GSHMEM_SIGNAL_SET, to, s);
    gshmemx_signal_wait_until_on_stream(&sig[0], GSHMEM_CMP_EQ, 1, s);
    verify<<<128, 256, 0, s>>>(dst, from * 2000, nullptr, bad);
    CHECK(bad_count(bad, s) == 0, "putmem_signal_on_stream");

    // small puts with a signal (one kernel copies and signals): sizes and
    // offsets around the 16-byte words, up to the kernel's limit and past it;
    // the bytes around the message must stay poisoned
    {
        const size_t sizes[] = {1, 15, 16, 100, 4096, 65535, 65536, 65537};
        const size_t offs[] = {0, 3, 16};
        uint64_t want = 0;
        fill<<<128, 256, 0, s>>>(src, me * 5000);
        for (size_t n : sizes) {
            for (size_t off : offs) {
                const size_t span = off + n + 64;
                CUDA(cudaMemsetAsync(dst, 0xEE, span, s));
                gshmemx_barrier_all_on_stream(s); /* every PE's poison is down */
                gshmemx_putmem_signal_on_stream((char *)dst + off, (const char *)src + off, n, &sig[0],
                                                3, GSHMEM_SIGNAL_ADD, to, s);
                want += 3;
                gshmemx_signal_wait_until_on_stream(&sig[0], GSHMEM_CMP_GE, 1 + want, s);
                verify_bytes<<<64, 256, 0, s>>>((const unsigned char *)dst, off, n, span, from * 5000, bad);
                CHECK(bad_count(bad, s) == 0, "putmem_signal_on_stream of %zu bytes at offset %zu", n, off);
                gshmemx_barrier_all_on_stream(s); /* read before the next poison */
            }
        }
        CHECK(read_u64(&sig[0], s) == 1 + want, "small putmem_signal_on_stream: signal %llu, want %llu",
              (unsigned long long)read_u64(&sig[0], s), (unsigned long long)(1 + want));
    }

    // signal_op ADD from every PE; GE (driver wait) and NE/GT (kernel) waits
    for (int pe = 0; pe < npes; pe++)
        gshmemx_signal_op_on_stream(&sig[1], 5, GSHMEM_SIGNAL_ADD, pe, s);
    gshmemx_signal_wait_until_on_stream(&sig[1], GSHMEM_CMP_GE, 5 * (uint64_t)npes, s);
    gshmemx_signal_wait_until_on_stream(&sig[1], GSHMEM_CMP_NE, 0, s);
    gshmemx_signal_wait_until_on_stream(&sig[1], GSHMEM_CMP_GT, 5 * (uint64_t)npes - 1, s);
    CHECK(read_u64(&sig[1], s) == 5 * (uint64_t)npes, "signal_op_on_stream");

    // typed forms and quiet
    gshmemx_barrier_all_on_stream(s);
    fill<<<128, 256, 0, s>>>(src, me * 3000);
    gshmemx_int_put_on_stream(dst, src, N, to, s);
    gshmemx_quiet_on_stream(s);
    gshmemx_barrier_all_on_stream(s);
    verify<<<128, 256, 0, s>>>(dst, from * 3000, nullptr, bad);
    CHECK(bad_count(bad, s) == 0, "int_put_on_stream");
    gshmemx_int_get_on_stream(back, src, N, from, s);
    verify<<<128, 256, 0, s>>>(back, from * 3000, nullptr, bad);
    CHECK(bad_count(bad, s) == 0, "int_get_on_stream");
    gshmemx_barrier_all_on_stream(s);
    gshmemx_int_put_signal_on_stream(dst, src, N, &sig[3], 7, GSHMEM_SIGNAL_ADD, to, s);
    gshmemx_signal_wait_until_on_stream(&sig[3], GSHMEM_CMP_EQ, 7, s);
    verify<<<128, 256, 0, s>>>(dst, from * 3000, nullptr, bad);
    CHECK(bad_count(bad, s) == 0, "int_put_signal_on_stream");

    // A graph: each replay bumps the source, puts it with a signal, waits
    // (kernel path, as capture requires), crosses a barrier and checks.
    fill<<<128, 256, 0, s>>>(src, me * 4000);
    gshmemx_barrier_all_on_stream(s);
    CUDA(cudaStreamSynchronize(s));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    bump<<<128, 256, 0, s>>>(src);
    count<<<1, 1, 0, s>>>(iter);
    gshmemx_barrier_all_on_stream(s); /* the previous replay's checks are done */
    gshmemx_putmem_signal_on_stream(dst, src, bytes, &sig[2], 1, GSHMEM_SIGNAL_ADD, to, s);
    gshmemx_signal_wait_until_on_stream(&sig[2], GSHMEM_CMP_GE, 1, s);
    gshmemx_barrier_all_on_stream(s);
    verify<<<128, 256, 0, s>>>(dst, from * 4000, iter, bad);
    CUDA(cudaStreamEndCapture(s, &graph));
    CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < REPLAYS; r++)
        CUDA(cudaGraphLaunch(exec, s));
    CHECK(bad_count(bad, s) == 0, "graph replays");
    CHECK(read_u64(&sig[2], s) == REPLAYS, "graph replays signalled %llu times",
          (unsigned long long)read_u64(&sig[2], s));
    CUDA(cudaGraphExecDestroy(exec));
    CUDA(cudaGraphDestroy(graph));

    // registered host buffers as sources
    int *host = (int *)std::malloc(bytes);
    for (int i = 0; i < N; i++)
        host[i] = me * 5000 + i;
    CHECK(gshmemx_buffer_register(host, bytes) == 0, "register");
    CHECK(gshmemx_buffer_register(host + 10, 64) != 0, "an overlapping registration was accepted");
    gshmemx_barrier_all_on_stream(s);
    gshmemx_putmem_on_stream(dst, host, bytes, to, s);
    gshmemx_barrier_all_on_stream(s);
    verify<<<128, 256, 0, s>>>(dst, from * 5000, nullptr, bad);
    CHECK(bad_count(bad, s) == 0, "putmem_on_stream from a registered host buffer");
    CHECK(gshmemx_buffer_unregister(host) == 0, "unregister");
    CHECK(gshmemx_buffer_unregister(host) != 0, "a second unregister was accepted");
    std::free(host);

    CUDA(cudaStreamSynchronize(s));
    gshmem_barrier_all();
    if (me == 0)
        std::printf("gpu_on_stream: %d PEs on %d GPU(s): every stream form, %d graph replays, "
                    "registered buffers: all checks passed\n", npes, ngpu, REPLAYS);
    cudaFree(iter);
    cudaFree(bad);
    gshmem_free(sig);
    gshmem_free(back);
    gshmem_free(dst);
    gshmem_free(src);
    cudaStreamDestroy(s);
    gshmem_finalize();
    return 0;
}
