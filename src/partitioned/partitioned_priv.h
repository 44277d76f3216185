/* Partitioned transfers, inside the module: requests, the pairing of a
 * sender's and a receiver's requests through mailboxes in the heap, and the
 * pool of words their flags use. */
#ifndef GSHMEMI_PARTITIONED_PRIV_H
#define GSHMEMI_PARTITIONED_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <gshmemx.h>
#include <gshmem/internal/partitioned.h>

#define PREQ_UNMATCHED GSHMEMI_PREQ_UNMATCHED
#define PREQ_MATCHED GSHMEMI_PREQ_MATCHED
#define PREQ_PEER_FREED GSHMEMI_PREQ_PEER_FREED

/* One side of a pair: the part kernels use first, then the host's
 * bookkeeping.  gshmemx_prequest_t points at it where the heap is in host
 * memory, else at its copy in GPU memory (dev). */
struct gshmemi_preq {
    struct gshmemi_preq_dev d;
    int user_freed;      /* freed before the match: kept until it resolves */
    int posted;          /* receive: its post has gone out */
    uint64_t start_sent; /* receive: the last round start written */
    uint64_t host_started; /* the last round gshmemx_pstart (the host's) started */
    uint64_t start_seen; /* send: the last round start read */
    size_t pool_first, pool_count; /* the pool words it holds */
    /* send: partitions of this round to move from the host and not moved
     * yet (the match or the receiver's start is still to come): marked by
     * the host, or by kernels where the host moves them (d.ce); and its
     * place among the requests that have some */
    int *pending, n_pending;
    struct gshmemi_preq *pending_next;
    int in_pending;
    struct gshmemi_preq *next; /* in its pair's queue */
    struct gshmemi_preq *all_prev, *all_next; /* every request of this PE */
    int pinned;          /* in pinned host memory, with a copy in GPU memory */
    struct gshmemi_preq_dev *dev; /* that copy (the handle kernels get), or NULL */
    size_t alloc_size;   /* the block's bytes (pinned blocks are kept for reuse) */
    uint64_t pending_round; /* the round of the partitions pending */
    uint64_t *issued;    /* send whose partitions the host moves (d.ce): per partition,
                          * the round it was last taken for moving in */
    uint64_t moved;      /* send: partitions moved from the host, over all rounds */
    uint64_t *staged;    /* send to a mapped GPU heap: the flag words the host's moves
                          * copy, a run of adjacent partitions' in one copy (pinned,
                          * after marked[]); NULL: a signal per flag */
    void *flushed[2];    /* send by the copy engines (d.ce): the ends of its last two
                          * flushes in the operations stream (gpu marks, made on first
                          * use), flush k's at [k & 1] */
    uint64_t flushes;
};

/* A word for a peer: a request's uid and a round. */
static inline uint64_t preq_word(uint32_t uid, uint64_t round)
{
    return (uint64_t)uid << 32 | round;
}
/* Whether a word holds round >= `round` for the request with this uid. */
static inline int preq_word_reached(uint64_t word, uint32_t uid, uint64_t round)
{
    return (uint32_t)(word >> 32) == uid && (word & 0xffffffffu) >= round;
}

/* Receive q with flag packets: of partitions [lo, lo + n), those whose
 * packet of the current round is in, counted in a row from lo (n where
 * all are, and then, where place is set, their data is put in dest). */
int gshmemi_part_packets_in(const char *call, struct gshmemi_preq *q, int lo, int n, int place);

/* The one lock of the module's host state. */
extern pthread_mutex_t gshmemi_part_lock;

/* Ends the job after logging `call: <reason>`. */
void gshmemi_part_fail(const char *call, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 2, 3)));

/* A zeroed request (marked[] too, for a send), in pinned host memory where
 * the heap is on the GPU; ends the job where none can be had.  Takes the
 * lock itself. */
struct gshmemi_preq *gshmemi_part_new(const char *call, int is_send, int partitions);
/* With the lock held.  A pinned block is kept for the next request, never
 * freed before fini: cudaFreeHost waits for the whole GPU, and a kernel
 * may be waiting on this lock's holder (its progress). */
void gshmemi_part_delete(struct gshmemi_preq *q);

/* With the lock held: */
/* Gives the request its pair number and queues it for matching (a receive
 * also takes its flags and posts, or queues its post).  0, or
 * GSHMEM_ERR_NO_MEMORY with the reason logged. */
int gshmemi_part_enqueue(const char *call, struct gshmemi_preq *q);
/* Moves every pair on: sends queued posts, matches arrived posts to sends,
 * reads answers to receives, writes round starts owed. */
void gshmemi_part_progress(const char *call);
/* Send: moves the partitions pending (data, then flag) once matched and
 * the receiver has started the round; those left wait for progress. */
void gshmemi_part_flush(const char *call, struct gshmemi_preq *q);
/* Writes the current round's start to the sender once matched (receive). */
void gshmemi_part_send_start(const char *call, struct gshmemi_preq *q);
/* The user frees a request with no round open: dropped now where its
 * match has resolved, else once it does (keeping its place in the pair's
 * order; a receive's post not yet taken is marked freed). */
void gshmemi_part_free(const char *call, struct gshmemi_preq *q);
/* The handle the user gets: the GPU's copy where there is one. */
gshmemx_prequest_t gshmemi_part_handle(struct gshmemi_preq *q);
/* The live request (not freed by the user) of a handle, or NULL. */
struct gshmemi_preq *gshmemi_part_find(gshmemx_prequest_t req);
/* Copies n bytes at `field` (in q's block) to the same place of its GPU
 * copy, where it has one; after the host changes what kernels read. */
void gshmemi_part_push(const char *call, struct gshmemi_preq *q, const void *field, size_t n);
/* Reads n bytes at `field` (in q's block) from the same place of its GPU
 * copy, where it has one; where kernels changed what only that copy holds. */
void gshmemi_part_pull(const char *call, struct gshmemi_preq *q, void *field, size_t n);
/* A word of this PE's heap, read as polls read it. */
uint64_t gshmemi_part_load(const char *call, const uint64_t *word);

#endif
