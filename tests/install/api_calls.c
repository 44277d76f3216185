/* Built by check_install.sh against the installed headers and library, as C
 * (-std=c11 -pedantic -Wall -Wextra -Werror) and as C++ (-std=c++11
 * -pedantic ...); compiled and linked, not run.  Calls every row of every
 * operation table for every type of its type table, in each form
 * GSHMEMI_RMA_<FORM>_<SHAPE> gives it (the host-only RMA types in the host
 * forms), with arguments of exactly the declared types; in C also each
 * row's _Generic form (gshmem_put), which must exist and pick a function
 * whose arguments fit without a warning. */
#include <gshmem.h>
#include <gshmemx.h>

/* The call of each shape, on d: an array of at least 3 elements. */
#define CALL_RMA_PUT(F) F(d, d + 1, 1, 0);
#define CALL_RMA_GET(F) F(d, d + 1, 1, 0);
#define CALL_RMA_P(F) F(d, d[1], 0);
#define CALL_RMA_G(F) d[0] = F(d + 1, 0);
#define CALL_RMA_IPUT(F) F(d, d + 1, 2, 1, 1, 0);
#define CALL_RMA_IGET(F) F(d, d + 1, 2, 1, 1, 0);
#define CALL_RMA_PUT_SIGNAL(F) F(d, d + 1, 1, sig, 1, GSHMEM_SIGNAL_SET, 0);
#define CALL_ON_STREAM_PUT(F) F(d, d + 1, 1, 0, stream);
#define CALL_ON_STREAM_GET(F) F(d, d + 1, 1, 0, stream);
#define CALL_ON_STREAM_PUT_SIGNAL(F) F(d, d + 1, 1, sig, 1, GSHMEM_SIGNAL_SET, 0, stream);
#define CALL_ON_STREAM_P(F) F(d, d[1], 0, stream);
#define CALL_ON_STREAM_G(F) d[0] = F(d + 1, 0, stream);
#define CALL_AMO_FETCH(F) d[0] = F(d + 1, 0);
#define CALL_AMO_OP(F) F(d, d[1], 0);
#define CALL_AMO_FETCH_OP(F) d[0] = F(d + 1, d[1], 0);
#define CALL_AMO_CSWAP(F) d[0] = F(d + 1, d[1], d[2], 0);
#define CALL_AMO_INC(F) F(d, 0);
#define CALL_AMO_FETCH_INC(F) d[0] = F(d + 1, 0);
#define CALL_AMO_NBI_FETCH(F) F(d, d + 1, 0);
#define CALL_AMO_NBI_FETCH_OP(F) F(d, d + 1, d[1], 0);
#define CALL_AMO_NBI_CSWAP(F) F(d, d + 1, d[1], d[2], 0);
#define CALL_AMO_NBI_FETCH_INC(F) F(d, d + 1, 0);
#define CALL_SYNC_ONE(F) (void)F(d, GSHMEM_CMP_EQ, d[1]);
#define CALL_SYNC_ALL(F) (void)F(d, 2, status, GSHMEM_CMP_EQ, d[2]);
#define CALL_SYNC_ANY(F) (void)F(d, 2, status, GSHMEM_CMP_EQ, d[2]);
#define CALL_SYNC_SOME(F) (void)F(d, 2, indices, status, GSHMEM_CMP_EQ, d[2]);
#define CALL_SYNC_ALL_VECTOR(F) (void)F(d, 2, status, GSHMEM_CMP_EQ, d + 1);
#define CALL_SYNC_ANY_VECTOR(F) (void)F(d, 2, status, GSHMEM_CMP_EQ, d + 1);
#define CALL_SYNC_SOME_VECTOR(F) (void)F(d, 2, indices, status, GSHMEM_CMP_EQ, d + 1);

/* ---- by name: a function per type of each type table ---- */
#define RMA_OP(STEM, TAIL, SHAPE, NBI, NAME, TYPE)       \
    CALL_RMA_##SHAPE(gshmem_##NAME##_##STEM##TAIL)       \
    GSHMEMI_RMA_ON_STREAM_##SHAPE(                       \
        NBI, CALL_ON_STREAM_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_on_stream))
#define RMA(NAME, TYPE, G)                                                      \
    static void rma_##NAME(TYPE *d, uint64_t *sig, struct CUstream_st *stream) \
    {                                                                           \
        GSHMEM_FOR_RMA_OPS(RMA_OP, NAME, TYPE)                                  \
    }
#define RMA_HOST_OP(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    CALL_RMA_##SHAPE(gshmem_##NAME##_##STEM##TAIL)
#define RMA_HOST(NAME, TYPE, G)                                \
    static void rma_##NAME(TYPE *d, uint64_t *sig)             \
    {                                                          \
        GSHMEM_FOR_RMA_OPS(RMA_HOST_OP, NAME, TYPE)            \
    }
#define SIZED_OP(STEM, TAIL, SHAPE, NBI, BITS, TYPE) \
    GSHMEMI_RMA_SIZED_##SHAPE(NBI, CALL_RMA_##SHAPE(gshmem_##STEM##BITS##TAIL))
#define SIZED(BITS, TYPE)                                                              \
    static void sized_##BITS(TYPE *d, uint64_t *sig)                                   \
    {                                                                                  \
        GSHMEM_FOR_RMA_OPS(SIZED_OP, BITS, TYPE)                                       \
    }
#define MEM_OP(STEM, TAIL, SHAPE, NBI, A, B)                                  \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, CALL_RMA_##SHAPE(gshmem_##STEM##mem##TAIL)) \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, GSHMEMI_RMA_ON_STREAM_##SHAPE(               \
        NBI, CALL_ON_STREAM_##SHAPE(gshmemx_##STEM##mem##TAIL##_on_stream)))
static void mem(char *d, uint64_t *sig, struct CUstream_st *stream)
{
    GSHMEM_FOR_RMA_OPS(MEM_OP, , )
}

#define AMO_OP(STEM, TAIL, SHAPE, AMO, NAME, TYPE)  \
    CALL_AMO_##SHAPE(gshmem_##NAME##_##STEM##TAIL) \
    GSHMEMI_AMO_NBI_##SHAPE(CALL_AMO_NBI_##SHAPE(gshmem_##NAME##_##STEM##TAIL##_nbi))
#define AMO(NAME, TYPE, OPS)                                                   \
    static void OPS##_##NAME(TYPE *d)                                          \
    {                                                                          \
        GSHMEM_FOR_##OPS##_OPS(AMO_OP, NAME, TYPE)                             \
    }
#define AMO_EXTENDED(NAME, TYPE, G) AMO(NAME, TYPE, AMO_EXTENDED)
#define AMO_STANDARD(NAME, TYPE, G) AMO(NAME, TYPE, AMO_STANDARD)
#define AMO_BITWISE(NAME, TYPE, G) AMO(NAME, TYPE, AMO_BITWISE)

#define SYNC_OP(STEM, TAIL, SHAPE, NBI, NAME, TYPE) CALL_SYNC_##SHAPE(gshmem_##NAME##_##STEM##TAIL)
#define SYNC(NAME, TYPE, G)                                                    \
    static void sync_##NAME(TYPE *d, size_t *indices, const int *status)       \
    {                                                                          \
        GSHMEM_FOR_P2P_SYNC_OPS(SYNC_OP, NAME, TYPE)                           \
    }

GSHMEM_FOR_RMA_TYPES(RMA)
GSHMEM_FOR_RMA_HOST_TYPES(RMA_HOST)
GSHMEM_FOR_RMA_SIZES(SIZED)
GSHMEM_FOR_AMO_EXTENDED_TYPES(AMO_EXTENDED)
GSHMEM_FOR_AMO_STANDARD_TYPES(AMO_STANDARD)
GSHMEM_FOR_AMO_BITWISE_TYPES(AMO_BITWISE)
GSHMEM_FOR_P2P_SYNC_TYPES(SYNC)

#define CALL_RMA(NAME, TYPE, G) rma_##NAME((TYPE *)p, (uint64_t *)p, (struct CUstream_st *)p);
#define CALL_RMA_HOST(NAME, TYPE, G) rma_##NAME((TYPE *)p, (uint64_t *)p);
#define CALL_SIZED(BITS, TYPE) sized_##BITS((TYPE *)p, (uint64_t *)p);
#define CALL_AMO_EXTENDED(NAME, TYPE, G) AMO_EXTENDED_##NAME((TYPE *)p);
#define CALL_AMO_STANDARD(NAME, TYPE, G) AMO_STANDARD_##NAME((TYPE *)p);
#define CALL_AMO_BITWISE(NAME, TYPE, G) AMO_BITWISE_##NAME((TYPE *)p);
#define CALL_SYNC(NAME, TYPE, G) sync_##NAME((TYPE *)p, (size_t *)p, (const int *)p);

static void by_name(void *p)
{
    GSHMEM_FOR_RMA_TYPES(CALL_RMA)
    GSHMEM_FOR_RMA_HOST_TYPES(CALL_RMA_HOST)
    GSHMEM_FOR_RMA_SIZES(CALL_SIZED)
    mem((char *)p, (uint64_t *)p, (struct CUstream_st *)p);
    GSHMEM_FOR_AMO_EXTENDED_TYPES(CALL_AMO_EXTENDED)
    GSHMEM_FOR_AMO_STANDARD_TYPES(CALL_AMO_STANDARD)
    GSHMEM_FOR_AMO_BITWISE_TYPES(CALL_AMO_BITWISE)
    GSHMEM_FOR_P2P_SYNC_TYPES(CALL_SYNC)
}

/* ---- C: the _Generic forms, for a few types of each table (a _Generic
 * form expands its type table, so it cannot be used inside an expansion of
 * that table) ---- */
#ifndef __cplusplus
#define GENERIC_RMA_OP(STEM, TAIL, SHAPE, NBI, A, B) CALL_RMA_##SHAPE(gshmem_##STEM##TAIL)
#define GENERIC_AMO_OP(STEM, TAIL, SHAPE, AMO, A, B) \
    CALL_AMO_##SHAPE(gshmem_##STEM##TAIL)            \
    GSHMEMI_AMO_NBI_##SHAPE(CALL_AMO_NBI_##SHAPE(gshmem_##STEM##TAIL##_nbi))
#define GENERIC_SYNC_OP(STEM, TAIL, SHAPE, NBI, A, B) CALL_SYNC_##SHAPE(gshmem_##STEM##TAIL)

static void generic_rma(void *p, uint64_t *sig)
{
#define GENERIC_RMA(TYPE)                              \
    {                                                  \
        TYPE *d = (TYPE *)p;                           \
        GSHMEM_FOR_RMA_OPS(GENERIC_RMA_OP, , )         \
    }
    GENERIC_RMA(gshmem_half)
    GENERIC_RMA(char)
    GENERIC_RMA(int)
    GENERIC_RMA(unsigned long long)
    GENERIC_RMA(double)
    GENERIC_RMA(long double)
}

static void generic_amo(void *p)
{
#define GENERIC_AMO(TYPE, OPS)                         \
    {                                                  \
        TYPE *d = (TYPE *)p;                           \
        GSHMEM_FOR_##OPS##_OPS(GENERIC_AMO_OP, , )     \
    }
    GENERIC_AMO(float, AMO_EXTENDED)
    GENERIC_AMO(long, AMO_EXTENDED)
    GENERIC_AMO(int, AMO_STANDARD)
    GENERIC_AMO(size_t, AMO_STANDARD)
    GENERIC_AMO(unsigned int, AMO_BITWISE)
    GENERIC_AMO(uint64_t, AMO_BITWISE)
}

static void generic_sync(void *p, size_t *indices, const int *status)
{
#define GENERIC_SYNC(TYPE)                             \
    {                                                  \
        TYPE *d = (TYPE *)p;                           \
        GSHMEM_FOR_P2P_SYNC_OPS(GENERIC_SYNC_OP, , )   \
    }
    GENERIC_SYNC(short)
    GENERIC_SYNC(ptrdiff_t)
}
#endif

int main(int argc, char **argv)
{
    if (argc < 1000) /* never run: built to be compiled and linked */
        return 0;
    by_name(argv[0]);
#ifndef __cplusplus
    generic_rma(argv[0], (uint64_t *)argv[0]);
    generic_amo(argv[0]);
    generic_sync(argv[0], (size_t *)argv[0], (const int *)argv[0]);
#endif
    return 1;
}
