// The device API from kernels, between every PE and the next (mapped peers):
// puts and gets at thread, warp and block scope (typed, sized, mem, nbi) of
// random sizes and alignments into poisoned memory, thread-scope puts, gets
// and put_signals from every thread of a grid (pieces a warp may copy
// together, and ones it must not), p/g, iput/iget,
// put_signal with signal waits, every atomic family, the wait and test
// families, the device-wide barrier under a collective launch, and a
// message-passing litmus test (data, fence, flag: the flag seen implies the
// data seen) run a million times per PE.  Every value is checked.
//
//   gshmrun -n 2 ./device_api            the test (exit 77 without a GPU)
//   gshmrun -n 2 ./device_api CASE       a bad-input case (check_negative.py --device)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

#include <gshmem_device.cuh>

#include "gpu_check.h"

static int me, npes, nxt, prv;


__host__ __device__ unsigned char byte_of(int pe, int round, size_t i)
{
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ ((uint64_t)pe << 40) ^ ((uint64_t)round << 20);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return (unsigned char)(x >> 32);
}

__global__ void fill(unsigned char *p, size_t n, int pe, int round)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = byte_of(pe, round, i);
}

// ---- puts and gets ----------------------------------------------------------

enum { K_THREAD, K_WARP, K_BLOCK, K_TYPED_INT, K_SIZED64, K_NBI_BLOCK, K_TYPED_WARP, K_KINDS };

__global__ void put_kernel(int kind, char *dst, const char *src, size_t n, int pe)
{
    switch (kind) {
    case K_THREAD:
        if (threadIdx.x == 0)
            gshmem_putmem(dst, src, n, pe);
        break;
    case K_WARP:
        if (threadIdx.x < 32)
            gshmemx_putmem_warp(dst, src, n, pe);
        break;
    case K_BLOCK: gshmemx_putmem_block(dst, src, n, pe); break;
    case K_TYPED_INT:
        if (threadIdx.x == 0)
            gshmem_int_put((int *)dst, (const int *)src, n / 4, pe);
        break;
    case K_SIZED64:
        if (threadIdx.x == 0)
            gshmem_put64(dst, src, n / 8, pe);
        break;
    case K_NBI_BLOCK:
        gshmemx_putmem_nbi_block(dst, src, n, pe);
        gshmem_quiet();
        break;
    case K_TYPED_WARP:
        if (threadIdx.x >= 32 && threadIdx.x < 64)
            gshmemx_short_put_warp((short *)dst, (const short *)src, n / 2, pe);
        break;
    }
}

__global__ void get_kernel(int kind, char *dst, const char *src, size_t n, int pe)
{
    switch (kind) {
    case K_THREAD:
        if (threadIdx.x == 0)
            gshmem_getmem(dst, src, n, pe);
        break;
    case K_WARP:
        if (threadIdx.x < 32)
            gshmemx_getmem_warp(dst, src, n, pe);
        break;
    case K_BLOCK: gshmemx_getmem_block(dst, src, n, pe); break;
    case K_TYPED_INT:
        if (threadIdx.x == 0)
            gshmem_int_get((int *)dst, (const int *)src, n / 4, pe);
        break;
    case K_SIZED64:
        if (threadIdx.x == 0)
            gshmem_get64(dst, src, n / 8, pe);
        break;
    case K_NBI_BLOCK:
        gshmemx_getmem_nbi_block(dst, src, n, pe);
        gshmem_quiet();
        break;
    case K_TYPED_WARP:
        if (threadIdx.x >= 32 && threadIdx.x < 64)
            gshmemx_short_get_warp((short *)dst, (const short *)src, n / 2, pe);
        break;
    }
}

static const size_t AREA = 1 << 20, GUARD = 64;

// Each round: a random kind, size and alignment; the target area is
// poisoned first and the bytes around the range must stay poisoned.
static void test_put_get(unsigned char *sym_dst, unsigned char *sym_src, unsigned seed)
{
    std::vector<unsigned char> got(AREA);
    srand(seed);
    for (int round = 0; round < 3 * K_KINDS; round++) {
        const int kind = round % K_KINDS;
        size_t align = kind == K_TYPED_INT ? 4 : kind == K_SIZED64 ? 8 : kind == K_TYPED_WARP ? 2 : 1;
        size_t n = (size_t)(rand() % (round % 3 == 0 ? 64 : 200000)) / align * align + align;
        size_t doff = GUARD + (size_t)(rand() % 4096) / align * align;
        size_t soff = (size_t)(rand() % 4096) / align * align;
        // src is symmetric: the get reads the previous PE's.
        fill<<<64, 256>>>(sym_src, AREA, me, round);
        CUDA(cudaMemset(sym_dst, 0xA5, AREA));
        CUDA(cudaDeviceSynchronize());
        gshmem_barrier_all();
        const bool get = round % 2 == 1;
        if (get)
            get_kernel<<<1, 256>>>(kind, (char *)sym_dst + doff, (const char *)sym_src + soff, n, prv);
        else
            put_kernel<<<1, 256>>>(kind, (char *)sym_dst + doff, (const char *)sym_src + soff, n, nxt);
        CUDA(cudaDeviceSynchronize());
        gshmem_barrier_all();
        CUDA(cudaMemcpy(got.data(), sym_dst, AREA, cudaMemcpyDeviceToHost));
        // A put wrote the previous PE's data here; a get read it.
        for (size_t i = 0; i < AREA; i++) {
            const bool in = i >= doff && i < doff + n;
            unsigned char want = in ? byte_of(prv, round, soff + (i - doff)) : 0xA5;
            CHECK(got[i] == want, "%s kind %d round %d: %zu bytes at dst+%zu src+%zu: byte %zu is "
                  "%#x, expected %#x", get ? "get" : "put", kind, round, n, doff, soff, i, got[i], want);
        }
    }
}

// ---- thread-scope calls from every thread of a grid --------------------------
// Every thread puts (gets) a piece of its own.  Where a whole warp calls with
// one size on pieces adjacent in lane order the library copies them as one
// warp, so the layouts here are ones that may be joined and ones that must
// not be: pieces in lane order; lanes' pieces swapped in pairs (source and
// destination, or the source only); odd lanes' pieces 8 bytes shorter, or
// lane 0's only; lane 7 not calling; blocks of 96 and of 80 threads (a warp
// of 16).  A put's thread writes its source piece in the kernel just before
// (another lane may read it).  put_signal: each thread waits for its own
// signal and checks its piece, which another lane of the sender may have
// stored.

enum { L_ADJACENT, L_SWAPPED, L_SRC_SWAPPED, L_UNEQUAL, L_FIRST_SHORT, L_ONE_IDLE, L_LAYOUTS };
enum { T_PUT, T_PUT_NBI, T_GET, T_GET_NBI, T_PUT_SIGNAL, T_MODES };
static const char *const t_mode_name[] = {"putmem", "putmem_nbi", "getmem", "getmem_nbi", "putmem_signal"};
static const char *const t_layout_name[] = {"adjacent", "swapped", "source swapped", "unequal",
                                            "lane 0 shorter", "one idle"};

// Thread t's piece (lane: its lane in its warp): its length, and its
// offsets in the destination and source.
__host__ __device__ void piece_of(int layout, size_t piece, unsigned t, unsigned lane, size_t *len,
                                  size_t *doff, size_t *soff)
{
    *len = layout == L_UNEQUAL && (lane & 1) ? piece - 8
           : layout == L_FIRST_SHORT && lane == 0 ? piece - 8
           : layout == L_ONE_IDLE && lane == 7 ? 0
                                               : piece;
    *doff = (size_t)(layout == L_SWAPPED ? t ^ 1 : t) * piece;
    *soff = (size_t)(layout == L_SWAPPED || layout == L_SRC_SWAPPED ? t ^ 1 : t) * piece;
}

// fill_off: the source's offset from the start of its fill (byte_of's index).
__global__ void thread_pieces_kernel(int mode, int layout, char *dst, char *src, size_t piece,
                                     size_t fill_off, uint64_t *sig, int round, int pe_to, int pe_from,
                                     int *bad)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const int me_ = gshmem_my_pe();
    size_t len, doff, soff;
    piece_of(layout, piece, t, threadIdx.x % 32, &len, &doff, &soff);
    if (len == 0)
        return;
    if (mode == T_PUT || mode == T_PUT_NBI || mode == T_PUT_SIGNAL)
        for (size_t i = 0; i < len; i++)
            src[soff + i] = (char)byte_of(me_, round, fill_off + soff + i);
    switch (mode) {
    case T_PUT: gshmem_putmem(dst + doff, src + soff, len, pe_to); break;
    case T_PUT_NBI:
        gshmem_putmem_nbi(dst + doff, src + soff, len, pe_to);
        gshmem_quiet();
        break;
    case T_GET: gshmem_getmem(dst + doff, src + soff, len, pe_from); break;
    case T_GET_NBI:
        gshmem_getmem_nbi(dst + doff, src + soff, len, pe_from);
        gshmem_quiet();
        break;
    case T_PUT_SIGNAL:
        gshmem_putmem_signal(dst + doff, src + soff, len, &sig[t], (uint64_t)round, GSHMEM_SIGNAL_SET,
                             pe_to);
        gshmem_signal_wait_until(&sig[t], GSHMEM_CMP_EQ, (uint64_t)round);
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)dst[doff + i] != byte_of(pe_from, round, fill_off + soff + i))
                atomicAdd(bad, 1);
        break;
    }
}

static void test_thread_pieces(unsigned char *sym_dst, unsigned char *sym_src, int *bad)
{
    const size_t pieces[] = {32, 48, 200, 4096};
    const int blocks = 2;
    uint64_t *sig = (uint64_t *)gshmem_calloc(blocks * 96, sizeof(uint64_t));
    std::vector<unsigned char> got(AREA);
    int c = 0;
    for (int pi = 0; pi < 4; pi++)
        for (int layout = 0; layout < L_LAYOUTS; layout++)
            for (int mode = 0; mode < T_MODES; mode++, c++) {
                // each layout and call meets both block shapes and the three
                // alignments over the four sizes
                const size_t piece = pieces[pi];
                const int threads = (pi + layout + mode) % 2 == 0 ? 96 : 80, round = 1000 + c;
                const int align = (pi + layout + 2 * mode) % 3;
                const size_t dbase = GUARD + (align == 2 ? 3 : 0), sbase = align == 1 ? 8 : 0;
                const unsigned nthreads = blocks * threads;
                // a get reads what the fill wrote; a put's threads write their
                // pieces over other bytes
                const bool get = mode == T_GET || mode == T_GET_NBI;
                fill<<<64, 256>>>(sym_src, AREA, me, get ? round : round + 5000);
                CUDA(cudaMemset(sym_dst, 0xA5, AREA));
                CUDA(cudaDeviceSynchronize());
                *bad = 0;
                gshmem_barrier_all();
                thread_pieces_kernel<<<blocks, threads>>>(mode, layout, (char *)sym_dst + dbase,
                                                          (char *)sym_src + sbase, piece, sbase, sig, round,
                                                          nxt, prv, bad);
                CUDA(cudaDeviceSynchronize());
                gshmem_barrier_all();
                CHECK(*bad == 0, "%s, %s pieces of %zu bytes: %d bytes wrong where the signal said the "
                      "piece was there", t_mode_name[mode], t_layout_name[layout], piece, *bad);
                const size_t span = (size_t)nthreads * piece + dbase + GUARD;
                CUDA(cudaMemcpy(got.data(), sym_dst, span, cudaMemcpyDeviceToHost));
                std::vector<int> want(span, 0xA5);
                for (unsigned t = 0; t < nthreads; t++) {
                    size_t len, doff, soff;
                    piece_of(layout, piece, t, t % threads % 32, &len, &doff, &soff);
                    for (size_t i = 0; i < len; i++)
                        want[dbase + doff + i] = byte_of(prv, round, sbase + soff + i);
                }
                for (size_t i = 0; i < span; i++)
                    CHECK(got[i] == want[i], "%s by %d x %d threads, %s pieces of %zu bytes (dst+%zu, "
                          "src+%zu): byte %zu is %#x, expected %#x", t_mode_name[mode], blocks, threads,
                          t_layout_name[layout], piece, dbase, sbase, i, got[i], want[i]);
            }
    gshmem_free(sig);
}

// ---- p/g, iput/iget ------------------------------------------------------------

__global__ void p_g_kernel(long *arr, double *darr, int *strided, int pe_to, int pe_from, int *bad)
{
    const int t = threadIdx.x;
    gshmem_long_p(&arr[t], 1000L * gshmem_my_pe() + t, pe_to);
    gshmem_double_p(&darr[t], 0.5 * t + gshmem_my_pe(), pe_to);
    if (t == 0) {
        int src[8];
        for (int i = 0; i < 8; i++)
            src[i] = 100 * gshmem_my_pe() + i;
        gshmem_int_iput(strided, src, 3, 1, 8, pe_to); // every third int of the target
    }
    gshmem_quiet();
    gshmem_barrier_all(); // collective launch: every PE's p landed
    // g: the next PE's copy holds what this PE wrote
    if (gshmem_long_g(&arr[t], pe_to) != 1000L * gshmem_my_pe() + t)
        atomicAdd(bad, 1);
    if (gshmem_double_g(&darr[t], pe_to) != 0.5 * t + gshmem_my_pe())
        atomicAdd(bad, 1);
    if (t == 0) {
        int back[8];
        gshmem_int_iget(back, strided, 1, 3, 8, pe_to);
        for (int i = 0; i < 8; i++)
            if (back[i] != 100 * gshmem_my_pe() + i)
                atomicAdd(bad, 1);
        // the ints between the strided ones were not touched
        for (int i = 0; i < 22; i++)
            if (i % 3 != 0 && strided[i] != -1)
                atomicAdd(bad, 1);
    }
    (void)pe_from;
}

// ---- put_signal and signal waits ---------------------------------------------

__global__ void put_signal_kernel(char *inbox, const char *src, size_t chunk, uint64_t *sig,
                                  int rounds, int pe_to, int *bad)
{
    const int b = blockIdx.x, me_ = gshmem_my_pe();
    for (int r = 1; r <= rounds; r++) {
        char *d = inbox + (size_t)b * chunk;
        const char *s = src + (size_t)b * chunk;
        // alternate the three scopes; signal add so the count is the round
        if (b % 3 == 0)
            gshmemx_putmem_signal_block(d, s, chunk, &sig[b], 1, GSHMEM_SIGNAL_ADD, pe_to);
        else if (b % 3 == 1) {
            if (threadIdx.x < 32)
                gshmemx_putmem_signal_nbi_warp(d, s, chunk, &sig[b], 1, GSHMEM_SIGNAL_ADD, pe_to);
        } else if (threadIdx.x == 0) {
            gshmem_putmem_signal(d, s, chunk, &sig[b], 1, GSHMEM_SIGNAL_ADD, pe_to);
        }
        // wait for the previous PE's round r, check it, then tell it to go on
        if (threadIdx.x == 0)
            gshmem_signal_wait_until(&sig[b], GSHMEM_CMP_GE, (uint64_t)r);
        __syncthreads();
        const int from = (me_ + gshmem_n_pes() - 1) % gshmem_n_pes();
        for (size_t i = threadIdx.x; i < chunk; i += blockDim.x)
            if ((unsigned char)d[i] != byte_of(from, b, i))
                atomicAdd(bad, 1);
        __syncthreads();
        // ack: the sender may overwrite only after this block checked
        if (threadIdx.x == 0) {
            gshmemx_signal_op(&sig[gridDim.x + b], (uint64_t)r, GSHMEM_SIGNAL_SET, from);
            gshmem_uint64_wait_until(&sig[gridDim.x + b], GSHMEM_CMP_GE, (uint64_t)r);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && gshmem_signal_fetch(&sig[b]) != (uint64_t)rounds)
        atomicAdd(bad, 1);
}

// ---- atomics ---------------------------------------------------------------------

struct amo_words {
    long counter;
    long long fetched_pad;
    int i32;
    unsigned int u32;
    uint64_t u64;
    double d;
    float f;
    long long ll;
    size_t sz;
};

__global__ void amo_count_kernel(long *counter, long *fetched)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    fetched[t] = gshmem_long_atomic_fetch_add(counter, 1, 0);
}

// One thread, on the next PE's words reserved for this PE: each family with
// known operands, each result checked.
__global__ void amo_ops_kernel(amo_words *w, int pe, int *bad)
{
    const int me_ = gshmem_my_pe();
#define EXPECT(c) \
    if (!(c)) atomicAdd(bad, 1 << 0), printf("pe %d: amo check failed: %s\n", me_, #c)
    gshmem_int_atomic_set(&w->i32, 5, pe);
    EXPECT(gshmem_int_atomic_fetch(&w->i32, pe) == 5);
    EXPECT(gshmem_int_atomic_compare_swap(&w->i32, 4, 9, pe) == 5); // fails
    EXPECT(gshmem_int_atomic_compare_swap(&w->i32, 5, 9, pe) == 5); // succeeds
    EXPECT(gshmem_int_atomic_swap(&w->i32, -3, pe) == 9);
    gshmem_int_atomic_inc(&w->i32, pe);
    EXPECT(gshmem_int_atomic_fetch_inc(&w->i32, pe) == -2);
    gshmem_int_atomic_add(&w->i32, -10, pe);
    EXPECT(gshmem_int_atomic_fetch_add(&w->i32, 1, pe) == -11);
    EXPECT(gshmem_int_atomic_fetch(&w->i32, pe) == -10);
    gshmem_uint_atomic_set(&w->u32, 0xF0F0u, pe);
    EXPECT(gshmem_uint_atomic_fetch_and(&w->u32, 0xFF00u, pe) == 0xF0F0u);
    EXPECT(gshmem_uint_atomic_fetch_or(&w->u32, 0x000Fu, pe) == 0xF000u);
    EXPECT(gshmem_uint_atomic_fetch_xor(&w->u32, 0xFFFFu, pe) == 0xF00Fu);
    EXPECT(gshmem_uint_atomic_fetch(&w->u32, pe) == 0x0FF0u);
    gshmem_uint64_atomic_set(&w->u64, 0x0123456789abcdefull, pe);
    gshmem_uint64_atomic_and(&w->u64, 0xffff0000ffff0000ull, pe);
    gshmem_uint64_atomic_or(&w->u64, 0x1ull, pe);
    gshmem_uint64_atomic_xor(&w->u64, 0x3ull, pe);
    EXPECT(gshmem_uint64_atomic_fetch(&w->u64, pe) == 0x0123000089ab0002ull);
    gshmem_double_atomic_set(&w->d, 2.5, pe);
    EXPECT(gshmem_double_atomic_swap(&w->d, -1.25, pe) == 2.5);
    EXPECT(gshmem_double_atomic_fetch(&w->d, pe) == -1.25);
    gshmem_float_atomic_set(&w->f, 3.5f, pe);
    EXPECT(gshmem_float_atomic_fetch(&w->f, pe) == 3.5f);
    gshmem_longlong_atomic_set(&w->ll, 1ll << 40, pe);
    EXPECT(gshmem_longlong_atomic_fetch_add(&w->ll, 1ll << 41, pe) == 1ll << 40);
    EXPECT(gshmem_longlong_atomic_compare_swap(&w->ll, 3ll << 40, 7, pe) == 3ll << 40);
    gshmem_size_atomic_set(&w->sz, (size_t)me_ + 100, pe);
    EXPECT(gshmem_size_atomic_fetch(&w->sz, pe) == (size_t)me_ + 100);
#undef EXPECT
}

// ---- waits and tests ---------------------------------------------------------

__global__ void wait_test_kernel(int *flags, int pe_to, int *bad)
{
    // set flags 1, 3 and 6 of the next PE; wait for the previous PE to set ours
    if (threadIdx.x == 0) {
        gshmem_int_p(&flags[1], 1, pe_to);
        gshmem_int_p(&flags[3], 1, pe_to);
        gshmem_fence();
        gshmem_int_atomic_set(&flags[6], 1, pe_to);
        int status[8] = {1, 0, 1, 0, 1, 1, 0, 1}; // only 1, 3, 6 count
        gshmem_int_wait_until_all(flags, 8, status, GSHMEM_CMP_EQ, 1);
        if (!gshmem_int_test_all(flags, 8, status, GSHMEM_CMP_EQ, 1))
            atomicAdd(bad, 1);
        size_t any = gshmem_int_wait_until_any(flags, 8, status, GSHMEM_CMP_EQ, 1);
        if (any != 1 && any != 3 && any != 6)
            atomicAdd(bad, 1);
        size_t idx[8];
        size_t k = gshmem_int_wait_until_some(flags, 8, idx, status, GSHMEM_CMP_EQ, 1);
        if (k != 3 || idx[0] != 1 || idx[1] != 3 || idx[2] != 6)
            atomicAdd(bad, 1);
        int want[8] = {0, 1, 0, 1, 0, 0, 1, 0};
        gshmem_int_wait_until_all_vector(flags, 8, nullptr, GSHMEM_CMP_EQ, want);
        if (gshmem_int_test_any_vector(flags, 8, nullptr, GSHMEM_CMP_NE, want) != SIZE_MAX)
            atomicAdd(bad, 1);
        if (gshmem_int_wait_until_any_vector(flags, 8, status, GSHMEM_CMP_GE, want) == SIZE_MAX)
            atomicAdd(bad, 1);
        if (gshmem_int_wait_until_some_vector(flags, 8, idx, nullptr, GSHMEM_CMP_EQ, want) != 8)
            atomicAdd(bad, 1);
        int only0[8] = {0, 1, 1, 1, 1, 1, 1, 1};
        if (gshmem_int_test(&flags[0], GSHMEM_CMP_EQ, 1) ||
            gshmem_int_test_any(flags, 8, only0, GSHMEM_CMP_EQ, 1) != SIZE_MAX ||
            gshmem_int_test_some(flags, 8, idx, nullptr, GSHMEM_CMP_EQ, 1) != 3 ||
            gshmem_int_test_some_vector(flags, 8, idx, nullptr, GSHMEM_CMP_EQ, want) != 8 ||
            !gshmem_int_test_all_vector(flags, 8, nullptr, GSHMEM_CMP_LE, want) ||
            gshmem_int_test_any(flags, 8, nullptr, GSHMEM_CMP_GT, 1) != SIZE_MAX)
            atomicAdd(bad, 1);
        int all_out[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        if (gshmem_int_wait_until_any(flags, 8, all_out, GSHMEM_CMP_EQ, 1) != SIZE_MAX)
            atomicAdd(bad, 1);
    }
}

// ---- device-wide barrier -------------------------------------------------------

__global__ void barrier_kernel(int *buf, int iters, int *bad)
{
    const int me_ = gshmem_my_pe(), n = gshmem_n_pes();
    const int to = (me_ + 1) % n, from = (me_ + n - 1) % n;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int it = 0; it < iters; it++) {
        gshmem_int_p(&buf[t], it * 100000 + me_, to);
        gshmem_barrier_all();
        if (buf[t] != it * 100000 + from)
            atomicAdd(bad, 1);
        gshmem_sync_all(); // nobody writes the next round before all have read
    }
}

// ---- message-passing litmus ---------------------------------------------------
// Block b of each PE sends rounds to block b of the next PE: data, fence,
// flag; the receiver waits for the flag and then must see the data.  Thread
// 0 sends, thread 32 (another warp) receives.  The flag is a weak put
// (FLAG_P) or a standalone signal_op, which is relaxed and ordered after
// the data by the fence alone (FLAG_SIGNAL_SET, FLAG_SIGNAL_ADD).
enum { FLAG_P, FLAG_SIGNAL_SET, FLAG_SIGNAL_ADD, FLAG_KINDS };
static const char *const flag_name[] = {"int_p", "signal_op SET", "signal_op ADD"};

template <int FLAG>
__global__ void litmus_kernel(int *data, uint64_t *flag, int rounds, int *bad)
{
    const int me_ = gshmem_my_pe(), n = gshmem_n_pes(), b = blockIdx.x;
    const int to = (me_ + 1) % n;
    int *iflag = reinterpret_cast<int *>(flag);
    if (threadIdx.x == 0) {
        for (int r = 1; r <= rounds; r++) {
            gshmem_int_p(&data[b], r, to);
            gshmem_fence();
            if (FLAG == FLAG_P)
                gshmem_int_p(&iflag[b], r, to);
            else if (FLAG == FLAG_SIGNAL_SET)
                gshmemx_signal_op(&flag[b], (uint64_t)r, GSHMEM_SIGNAL_SET, to);
            else
                gshmemx_signal_op(&flag[b], 1, GSHMEM_SIGNAL_ADD, to);
            // back-pressure: do not run more than 1 round ahead of the receiver
            gshmem_uint64_wait_until(&flag[gridDim.x + b], GSHMEM_CMP_GE, (uint64_t)r);
        }
    } else if (threadIdx.x == 32) {
        const int from = (me_ + n - 1) % n;
        for (int r = 1; r <= rounds; r++) {
            if (FLAG == FLAG_P)
                gshmem_int_wait_until(&iflag[b], GSHMEM_CMP_GE, r);
            else
                gshmem_signal_wait_until(&flag[b], GSHMEM_CMP_GE, (uint64_t)r);
            if (*(volatile int *)&data[b] < r)
                atomicAdd(bad, 1);
            gshmem_uint64_p(&flag[gridDim.x + b], (uint64_t)r, from);
        }
    }
}

// ---- bad input (run one at a time by check_negative.py --device) --------------

__global__ void bad_kernel(int which, int *sym, int *local)
{
    switch (which) {
    case 0: gshmem_int_p(sym, 1, 7); break;                                 // pe range
    case 1: gshmem_int_p(local, 1, 1); break;                               // not heap
    case 2: gshmem_int_atomic_add((int *)((char *)sym + 2), 1, 1); break;   // misaligned
    case 3: gshmem_int_wait_until(sym, GSHMEM_CMP_EQ, 12345); break;        // timeout
    case 4: gshmem_int_wait_until(sym, GSHMEM_CMP_EQ, 12345); break;        // timeout, proxy in use
    case 6: // every PE: a reduction of 8 elements on pe 0, 9 on the others
        gshmemx_int_sum_reduce_block(GSHMEM_TEAM_WORLD, sym + 2, sym + 12, gshmem_my_pe() == 0 ? 8 : 9);
        break;
    case 12: // an fcollect whose source lies across dest, not at this member's block
        gshmem_int_fcollect(GSHMEM_TEAM_WORLD, sym + 3, sym + 2, 4);
        break;
    }
}

__global__ void __launch_bounds__(1024, 2) bad_pe_everywhere(int *sym)
{
    gshmem_int_p(sym, 1, 7);
}

static int run_bad(const char *name)
{
    const char *names[] = {"dev-pe-range", "dev-not-heap", "dev-misaligned", "dev-timeout",
                           "dev-proxy-timeout", "on-stream-proxy-pageable", "dev-coll-mismatch",
                           "host-coll-timeout", "host-coll-push-timeout", "dev-pe-range-many",
                           "graph-team-destroyed", "graph-team-destroyed-push", "dev-coll-overlap"};
    int which = -1;
    for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
        if (std::strcmp(name, names[i]) == 0)
            which = i;
    CHECK(which >= 0, "unknown case %s", name);
    // (past the flag packets' 256 KiB at 2 PEs: pushed)
    const size_t pushed = which == 8 || which == 11 ? 300000 : 32;
    int *sym = (int *)gshmem_calloc(pushed, sizeof(int));
    int *local;
    CUDA(cudaMalloc(&local, 64));
    gshmem_barrier_all();
    if (which == 10 || which == 11) {
        // A graph holding a stream reduction on a split team (flag packets;
        // pushed, where PEs have GPUs of their own), replayed by pe 0 after
        // the team was destroyed and its slot split again: the kernel stops
        // the job before it waits for anyone (its own packets or pushes may
        // have reached the new team's areas first).
        const size_t count = which == 10 ? 4 : pushed / 2;
        gshmem_team_t team, again;
        CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &team) == 0,
              "split");
        cudaStream_t s;
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        gshmemx_int_sum_reduce_on_stream(team, sym + count, sym, count, s);
        CUDA(cudaStreamEndCapture(s, &graph));
        CUDA(cudaGraphInstantiate(&exec, graph, 0));
        CUDA(cudaGraphLaunch(exec, s)); // (the team still lives: runs)
        CUDA(cudaStreamSynchronize(s));
        gshmem_team_destroy(team);
        CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &again) == 0 &&
                  again == team,
              "the split after the destroy took slot %d, not %d", (int)again, (int)team);
        if (me == 0) {
            CUDA(cudaGraphLaunch(exec, s));
            cudaStreamSynchronize(s); // fails once the kernel traps
        }
    } else if (which == 7 || which == 8) {
        // a host collective that runs as its stream form (flag packets;
        // pushed), pe 1 never joining: its kernel's wait fails, named by the
        // host call and pe 1.  Stream forms need the two PEs on GPUs of
        // their own that map each other.
        int can = 0;
        if (gpu_count() >= 2)
            CUDA(cudaDeviceCanAccessPeer(&can, 0, 1));
        if (!can) {
            std::fprintf(stderr, "pe %d: %s needs two GPUs with P2P: not applicable\n", me, name);
            gshmem_finalize();
            return 0;
        }
        if (me == 0 && which == 7)
            gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, sym + 8, sym, 4);
        else if (me == 0)
            gshmem_int_sum_reduce(GSHMEM_TEAM_WORLD, sym, sym, pushed);
    } else if (me == 0 && which == 5) {
        // through the proxy, a stream-ordered put's kernel cannot read pageable memory
        static int pageable[16];
        gshmemx_putmem_on_stream(sym, pageable, sizeof(pageable), 1, 0);
        cudaDeviceSynchronize();
    } else if (me == 0 && which == 9) {
        // every thread of two blocks an SM fails at once: the first one's
        // message still reaches the host
        int dev = 0, sms = 0;
        CUDA(cudaGetDevice(&dev));
        CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        bad_pe_everywhere<<<2 * sms, 1024>>>(sym + 1);
        CUDA(cudaGetLastError());
        cudaDeviceSynchronize();
    } else if (me == 0 || which == 6) {
        bad_kernel<<<1, which == 6 ? 128 : 1>>>(which, sym + 1, local);
        cudaDeviceSynchronize(); // fails once the kernel traps
    }
    // The watch thread of pe 0 ends the job.  Not in a gshmem wait here: its
    // deadline would race the device wait's.
    for (int i = 0; i < 600; i++)
        usleep(100 * 1000);
    std::fprintf(stderr, "pe %d: the bad case %s went through\n", me, name);
    return 3;
}

int main(int argc, char **argv)
{
    const int ngpu = gpu_count();
    if (ngpu == 0)
        return 77;
    init_ring(&me, &npes, &nxt, &prv);
    if (argc > 1)
        return run_bad(argv[1]);
    int *bad;
    CUDA(cudaMallocManaged(&bad, sizeof(int)));
    *bad = 0;
    unsigned seed = 1234u + (unsigned)atoi(getenv("TEST_SEED") ? getenv("TEST_SEED") : "0");

    // puts and gets
    unsigned char *sym_dst = (unsigned char *)gshmem_malloc(AREA);
    unsigned char *sym_src = (unsigned char *)gshmem_malloc(AREA);
    test_put_get(sym_dst, sym_src, seed);
    test_thread_pieces(sym_dst, sym_src, bad);

    // p/g and strided, under a collective launch (the kernel has a barrier)
    long *arr = (long *)gshmem_malloc(64 * sizeof(long));
    double *darr = (double *)gshmem_malloc(64 * sizeof(double));
    int *strided = (int *)gshmem_malloc(32 * sizeof(int));
    CUDA(cudaMemset(strided, 0xFF, 32 * sizeof(int)));
    CUDA(cudaDeviceSynchronize());
    gshmem_barrier_all();
    {
        void *args[] = {&arr, &darr, &strided, &nxt, &prv, &bad};
        CHECK(gshmemx_collective_launch((const void *)p_g_kernel, 1, 64, args, 0, 0) == 0, "launch");
        CUDA(cudaDeviceSynchronize());
        CHECK(*bad == 0, "p/g/iput/iget: %d wrong values", *bad);
    }

    // put_signal: 12 blocks, 4 rounds, 48 KiB chunks
    {
        const int blocks = 12, rounds = 4;
        const size_t chunk = 48 << 10;
        char *inbox = (char *)gshmem_malloc(blocks * chunk);
        uint64_t *sig = (uint64_t *)gshmem_calloc(2 * blocks, sizeof(uint64_t));
        char *src;
        CUDA(cudaMalloc(&src, blocks * chunk));
        for (int b = 0; b < blocks; b++)
            fill<<<16, 256>>>((unsigned char *)src + b * chunk, chunk, me, b);
        CUDA(cudaDeviceSynchronize());
        gshmem_barrier_all();
        put_signal_kernel<<<blocks, 256>>>(inbox, src, chunk, sig, rounds, nxt, bad);
        CUDA(cudaDeviceSynchronize());
        CHECK(*bad == 0, "put_signal: %d wrong bytes or signals", *bad);
        gshmem_barrier_all();
        CUDA(cudaFree(src));
    }

    // atomics: every thread of every PE adds 1 on pe 0; fetched values unique
    {
        const int threads = 512;
        long *counter = (long *)gshmem_calloc(1, sizeof(long));
        long *fetched = (long *)gshmem_malloc(threads * sizeof(long));
        amo_words *w = (amo_words *)gshmem_calloc((size_t)npes, sizeof(amo_words));
        gshmem_barrier_all();
        amo_count_kernel<<<4, threads / 4>>>(counter, fetched);
        amo_ops_kernel<<<1, 1>>>(&w[me], nxt, bad);
        CUDA(cudaDeviceSynchronize());
        gshmem_barrier_all();
        CHECK(*bad == 0, "atomic families: %d checks failed", *bad);
        if (me == 0) {
            long c = 0;
            gshmem_getmem(&c, counter, sizeof(c), 0);
            CHECK(c == (long)threads * npes, "counter %ld, expected %ld", c, (long)threads * npes);
            std::vector<long> all((size_t)threads * npes);
            std::vector<char> seen(all.size(), 0);
            for (int pe = 0; pe < npes; pe++)
                gshmem_getmem(&all[(size_t)pe * threads], fetched, threads * sizeof(long), pe);
            for (long v : all) {
                CHECK(v >= 0 && v < (long)all.size() && !seen[v], "fetched value %ld repeated or "
                      "out of range", v);
                seen[v] = 1;
            }
        }
    }

    // waits and tests
    {
        int *flags = (int *)gshmem_calloc(8, sizeof(int));
        gshmem_barrier_all();
        wait_test_kernel<<<1, 1>>>(flags, nxt, bad);
        CUDA(cudaDeviceSynchronize());
        CHECK(*bad == 0, "wait/test families: %d checks failed", *bad);
        gshmem_barrier_all();
    }

    // device-wide barrier with as many blocks as can be resident (at most 16)
    {
        int grid = 0, iters = 200;
        void *probe[] = {nullptr};
        CHECK(gshmemx_collective_launch_query_gridsize((const void *)barrier_kernel, 128, probe, 0,
                                                       &grid) == 0, "query");
        grid = grid < 16 ? grid : 16;
        int *buf = (int *)gshmem_calloc((size_t)grid * 128, sizeof(int));
        gshmem_barrier_all();
        void *args[] = {&buf, &iters, &bad};
        CHECK(gshmemx_collective_launch((const void *)barrier_kernel, grid, 128, args, 0, 0) == 0,
              "launch");
        CUDA(cudaDeviceSynchronize());
        CHECK(*bad == 0, "device barrier: %d values seen before their barrier", *bad);
        // a grid that cannot be resident is refused, not launched
        CHECK(gshmemx_collective_launch((const void *)barrier_kernel, 1 << 20, 128, args, 0, 0) ==
              GSHMEM_ERR_INVALID_ARG, "oversized collective launch accepted");
        gshmem_barrier_all();
    }

    // message-passing litmus: 256 blocks x 4096 rounds per PE and flag kind
    long litmus = 0;
    {
        const int blocks = 256;
        int *data = (int *)gshmem_malloc(blocks * sizeof(int));
        uint64_t *flag = (uint64_t *)gshmem_malloc(2 * blocks * sizeof(uint64_t));
        void (*const kernels[FLAG_KINDS])(int *, uint64_t *, int, int *) = {
            litmus_kernel<FLAG_P>, litmus_kernel<FLAG_SIGNAL_SET>, litmus_kernel<FLAG_SIGNAL_ADD>};
        // through the proxy every round is several requests: the signal
        // kinds take fewer there
        const bool mapped = gshmem_ptr(data, (me + 1) % npes) != nullptr;
        for (int k = 0; k < FLAG_KINDS; k++) {
            const int rounds = k == FLAG_P || mapped ? 4096 : 256;
            CUDA(cudaMemset(data, 0, blocks * sizeof(int)));
            CUDA(cudaMemset(flag, 0, 2 * blocks * sizeof(uint64_t)));
            CUDA(cudaDeviceSynchronize());
            gshmem_barrier_all();
            kernels[k]<<<blocks, 64>>>(data, flag, rounds, bad);
            CUDA(cudaDeviceSynchronize());
            CHECK(*bad == 0, "litmus with %s: the flag was seen before the data %d times",
                  flag_name[k], *bad);
            litmus += (long)blocks * rounds;
            gshmem_barrier_all();
        }
        gshmem_free(flag);
        gshmem_free(data);
    }

    // gshmem_ptr: mapped peers get an address, the heap reads through it
    gshmem_barrier_all();
    if (me == 0)
        std::printf("device_api: %d PEs: puts/gets (%d kinds x 3 random sizes), thread-scope calls "
                    "from every thread (%d layouts x %d calls x 4 sizes), p/g, iput/iget, "
                    "put_signal x 3 scopes, every atomic family, waits/tests, device barrier, "
                    "%ld message-passing litmus rounds per PE (p, signal_op set and add): "
                    "all checks passed\n",
                    npes, K_KINDS, L_LAYOUTS, T_MODES, litmus);
    gshmem_finalize();
    return 0;
}
