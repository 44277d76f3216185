/* A build without CUDA: the stream-ordered collectives never reach these
 * (they need the heap in GPU memory), which say so by failing. */
#include "coll/coll_launch.h"

int gshmemi_launch_team_sync(void *stream, gshmem_team_t team, int generation, int quiet)
{
    (void)stream, (void)team, (void)generation, (void)quiet;
    return -1;
}

int gshmemi_launch_coll_move(void *stream, int shape, gshmem_team_t team, void *dest,
                             const void *source, size_t nbytes, int root, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems, size_t esize, int blocks,
                             const struct gshmemi_ll_areas *ll,
                             const struct gshmemi_push_area *push)
{
    (void)stream, (void)shape, (void)team, (void)dest, (void)source, (void)nbytes, (void)root;
    (void)dst, (void)sst, (void)nelems, (void)esize, (void)blocks, (void)ll, (void)push;
    return -1;
}

#define NONE_REDUCE(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                          \
    int gshmemi_launch_##NAME##_##STEM##TAIL(void *stream, gshmem_team_t team, void *dest,     \
                                             const void *source, size_t nelems, int blocks,    \
                                             const struct gshmemi_ll_areas *ll,                \
                                             const struct gshmemi_push_area *push)             \
    {                                                                                          \
        (void)stream, (void)team, (void)dest, (void)source, (void)nelems, (void)blocks;        \
        (void)ll, (void)push;                                                                  \
        return -1;                                                                             \
    }
#define NONE_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(NONE_REDUCE, NAME, TYPE)
#define NONE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(NONE_REDUCE, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(NONE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(NONE_ARITH)
