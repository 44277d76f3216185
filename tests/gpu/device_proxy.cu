// Device calls on PEs reached through the proxy (run with
// GSHMEM_DISABLE_P2P=1; also passes with mapped PEs): puts of every scope,
// inline and not, from global and shared memory, p, iput; gets into global
// and shared memory, g of every width, iget; put_signal with the waiting
// kernel checking the data; atomics, fetching (distinct old values from
// 512 threads, known sequences) and not; fence and quiet; 4096 threads'
// gets into local memory at once.  Every value is checked.  Exit 77 without a GPU.  device_api, run with GSHMEM_DISABLE_P2P=1,
// covers the rest (the device barrier, waits, the litmus test) through the
// proxy too.
//
//   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./device_proxy
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gshmem_device.cuh>

#include "gpu_check.h"

static int me, npes, nxt, prv;

__host__ __device__ int val(int pe, int i) { return pe * 7919 + i * 31 + 1; }

#define BIG (64 << 10) // ints

__global__ void fill(int *p, int n, int pe)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = val(pe, i);
}

// area layout (ints): [0, BIG) thread put, [BIG, 2 BIG) block put, [2 BIG, 2 BIG + 64) small
// puts and p, [3 BIG, 4 BIG) put_signal data, [4 BIG, 5 BIG) nbi warp puts
__global__ void put_kernel(int *area, const int *src, uint64_t *sig, double *d, int to)
{
    if (threadIdx.x == 0) {
        gshmem_int_put(area, src, BIG, to);                         // not inline
        gshmem_int_put(area + 2 * BIG, src, 6, to);                 // inline (24 bytes)
        gshmem_int_p(area + 2 * BIG + 8, val(gshmem_my_pe(), 1000), to);
        gshmem_double_p(d, 0.25 * gshmem_my_pe() + 3.0, to);
    }
    gshmemx_int_put_block(area + BIG, src, BIG, to);
    if (threadIdx.x < 32)
        gshmemx_putmem_nbi_warp(area + 4 * BIG, src, BIG * sizeof(int), to);
    gshmemx_int_put_signal_block(area + 3 * BIG, src + 5, BIG, sig, 1, GSHMEM_SIGNAL_ADD, to);
    gshmem_quiet();
}

// Waits for the previous PE's put_signal, then checks what landed.
__global__ void check_kernel(const int *area, uint64_t *sig, int from, int *bad)
{
    if (threadIdx.x == 0)
        gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, 1);
    __syncthreads();
    for (int i = threadIdx.x; i < BIG; i += blockDim.x) {
        if (area[3 * BIG + i] != val(from, i + 5))
            atomicAdd(bad, 1);
    }
}

__global__ void get_kernel(int *dst, const int *sym, int from)
{
    if (threadIdx.x == 0)
        gshmem_int_get(dst, sym, BIG / 2, from);
    gshmemx_getmem_block(dst + BIG / 2, sym + BIG / 2, BIG / 2 * sizeof(int), from);
}

__global__ void amo_kernel(long *counter, unsigned long long *bits, int to)
{
    gshmem_long_atomic_add(counter, 3, to);
    gshmem_long_atomic_inc(counter, to);
    if (blockIdx.x == 0 && threadIdx.x < 64)
        gshmem_ulonglong_atomic_or(bits, 1ull << threadIdx.x, to);
    gshmem_quiet();
}

__global__ void amo_kernel2(unsigned long long *bits, unsigned long long *x, int to)
{
    if (threadIdx.x == 0) {
        gshmem_ulonglong_atomic_and(bits, 0x00ff00ff00ff00ffull, to);
        gshmem_ulonglong_atomic_xor(bits, 0x0f0f0f0f0f0f0f0full, to);
        gshmem_ulonglong_atomic_set(x, 0x1234567890abcdefull + gshmem_my_pe(), to);
        gshmem_quiet();
    }
}

// Fetching atomics: every thread's fetch_add returns a distinct old value;
// thread 0 also runs compare_swap, swap, fetch (int, double), fetch_inc and
// the bitwise fetches in a sequence whose old values are known.
__global__ void fetch_kernel(long *counter, long *olds, int *ibuf, double *dbuf,
                             unsigned long long *ubuf, int to, int *bad)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    olds[t] = gshmem_long_atomic_fetch_add(counter, 1, to);
    if (t != 0)
        return;
    int bads = 0;
    bads += gshmem_int_atomic_compare_swap(&ibuf[0], 0, 5, to) != 0;
    bads += gshmem_int_atomic_compare_swap(&ibuf[0], 0, 7, to) != 5; // fails: still 5
    bads += gshmem_int_atomic_swap(&ibuf[0], 9, to) != 5;
    bads += gshmem_int_atomic_fetch(&ibuf[0], to) != 9;
    bads += gshmem_int_atomic_fetch_inc(&ibuf[0], to) != 9;
    bads += gshmem_double_atomic_swap(dbuf, 2.5, to) != 0.0;
    bads += gshmem_double_atomic_fetch(dbuf, to) != 2.5;
    bads += gshmem_ulonglong_atomic_fetch_or(&ubuf[0], 0xf0f0ull, to) != 0;
    bads += gshmem_ulonglong_atomic_fetch_and(&ubuf[0], 0xff00ull, to) != 0xf0f0ull;
    bads += gshmem_ulonglong_atomic_fetch_xor(&ubuf[0], 0x0ff0ull, to) != 0xf000ull;
    bads += gshmem_ulonglong_atomic_fetch(&ubuf[0], to) != 0xfff0ull;
    if (bads)
        atomicAdd(bad, 1000 * bads);
}

// g of 1, 2, 4 and 8 bytes, iget and a get into shared memory, from the
// next PE's src (filled with val(to, i)) and d (0.25 * me + 3.0, written
// by this PE's p); iput and a put from shared memory to the next PE.
__global__ void small_kernel(const int *src, const double *d, int *strided, int *from_shared,
                             int *got, int to, int *bad)
{
    __shared__ int sh[100];
    int bads = 0;
    if (threadIdx.x == 0) {
        for (int i = 0; i < 100; i++)
            sh[i] = val(gshmem_my_pe(), i) + 1;
        gshmem_int_put(from_shared, sh, 100, to);     // from shared memory: inline, 48 bytes a request
        gshmem_int_get(sh, src, 100, to);             // into shared memory: 8 bytes a request
        for (int i = 0; i < 100; i++)
            bads += sh[i] != val(to, i);
        const int v7 = val(to, 7);
        bads += gshmem_int_g(&src[7], to) != v7;
        bads += gshmem_char_g(reinterpret_cast<const char *>(&src[7]) + 1, to) != static_cast<char>(v7 >> 8);
        bads += gshmem_short_g(reinterpret_cast<const short *>(&src[7]) + 1, to) != static_cast<short>(v7 >> 16);
        bads += gshmem_double_g(d, to) != 0.25 * gshmem_my_pe() + 3.0;
        gshmem_int_iget(got, src, 2, 3, 100, to);     // got[2i] = val(to, 3i): one request
        for (int i = 0; i < 100; i++)
            bads += got[2 * i] != val(to, 3 * i) || got[2 * i + 1] != 0;
        gshmem_int_iput(strided, src, 3, 1, 50, to);  // strided[3i] at the next PE = val(me, i)
        gshmem_int_iget(sh, src, 1, 5, 40, to);       // into shared memory: a request an element
        for (int i = 0; i < 40; i++)
            bads += sh[i] != val(to, 5 * i);
        gshmem_int_iput(strided + 150, sh, 1, 1, 40, to); // from shared memory: inside requests
        gshmem_int_put_nbi(strided + 200, src, 64, to);
        gshmem_quiet();
    }
    if (bads)
        atomicAdd(bad, bads);
}

// Many threads' gets into local memory at once: each pushes 16 requests
// (8 bytes each) before it reads their answers, so more than a lap of the
// FIFO passes between one thread's first and last.
constexpr int MANY_BLOCKS = 8, MANY_THREADS = 512, MANY_INTS = 32;
__global__ void many_small_gets(const int *src, int to, int *bad)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, at = t * MANY_INTS % BIG;
    int mine[MANY_INTS];
    gshmem_int_get(mine, src + at, MANY_INTS, to);
    int bads = 0;
    for (int i = 0; i < MANY_INTS; i++)
        bads += mine[i] != val(to, at + i);
    if (bads)
        atomicAdd(bad, bads);
}

int main()
{
    const int ngpu = gpu_count();
    if (ngpu == 0)
        return 77;
    init_ring(&me, &npes, &nxt, &prv);
    int *area = (int *)gshmem_calloc(5 * BIG, sizeof(int));
    int *src = (int *)gshmem_malloc(BIG * sizeof(int) + 64);
    uint64_t *sig = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    double *d = (double *)gshmem_calloc(1, sizeof(double));
    long *counter = (long *)gshmem_calloc(1, sizeof(long));
    unsigned long long *bits = (unsigned long long *)gshmem_calloc(2, sizeof(unsigned long long));
    int *bad, *got;
    cudaMallocManaged(&bad, sizeof(int));
    cudaMalloc(&got, BIG * sizeof(int));
    *bad = 0;
    fill<<<64, 256>>>(src, BIG + 16, me);
    cudaDeviceSynchronize();
    gshmem_barrier_all();

    // puts of every kind, then the receiver's checks
    // the puts' source: GPU memory outside the heap (the heap's src serves the gets)
    int *psrc;
    cudaMalloc(&psrc, BIG * sizeof(int) + 64);
    cudaMemcpy(psrc, src, BIG * sizeof(int) + 64, cudaMemcpyDeviceToDevice);
    put_kernel<<<1, 256>>>(area, psrc, sig, d, nxt);
    check_kernel<<<1, 256>>>(area, sig, prv, bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "kernels failed");
    gshmem_barrier_all();
    CHECK(*bad == 0, "put_signal: %d wrong ints", *bad);
    std::vector<int> h(5 * BIG);
    cudaMemcpy(h.data(), area, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < BIG; i++) {
        CHECK(h[i] == val(prv, i), "thread put int %d: %d", i, h[i]);
        CHECK(h[BIG + i] == val(prv, i), "block put int %d: %d", i, h[BIG + i]);
        CHECK(h[4 * BIG + i] == val(prv, i), "nbi warp put int %d: %d", i, h[4 * BIG + i]);
    }
    for (int i = 0; i < 6; i++)
        CHECK(h[2 * BIG + i] == val(prv, i), "inline put int %d: %d", i, h[2 * BIG + i]);
    CHECK(h[2 * BIG + 6] == 0 && h[2 * BIG + 7] == 0, "inline put wrote past its end");
    CHECK(h[2 * BIG + 8] == val(prv, 1000), "p: %d", h[2 * BIG + 8]);
    double dv;
    cudaMemcpy(&dv, d, sizeof(dv), cudaMemcpyDeviceToHost);
    CHECK(dv == 0.25 * prv + 3.0, "double p: %g", dv);

    // gets into global memory
    get_kernel<<<1, 256>>>(got, src, prv);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "get kernel failed");
    cudaMemcpy(h.data(), got, BIG * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < BIG; i++)
        CHECK(h[i] == val(prv, i), "get int %d: %d", i, h[i]);
    gshmem_barrier_all();

    // non-fetching atomics from 4 x 128 threads of every PE onto the next
    amo_kernel<<<4, 128>>>(counter, bits, nxt);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "amo kernel failed");
    gshmem_barrier_all();
    amo_kernel2<<<1, 32>>>(bits, bits + 1, nxt);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "amo kernel 2 failed");
    gshmem_barrier_all();
    long c;
    unsigned long long b[2];
    cudaMemcpy(&c, counter, sizeof(c), cudaMemcpyDeviceToHost);
    cudaMemcpy(b, bits, sizeof(b), cudaMemcpyDeviceToHost);
    CHECK(c == 4L * 512, "counter %ld, expected %ld", c, 4L * 512);
    CHECK(b[0] == ((~0ull & 0x00ff00ff00ff00ffull) ^ 0x0f0f0f0f0f0f0f0full), "bits %#llx", b[0]);
    CHECK(b[1] == 0x1234567890abcdefull + (unsigned long long)prv, "set %#llx", b[1]);

    // fetching atomics: 4 x 128 threads of every PE onto the next
    {
        int *ibuf = (int *)gshmem_calloc(4, sizeof(int));
        double *dbuf = (double *)gshmem_calloc(1, sizeof(double));
        unsigned long long *ubuf = (unsigned long long *)gshmem_calloc(2, sizeof(unsigned long long));
        long *fcounter = (long *)gshmem_calloc(1, sizeof(long));
        long *olds;
        cudaMallocManaged(&olds, 512 * sizeof(long));
        gshmem_barrier_all();
        fetch_kernel<<<4, 128>>>(fcounter, olds, ibuf, dbuf, ubuf, nxt, bad);
        CHECK(cudaDeviceSynchronize() == cudaSuccess, "fetch kernel failed");
        CHECK(*bad == 0, "fetching atomics: %d wrong old values (x1000)", *bad);
        std::vector<char> seen(512, 0);
        for (int i = 0; i < 512; i++) {
            CHECK(olds[i] >= 0 && olds[i] < 512 && !seen[olds[i]], "fetch_add %d returned %ld twice "
                  "or out of range", i, olds[i]);
            seen[olds[i]] = 1;
        }
        gshmem_barrier_all();
        long fc;
        cudaMemcpy(&fc, fcounter, sizeof(fc), cudaMemcpyDeviceToHost);
        CHECK(fc == 512, "fetch_add counter %ld", fc);
        cudaFree(olds);
    }

    // g, iget/iput, gets into and puts from shared memory, a thread's nbi put
    {
        int *strided = (int *)gshmem_calloc(300, sizeof(int));
        int *from_shared = (int *)gshmem_calloc(100, sizeof(int));
        gshmem_barrier_all();
        cudaMemset(got, 0, BIG * sizeof(int));
        small_kernel<<<1, 32>>>(src, d, strided, from_shared, got, nxt, bad);
        CHECK(cudaDeviceSynchronize() == cudaSuccess, "small kernel failed");
        CHECK(*bad == 0, "g / iget / get into shared memory: %d wrong values", *bad);
        gshmem_barrier_all();
        std::vector<int> st(300), fs(100);
        cudaMemcpy(st.data(), strided, st.size() * sizeof(int), cudaMemcpyDeviceToHost);
        cudaMemcpy(fs.data(), from_shared, fs.size() * sizeof(int), cudaMemcpyDeviceToHost);
        for (int i = 0; i < 150; i++)
            CHECK(st[i] == (i % 3 == 0 ? val(prv, i / 3) : 0), "iput int %d: %d", i, st[i]);
        for (int i = 0; i < 64; i++)
            CHECK(st[200 + i] == val(prv, i), "nbi put int %d: %d", i, st[200 + i]);
        for (int i = 0; i < 50; i++)
            CHECK(st[150 + i] == (i < 40 ? val(me, 5 * i) : 0), "iput from shared memory int %d: %d",
                  i, st[150 + i]);
        for (int i = 0; i < 100; i++)
            CHECK(fs[i] == val(prv, i) + 1, "put from shared memory int %d: %d", i, fs[i]);
    }

    many_small_gets<<<MANY_BLOCKS, MANY_THREADS>>>(src, nxt, bad);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "many small gets failed");
    CHECK(*bad == 0, "%d threads' gets into local memory: %d wrong values",
          MANY_BLOCKS * MANY_THREADS, *bad);

    gshmem_barrier_all();
    if (me == 0)
        std::printf("device_proxy: %d PEs (%s): puts (thread, warp nbi, block, inline, p, from shared "
                    "memory, iput), gets (global and shared memory, g of 1-8 bytes, iget), "
                    "put_signal, atomics (fetching and not), fence and quiet: all checks passed "
                    "(device_api runs the rest through the proxy too)\n",
                    npes, gshmem_ptr(area, nxt) != nullptr ? "mapped" : "through the proxy");
    gshmem_finalize();
    return 0;
}
