// The barriers and moves in stream order: for small payloads one block on
// the caller's stream runs the device API's block form (flag packets where
// the team is all mapped, else barrier, move, barrier); for large ones on
// teams whose members are all mapped, the grid algorithms below spread the
// work over many blocks.  Either way the collective takes its place in
// the stream, and every count lives in GPU memory: a captured graph
// replays correctly.  The reductions are in coll_reduce_kernels.cuh.
#include "coll/coll_kernels.cuh"

namespace {

__global__ void team_sync_kernel(gshmem_team_t team, int generation, int quiet)
{
    gshmemi_wait_previous();
    team_alive(quiet ? "gshmemx_barrier_on_stream" : "gshmemx_team_sync_on_stream", team, generation);
    if (quiet)
        gshmemx_barrier_block(team);
    else
        gshmemx_team_sync_block(team);
}

// The calls' names for kernels' messages: tables in device memory (a host
// string's address means nothing to a kernel).
__device__ const char *const move_names[] = {GSHMEMI_FOR_COLL_MOVES(GSHMEMI_COLL_MOVE_CALL)};

// Flag packets on the members' areas the host passed (ll.n > 0: the host
// checked the team and chose them for broadcast, fcollect or alltoall), a
// share of them a block, else, on one block, the block form.
__global__ void move_kernel(int shape, gshmem_team_t team, void *dest, const void *src,
                            size_t nbytes, int root, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                            size_t esize, struct gshmemi_ll_areas ll)
{
    gshmemi_wait_previous();
    const char *call = move_names[shape];
    const bool packets = ll.n > 0 && (shape == GSHMEMI_COLL_SHAPE_BROADCAST ||
                                      shape == GSHMEMI_COLL_SHAPE_FCOLLECT ||
                                      shape == GSHMEMI_COLL_SHAPE_ALLTOALL);
    team_check(call, team, ll.generation, packets);
    if (packets) {
        const int form = shape == GSHMEMI_COLL_SHAPE_BROADCAST  ? GSHMEMI_LL_BROADCAST
                         : shape == GSHMEMI_COLL_SHAPE_FCOLLECT ? GSHMEMI_LL_FCOLLECT
                                                                : GSHMEMI_LL_ALLTOALL;
        if (gridDim.x == 1) // (the shares' arithmetic compiled out)
            gshmemi_ll_move<GSHMEMI_BLOCK, false>(call, team, gshmemi_s().teams[team], form, dest,
                                                  src, nbytes, root, &ll);
        else
            gshmemi_ll_move<GSHMEMI_BLOCK, true>(call, team, gshmemi_s().teams[team], form, dest,
                                                 src, nbytes, root, &ll);
        return;
    }
    switch (shape) {
    case GSHMEMI_COLL_SHAPE_BROADCAST:
        gshmemi_coll_broadcast<GSHMEMI_BLOCK>(call, team, dest, src, nbytes, root);
        break;
    case GSHMEMI_COLL_SHAPE_COLLECT:
        gshmemi_coll_collect<GSHMEMI_BLOCK>(call, team, dest, src, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_FCOLLECT:
        gshmemi_coll_fcollect<GSHMEMI_BLOCK>(call, team, dest, src, nbytes);
        break;
    case GSHMEMI_COLL_SHAPE_ALLTOALL:
        gshmemi_coll_alltoall<GSHMEMI_BLOCK>(call, team, dest, src, nbytes);
        break;
    default:
        gshmemi_coll_alltoalls<GSHMEMI_BLOCK>(call, team, dest, src, dst, sst, nelems, esize);
    }
}


// Broadcast by pushing: the root's piece b into every other member's slot
// for it (then its own dest, where that is not its source); the others'
// from their slots into dest.
__device__ void push_broadcast(const char *call, const struct gshmemi_push_area &p, gshmem_team_t team,
                               char *dest, const char *src, size_t nbytes, int root)
{
    const int n = p.n, my = p.my;
    // (the push's block count as a constant, as push_reduce, coll_reduce_kernels.cuh)
    const size_t step = ((nbytes + GSHMEMI_PUSH_BLOCKS - 1) / GSHMEMI_PUSH_BLOCKS + 15) / 16 * 16;
    const size_t off = step * blockIdx.x;
    const size_t len = off < nbytes ? (nbytes - off < step ? nbytes - off : step) : 0;
    int seen = 0;
    const unsigned long long number = push_begin(call, p, team, my == root, &seen, [] {});
    if (my == root) {
        for (int k = 1; k < n; k++)
            push_copy(push_slot(p, gshmemi_member_after(my, k, p.n), my, number) + off, src + off, len);
        push_alive(call, p, team, seen);
        push_flags(p, number);
        if (dest != src)
            gshmemi_copy(dest + off, src + off, len, threadIdx.x, blockDim.x);
    } else {
        push_alive(call, p, team, seen);
        push_wait(call, p, number, root);
        gshmemi_copy(dest + off, push_slot(p, my, root, number) + off, len, threadIdx.x, blockDim.x);
    }
    push_end(p, number, false);
}

// Moves: piece b (16-byte aligned bytes) of each block, straight into the
// members' dests (fcollect, alltoall: pushed; broadcast: pulled from the
// root by every member, so that every GPU's SMs share the work).  The
// first G blocks move between PEs; in fcollect and alltoall the blocks
// past them copy this PE's own block into its dest meanwhile (it needs
// only this GPU's memory, so it takes no part in the grid barriers and
// no longer adds its time to the pushes').
__global__ void __launch_bounds__(GRID_THREADS, 1) grid_move_kernel(int shape, gshmem_team_t team, char *dest, const char *src,
                                 size_t nbytes, int root, unsigned G, struct gshmemi_push_area push)
{
    gshmemi_wait_previous_start_next();
    const char *call = move_names[shape];
    if (push.n > 0) /* (broadcast) */
        return push_broadcast(call, push, team, dest, src, nbytes, root);
    team_alive(call, team, push.generation);
    const struct gshmemi_device_team &t = gshmemi_team(call, team);
    const int n = t.n, my = t.my;
    if (blockIdx.x >= G) {
        const size_t L = gridDim.x - G, b = blockIdx.x - G;
        const size_t step = ((nbytes + L - 1) / L + 15) / 16 * 16;
        const size_t off = step * b;
        const size_t len = off < nbytes ? (nbytes - off < step ? nbytes - off : step) : 0;
        const char *own = shape == GSHMEMI_COLL_SHAPE_ALLTOALL ? src + static_cast<size_t>(my) * nbytes : src;
        char *mine = dest + static_cast<size_t>(my) * nbytes;
        if (len > 0 && mine != own)
            gshmemi_copy(mine + off, own + off, len, threadIdx.x, blockDim.x);
        return;
    }
    const bool own_apart = gridDim.x > G;
    const uint64_t area = gshmemi_coll_area_off(team);
    const size_t step = ((nbytes + G - 1) / G + 15) / 16 * 16; /* G pieces cover every byte */
    const size_t off = step * blockIdx.x;
    const size_t len = off < nbytes ? (nbytes - off < step ? nbytes - off : step) : 0;
    grid_sync(call, t, area);
    for (int k = 1; k <= n && len > 0; k++) {
        const int m = (my + k) % n;
        switch (shape) {
        case GSHMEMI_COLL_SHAPE_FCOLLECT:
            if (m != my || !own_apart)
                gshmemi_copy(at_member(t, m, dest) + static_cast<size_t>(my) * nbytes + off, src + off,
                             len, threadIdx.x, blockDim.x);
            break;
        case GSHMEMI_COLL_SHAPE_ALLTOALL:
            if (m != my || !own_apart)
                gshmemi_copy(at_member(t, m, dest) + static_cast<size_t>(my) * nbytes + off,
                             src + static_cast<size_t>(m) * nbytes + off, len, threadIdx.x, blockDim.x);
            break;
        default: // broadcast: once, from the root's source into mine
            if (m == my && (my != root || dest != src))
                gshmemi_copy(dest + off, at_member(t, root, src) + off, len, threadIdx.x, blockDim.x);
        }
    }
    grid_sync(call, t, area);
}

} // namespace

extern "C" int gshmemi_launch_team_sync(void *stream, gshmem_team_t team, int generation, int quiet)
{
    return gshmemi_stream_launch(team_sync_kernel, 1, 32, stream, team, generation, quiet);
}

extern "C" int gshmemi_launch_coll_move(void *stream, int shape, gshmem_team_t team, void *dest,
                                        const void *source, size_t nbytes, int root, ptrdiff_t dst,
                                        ptrdiff_t sst, size_t nelems, size_t esize, int blocks,
                                        const struct gshmemi_ll_areas *ll,
                                        const struct gshmemi_push_area *push)
{
    if (blocks > 0)
    {
        if (push->n > 0) /* a broadcast's push: its area's blocks, which it cuts by */
            blocks = GSHMEMI_PUSH_BLOCKS;
        // fcollect and alltoall: a quarter more blocks for this PE's own block
        const int own = shape == GSHMEMI_COLL_SHAPE_BROADCAST ? 0 : (blocks + 3) / 4;
        return gshmemi_stream_launch(grid_move_kernel, blocks + own, GRID_THREADS, stream, shape,
                                     team, static_cast<char *>(dest),
                                     static_cast<const char *>(source), nbytes, root,
                                     static_cast<unsigned>(blocks), *push);
    }
    return gshmemi_stream_launch(move_kernel, ll_blocks(ll, nbytes), THREADS, stream, shape, team,
                                 dest, source, nbytes, root, dst, sst, nelems, esize, *ll);
}

