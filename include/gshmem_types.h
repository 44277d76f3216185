/*
 * Type and operation tables of the gshmem API.
 *
 * Every typed family (put, get, atomics, waits, ...) is declared, defined and
 * tested from these X-macro tables, so a family cannot miss a type or an
 * operation, or misspell a name: a consumer expands the operation table of
 * the family for each type of its type table.  Each type is X(NAME, TYPE, G):
 * G is 1 where TYPE takes part in the C11 _Generic forms (the fixed-width
 * aliases such as int32_t name the same type as int and would clash there),
 * 0 otherwise.  The types only the host has (long double, the complex
 * types) are in tables of their own, GSHMEM_FOR_<FAMILY>_HOST_TYPES.
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
#if defined(__cplusplus)
#include <complex>
#endif

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

/* ---- type tables -------------------------------------------------------
 * Each comes in two forms: GSHMEM_FOR_<FAMILY>_TYPES(X) expands X(NAME, TYPE,
 * G) for each type, and GSHMEMI_<FAMILY>_TYPES(X, C) expands X(NAME, TYPE,
 * G, C), passing C on (the C11 _Generic forms pass the operation's name).
 * The rows are written once, in the second form; each table's first form
 * goes through a row macro of its own, so that one table can still be
 * expanded inside another's X. */

/* The 25 standard RMA types (NVSHMEM's list). */
#define GSHMEMI_RMA_TYPES(X, C)               \
    X(half, gshmem_half, 1, C)                \
    X(bfloat16, gshmem_bfloat16, 1, C)        \
    X(float, float, 1, C)                     \
    X(double, double, 1, C)                   \
    X(char, char, 1, C)                       \
    X(schar, signed char, 1, C)               \
    X(short, short, 1, C)                     \
    X(int, int, 1, C)                         \
    X(long, long, 1, C)                       \
    X(longlong, long long, 1, C)              \
    X(uchar, unsigned char, 1, C)             \
    X(ushort, unsigned short, 1, C)           \
    X(uint, unsigned int, 1, C)               \
    X(ulong, unsigned long, 1, C)             \
    X(ulonglong, unsigned long long, 1, C)    \
    X(int8, int8_t, 0, C)                     \
    X(int16, int16_t, 0, C)                   \
    X(int32, int32_t, 0, C)                   \
    X(int64, int64_t, 0, C)                   \
    X(uint8, uint8_t, 0, C)                   \
    X(uint16, uint16_t, 0, C)                 \
    X(uint32, uint32_t, 0, C)                 \
    X(uint64, uint64_t, 0, C)                 \
    X(size, size_t, 0, C)                     \
    X(ptrdiff, ptrdiff_t, 0, C)
#define GSHMEM_FOR_RMA_TYPES(X) GSHMEMI_RMA_TYPES(GSHMEMI_RMA_TYPE, X)
#define GSHMEMI_RMA_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* Sized RMA: X(BITS, TYPE). */
#define GSHMEM_FOR_RMA_SIZES(X) \
    X(8, uint8_t)               \
    X(16, uint16_t)             \
    X(32, uint32_t)             \
    X(64, uint64_t)             \
    X(128, gshmem_u128)

/* Standard AMO types: inc, fetch_inc, add, fetch_add, compare_swap (and the
 * extended operations below). */
#define GSHMEMI_AMO_STANDARD_TYPES(X, C)      \
    X(int, int, 1, C)                         \
    X(long, long, 1, C)                       \
    X(longlong, long long, 1, C)              \
    X(uint, unsigned int, 1, C)               \
    X(ulong, unsigned long, 1, C)             \
    X(ulonglong, unsigned long long, 1, C)    \
    X(int32, int32_t, 0, C)                   \
    X(int64, int64_t, 0, C)                   \
    X(uint32, uint32_t, 0, C)                 \
    X(uint64, uint64_t, 0, C)                 \
    X(size, size_t, 0, C)                     \
    X(ptrdiff, ptrdiff_t, 0, C)
#define GSHMEM_FOR_AMO_STANDARD_TYPES(X) GSHMEMI_AMO_STANDARD_TYPES(GSHMEMI_AMO_STANDARD_TYPE, X)
#define GSHMEMI_AMO_STANDARD_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* Extended AMO types: fetch, set, swap. */
#define GSHMEMI_AMO_EXTENDED_TYPES(X, C) \
    X(float, float, 1, C)                \
    X(double, double, 1, C)              \
    GSHMEMI_AMO_STANDARD_TYPES(X, C)
#define GSHMEM_FOR_AMO_EXTENDED_TYPES(X) GSHMEMI_AMO_EXTENDED_TYPES(GSHMEMI_AMO_EXTENDED_TYPE, X)
#define GSHMEMI_AMO_EXTENDED_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* Bitwise AMO types: and, or, xor and their fetching forms. */
#define GSHMEMI_AMO_BITWISE_TYPES(X, C)       \
    X(uint, unsigned int, 1, C)               \
    X(ulong, unsigned long, 1, C)             \
    X(ulonglong, unsigned long long, 1, C)    \
    X(int32, int32_t, 0, C)                   \
    X(int64, int64_t, 0, C)                   \
    X(uint32, uint32_t, 0, C)                 \
    X(uint64, uint64_t, 0, C)
#define GSHMEM_FOR_AMO_BITWISE_TYPES(X) GSHMEMI_AMO_BITWISE_TYPES(GSHMEMI_AMO_BITWISE_TYPE, X)
#define GSHMEMI_AMO_BITWISE_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* Point-to-point synchronisation types: wait_until and test families. */
#define GSHMEMI_P2P_SYNC_TYPES(X, C)          \
    X(short, short, 1, C)                     \
    X(int, int, 1, C)                         \
    X(long, long, 1, C)                       \
    X(longlong, long long, 1, C)              \
    X(ushort, unsigned short, 1, C)           \
    X(uint, unsigned int, 1, C)               \
    X(ulong, unsigned long, 1, C)             \
    X(ulonglong, unsigned long long, 1, C)    \
    X(int32, int32_t, 0, C)                   \
    X(int64, int64_t, 0, C)                   \
    X(uint32, uint32_t, 0, C)                 \
    X(uint64, uint64_t, 0, C)                 \
    X(size, size_t, 0, C)                     \
    X(ptrdiff, ptrdiff_t, 0, C)
#define GSHMEM_FOR_P2P_SYNC_TYPES(X) GSHMEMI_P2P_SYNC_TYPES(GSHMEMI_P2P_SYNC_TYPE, X)
#define GSHMEMI_P2P_SYNC_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* Reduction types: the bitwise operations' (and, or, xor) and the
 * arithmetic ones' (min, max, sum, prod, the sum scans: the bitwise types
 * and more).  half and bfloat16 are NVSHMEM's additions. */
#define GSHMEMI_REDUCE_BITWISE_TYPES(X, C)    \
    X(uchar, unsigned char, 1, C)             \
    X(ushort, unsigned short, 1, C)           \
    X(uint, unsigned int, 1, C)               \
    X(ulong, unsigned long, 1, C)             \
    X(ulonglong, unsigned long long, 1, C)    \
    X(int8, int8_t, 0, C)                     \
    X(int16, int16_t, 0, C)                   \
    X(int32, int32_t, 0, C)                   \
    X(int64, int64_t, 0, C)                   \
    X(uint8, uint8_t, 0, C)                   \
    X(uint16, uint16_t, 0, C)                 \
    X(uint32, uint32_t, 0, C)                 \
    X(uint64, uint64_t, 0, C)                 \
    X(size, size_t, 0, C)
#define GSHMEM_FOR_REDUCE_BITWISE_TYPES(X) GSHMEMI_REDUCE_BITWISE_TYPES(GSHMEMI_REDUCE_BITWISE_TYPE, X)
#define GSHMEMI_REDUCE_BITWISE_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

#define GSHMEMI_REDUCE_ARITH_TYPES(X, C)      \
    X(char, char, 1, C)                       \
    X(schar, signed char, 1, C)               \
    X(short, short, 1, C)                     \
    X(int, int, 1, C)                         \
    X(long, long, 1, C)                       \
    X(longlong, long long, 1, C)              \
    X(ptrdiff, ptrdiff_t, 0, C)               \
    GSHMEMI_REDUCE_BITWISE_TYPES(X, C)        \
    X(float, float, 1, C)                     \
    X(double, double, 1, C)                   \
    X(half, gshmem_half, 1, C)                \
    X(bfloat16, gshmem_bfloat16, 1, C)
#define GSHMEM_FOR_REDUCE_ARITH_TYPES(X) GSHMEMI_REDUCE_ARITH_TYPES(GSHMEMI_REDUCE_ARITH_TYPE, X)
#define GSHMEMI_REDUCE_ARITH_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* ---- host-only type tables ---------------------------------------------
 * Types of OpenSHMEM that only the host has: CUDA device code has no long
 * double (nvcc makes it a double) and no complex type of C's, and NVSHMEM
 * has none of their names.  A table named GSHMEM_FOR_<FAMILY>_HOST_TYPES
 * goes with the family's operation table, as GSHMEM_FOR_<FAMILY>_TYPES
 * does: the host API (gshmem.h, its C11 generic forms and libgshmem) and
 * OpenSHMEM's names (shmem.h) expand both, while the device API, the
 * stream-ordered forms (gshmemx.h) and NVSHMEM's names (nvshmem_names.h,
 * which leaves out every name of a _HOST_TYPES table) expand only the
 * family's own.  A long double of x86-64 is 16 bytes, 6 of them padding:
 * moves copy all 16 and reductions combine values, so the padding of a
 * result is unspecified. */
#define GSHMEMI_RMA_HOST_TYPES(X, C) X(longdouble, long double, 1, C)
#define GSHMEM_FOR_RMA_HOST_TYPES(X) GSHMEMI_RMA_HOST_TYPES(GSHMEMI_RMA_HOST_TYPE, X)
#define GSHMEMI_RMA_HOST_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

#define GSHMEMI_REDUCE_ARITH_HOST_TYPES(X, C) X(longdouble, long double, 1, C)
#define GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(X) \
    GSHMEMI_REDUCE_ARITH_HOST_TYPES(GSHMEMI_REDUCE_ARITH_HOST_TYPE, X)
#define GSHMEMI_REDUCE_ARITH_HOST_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* The complex reductions' types (GSHMEM_FOR_REDUCE_COMPLEX_OPS): C's
 * _Complex types, and in C++, which has none, std::complex (the same
 * layout); none in a C without complex types (__STDC_NO_COMPLEX__). */
#if defined(__cplusplus)
#define GSHMEMI_REDUCE_COMPLEX_HOST_TYPES(X, C)   \
    X(complexd, std::complex<double>, 1, C)       \
    X(complexf, std::complex<float>, 1, C)
#elif !defined(__STDC_NO_COMPLEX__)
#define GSHMEMI_REDUCE_COMPLEX_HOST_TYPES(X, C)   \
    X(complexd, double _Complex, 1, C)            \
    X(complexf, float _Complex, 1, C)
#else
#define GSHMEMI_REDUCE_COMPLEX_HOST_TYPES(X, C)
#endif
#define GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(X) \
    GSHMEMI_REDUCE_COMPLEX_HOST_TYPES(GSHMEMI_REDUCE_COMPLEX_HOST_TYPE, X)
#define GSHMEMI_REDUCE_COMPLEX_HOST_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* What the host's C11 generic forms select from: each family's types and
 * its host-only ones (sum and prod: the complex types too). */
#define GSHMEMI_RMA_ALL_TYPES(X, C) GSHMEMI_RMA_TYPES(X, C) GSHMEMI_RMA_HOST_TYPES(X, C)
#define GSHMEMI_REDUCE_ARITH_ALL_TYPES(X, C) \
    GSHMEMI_REDUCE_ARITH_TYPES(X, C) GSHMEMI_REDUCE_ARITH_HOST_TYPES(X, C)
#define GSHMEMI_REDUCE_SUM_PROD_ALL_TYPES(X, C) \
    GSHMEMI_REDUCE_ARITH_ALL_TYPES(X, C) GSHMEMI_REDUCE_COMPLEX_HOST_TYPES(X, C)

/* ---- operation tables --------------------------------------------------
 * One row per operation: X(STEM, TAIL, SHAPE, V, A, B).
 *   STEM, TAIL  the operation's name, split where a form inserts its part:
 *               typed gshmem_<NAME>_<STEM><TAIL> (gshmem_int_put_nbi), sized
 *               gshmem_<STEM><BITS><TAIL> (gshmem_put32_nbi), mem
 *               gshmem_<STEM>mem<TAIL> (gshmem_putmem_nbi)
 *   SHAPE       its arguments and what it does: a consumer pastes it onto
 *               macros of its own, one per shape (MY_DEF_##SHAPE)
 *   V           the family's own column (below): NBI, or the atomic operation
 *   A, B        the caller's, passed on unchanged (a type's name and C type,
 *               a size's bits and element type): one per-type macro of the
 *               consumer expands the whole table for its type
 * STEM, TAIL and SHAPE are meant to be pasted (##) or stringised (#) where
 * they arrive: passed on as plain macro arguments they are macro-expanded,
 * and an application's macro named P or G would change them. */

/* RMA: X(STEM, TAIL, SHAPE, NBI, A, B); NBI is 1 where the call returns
 * before the operation is complete (quiet completes it).  Shapes:
 *   PUT, GET    (dest, source, nelems, pe)
 *   P           (dest, value, pe)
 *   G           (source, pe) -> value
 *   IPUT, IGET  (dest, source, dst, sst, nelems, pe): strided
 *   PUT_SIGNAL  (dest, source, nelems, sig_addr, signal, sig_op, pe)
 * Every shape has the typed form; the others are filtered by
 * GSHMEMI_RMA_<FORM>_<SHAPE> below. */
#define GSHMEM_FOR_RMA_OPS(X, A, B)             \
    X(put, , PUT, 0, A, B)                      \
    X(put, _nbi, PUT, 1, A, B)                  \
    X(get, , GET, 0, A, B)                      \
    X(get, _nbi, GET, 1, A, B)                  \
    X(p, , P, 0, A, B)                          \
    X(g, , G, 0, A, B)                          \
    X(iput, , IPUT, 0, A, B)                    \
    X(iget, , IGET, 0, A, B)                    \
    X(put, _signal, PUT_SIGNAL, 0, A, B)        \
    X(put, _signal_nbi, PUT_SIGNAL, 1, A, B)

/* The RMA operations each form has besides the typed one.  A consumer wraps
 * its expansion of a row in GSHMEMI_RMA_<FORM>_##SHAPE(NBI, ...), which
 * keeps the expansion where the form has the operation and drops it where
 * it does not:
 *   SIZED      gshmem_put32 ...: all but p and g
 *   MEM        gshmem_putmem ...: put, get, put_signal and their nbi forms
 *   ON_STREAM  gshmemx_int_put_on_stream, gshmemx_putmem_nbi_on_stream ...:
 *              put, get, p, g and put_signal and their nbi forms (NVSHMEM's;
 *              in stream order both complete before the stream's next
 *              work); the mem forms are those MEM has too
 *   GROUP      the device's gshmemx_int_put_warp, gshmemx_putmem_nbi_block ...:
 *              put, get, put_signal and their nbi forms */
#define GSHMEMI_RMA_SIZED_PUT(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_SIZED_GET(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_SIZED_P(NBI, ...)
#define GSHMEMI_RMA_SIZED_G(NBI, ...)
#define GSHMEMI_RMA_SIZED_IPUT(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_SIZED_IGET(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_SIZED_PUT_SIGNAL(NBI, ...) __VA_ARGS__

#define GSHMEMI_RMA_MEM_PUT(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_MEM_GET(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_MEM_P(NBI, ...)
#define GSHMEMI_RMA_MEM_G(NBI, ...)
#define GSHMEMI_RMA_MEM_IPUT(NBI, ...)
#define GSHMEMI_RMA_MEM_IGET(NBI, ...)
#define GSHMEMI_RMA_MEM_PUT_SIGNAL(NBI, ...) __VA_ARGS__

#define GSHMEMI_RMA_ON_STREAM_PUT(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_ON_STREAM_GET(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_ON_STREAM_P(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_ON_STREAM_G(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_ON_STREAM_IPUT(NBI, ...)
#define GSHMEMI_RMA_ON_STREAM_IGET(NBI, ...)
#define GSHMEMI_RMA_ON_STREAM_PUT_SIGNAL(NBI, ...) __VA_ARGS__

#define GSHMEMI_RMA_GROUP_PUT(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_GROUP_GET(NBI, ...) __VA_ARGS__
#define GSHMEMI_RMA_GROUP_P(NBI, ...)
#define GSHMEMI_RMA_GROUP_G(NBI, ...)
#define GSHMEMI_RMA_GROUP_IPUT(NBI, ...)
#define GSHMEMI_RMA_GROUP_IGET(NBI, ...)
#define GSHMEMI_RMA_GROUP_PUT_SIGNAL(NBI, ...) __VA_ARGS__


/* Atomics: X(STEM, TAIL, SHAPE, AMO, A, B); AMO is the operation applied to
 * the word (GSHMEMI_AMO_<AMO> of gshmem/internal/fifo.h: FETCH, SET, SWAP,
 * CSWAP, ADD, AND, OR, XOR).  Shapes:
 *   FETCH      (source, pe) -> value
 *   OP         (dest, value, pe): value is the operand
 *   FETCH_OP   (dest, value, pe) -> the old value
 *   CSWAP      (dest, cond, value, pe) -> the old value
 *   INC        (dest, pe): the operand is 1
 *   FETCH_INC  (dest, pe) -> the old value
 * Each table goes with the type table of the same name. */
#define GSHMEM_FOR_AMO_EXTENDED_OPS(X, A, B)               \
    X(atomic_fetch, , FETCH, FETCH, A, B)                  \
    X(atomic_set, , OP, SET, A, B)                         \
    X(atomic_swap, , FETCH_OP, SWAP, A, B)

#define GSHMEM_FOR_AMO_STANDARD_OPS(X, A, B)               \
    X(atomic_compare_swap, , CSWAP, CSWAP, A, B)           \
    X(atomic_fetch_inc, , FETCH_INC, ADD, A, B)            \
    X(atomic_inc, , INC, ADD, A, B)                        \
    X(atomic_fetch_add, , FETCH_OP, ADD, A, B)             \
    X(atomic_add, , OP, ADD, A, B)

#define GSHMEM_FOR_AMO_BITWISE_OPS(X, A, B)                \
    X(atomic_fetch_and, , FETCH_OP, AND, A, B)             \
    X(atomic_and, , OP, AND, A, B)                         \
    X(atomic_fetch_or, , FETCH_OP, OR, A, B)               \
    X(atomic_or, , OP, OR, A, B)                           \
    X(atomic_fetch_xor, , FETCH_OP, XOR, A, B)             \
    X(atomic_xor, , OP, XOR, A, B)

/* The atomics with a non-blocking form, gshmem_<NAME>_<STEM><TAIL>_nbi
 * (OpenSHMEM 1.5's fetching _nbi atomics): those that return the old value,
 * which the nbi form writes to a local *fetch, its first argument, by the
 * next quiet.  A consumer wraps a row in GSHMEMI_AMO_NBI_##SHAPE(...). */
#define GSHMEMI_AMO_NBI_FETCH(...) __VA_ARGS__
#define GSHMEMI_AMO_NBI_OP(...)
#define GSHMEMI_AMO_NBI_FETCH_OP(...) __VA_ARGS__
#define GSHMEMI_AMO_NBI_CSWAP(...) __VA_ARGS__
#define GSHMEMI_AMO_NBI_INC(...)
#define GSHMEMI_AMO_NBI_FETCH_INC(...) __VA_ARGS__

/* Point-to-point synchronisation: X(STEM, TAIL, SHAPE, NBI, A, B); NBI is 1
 * for the tests, which look once and return instead of waiting.  Shapes:
 *   ONE         (ivar, cmp, cmp_value)
 *   ALL         (ivars, nelems, status, cmp, cmp_value)
 *   ANY         (ivars, nelems, status, cmp, cmp_value) -> an index
 *   SOME        (ivars, nelems, indices, status, cmp, cmp_value) -> a count
 *   ALL_VECTOR, ANY_VECTOR, SOME_VECTOR  the same with cmp_values, one per
 *               ivar, for cmp_value
 * ONE and ALL return nothing from a wait and whether the comparison holds
 * (an int) from a test. */
#define GSHMEM_FOR_P2P_SYNC_OPS(X, A, B)                       \
    X(wait_until, , ONE, 0, A, B)                              \
    X(wait_until, _all, ALL, 0, A, B)                          \
    X(wait_until, _any, ANY, 0, A, B)                          \
    X(wait_until, _some, SOME, 0, A, B)                        \
    X(wait_until, _all_vector, ALL_VECTOR, 0, A, B)            \
    X(wait_until, _any_vector, ANY_VECTOR, 0, A, B)            \
    X(wait_until, _some_vector, SOME_VECTOR, 0, A, B)          \
    X(test, , ONE, 1, A, B)                                    \
    X(test, _all, ALL, 1, A, B)                                \
    X(test, _any, ANY, 1, A, B)                                \
    X(test, _some, SOME, 1, A, B)                              \
    X(test, _all_vector, ALL_VECTOR, 1, A, B)                  \
    X(test, _any_vector, ANY_VECTOR, 1, A, B)                  \
    X(test, _some_vector, SOME_VECTOR, 1, A, B)

/* Collectives on a team, on the RMA types: X(STEM, TAIL, SHAPE, V, A, B),
 * typed gshmem_<NAME>_<STEM> and mem gshmem_<STEM>mem (bytes); V unused (0).
 * Shapes, each returning 0 or a status:
 *   BROADCAST  (team, dest, source, nelems, PE_root): root's source to
 *              every PE's dest, the root's own too
 *   COLLECT    (team, dest, source, nelems): every PE's source, in team
 *              order; nelems may differ between PEs
 *   FCOLLECT   the same, nelems the same on every PE
 *   ALLTOALL   (team, dest, source, nelems): block j of my source to PE
 *              j's dest, at block my index
 *   ALLTOALLS  (team, dest, source, dst, sst, nelems): the same with
 *              element strides dst (dest) and sst (source) */
#define GSHMEM_FOR_COLL_OPS(X, A, B)                    \
    X(broadcast, , BROADCAST, 0, A, B)                  \
    X(collect, , COLLECT, 0, A, B)                      \
    X(fcollect, , FCOLLECT, 0, A, B)                    \
    X(alltoall, , ALLTOALL, 0, A, B)                    \
    X(alltoalls, , ALLTOALLS, 0, A, B)

/* Reductions on a team: X(STEM, TAIL, SHAPE, OP, A, B), typed
 * gshmem_<NAME>_<STEM><TAIL>; OP combines two values (AND, OR, XOR, MIN,
 * MAX, SUM, PROD).  Shapes, each returning 0 or a status:
 *   REDUCE         (team, dest, source, nreduce): every PE's dest gets the
 *                  element-wise combination of all PEs' sources
 *   REDUCESCATTER  (team, dest, source, nreduce): source holds one block of
 *                  nreduce per PE; PE i's dest gets the combination of
 *                  every PE's block i (NVSHMEM's extension)
 *   INSCAN, EXSCAN (team, dest, source, nelems): PE i's dest gets the
 *                  combination of the sources of PEs 0..i (INSCAN) or
 *                  0..i-1 (EXSCAN; on PE 0, zero) */
#define GSHMEM_FOR_REDUCE_BITWISE_OPS(X, A, B)          \
    X(and, _reduce, REDUCE, AND, A, B)                  \
    X(or, _reduce, REDUCE, OR, A, B)                    \
    X(xor, _reduce, REDUCE, XOR, A, B)                  \
    X(and, _reducescatter, REDUCESCATTER, AND, A, B)    \
    X(or, _reducescatter, REDUCESCATTER, OR, A, B)      \
    X(xor, _reducescatter, REDUCESCATTER, XOR, A, B)

#define GSHMEM_FOR_REDUCE_ARITH_OPS(X, A, B)            \
    X(min, _reduce, REDUCE, MIN, A, B)                  \
    X(max, _reduce, REDUCE, MAX, A, B)                  \
    X(min, _reducescatter, REDUCESCATTER, MIN, A, B)    \
    X(max, _reducescatter, REDUCESCATTER, MAX, A, B)    \
    GSHMEM_FOR_REDUCE_COMPLEX_OPS(X, A, B)

/* The complex types' (no order: no min or max), which every arithmetic
 * type has too. */
#define GSHMEM_FOR_REDUCE_COMPLEX_OPS(X, A, B)          \
    X(sum, _reduce, REDUCE, SUM, A, B)                  \
    X(prod, _reduce, REDUCE, PROD, A, B)                \
    X(sum, _reducescatter, REDUCESCATTER, SUM, A, B)    \
    X(prod, _reducescatter, REDUCESCATTER, PROD, A, B)  \
    X(sum, _inscan, INSCAN, SUM, A, B)                  \
    X(sum, _exscan, EXSCAN, SUM, A, B)

/* ---- the active-set collectives (OpenSHMEM 1.5's deprecated forms) ------
 * Host only; on the PEs PE_start + i * 2^logPE_stride, i < PE_size, with a
 * pSync array (gshmem.h).
 *
 * The data collectives are GSHMEM_FOR_COLL_OPS's rows in sized forms,
 * gshmem_<STEM><BITS><TAIL> (gshmem_broadcast32): X(BITS, TYPE). */
#define GSHMEM_FOR_ACTIVE_SET_SIZES(X) \
    X(32, uint32_t)                    \
    X(64, uint64_t)

/* The reductions' types, as the specification lists them for the to_all
 * forms: the bitwise operations', the min and max ones', the sum and
 * product ones'; their long double and complex rows are the host-only
 * tables below. */
#define GSHMEMI_TO_ALL_BITWISE_TYPES(X, C)    \
    X(short, short, 1, C)                     \
    X(int, int, 1, C)                         \
    X(long, long, 1, C)                       \
    X(longlong, long long, 1, C)
#define GSHMEM_FOR_TO_ALL_BITWISE_TYPES(X) \
    GSHMEMI_TO_ALL_BITWISE_TYPES(GSHMEMI_TO_ALL_BITWISE_TYPE, X)
#define GSHMEMI_TO_ALL_BITWISE_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

#define GSHMEMI_TO_ALL_MINMAX_TYPES(X, C)     \
    GSHMEMI_TO_ALL_BITWISE_TYPES(X, C)        \
    X(float, float, 1, C)                     \
    X(double, double, 1, C)
#define GSHMEM_FOR_TO_ALL_MINMAX_TYPES(X) \
    GSHMEMI_TO_ALL_MINMAX_TYPES(GSHMEMI_TO_ALL_MINMAX_TYPE, X)
#define GSHMEMI_TO_ALL_MINMAX_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

#define GSHMEMI_TO_ALL_SUMPROD_TYPES(X, C)    \
    GSHMEMI_TO_ALL_MINMAX_TYPES(X, C)
#define GSHMEM_FOR_TO_ALL_SUMPROD_TYPES(X) \
    GSHMEMI_TO_ALL_SUMPROD_TYPES(GSHMEMI_TO_ALL_SUMPROD_TYPE, X)
#define GSHMEMI_TO_ALL_SUMPROD_TYPE(NAME, TYPE, G, X) X(NAME, TYPE, G)

/* The to_all forms' host-only types, as the team reductions': long double
 * for min, max, sum and prod, the complex types for sum and prod. */
#define GSHMEMI_TO_ALL_MINMAX_HOST_TYPES(X, C) GSHMEMI_REDUCE_ARITH_HOST_TYPES(X, C)
#define GSHMEM_FOR_TO_ALL_MINMAX_HOST_TYPES(X) \
    GSHMEMI_TO_ALL_MINMAX_HOST_TYPES(GSHMEMI_TO_ALL_MINMAX_TYPE, X)
#define GSHMEMI_TO_ALL_SUMPROD_HOST_TYPES(X, C) \
    GSHMEMI_REDUCE_ARITH_HOST_TYPES(X, C) GSHMEMI_REDUCE_COMPLEX_HOST_TYPES(X, C)
#define GSHMEM_FOR_TO_ALL_SUMPROD_HOST_TYPES(X) \
    GSHMEMI_TO_ALL_SUMPROD_HOST_TYPES(GSHMEMI_TO_ALL_SUMPROD_TYPE, X)

/* The reductions, typed gshmem_<NAME>_<STEM><TAIL> (gshmem_int_sum_to_all),
 * each table with the type table of the same name: X(STEM, TAIL, SHAPE,
 * OP, A, B), OP as the team reductions' (AND, OR, XOR, MIN, MAX, SUM,
 * PROD).  One shape:
 *   TO_ALL  (dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk,
 *           pSync): every PE's dest gets the element-wise combination of
 *           all the active set's sources (dest may be source) */
#define GSHMEM_FOR_TO_ALL_BITWISE_OPS(X, A, B)          \
    X(and, _to_all, TO_ALL, AND, A, B)                  \
    X(or, _to_all, TO_ALL, OR, A, B)                    \
    X(xor, _to_all, TO_ALL, XOR, A, B)

#define GSHMEM_FOR_TO_ALL_MINMAX_OPS(X, A, B)           \
    X(min, _to_all, TO_ALL, MIN, A, B)                  \
    X(max, _to_all, TO_ALL, MAX, A, B)

#define GSHMEM_FOR_TO_ALL_SUMPROD_OPS(X, A, B)          \
    X(sum, _to_all, TO_ALL, SUM, A, B)                  \
    X(prod, _to_all, TO_ALL, PROD, A, B)

/* Helpers for the _Generic forms: keep an association only where G is 1. */
#define GSHMEMI_IF_GENERIC_1(...) __VA_ARGS__
#define GSHMEMI_IF_GENERIC_0(...)
#define GSHMEMI_IF_GENERIC(G, ...) GSHMEMI_IF_GENERIC_##G(__VA_ARGS__)

#endif /* GSHMEM_TYPES_H */
