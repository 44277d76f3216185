/* The reductions' element-wise combinations (collectives.c), one function
 * per type and operation of the reduction tables, for every reduction of
 * this module: the team ones (collectives.c, pipe.c) and the active-set
 * ones (active_set.c). */
#ifndef GSHMEMI_COLL_COMBINE_H
#define GSHMEMI_COLL_COMBINE_H

#include <stddef.h>

#include <gshmem.h>

/* out[i] = a[i] OP b[i] for n elements; out overlaps neither a nor b. */
typedef void gshmemi_combine_fn(void *restrict out, const void *restrict a,
                                const void *restrict b, size_t n);

/* gshmemi_combine_<NAME>_<OP> (gshmemi_combine_int_sum): for each REDUCE
 * row of GSHMEM_FOR_REDUCE_*_OPS on its types, and for the to_all
 * reductions' bitwise operations on their (signed) types; the to_all
 * arithmetic rows are the team reductions' own. */
#define GSHMEMI_DECL_COMBINE_REDUCE(NAME, OP) gshmemi_combine_fn gshmemi_combine_##NAME##_##OP;
#define GSHMEMI_DECL_COMBINE_TO_ALL(NAME, OP) GSHMEMI_DECL_COMBINE_REDUCE(NAME, OP)
#define GSHMEMI_DECL_COMBINE_REDUCESCATTER(NAME, OP)
#define GSHMEMI_DECL_COMBINE_INSCAN(NAME, OP)
#define GSHMEMI_DECL_COMBINE_EXSCAN(NAME, OP)
#define GSHMEMI_DECL_COMBINE(STEM, TAIL, SHAPE, OP, NAME, TYPE) \
    GSHMEMI_DECL_COMBINE_##SHAPE(NAME, OP)
#define GSHMEMI_DECL_COMBINES_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(GSHMEMI_DECL_COMBINE, NAME, TYPE)
#define GSHMEMI_DECL_COMBINES_ARITH(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(GSHMEMI_DECL_COMBINE, NAME, TYPE)
#define GSHMEMI_DECL_COMBINES_TO_ALL_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_TO_ALL_BITWISE_OPS(GSHMEMI_DECL_COMBINE, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(GSHMEMI_DECL_COMBINES_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(GSHMEMI_DECL_COMBINES_ARITH)
GSHMEM_FOR_TO_ALL_BITWISE_TYPES(GSHMEMI_DECL_COMBINES_TO_ALL_BITWISE)
#define GSHMEMI_DECL_COMBINES_COMPLEX(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_COMPLEX_OPS(GSHMEMI_DECL_COMBINE, NAME, TYPE)
GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(GSHMEMI_DECL_COMBINES_ARITH)
GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(GSHMEMI_DECL_COMBINES_COMPLEX)

#endif
