/* The host heap's pipelined collectives (pipe.c): puts with signals
 * between neighbours of the team, in chunks, no barrier; for large
 * payloads through the transport.  collectives.c chooses them. */
#ifndef GSHMEMI_COLL_PIPE_H
#define GSHMEMI_COLL_PIPE_H

#include <stddef.h>

#include <gshmem.h>

#include "coll/combine.h"
#include "coll/team.h"

/* The most a pipelined call may move (its members' bytes together), so
 * that its chunk counts fit the pipe words (pipe.c). */
#define GSHMEMI_PIPE_MAX_CALL ((size_t)8 << 30)

/* Whether team's slot has a pipe area (else none of these may run). */
int gshmemi_pipe_ready(gshmem_team_t team);
/* Whether t spans nodes and some node holds two or more of its members:
 * the hierarchical forms then move less through the transport. */
int gshmemi_pipe_spans_nodes(const struct gshmemi_team *t);

/* Each member i's len[i] bytes from its source land at off[i] of every
 * member's dest (fcollect, collect): around the ring, each member passing
 * on what its predecessor sent, or hierarchically (hier: within each node
 * over mapped peers, between the nodes' first members through the
 * transport). */
void gshmemi_ring_collect(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                          char *dest, const char *source, const size_t *off, const size_t *len);
void gshmemi_hier_collect(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                          char *dest, const char *source, const size_t *off, const size_t *len);

/* root's nbytes (> 0) along the ring from root, or hierarchically. */
void gshmemi_ring_broadcast(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                            char *dest, const char *source, size_t nbytes, int root);
void gshmemi_hier_broadcast(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                            char *dest, const char *source, size_t nbytes, int root);

/* Block j of my source (nbytes > 0) straight to block my of member j's
 * dest, once j has said its dest is free. */
void gshmemi_direct_alltoall(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                             char *dest, const char *source, size_t nbytes);
/* Hierarchically: within each node straight into dest, between nodes one
 * stream a pair of nodes through their leaders, packed into the receiving
 * leader's buffers. */
void gshmemi_hier_alltoall(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                           char *dest, const char *source, size_t nbytes);
/* Whether t's streams between nodes for blocks of nbytes stay within
 * GSHMEMI_PIPE_MAX_CALL (else the direct form). */
int gshmemi_hier_alltoall_fits(const char *call, const struct gshmemi_team *t, size_t nbytes);

/* A chain in team order: member 0 sends its chunk to member 1, which
 * combines and sends on, ..., member n-1 has the result (combined in team
 * order, as the other algorithms do: the same bits).  reduce: the result
 * goes around the ring from member n-1; reducescatter (source: n blocks of
 * nbytes): member n-1 puts block i of the result into member i's dest. */
void gshmemi_chain_reduce(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                          char *dest, const char *source, size_t nbytes, size_t esize,
                          gshmemi_combine_fn *fn);
void gshmemi_chain_reducescatter(const char *call, struct gshmemi_team *t, gshmem_team_t team,
                                 char *dest, const char *source, size_t nbytes, size_t esize,
                                 gshmemi_combine_fn *fn);

#endif
