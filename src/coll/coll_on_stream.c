/* The collectives in stream order (gshmemx_*_on_stream): checked here on
 * the host, then launched on the stream (coll_on_stream_kernels.cu, and
 * coll_reduce_kernels.cuh for the reductions): the device API's block form
 * on one block, or, for large payloads on teams whose members are all
 * mapped, a grid algorithm on many blocks.  They need the heap in GPU
 * memory. */
#include <string.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>
#include <gshmemx.h>

#include "coll/coll_launch.h"
#include "coll/coll_on_stream.h"
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

/* The algorithm for a payload of `bytes` per member on t: 0 for flag
 * packets (up to GSHMEM_COLL_LL_STREAM_MAX on teams small enough for the
 * kernel's areas, else GSHMEM_COLL_LL_MAX; t all mapped) or the block form
 * (barrier, move, barrier), else the grid algorithm's blocks: one per
 * 16 KiB, from 2 up to 64 (GSHMEM_COLL_ALGO and GSHMEM_COLL_GRID_MIN
 * override the choice, for benchmarking). */
static int grid_blocks(const struct gshmemi_team *t, size_t bytes)
{
    const char *algo = gshmemi_env.COLL_ALGO;
    if (!t->mapped || t->n < 2 || bytes == 0 || strcmp(algo, "simple") == 0)
        return 0;
    const size_t ll_max = t->n <= GSHMEMI_LL_AREAS_MEMBERS ? gshmemi_team_ll_stream_max()
                                                          : gshmemi_team_ll_max();
    if (strcmp(algo, "grid") != 0 &&
        (bytes <= ll_max || bytes < (size_t)gshmemi_env.COLL_GRID_MIN))
        return 0;
    size_t blocks = bytes / 16384;
    blocks = blocks < 2 ? 2 : blocks > GSHMEMI_COLL_GRID_BLOCKS ? GSHMEMI_COLL_GRID_BLOCKS : blocks;
    return (int)blocks;
}

/* The generation a stream call's kernel checks its team's slot against
 * (a CUDA graph replayed after gshmem_team_destroy): under
 * GSHMEM_DEBUG_CHECKS only, as the kernels' other checks, since the load
 * costs every small collective about 0.1 us; 0: unchecked. */
static int checked_generation(const struct gshmemi_team *t)
{
    return gshmemi_env.DEBUG_CHECKS ? t->generation : 0;
}

/* How a shape pushes: not at all; as many bytes as the grid moves
 * (broadcast, reducescatter); or every member's whole source to every
 * other (reduce: (n - 1) x bytes into each, where the grid's two-shot
 * takes 2 (n - 1) / n x bytes). */
enum { PUSH_NONE, PUSH_SAME, PUSH_REDUCE };
/* A reduce pushes past the two-shot's bytes only while the excess moves
 * in about the time the push saves (one meeting and the reads' round
 * trips, some 3 us on the H200 pair; about 1 MiB at NVLink's store
 * bandwidth): up to 680 KiB a member at 4 PEs, 195 KiB at 8. */
#define PUSH_EXCESS_MAX ((size_t)1 << 20)

/* Where the grid algorithm would run, or GSHMEM_COLL_ALGO=push wants it,
 * broadcasts and reductions of up to the push area's slots push instead
 * (filling *push): no meeting, no reads from peers. on_grid: the grid
 * would run. */
static int push_blocks(const struct gshmemi_team *t, gshmem_team_t team, size_t bytes, int on_grid,
                       int how, struct gshmemi_push_area *push)
{
    const int forced = strcmp(gshmemi_env.COLL_ALGO, "push") == 0;
    const size_t n = (size_t)t->n;
    if (how == PUSH_NONE || (!on_grid && !forced) || bytes == 0 ||
        (how == PUSH_REDUCE && !forced && n > 2 && bytes / n * (n - 1) * (n - 2) > PUSH_EXCESS_MAX) ||
        !gshmemi_team_push_area(t, team, push))
        return 0;
    if (bytes > push->cap) {
        memset(push, 0, sizeof(*push));
        return 0;
    }
    return GSHMEMI_PUSH_BLOCKS;
}

/* The kernel's algorithm for `bytes` per member on t, for a shape that has
 * a grid algorithm (grid) or not, and how it pushes (PUSH_*): the blocks
 * of the push (push_blocks) or the grid (grid_blocks), else 0
 * with *ll filled for flag packets straight on the members' areas (the
 * kernel runs them on a block per share) up to GSHMEM_COLL_LL_STREAM_MAX
 * where the team is small enough for the kernel's argument, and cleared
 * elsewhere (the block form, which takes them up to GSHMEM_COLL_LL_MAX
 * itself). */
static int algorithm(const struct gshmemi_team *t, gshmem_team_t team, size_t bytes, int grid,
                     int pushes, struct gshmemi_ll_areas *ll, struct gshmemi_push_area *push)
{
    int blocks = grid ? grid_blocks(t, bytes) : 0;
    memset(push, 0, sizeof(*push));
    const int pushed = push_blocks(t, team, bytes, blocks > 0, pushes, push);
    const size_t max = gshmemi_team_ll_stream_max();
    if (pushed > 0 || !grid || blocks > 0 || max == 0 || bytes > max ||
        !gshmemi_team_ll_areas(t, team, ll))
        memset(ll, 0, sizeof(*ll));
    if (pushed > 0)
        blocks = pushed;
    ll->generation = push->generation = checked_generation(t);
    return blocks;
}

struct CUstream_st *gshmemi_coll_host_stream(const char *call, struct gshmemi_team *t,
                                             const void *dest, const void *source, int *prev)
{
    if (!gshmemi_heap.on_device || gshmemi_heap.gpu_shared || !t->mapped ||
        (dest != NULL && !gshmemi_heap_contains(dest)) ||
        (source != NULL && !gshmemi_heap_contains(source)))
        return NULL;
    /* (Where PEs share a GPU, a kernel that waits for the others would
     * hold it from their host operations' copies and kernels for a time
     * slice each: the host algorithms there.)  A stream per team, not the
     * runtime's operations stream: threads may run collectives on two
     * teams at once, in either order (a kernel of one queued behind the
     * other's, which waits for members that are in the first, would never
     * start). */
    *prev = gshmemi_gpu_enter();
    if (t->stream == NULL && (t->stream = gshmemi_gpu_stream_new(call)) == NULL)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call); /* logged */
    gshmemi_gpu_quiet(call); /* the host's copies into source before it, as the host algorithms */
    return t->stream;
}

GSHMEM_API int gshmemx_team_sync_on_stream(gshmem_team_t team, struct CUstream_st *stream)
{
    const struct gshmemi_team *t = team_on(__func__, team);
    launched(__func__, gshmemi_launch_team_sync(stream, team, checked_generation(t), 0));
    return 0;
}

GSHMEM_API int gshmemx_barrier_on_stream(gshmem_team_t team, struct CUstream_st *stream)
{
    const struct gshmemi_team *t = team_on(__func__, team);
    launched(__func__, gshmemi_launch_team_sync(stream, team, checked_generation(t), 1));
    return 0;
}

/* [addr, addr + bytes) lies in this PE's symmetric heap: kernels reach
 * the members' copies by its offset, unchecked. */
static void in_heap(const char *call, const char *what, const void *addr, size_t bytes)
{
    if (bytes > 0)
        (void)gshmemi_rma_target(call, what, addr, bytes, gshmemi_rt.my_pe);
}

/* Every member's arguments match (GSHMEM_DEBUG_CHECKS), checked here for
 * every algorithm: kernels in stream order do not check them again (a
 * call captured into a CUDA graph is checked once, at the call, not at
 * each replay).  The check's copies and barriers run on gshmem's streams,
 * which CUDA refuses while the application captures a stream in its
 * global mode unless this thread's mode is relaxed. */
static void check_args(const char *call, const struct gshmemi_team *t, gshmem_team_t team, int kind,
                       size_t bytes, int root)
{
    if (!gshmemi_env.DEBUG_CHECKS)
        return;
    const int mode = gshmemi_gpu_capture_relax();
    gshmemi_coll_check_args(call, t, team, kind, bytes, root);
    gshmemi_gpu_capture_restore(mode);
}

/* A move in stream order: its checks, its algorithm and its kernel. */
int gshmemi_coll_move_on(const char *call, int shape, gshmem_team_t team, void *dest,
                         const void *source, size_t nbytes, int root, ptrdiff_t dst, ptrdiff_t sst,
                         size_t nelems, size_t esize, struct CUstream_st *stream)
{
    static const int kinds[] = {
        [GSHMEMI_COLL_SHAPE_BROADCAST] = GSHMEMI_COLL_KIND(BROADCAST, NONE),
        [GSHMEMI_COLL_SHAPE_COLLECT] = GSHMEMI_COLL_KIND(COLLECT, NONE),
        [GSHMEMI_COLL_SHAPE_FCOLLECT] = GSHMEMI_COLL_KIND(FCOLLECT, NONE),
        [GSHMEMI_COLL_SHAPE_ALLTOALL] = GSHMEMI_COLL_KIND(ALLTOALL, NONE),
        [GSHMEMI_COLL_SHAPE_ALLTOALLS] = GSHMEMI_COLL_KIND(ALLTOALLS, NONE)};
    struct gshmemi_team *t = team_on(call, team);
    const size_t n = (size_t)t->n;
    size_t src_bytes = nbytes, dst_bytes = nbytes;
    switch (shape) {
    case GSHMEMI_COLL_SHAPE_BROADCAST:
        if (root < 0 || root >= t->n)
            gshmemi_rma_fail(call, "PE_root %d is not in the team (%d PEs)", root, t->n);
        break;
    case GSHMEMI_COLL_SHAPE_FCOLLECT:
        dst_bytes = gshmemi_rma_bytes(call, n, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_ALLTOALL:
        src_bytes = dst_bytes = gshmemi_rma_bytes(call, n, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_ALLTOALLS:
        if (dst <= 0 || sst <= 0)
            gshmemi_rma_fail(call, "strides dst %td and sst %td must be positive", dst, sst);
        if (nelems > 0) { /* through the last element of the last block */
            const size_t last = gshmemi_rma_bytes(call, n, nelems) - 1;
            dst_bytes = gshmemi_rma_bytes(call, last, gshmemi_rma_bytes(call, (size_t)dst, esize)) + esize;
            src_bytes = gshmemi_rma_bytes(call, last, gshmemi_rma_bytes(call, (size_t)sst, esize)) + esize;
        } else {
            src_bytes = dst_bytes = 0;
        }
        nbytes = nelems * esize;
        break;
    }
    in_heap(call, "dest", dest, dst_bytes);
    in_heap(call, "source", source, src_bytes);
    if (shape != GSHMEMI_COLL_SHAPE_BROADCAST || t->my == root) /* else source is not read */
        gshmemi_coll_check_overlap(
            call, dest, dst_bytes, source, src_bytes,
            shape == GSHMEMI_COLL_SHAPE_BROADCAST  ? source
            : shape == GSHMEMI_COLL_SHAPE_FCOLLECT ? (const char *)source - (size_t)t->my * nbytes
                                                   : NULL);
    check_args(call, t, team, kinds[shape], nbytes, shape == GSHMEMI_COLL_SHAPE_BROADCAST ? root : -1);
    const int grid = shape == GSHMEMI_COLL_SHAPE_BROADCAST || shape == GSHMEMI_COLL_SHAPE_FCOLLECT ||
                     shape == GSHMEMI_COLL_SHAPE_ALLTOALL;
    struct gshmemi_ll_areas ll;
    struct gshmemi_push_area push;
    const int blocks =
        algorithm(t, team, nbytes, grid,
                  shape == GSHMEMI_COLL_SHAPE_BROADCAST ? PUSH_SAME : PUSH_NONE, &ll, &push);
    launched(call, gshmemi_launch_coll_move(stream, shape, team, dest, source, nbytes, root, dst,
                                            sst, nelems, esize, blocks, &ll, &push));
    return 0;
}

#define ON_STREAM_BROADCAST(F, PTYPE, ETYPE)                                                  \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems,   \
                     int PE_root, struct CUstream_st *stream)                                \
    {                                                                                        \
        return gshmemi_coll_move_on(#F, GSHMEMI_COLL_SHAPE_BROADCAST, team, dest, source,    \
                                    gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE)), PE_root, 0, \
                                    0, 0, 0, stream);                                        \
    }
#define ON_STREAM_BYTES(F, PTYPE, ETYPE, SHAPE)                                               \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, size_t nelems,   \
                     struct CUstream_st *stream)                                             \
    {                                                                                        \
        return gshmemi_coll_move_on(#F, SHAPE, team, dest, source,                           \
                                    gshmemi_rma_bytes(#F, nelems, sizeof(ETYPE)), 0, 0, 0, 0, \
                                    0, stream);                                              \
    }
#define ON_STREAM_COLLECT(F, PTYPE, ETYPE) ON_STREAM_BYTES(F, PTYPE, ETYPE, GSHMEMI_COLL_SHAPE_COLLECT)
#define ON_STREAM_FCOLLECT(F, PTYPE, ETYPE) ON_STREAM_BYTES(F, PTYPE, ETYPE, GSHMEMI_COLL_SHAPE_FCOLLECT)
#define ON_STREAM_ALLTOALL(F, PTYPE, ETYPE) ON_STREAM_BYTES(F, PTYPE, ETYPE, GSHMEMI_COLL_SHAPE_ALLTOALL)
#define ON_STREAM_ALLTOALLS(F, PTYPE, ETYPE)                                                      \
    GSHMEM_API int F(gshmem_team_t team, PTYPE *dest, const PTYPE *source, ptrdiff_t dst,       \
                     ptrdiff_t sst, size_t nelems, struct CUstream_st *stream)                   \
    {                                                                                            \
        return gshmemi_coll_move_on(#F, GSHMEMI_COLL_SHAPE_ALLTOALLS, team, dest, source, 0, \
                                    0, dst, sst, nelems, sizeof(ETYPE), stream);             \
    }
#define ON_STREAM_TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    ON_STREAM_##SHAPE(gshmemx_##NAME##_##STEM##TAIL##_on_stream, TYPE, TYPE)
#define ON_STREAM_TYPE(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(ON_STREAM_TYPED, NAME, TYPE)
GSHMEM_FOR_RMA_TYPES(ON_STREAM_TYPE)
#define ON_STREAM_MEM(STEM, TAIL, SHAPE, V, A, B) \
    ON_STREAM_##SHAPE(gshmemx_##STEM##mem##TAIL##_on_stream, void, char)
GSHMEM_FOR_COLL_OPS(ON_STREAM_MEM, , )

int gshmemi_coll_reduce_on(const char *call, int kind, int src_blocks, int grid,
                           gshmem_team_t team, void *dest, const void *source, size_t nelems,
                           size_t esize, gshmemi_coll_reduce_launch *launch,
                           struct CUstream_st *stream)
{
    struct gshmemi_team *t = team_on(call, team);
    const size_t bytes = gshmemi_rma_bytes(call, nelems, esize);
    const size_t src_bytes = src_blocks ? gshmemi_rma_bytes(call, bytes, (size_t)t->n) : bytes;
    in_heap(call, "dest", dest, bytes);
    in_heap(call, "source", source, src_bytes);
    gshmemi_coll_check_overlap(call, dest, bytes, source, src_bytes,
                               (const char *)source + (src_blocks ? (size_t)t->my * bytes : 0));
    check_args(call, t, team, kind, bytes, -1);
    struct gshmemi_ll_areas ll;
    struct gshmemi_push_area push;
    const int blocks = algorithm(t, team, bytes, grid,
                                 !grid ? PUSH_NONE : src_blocks ? PUSH_SAME : PUSH_REDUCE, &ll, &push);
    launched(call, launch(stream, team, dest, source, nelems, blocks, &ll, &push));
    return 0;
}

#define HAS_GRID_REDUCE 1
#define HAS_GRID_REDUCESCATTER 1
#define HAS_GRID_INSCAN 0
#define HAS_GRID_EXSCAN 0
#define SRC_BLOCKS_REDUCE 0 /* reducescatter's source: a block per member */
#define SRC_BLOCKS_REDUCESCATTER 1
#define SRC_BLOCKS_INSCAN 0
#define SRC_BLOCKS_EXSCAN 0
#define ON_STREAM_REDUCE(STEM, TAIL, SHAPE, OP, NAME, TYPE)                                       \
    GSHMEM_API int gshmemx_##NAME##_##STEM##TAIL##_on_stream(                                    \
        gshmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems,                       \
        struct CUstream_st *stream)                                                              \
    {                                                                                            \
        return gshmemi_coll_reduce_on("gshmemx_" #NAME "_" #STEM #TAIL "_on_stream",             \
                                      GSHMEMI_COLL_KIND_OF(GSHMEMI_COLL_KIND(SHAPE, OP), TYPE),  \
                                      SRC_BLOCKS_##SHAPE,                                        \
                                      HAS_GRID_##SHAPE, team, dest, source, nelems,              \
                                      sizeof(TYPE), gshmemi_launch_##NAME##_##STEM##TAIL,        \
                                      stream);                                                   \
    }
#define ON_STREAM_REDUCE_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(ON_STREAM_REDUCE, NAME, TYPE)
#define ON_STREAM_REDUCE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(ON_STREAM_REDUCE, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(ON_STREAM_REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(ON_STREAM_REDUCE_ARITH)
