/* Kernels that run the collectives in stream order
 * (coll_on_stream_kernels.cu, the reductions' coll_reduce_kernels.cuh):
 * with blocks 0, one block on the stream runs the device API's block form,
 * or, where `ll` is filled (ll->n > 0: small payloads on teams of up to
 * GSHMEMI_LL_AREAS_MEMBERS, all mapped), its flag packets straight on the
 * members' areas in *ll; with blocks > 0 (teams whose members are all
 * mapped), the grid algorithm on that many blocks (at most
 * GSHMEMI_COLL_GRID_BLOCKS; broadcast, fcollect, alltoall, reduce and
 * reducescatter only), or, where `push` is filled (push->n > 0: broadcast,
 * reduce and reducescatter on a team with a push area), a push into the
 * members' push areas that meets no one (reductions in a kernel of their
 * own), always on GSHMEMI_PUSH_BLOCKS blocks.  Each returns a cudaError_t
 * (0: launched). */
#ifndef GSHMEMI_COLL_COLL_LAUNCH_H
#define GSHMEMI_COLL_COLL_LAUNCH_H

#include <stddef.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A push area (the world team's or the node team's, and the first split
 * teams', on the GPU heap, src/coll/team.c): the
 * stream collectives' reductions and broadcasts of a member's payload up to
 * its slots' size push their data straight into the receivers' copies of
 * it, then a flag per block, so that they meet no one before they store
 * and never read a peer.  Every push runs on GSHMEMI_PUSH_BLOCKS blocks.
 * Per member: the flags the others' blocks stored here (the collective's
 * number; sender s's block b at word s * GSHMEMI_PUSH_BLOCKS + b), then,
 * by team index, the last collective each member finished (stored when it
 * starts the next, so a sender never overwrites data not yet read), then
 * the collectives each of this PE's blocks has done (twice the count, plus
 * one where the last took a flag from every other member), then two buffers (by
 * the number's parity) of a slot per other member, in team order after
 * this PE, of `cap` bytes. */
enum gshmemi_push_layout {
    GSHMEMI_PUSH_BLOCKS = 64,
    GSHMEMI_PUSH_FLAGS = 0,
    GSHMEMI_PUSH_ACKS = 8 * GSHMEMI_PUSH_BLOCKS * GSHMEMI_LL_AREAS_MEMBERS,
    GSHMEMI_PUSH_NUMBERS = GSHMEMI_PUSH_ACKS + 8 * GSHMEMI_LL_AREAS_MEMBERS,
    GSHMEMI_PUSH_DATA = GSHMEMI_PUSH_ACKS + 4096,
};
/* The push area as this PE maps it, filled on the host for the kernels
 * (passed by value); n 0: none. */
struct gshmemi_push_area {
    char *area[GSHMEMI_LL_AREAS_MEMBERS]; /* member m's area, by team index */
    int pes[GSHMEMI_LL_AREAS_MEMBERS];    /* member m's world PE (messages) */
    uint64_t cap;                         /* bytes a slot */
    int n, my;
    int generation;                       /* as gshmemi_ll_areas', filled either way */
};

/* generation: the team's (struct gshmemi_team) under GSHMEM_DEBUG_CHECKS,
 * which the kernel checks against its slot's; 0: unchecked. */
int gshmemi_launch_team_sync(void *stream, gshmem_team_t team, int generation, int quiet);
/* The moves' shapes, each with the call its kernels name in a failure:
 * one list for the enum (GSHMEMI_COLL_SHAPE_BROADCAST ...) and the names'
 * tables by shape, host's and device's. */
#define GSHMEMI_FOR_COLL_MOVES(X)                    \
    X(BROADCAST, "gshmemx_broadcast_on_stream")      \
    X(COLLECT, "gshmemx_collect_on_stream")          \
    X(FCOLLECT, "gshmemx_fcollect_on_stream")        \
    X(ALLTOALL, "gshmemx_alltoall_on_stream")        \
    X(ALLTOALLS, "gshmemx_alltoalls_on_stream")
#define GSHMEMI_COLL_SHAPE_ID(SHAPE, CALL) GSHMEMI_COLL_SHAPE_##SHAPE,
#define GSHMEMI_COLL_MOVE_CALL(SHAPE, CALL) CALL,
/* A move of the table's shape (GSHMEMI_COLL_SHAPE_*) on bytes: broadcast,
 * collect, fcollect and alltoall take nbytes (and root); alltoalls takes
 * the strides, nelems and esize. */
enum { GSHMEMI_FOR_COLL_MOVES(GSHMEMI_COLL_SHAPE_ID) };
int gshmemi_launch_coll_move(void *stream, int shape, gshmem_team_t team, void *dest,
                             const void *source, size_t nbytes, int root, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems, size_t esize, int blocks,
                             const struct gshmemi_ll_areas *ll,
                             const struct gshmemi_push_area *push);
/* Reductions, one launcher per typed function: gshmemi_launch_int_sum_reduce ... */
#define GSHMEMI_DECL_LAUNCH_REDUCE(STEM, TAIL, SHAPE, OP, NAME, TYPE)                          \
    int gshmemi_launch_##NAME##_##STEM##TAIL(void *stream, gshmem_team_t team, void *dest,     \
                                             const void *source, size_t nelems, int blocks,  \
                                             const struct gshmemi_ll_areas *ll,              \
                                             const struct gshmemi_push_area *push);
#define GSHMEMI_DECL_LAUNCH_REDUCE_BITWISE(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(GSHMEMI_DECL_LAUNCH_REDUCE, NAME, TYPE)
#define GSHMEMI_DECL_LAUNCH_REDUCE_ARITH(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_ARITH_OPS(GSHMEMI_DECL_LAUNCH_REDUCE, NAME, TYPE)
GSHMEM_FOR_REDUCE_BITWISE_TYPES(GSHMEMI_DECL_LAUNCH_REDUCE_BITWISE)
GSHMEM_FOR_REDUCE_ARITH_TYPES(GSHMEMI_DECL_LAUNCH_REDUCE_ARITH)

#ifdef __cplusplus
}
#endif

#endif
