/*
 * Type tables of the gshmem API.
 *
 * Every typed family (put, get, atomics, waits, ...) is declared, defined and
 * tested from these X-macro tables, so a family cannot miss a type or
 * misspell a name.  Each entry is X(NAME, TYPE, G): G is 1 where TYPE takes
 * part in the C11 _Generic forms (the fixed-width aliases such as int32_t
 * name the same type as int and would clash there), 0 otherwise.
 *
 * Include <gshmem.h>, not this file.
 */
#ifndef GSHMEM_TYPES_H
#define GSHMEM_TYPES_H

#ifndef GSHMEM_H
#error "include <gshmem.h> instead of <gshmem_types.h>"
#endif

#include <stddef.h>
#include <stdint.h>

/* 16-bit floating types: the CUDA types where CUDA headers are in use, else
 * an opaque 2-byte storage type with the same layout. */
#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
typedef __half gshmem_half;
typedef __nv_bfloat16 gshmem_bfloat16;
#else
typedef struct { uint16_t bits; } gshmem_half;
typedef struct { uint16_t bits; } gshmem_bfloat16;
#endif

/* 128-bit element of put128/get128 and friends. */
typedef struct { uint64_t w[2]; } gshmem_u128;

/* The 25 standard RMA types (NVSHMEM's list). */
#define GSHMEM_FOR_RMA_TYPES(X)            \
    X(half, gshmem_half, 1)                \
    X(bfloat16, gshmem_bfloat16, 1)        \
    X(float, float, 1)                     \
    X(double, double, 1)                   \
    X(char, char, 1)                       \
    X(schar, signed char, 1)               \
    X(short, short, 1)                     \
    X(int, int, 1)                         \
    X(long, long, 1)                       \
    X(longlong, long long, 1)              \
    X(uchar, unsigned char, 1)             \
    X(ushort, unsigned short, 1)           \
    X(uint, unsigned int, 1)               \
    X(ulong, unsigned long, 1)             \
    X(ulonglong, unsigned long long, 1)    \
    X(int8, int8_t, 0)                     \
    X(int16, int16_t, 0)                   \
    X(int32, int32_t, 0)                   \
    X(int64, int64_t, 0)                   \
    X(uint8, uint8_t, 0)                   \
    X(uint16, uint16_t, 0)                 \
    X(uint32, uint32_t, 0)                 \
    X(uint64, uint64_t, 0)                 \
    X(size, size_t, 0)                     \
    X(ptrdiff, ptrdiff_t, 0)

/* Sized RMA: X(BITS, TYPE). */
#define GSHMEM_FOR_RMA_SIZES(X) \
    X(8, uint8_t)               \
    X(16, uint16_t)             \
    X(32, uint32_t)             \
    X(64, uint64_t)             \
    X(128, gshmem_u128)

/* Standard AMO types: inc, fetch_inc, add, fetch_add, compare_swap (and the
 * extended operations below). */
#define GSHMEM_FOR_AMO_STANDARD_TYPES(X)   \
    X(int, int, 1)                         \
    X(long, long, 1)                       \
    X(longlong, long long, 1)              \
    X(uint, unsigned int, 1)               \
    X(ulong, unsigned long, 1)             \
    X(ulonglong, unsigned long long, 1)    \
    X(int32, int32_t, 0)                   \
    X(int64, int64_t, 0)                   \
    X(uint32, uint32_t, 0)                 \
    X(uint64, uint64_t, 0)                 \
    X(size, size_t, 0)                     \
    X(ptrdiff, ptrdiff_t, 0)

/* Extended AMO types: fetch, set, swap. */
#define GSHMEM_FOR_AMO_EXTENDED_TYPES(X) \
    X(float, float, 1)                   \
    X(double, double, 1)                 \
    GSHMEM_FOR_AMO_STANDARD_TYPES(X)

/* Bitwise AMO types: and, or, xor and their fetching forms. */
#define GSHMEM_FOR_AMO_BITWISE_TYPES(X)    \
    X(uint, unsigned int, 1)               \
    X(ulong, unsigned long, 1)             \
    X(ulonglong, unsigned long long, 1)    \
    X(int32, int32_t, 0)                   \
    X(int64, int64_t, 0)                   \
    X(uint32, uint32_t, 0)                 \
    X(uint64, uint64_t, 0)

/* Point-to-point synchronisation types: wait_until and test families. */
#define GSHMEM_FOR_P2P_SYNC_TYPES(X)       \
    X(short, short, 1)                     \
    X(int, int, 1)                         \
    X(long, long, 1)                       \
    X(longlong, long long, 1)              \
    X(ushort, unsigned short, 1)           \
    X(uint, unsigned int, 1)               \
    X(ulong, unsigned long, 1)             \
    X(ulonglong, unsigned long long, 1)    \
    X(int32, int32_t, 0)                   \
    X(int64, int64_t, 0)                   \
    X(uint32, uint32_t, 0)                 \
    X(uint64, uint64_t, 0)                 \
    X(size, size_t, 0)                     \
    X(ptrdiff, ptrdiff_t, 0)

/* Helpers for the _Generic forms: keep an association only where G is 1. */
#define GSHMEMI_IF_GENERIC_1(...) __VA_ARGS__
#define GSHMEMI_IF_GENERIC_0(...)
#define GSHMEMI_IF_GENERIC(G, ...) GSHMEMI_IF_GENERIC_##G(__VA_ARGS__)

#endif /* GSHMEM_TYPES_H */
