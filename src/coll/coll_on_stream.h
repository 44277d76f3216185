/* The stream-ordered collectives' checks and launches (coll_on_stream.c),
 * shared by the public gshmemx_*_on_stream calls and by the host forms on
 * the GPU heap, which run as them on the team's own stream. */
#ifndef GSHMEMI_COLL_COLL_ON_STREAM_H
#define GSHMEMI_COLL_COLL_ON_STREAM_H

#include <stddef.h>

#include <gshmem.h>

#include "coll/coll_launch.h"
#include "coll/team.h"

/* A move of shape GSHMEMI_COLL_SHAPE_* (coll_launch.h), checked and
 * launched on stream; bad input ends the job naming call. */
int gshmemi_coll_move_on(const char *call, int shape, gshmem_team_t team, void *dest,
                         const void *source, size_t nbytes, int root, ptrdiff_t dst, ptrdiff_t sst,
                         size_t nelems, size_t esize, struct CUstream_st *stream);

/* A reduction or scan of kind GSHMEMI_COLL_KIND(...) on nelems elements of
 * esize bytes, launched by `launch` (one of coll_launch.h's typed
 * launchers): src_blocks where source holds a block per member
 * (reducescatter), grid where the shape has a grid algorithm. */
typedef int gshmemi_coll_reduce_launch(void *stream, gshmem_team_t team, void *dest,
                                       const void *source, size_t nelems, int blocks,
                                       const struct gshmemi_ll_areas *ll,
                                       const struct gshmemi_push_area *push);
int gshmemi_coll_reduce_on(const char *call, int kind, int src_blocks, int grid,
                           gshmem_team_t team, void *dest, const void *source, size_t nelems,
                           size_t esize, gshmemi_coll_reduce_launch *launch,
                           struct CUstream_st *stream);

/* The stream a host form runs its stream form on, or NULL where it keeps
 * the host algorithms: the heap is not in GPU memory, two PEs of the job
 * share a GPU, a member of t is not mapped, or dest or source (NULL: not
 * looked at) lies outside the heap (static data).  Symmetric buffers make
 * the answer the same on every member.  On a stream, this PE's GPU is
 * current (*prev: the device to give back, gshmemi_gpu_leave) and the
 * copies, atomics and signals it issued before are complete. */
struct CUstream_st *gshmemi_coll_host_stream(const char *call, struct gshmemi_team *t,
                                             const void *dest, const void *source, int *prev);

#endif
