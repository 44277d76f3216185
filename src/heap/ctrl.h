/* The control segment: host memory of the runtime's own (barrier counters,
 * loss notices), shared with every PE of this node whatever memory the heap
 * is in, one slot per local PE; and the loss notices that make every PE of
 * a node name the PE really lost. */
#ifndef GSHMEMI_HEAP_CTRL_H
#define GSHMEMI_HEAP_CTRL_H

#include <stddef.h>
#include <stdint.h>

#include "heap/fdx.h"

struct gshmemi_ctrl {
    char *base;
    int *slot_of_pe; /* -1 for PEs on other nodes */
    int n_slots;
};

extern struct gshmemi_ctrl gshmemi_ctrl;

#define GSHMEMI_CTRL_SIZE (64u << 10)
/* Layout of each PE's control segment, in 64-bit words: loss notices, then
 * one block of words per team slot (the teams' host barriers: a counter per
 * dissemination round that partners add to, and the count of this PE's
 * barriers in the team, which only it touches). */
enum gshmemi_ctrl_word {
    GSHMEMI_CTRL_LOST_PE = 0,  /* (reporter+1) << 32 | (lost+1), set by peers; bit 63
                                * (GSHMEMI_LOST_STOPPED): the lost PE is stopped, not gone */
    GSHMEMI_CTRL_ENDING = 1,   /* aborting pe + 1, set by a local peer ending the job */
    GSHMEMI_CTRL_FINALIZING = 2, /* 1 once this PE is in gshmem_finalize (only it writes) */
    GSHMEMI_CTRL_TEAMS = 64,   /* team slot s: words TEAMS + s * TEAM_WORDS ... */
    GSHMEMI_CTRL_TEAM_WORDS = 64,
    GSHMEMI_CTRL_TEAM_ROUNDS = 32, /* round counters at +0.., the count at +32 */
    GSHMEMI_CTRL_TEAM_SLOTS = (GSHMEMI_CTRL_SIZE / 8 - GSHMEMI_CTRL_TEAMS) / GSHMEMI_CTRL_TEAM_WORDS,
};

/* The first word of team slot s's block. */
static inline size_t gshmemi_ctrl_team(int slot)
{
    return GSHMEMI_CTRL_TEAMS + (size_t)slot * GSHMEMI_CTRL_TEAM_WORDS;
}

/* Maps every node-local PE's control segment, zeroed (collective among the
 * node's PEs, through fdx); from then on ending the job tells them. */
int gshmemi_ctrl_init(struct gshmemi_fdx *fdx);
void gshmemi_ctrl_fini(void);

/* Word `index` of pe's control segment, or NULL where pe is on another node. */
static inline uint64_t *gshmemi_ctrl_word(int pe, size_t index)
{
    int slot = gshmemi_ctrl.slot_of_pe[pe];
    if (slot < 0)
        return NULL;
    return (uint64_t *)(gshmemi_ctrl.base + (size_t)slot * GSHMEMI_CTRL_SIZE) + index;
}

/* This PE is in gshmem_finalize: a local peer that sees it gone after
 * finalize's last collective, which the peer has yet to see end, knows it
 * left normally. */
void gshmemi_ctrl_mark_finalizing(void);
/* Whether pe, node-local, had entered gshmem_finalize (0 elsewhere). */
int gshmemi_ctrl_finalizing(int pe);

/* A peer is gone: ends this PE with one message naming it.  `how` says
 * what was seen ("ended while this pe was in gshmem_barrier_all").  The
 * first PE of a node to see a loss records it in every local peer's control
 * segment, so a PE that then sees *that* PE go names the PE really lost. */
void gshmemi_end_for_lost_pe(int pe, const char *how) __attribute__((noreturn));
/* The same for a node-local peer that is stopped (alive, but silent):
 * those that follow this PE out say so instead of "ended". */
void gshmemi_end_for_stopped_pe(int pe, const char *how) __attribute__((noreturn));

#endif
