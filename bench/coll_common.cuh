// What the collective benchmarks share (bench/coll.cu on gshmem and
// NVSHMEM, bench/nccl/nccl_coll.cu on NCCL), so that every system moves the
// same elements, is reported in the same units and is checked against the
// same reference: the operations with nccl-tests' conventions, the inputs,
// and the host's check of a result.
//
// `bytes` of a point follows nccl-tests: allreduce and broadcast the buffer
// (count x element size, source and destination alike); allgather the
// output (n x the per-PE block); reducescatter the input (n x the per-PE
// block it returns); alltoall the buffer (n blocks, one per PE, source and
// destination alike).  algbw = bytes / time; busbw = algbw x the bus factor:
// allreduce 2(n-1)/n, allgather, reducescatter and alltoall (n-1)/n,
// broadcast 1.  A requested size that n blocks of whole elements cannot
// make is rounded down to one that can (at least one element a block), and
// the line reports the bytes actually moved.
//
// Inputs: element i of PE pe's source is a small number made from (pe, i,
// salt): a multiple of 1/4 up to 1024 in magnitude for float, an integer
// for bfloat16 (at most 256/n in magnitude), so every partial sum is exact
// in either type whatever order a library adds in, and results are compared
// exactly.
#ifndef GSHMEM_BENCH_COLL_COMMON_CUH
#define GSHMEM_BENCH_COLL_COMMON_CUH

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <cuda_bf16.h>

enum { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER, COLL_BROADCAST, COLL_ALLTOALL, COLL_NOPS };
static const char *const coll_op_name[COLL_NOPS] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                                    "alltoall"};
enum { COLL_FLOAT, COLL_BFLOAT16 };
static const char *const coll_dtype_name[] = {"float", "bfloat16"};
static const size_t coll_dtype_size[] = {4, 2};

#define COLL_ROOT 0 // broadcast's root, as in nccl-tests

// One point of one operation: the bytes reported, the elements each PE's
// source and destination hold, and the elements of one PE's block (the
// count, for allreduce and broadcast).
struct coll_shape {
    size_t bytes, in_elems, out_elems, block;
};

static inline coll_shape coll_geometry(int op, size_t bytes, size_t esize, int n)
{
    coll_shape s;
    const size_t count = bytes / esize > 0 ? bytes / esize : 1;
    if (op == COLL_ALLREDUCE || op == COLL_BROADCAST) {
        s.block = s.in_elems = s.out_elems = count;
        s.bytes = count * esize;
        return s;
    }
    s.block = count / n > 0 ? count / n : 1;
    s.bytes = s.block * n * esize;
    s.in_elems = op == COLL_ALLGATHER ? s.block : s.block * n;
    s.out_elems = op == COLL_REDUCESCATTER ? s.block : s.block * n;
    return s;
}

static inline double coll_bus_factor(int op, int n)
{
    if (op == COLL_ALLREDUCE)
        return 2.0 * (n - 1) / n;
    return op == COLL_BROADCAST ? 1.0 : (double)(n - 1) / n;
}

// Runs per timed measurement: enough that the GPU, not the launch, sets the
// pace at small sizes, few at large ones.
static inline int coll_iters(size_t bytes)
{
    const size_t k = ((size_t)256 << 20) / (bytes > 0 ? bytes : 1);
    return k > 100 ? 100 : k < 4 ? 4 : (int)k;
}

// The sizes of a sweep: min, 2 min, 4 min, ... up to max (max itself last).
static inline size_t coll_next_size(size_t n, size_t max) { return n * 2 > max && n < max ? max : n * 2; }

__host__ __device__ inline int coll_gen(int pe, size_t i, unsigned salt, int amp)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull + ((uint64_t)(pe + 1) << 32) + salt;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return (int)(x % (uint64_t)(2 * amp + 1)) - amp;
}

__host__ __device__ inline float coll_value(int dtype, int pe, size_t i, unsigned salt, int n)
{
    if (dtype == COLL_FLOAT)
        return (float)coll_gen(pe, i, salt, 4096) * 0.25f;
    const int amp = 256 / n > 8 ? 8 : 256 / n > 0 ? 256 / n : 1;
    return (float)coll_gen(pe, i, salt, amp);
}

__host__ __device__ inline void coll_store(float *p, float v) { *p = v; }
__host__ __device__ inline void coll_store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }

// Fills PE pe's source: count elements.
template <typename T>
__global__ void coll_fill(T *p, size_t count, int dtype, int pe, unsigned salt, int n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        coll_store(p + i, coll_value(dtype, pe, i, salt, n));
}

// Element e of PE me's destination, computed from every PE's inputs.
static inline float coll_expected(int op, int dtype, const coll_shape &s, size_t e, int me, int n,
                                  unsigned salt)
{
    float sum = 0;
    switch (op) {
    case COLL_ALLREDUCE:
        for (int j = 0; j < n; j++)
            sum += coll_value(dtype, j, e, salt, n);
        return sum;
    case COLL_REDUCESCATTER:
        for (int j = 0; j < n; j++)
            sum += coll_value(dtype, j, (size_t)me * s.block + e, salt, n);
        return sum;
    case COLL_BROADCAST:
        return coll_value(dtype, COLL_ROOT, e, salt, n);
    case COLL_ALLGATHER: // block j comes from PE j's source
        return coll_value(dtype, (int)(e / s.block), e % s.block, salt, n);
    default: // alltoall: block j is PE j's block `me`
        return coll_value(dtype, (int)(e / s.block), (size_t)me * s.block + e % s.block, salt, n);
    }
}

// Compares the destination PE me read back (host memory, out_elems
// elements of dtype) with the reference; returns how many differ and
// describes the first in `why`.  The destination was poisoned with 0xFF
// bytes (NaN in both types), so an element never written differs too.
static inline size_t coll_check(const void *out, int op, int dtype, const coll_shape &s, int me, int n,
                                unsigned salt, char *why, size_t whylen)
{
    size_t wrong = 0;
    for (size_t e = 0; e < s.out_elems; e++) {
        const float got = dtype == COLL_FLOAT ? ((const float *)out)[e]
                                              : __bfloat162float(((const __nv_bfloat16 *)out)[e]);
        const float want = coll_expected(op, dtype, s, e, me, n, salt);
        if (!(got == want) && wrong++ == 0)
            std::snprintf(why, whylen, "element %zu is %g, want %g", e, (double)got, (double)want);
    }
    return wrong;
}

// The salt of an operation's inputs: every (operation, type) its own data.
static inline unsigned coll_salt(int op, int dtype) { return 0x5EED0000u + (unsigned)op * 16 + (unsigned)dtype; }

#endif
