/* The collective tests' inputs: element i of a PE's source in call `tag`,
 * a small integer, so that sums of a few stay exact in every floating type
 * (bfloat16 too), and for products (for_prod) only +-1 and +-2.  On the
 * host and in kernels, so that either computes every PE's inputs itself. */
#ifndef GSHMEM_TESTS_GPU_COLL_INPUTS_H
#define GSHMEM_TESTS_GPU_COLL_INPUTS_H

#include <cstddef>
#include <cstdint>

__host__ __device__ inline int input_value(int pe, uint64_t tag, size_t i, bool for_prod = false)
{
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ ((uint64_t)pe << 40) ^ (tag << 20);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    if (for_prod)
        return (x & 1 ? -1 : 1) * (int)(1 + (x >> 1) % 2);
    return (int)(x % 61) - 30;
}

#endif
