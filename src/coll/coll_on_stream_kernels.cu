// The collectives in stream order: one block on the caller's stream runs
// the device API's block form, so the collective takes its place in the
// stream (after the work before it, before the work after it).  The team
// barriers' counts live in GPU memory: a captured graph replays correctly.
#include <gshmem_device.cuh>

#include "coll/coll_launch.h"

#define THREADS 512

namespace {

__global__ void team_sync_kernel(gshmem_team_t team, int quiet)
{
    if (quiet)
        gshmemx_barrier_block(team);
    else
        gshmemx_team_sync_block(team);
}

__global__ void move_kernel(int shape, gshmem_team_t team, void *dest, const void *src,
                            size_t nbytes, int root, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                            size_t esize)
{
    switch (shape) {
    case GSHMEMI_COLL_SHAPE_BROADCAST:
        gshmemi_coll_broadcast<GSHMEMI_BLOCK>("gshmemx_broadcast_on_stream", team, dest, src, nbytes,
                                              root);
        break;
    case GSHMEMI_COLL_SHAPE_COLLECT:
        gshmemi_coll_collect<GSHMEMI_BLOCK>("gshmemx_collect_on_stream", team, dest, src, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_FCOLLECT:
        gshmemi_coll_fcollect<GSHMEMI_BLOCK>("gshmemx_fcollect_on_stream", team, dest, src, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_ALLTOALL:
        gshmemi_coll_alltoall<GSHMEMI_BLOCK>("gshmemx_alltoall_on_stream", team, dest, src, nbytes);
        break;
    default:
        gshmemi_coll_alltoalls<GSHMEMI_BLOCK>("gshmemx_alltoalls_on_stream", team, dest, src, dst,
                                              sst, nelems, esize);
    }
}

int launched() { return static_cast<int>(cudaGetLastError()); }

} // namespace

extern "C" int gshmemi_launch_team_sync(void *stream, gshmem_team_t team, int quiet)
{
    team_sync_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(team, quiet);
    return launched();
}

extern "C" int gshmemi_launch_coll_move(void *stream, int shape, gshmem_team_t team, void *dest,
                                        const void *source, size_t nbytes, int root, ptrdiff_t dst,
                                        ptrdiff_t sst, size_t nelems, size_t esize)
{
    move_kernel<<<1, THREADS, 0, static_cast<cudaStream_t>(stream)>>>(
        shape, team, dest, source, nbytes, root, dst, sst, nelems, esize);
    return launched();
}

// One kernel per typed reduction: the block form of the same name.
#define REDUCE_KERNEL(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                           \
    __global__ void kernel_##NAME##_##STEM##TAIL(gshmem_team_t team, void *dest, const void *src,  \
                                                 size_t n)                                         \
    {                                                                                              \
        gshmemx_##NAME##_##STEM##TAIL##_block(team, static_cast<TYPE *>(dest),                     \
                                              static_cast<const TYPE *>(src), n);                  \
    }                                                                                              \
    extern "C" int gshmemi_launch_##NAME##_##STEM##TAIL(void *stream, gshmem_team_t team,         \
                                                        void *dest, const void *src, size_t n)     \
    {                                                                                              \
        kernel_##NAME##_##STEM##TAIL<<<1, THREADS, 0, static_cast<cudaStream_t>(stream)>>>(        \
            team, dest, src, n);                                                                   \
        return launched();                                                                         \
    }
#define REDUCE_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(REDUCE_KERNEL, NAME, TYPE)
#define REDUCE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(REDUCE_KERNEL, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(REDUCE_ARITH)
