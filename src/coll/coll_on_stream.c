/* The collectives in stream order (gshmemx_*_on_stream): checked here on
 * the host, then launched on the stream (coll_on_stream_kernels.cu): the
 * device API's block form on one block, or, for large payloads on teams
 * whose members are all mapped, a grid algorithm on many blocks.  They
 * need the heap in GPU memory. */
#include <string.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>
#include <gshmemx.h>

#include "coll/coll_launch.h"
#include "coll/team.h"
#include "core/env.h"
#include "core/runtime.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "rma/rma.h"

/* The team of a stream-ordered call; bad input ends the job here, before
 * anything is enqueued. */
static struct gshmemi_team *team_on(const char *call, gshmem_team_t team)
{
    gshmemi_rma_need_device_heap(call);
    struct gshmemi_team *t = gshmemi_team_get(call, team); /* logs why not */
    if (t == NULL)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
    return t;
}

static void launched(const char *call, int err)
{
    if (err != 0)
        gshmemi_gpu_launch_failed(call, "the collective's kernel", err);
}

/* The algorithm for a payload of `bytes` per member on t: 0 for the block
 * form (flag packets up to GSHMEM_COLL_LL_MAX where t is all mapped, else
 * barrier, move, barrier), else the grid algorithm's blocks: enough to
 * keep about 64 KiB a block, from 2 up to 32 (GSHMEM_COLL_ALGO and
 * GSHMEM_COLL_GRID_MIN override the choice, for benchmarking). */
static int grid_blocks(const struct gshmemi_team *t, size_t bytes)
{
    const char *algo = gshmemi_env.COLL_ALGO;
    if (!t->mapped || t->n < 2 || bytes == 0 || strcmp(algo, "simple") == 0)
        return 0;
    if (strcmp(algo, "grid") != 0 &&
        (bytes <= gshmemi_team_ll_max() || bytes < (size_t)gshmemi_env.COLL_GRID_MIN))
        return 0;
    size_t blocks = bytes / 65536;
    blocks = blocks < 2 ? 2 : blocks > 32 ? 32 : blocks;
    return (int)blocks;
}

GSHMEM_API int gshmemx_team_sync_on_stream(gshmem_team_t team, struct CUstream_st *stream)
{
    (void)team_on(__func__, team);
    launched(__func__, gshmemi_launch_team_sync(stream, team, 0));
    return 0;
}

GSHMEM_API int gshmemx_barrier_on_stream(gshmem_team_t team, struct CUstream_st *stream)
{
    (void)team_on(__func__, team);
    launched(__func__, gshmemi_launch_team_sync(stream, team, 1));
    return 0;
}

static int move_on(const char *call, int shape, gshmem_team_t team, void *dest, const void *source,
                   size_t nbytes, int root, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                   size_t esize, struct CUstream_st *stream)
{
    struct gshmemi_team *t = team_on(call, team);
    if (shape == GSHMEMI_COLL_SHAPE_BROADCAST && (root < 0 || root >= t->n))
        gshmemi_rma_fail(call, "PE_root %d is not in the team (%d PEs)", root, t->n);
    if (shape == GSHMEMI_COLL_SHAPE_ALLTOALLS && (dst <= 0 || sst <= 0))
        gshmemi_rma_fail(call, "strides dst %td and sst %td must be positive", dst, sst);
    static const int kinds[] = {
        [GSHMEMI_COLL_SHAPE_BROADCAST] = GSHMEMI_COLL_KIND(BROADCAST, NONE),
        [GSHMEMI_COLL_SHAPE_FCOLLECT] = GSHMEMI_COLL_KIND(FCOLLECT, NONE),
        [GSHMEMI_COLL_SHAPE_ALLTOALL] = GSHMEMI_COLL_KIND(ALLTOALL, NONE)};
    const int grid = shape == GSHMEMI_COLL_SHAPE_BROADCAST || shape == GSHMEMI_COLL_SHAPE_FCOLLECT ||
                     shape == GSHMEMI_COLL_SHAPE_ALLTOALL;
    const int blocks = grid ? grid_blocks(t, nbytes) : 0;
    if (blocks > 0) /* the block form checks in the kernel; the grid's are checked here */
        gshmemi_coll_check_args(call, t, team, kinds[shape], nbytes,
                                shape == GSHMEMI_COLL_SHAPE_BROADCAST ? root : -1);
    launched(call, gshmemi_launch_coll_move(stream, shape, team, dest, source, nbytes, root, dst,
                                            sst, nelems, esize, blocks));
    return 0;
}

#define ON_STREAM_BROADCAST(F, PTYPE, ETYPE)                                                      \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems,       \
                     int PE_root, struct CUstream_st *stream)                                    \
    {                                                                                            \
        return move_on(#F, GSHMEMI_COLL_SHAPE_BROADCAST, team, dest, source,                     \
                       gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE)), PE_root, 0, 0, 0, 0, stream); \
    }
#define ON_STREAM_BYTES(F, PTYPE, ETYPE, SHAPE)                                                   \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems,       \
                     struct CUstream_st *stream)                                                 \
    {                                                                                            \
        return move_on(#F, SHAPE, team, dest, source,                                            \
                       gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE)), 0, 0, 0, 0, 0, stream);     \
    }
#define ON_STREAM_COLLECT(F, PTYPE, ETYPE) ON_STREAM_BYTES(F, PTYPE, ETYPE, GSHMEMI_COLL_SHAPE_COLLECT)
#define ON_STREAM_FCOLLECT(F, PTYPE, ETYPE) ON_STREAM_BYTES(F, PTYPE, ETYPE, GSHMEMI_COLL_SHAPE_FCOLLECT)
#define ON_STREAM_ALLTOALL(F, PTYPE, ETYPE) ON_STREAM_BYTES(F, PTYPE, ETYPE, GSHMEMI_COLL_SHAPE_ALLTOALL)
#define ON_STREAM_ALLTOALLS(F, PTYPE, ETYPE)                                                      \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, ptrdiff_t dst,       \
                     ptrdiff_t sst, size_t nelems, struct CUstream_st *stream)                   \
    {                                                                                            \
        return move_on(#F, GSHMEMI_COLL_SHAPE_ALLTOALLS, team, dest, source, 0, 0, dst, sst,     \
                       nelems, sizeof(ETYPE), stream);                                           \
    }
#define ON_STREAM_TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    ON_STREAM_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_on_stream, TYPE, TYPE)
#define ON_STREAM_TYPE(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(ON_STREAM_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(ON_STREAM_TYPE)
#define ON_STREAM_MEM(STEM, TAIL, SHAPE, V, A, B) \
    ON_STREAM_##SHAPE(gshmemx_##STEM##mem##TAIL##_on_stream, void, char)
GSHMEM_FOR_COLL_OPS(ON_STREAM_MEM, , )

#define HAS_GRID_REDUCE 1
#define HAS_GRID_REDUCESCATTER 1
#define HAS_GRID_INSCAN 0
#define HAS_GRID_EXSCAN 0
#define ON_STREAM_REDUCE(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                       \
    GSHMEM_API int gshmemx_##NAME##_##STEM##TAIL##_on_stream(                                    \
        gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems,                       \
        struct CUstream_st *stream)                                                              \
    {                                                                                            \
        static const char call[] = "gshmemx_" #NAME "_" #STEM #TAIL "_on_stream";                \
        struct gshmemi_team *t = team_on(call, team);                                            \
        const size_t bytes = gshmemi_rma_bytes(call, nelems, sizeof(TYPE));                      \
        const int blocks = HAS_GRID_##SHAPE ? grid_blocks(t, bytes) : 0;                         \
        if (blocks > 0)                                                                          \
            gshmemi_coll_check_args(call, t, team, GSHMEMI_COLL_KIND(SHAPE, OP), bytes, -1);     \
        launched(call, gshmemi_launch_##NAME##_##STEM##TAIL(stream, team, dest, source, nelems,  \
                                                            blocks));                            \
        return 0;                                                                                \
    }
#define ON_STREAM_REDUCE_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(ON_STREAM_REDUCE, NAME, TYPE)
#define ON_STREAM_REDUCE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(ON_STREAM_REDUCE, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(ON_STREAM_REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(ON_STREAM_REDUCE_ARITH)
