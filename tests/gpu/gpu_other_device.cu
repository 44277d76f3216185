// Host calls on the GPU heap from an application thread whose current CUDA
// device is another GPU than the PE's (a new thread starts on device 0, and
// an application may set any): puts, gets, p/g, atomics, a signal, a wait,
// a partitioned round and a collective must work there and leave the
// thread's device as it was.  Each PE's thread sets the GPU after its own.
// With one GPU there is no other device: skipped (77).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include <gshmem.h>
#include <gshmemx.h>

#include "gpu_check.h"

static int me, npes, next_pe, prev_pe;

namespace {

constexpr int N = 3000; // bytes a put moves: not a multiple of 16
constexpr int PARTS = 6, PART_BYTES = 40;

unsigned char byte_of(int pe, int i) { return static_cast<unsigned char>(pe * 131 + i * 7 + 3); }

struct shared {
    unsigned char *buf;  // N bytes, written by the previous PE
    long *counter;       // every PE adds its number + 1
    uint64_t *sig;       // set by the previous PE
    int *word;           // p by the previous PE
    unsigned char *part; // partitioned receive from the previous PE
    unsigned char *src;  // partitioned send's source
    long *sum;           // a reduction
};

void calls(const shared &s, int other)
{
    int dev = -1;
    CUDA(cudaSetDevice(other));
    std::vector<unsigned char> out(N), back(N);
    for (int i = 0; i < N; i++)
        out[i] = byte_of(me, i);
    gshmem_putmem(s.buf, out.data(), N, next_pe);
    gshmem_int_p(s.word, 1000 + me, next_pe);
    gshmem_long_atomic_add(s.counter, me + 1, 0);
    gshmem_quiet();
    gshmemx_signal_op(s.sig, 77 + me, GSHMEM_SIGNAL_SET, next_pe);
    gshmem_uint64_wait_until(s.sig, GSHMEM_CMP_EQ, 77 + prev_pe);
    gshmem_barrier_all();
    gshmem_getmem(back.data(), s.buf, N, next_pe); // what this PE put there
    CHECK(std::memcmp(back.data(), out.data(), N) == 0, "getmem from pe %d after a putmem", next_pe);
    CHECK(gshmem_int_g(s.word, next_pe) == 1000 + me, "int_g from pe %d", next_pe);
    const long before = gshmem_long_atomic_fetch_add(s.counter, 0, 0);
    CHECK(before == static_cast<long>(npes) * (npes + 1) / 2, "counter %ld", before);

    // a partitioned round, host forms: this PE sends to the next
    gshmemx_prequest_t rq, sq;
    CHECK(gshmemx_precv_init(s.part, PARTS, PART_BYTES, prev_pe, &rq) == 0, "precv_init");
    CHECK(gshmemx_psend_init(s.part, s.src, PARTS, PART_BYTES, next_pe, &sq) == 0, "psend_init");
    std::vector<unsigned char> psrc(PARTS * PART_BYTES);
    for (int i = 0; i < PARTS * PART_BYTES; i++)
        psrc[i] = byte_of(me + 7, i);
    gshmem_putmem(s.src, psrc.data(), psrc.size(), me);
    gshmem_quiet();
    gshmemx_pstart(rq);
    gshmemx_pstart(sq);
    gshmemx_pready_range(sq, 0, PARTS / 2 - 1);
    for (int p = PARTS / 2; p < PARTS; p++)
        gshmemx_pready(sq, p);
    gshmemx_pwait(sq);
    gshmemx_pwait(rq);
    gshmemx_prequest_free(&sq);
    gshmemx_prequest_free(&rq);

    long mine = me + 1;
    gshmem_putmem(s.sum, &mine, sizeof(mine), me);
    gshmem_quiet();
    gshmem_long_sum_reduce(GSHMEM_TEAM_WORLD, s.sum, s.sum, 1);
    CUDA(cudaGetDevice(&dev));
    CHECK(dev == other, "the thread's device is %d after gshmem's calls, not %d", dev, other);
}

} // namespace

int main()
{
    const int ngpu = gpu_count();
    if (ngpu == 0)
        return 77;
    init_ring(&me, &npes, &next_pe, &prev_pe);
    int mine = -1;
    CUDA(cudaGetDevice(&mine));
    if (ngpu < 2) {
        if (me == 0)
            std::printf("gpu_other_device: one GPU, no other device: skipped\n");
        gshmem_finalize();
        return 77;
    }
    shared s;
    s.buf = static_cast<unsigned char *>(gshmem_malloc(N));
    s.counter = static_cast<long *>(gshmem_calloc(1, sizeof(long)));
    s.sig = static_cast<uint64_t *>(gshmem_calloc(1, sizeof(uint64_t)));
    s.word = static_cast<int *>(gshmem_calloc(1, sizeof(int)));
    s.part = static_cast<unsigned char *>(gshmem_calloc(PARTS, PART_BYTES));
    s.src = static_cast<unsigned char *>(gshmem_malloc(PARTS * PART_BYTES));
    s.sum = static_cast<long *>(gshmem_calloc(1, sizeof(long)));
    CHECK(s.buf && s.counter && s.sig && s.word && s.part && s.src && s.sum, "gshmem_malloc");
    gshmem_barrier_all();
    const int other = (mine + 1) % ngpu;
    std::thread t(calls, std::cref(s), other);
    t.join();

    std::vector<unsigned char> got(N), part(PARTS * PART_BYTES);
    long sum = 0;
    CUDA(cudaMemcpy(got.data(), s.buf, N, cudaMemcpyDefault));
    CUDA(cudaMemcpy(part.data(), s.part, part.size(), cudaMemcpyDefault));
    CUDA(cudaMemcpy(&sum, s.sum, sizeof(sum), cudaMemcpyDefault));
    for (int i = 0; i < N; i++)
        CHECK(got[i] == byte_of(prev_pe, i), "byte %d from pe %d: %u", i, prev_pe, got[i]);
    for (int i = 0; i < PARTS * PART_BYTES; i++)
        CHECK(part[i] == byte_of(prev_pe + 7, i), "partitioned byte %d from pe %d: %u", i, prev_pe,
              part[i]);
    CHECK(sum == static_cast<long>(npes) * (npes + 1) / 2, "sum_reduce: %ld", sum);
    int now = -1;
    CUDA(cudaGetDevice(&now));
    CHECK(now == mine, "the main thread's device changed: %d, was %d", now, mine);
    gshmem_barrier_all();
    if (me == 0)
        std::printf("gpu_other_device: %d PEs, %d GPUs: host calls from a thread on another GPU, "
                    "all passed\n",
                    npes, ngpu);
    gshmem_free(s.sum);
    gshmem_free(s.src);
    gshmem_free(s.part);
    gshmem_free(s.word);
    gshmem_free(s.sig);
    gshmem_free(s.counter);
    gshmem_free(s.buf);
    gshmem_finalize();
    return 0;
}
