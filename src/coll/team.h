/* Teams: ordered subsets of the world's PEs (OpenSHMEM 1.5 teams).  A team's
 * handle is its slot, the same number on every member: its block of host
 * barrier words in the control segment (heap/ctrl.h) and, later, its
 * scratch in the heap.  The first four slots hold the predefined teams;
 * a split takes the lowest slot free on every PE of its parent. */
#ifndef GSHMEMI_COLL_TEAM_H
#define GSHMEMI_COLL_TEAM_H

#include <limits.h>
#include <stdint.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>

struct gshmemi_team {
    int live; /* this PE is a member */
    int n;    /* members */
    int my;   /* this PE's index in the team */
    int mapped; /* every member maps every other's heap (so the same on each) */
    int generation; /* this team's number among those the process has made (never 0): the
                     * stream kernels' check that their team still holds its slot */
    uint64_t oneshots; /* one-shot host collectives on this team so far */
    uint64_t pipes;    /* pipelined host collectives (pipe.c) on this team so far */
    int *pes; /* the world PE of each member, by team index */
    int *lead;  /* the team index of each member's node's first member */
    int spread; /* members on two or more nodes, and two or more on one */
    struct CUstream_st *stream; /* the host forms' kernels (GPU heap), made at first use */
    gshmem_team_config_t config;
};

/* The team `team` names on this PE, or NULL (logged, naming the call and
 * why) where it names none: out of range, destroyed, or this PE not in it. */
struct gshmemi_team *gshmemi_team_get(const char *call, gshmem_team_t team);
/* The team's index of world PE pe, or -1. */
int gshmemi_team_index(const struct gshmemi_team *t, int pe);

/* Every member of t has reached this point (a dissemination barrier on
 * the control segment's words of t's slot; across nodes through the
 * transport).  Orders nothing else: the callers quiet first where needed. */
void gshmemi_team_sync(const char *call, const struct gshmemi_team *t, gshmem_team_t slot);

/* GPU heap: slot's collective areas of t's members as mapped here and
 * this PE's flag-packet number word, for the stream kernels (1), or a
 * cleared *a (0) where t has more than GSHMEMI_LL_AREAS_MEMBERS members,
 * one of them not mapped, or fewer than 2. */
int gshmemi_team_ll_areas(const struct gshmemi_team *t, gshmem_team_t slot,
                          struct gshmemi_ll_areas *a);
/* GSHMEM_COLL_ALGO chooses by size and peers: auto, or push (which only
 * forces the stream forms' pushes). */
int gshmemi_coll_algo_auto(void);

struct gshmemi_push_area; /* coll/coll_launch.h */
/* The push area of the team in slot (the world's, or the node's where the
 * world's PEs do not all map each other, and the first two splits') as
 * this PE maps it, with its slots' bytes for t's size, for the stream
 * kernels (1), or a cleared *a (0) where the team has none
 * (GSHMEM_COLL_PUSH_MAX 0, no PE mapping another, more than
 * GSHMEMI_LL_AREAS_MEMBERS members) or a member is not mapped. */
int gshmemi_team_push_area(const struct gshmemi_team *t, gshmem_team_t slot,
                           struct gshmemi_push_area *a);

/* A slot's block of the heap the runtime keeps for collect's block sizes:
 * one 64-bit word per world PE, by team index.  One a slot, as the device
 * forms find it (slot 0's block, then the others, n_pes words each): two
 * threads may run collect on two teams at once. */
uint64_t *gshmemi_team_sizes_area(gshmem_team_t slot);

/* A slot's GSHMEMI_COLL_ARGS words in the heap, where a member of its team
 * shows its next member what it passed (GSHMEM_DEBUG_CHECKS). */
uint64_t *gshmemi_team_args_area(gshmem_team_t slot);

/* GSHMEM_DEBUG_CHECKS: ends the job, naming the argument, where this PE
 * passed another kind of collective (enum GSHMEMI_COLL_KIND_*), bytes per
 * member or root (-1: none) than the team's next member; blocking, over
 * the team's host barrier (collectives.c). */
void gshmemi_coll_check_args(const char *call, const struct gshmemi_team *t, gshmem_team_t team,
                             int kind, uint64_t bytes, int root);

/* A reduction's kind with its element type (GSHMEMI_COLL_ELEM_*), so that
 * GSHMEM_DEBUG_CHECKS tells an int sum from a float sum of the same size. */
#define GSHMEMI_COLL_KIND_OF(KIND, TYPE) \
    ((KIND) + 4096 * GSHMEMI_COLL_ELEM_CLASS(TYPE) + 65536 * (int)sizeof(TYPE))
#define GSHMEMI_COLL_ELEM_S GSHMEMI_COLL_ELEM_SIGNED
#define GSHMEMI_COLL_ELEM_U GSHMEMI_COLL_ELEM_UNSIGNED
#define GSHMEMI_COLL_ELEM_CLASS(TYPE)                                                          \
    _Generic((TYPE){0},                                                                      \
        char: (CHAR_MIN < 0 ? GSHMEMI_COLL_ELEM_S : GSHMEMI_COLL_ELEM_U),                   \
        signed char: GSHMEMI_COLL_ELEM_S, short: GSHMEMI_COLL_ELEM_S,                         \
        int: GSHMEMI_COLL_ELEM_S, long: GSHMEMI_COLL_ELEM_S, long long: GSHMEMI_COLL_ELEM_S,  \
        unsigned char: GSHMEMI_COLL_ELEM_U, unsigned short: GSHMEMI_COLL_ELEM_U,              \
        unsigned int: GSHMEMI_COLL_ELEM_U, unsigned long: GSHMEMI_COLL_ELEM_U,                \
        unsigned long long: GSHMEMI_COLL_ELEM_U, float: GSHMEMI_COLL_ELEM_FLOAT,              \
        double: GSHMEMI_COLL_ELEM_FLOAT, long double: GSHMEMI_COLL_ELEM_FLOAT,                \
        float _Complex: GSHMEMI_COLL_ELEM_COMPLEX, double _Complex: GSHMEMI_COLL_ELEM_COMPLEX, \
        gshmem_half: GSHMEMI_COLL_ELEM_HALF, gshmem_bfloat16: GSHMEMI_COLL_ELEM_BFLOAT16)

/* dest and source of a collective overlap only where dest is `in_place`
 * (its in-place form; NULL: it has none), else the job ends naming the
 * call: overlapping buffers would give results that depend on timing. */
void gshmemi_coll_check_overlap(const char *call, const void *dest, size_t dest_bytes,
                                const void *source, size_t source_bytes, const void *in_place);

/* A slot's one-shot area for one parity (the host heap's, GSHMEM_COLL_ALGO
 * auto or ll): a signal word per member, then `cap` bytes per member, both
 * by the sender's team index (data 64-byte aligned, cap a multiple of 16).
 * sig is NULL where there is none (the GPU heap, whose host forms keep the
 * barrier algorithms). */
struct gshmemi_team_oneshot {
    uint64_t *sig;
    char *data;
    size_t cap;
    size_t mapped_max; /* on a team whose members are all mapped: n x piece at most */
};
struct gshmemi_team_oneshot gshmemi_team_oneshot_area(gshmem_team_t slot, int parity);

/* A slot's pipe area (pipe.c: the host heap's ring, chain and hierarchical
 * collectives), where there is one: three words per member of the team, each
 * written by that member alone (by its team index), then `nbuf` buffers of
 * `chunk` bytes (a chain's partial results from the member before this
 * one, a hierarchical alltoall's stream from another node's leader).
 *   go[i]:  member i is in call e and has taken the chunks it was sent up
 *           to count k (k 0: its dest is free for this call)
 *   got[i]: member i has delivered k chunks of call e here
 *   where[i]: the heap offset of member i's dest (reducescatter in place:
 *           each member's dest is its own block of the source)
 * Call numbers grow, and a member writes its words in order, so a word
 * only grows: waits compare with >=.  buf is NULL where there is none (the
 * GPU heap; GSHMEM_COLL_ALGO simple, ll or grid; every peer mapped under
 * auto). */
enum { GSHMEMI_TEAM_PIPE_NBUF = 4, GSHMEMI_TEAM_PIPE_CHUNK = 32 << 10 };
struct gshmemi_team_pipe {
    uint64_t *go, *got, *where;
    char *buf;
    size_t chunk;
    int nbuf;
};
struct gshmemi_team_pipe gshmemi_team_pipe_area(gshmem_team_t slot);

/* The largest payload per member that the flag-packet collectives carry
 * on this job's teams (0: none; GPU heap only). */
size_t gshmemi_team_ll_max(void);
/* The same for the stream kernels, which run them on several blocks (at
 * least gshmemi_team_ll_max()). */
size_t gshmemi_team_ll_stream_max(void);

/* At init, after the heap and the transport; at finalize. */
int gshmemi_teams_init(void);
void gshmemi_teams_fini(void);
/* Frees what the collectives keep between calls (gshmemi_teams_fini). */
void gshmemi_coll_fini(void);

#endif
