/* Partitioned transfers, inside the module: requests, the pairing of a
 * sender's and a receiver's requests through mailboxes in the heap, and the
 * pool of words their flags use. */
#ifndef GSHMEMI_PARTITIONED_PRIV_H
#define GSHMEMI_PARTITIONED_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <gshmemx.h>

/* A request's match with its peer's. */
enum preq_match {
    PREQ_UNMATCHED, /* waiting for the peer's post (send) or answer (receive) */
    PREQ_MATCHED,
    PREQ_PEER_FREED, /* the peer freed its request before the match */
};

/* One side of a pair.  Words a peer writes here carry this request's uid
 * in their upper half and a round in the lower, so that a write meant for
 * a freed request, landing in a word handed out again, is never taken for
 * this one's. */
struct gshmemi_preq {
    int is_send;
    int peer;
    int partitions;
    size_t bytes;
    char *dest;         /* the receiver's buffer (symmetric address) */
    const char *source; /* sender */
    uint64_t seq;       /* its number among the pair's requests, from 1 */
    uint32_t uid;       /* unique among this PE's requests */
    uint32_t peer_uid;  /* the matched peer request's */
    int match;          /* enum preq_match */
    int user_freed;     /* freed before the match: kept until it resolves */
    int posted;         /* receive: its post has gone out */
    uint64_t round;     /* the current (or last) round, from 1 */
    int open;           /* a round is open */
    /* receive: its flags here; send: the receiver's (symmetric address) */
    uint64_t *flags;
    /* send: the word here the receiver writes its round starts into;
     * receive: that word at the sender (symmetric address) */
    uint64_t *start;
    uint64_t start_sent; /* receive: the last round start written */
    uint64_t start_seen; /* send: the last round start read */
    size_t pool_first, pool_count; /* the pool words it holds */
    uint64_t *marked;    /* send: per partition, the round it was last marked */
    /* send: partitions marked this round and not moved yet (the match or
     * the receiver's start is still to come), and its place among the
     * requests that have some */
    int *pending, n_pending;
    struct gshmemi_preq *pending_next;
    int in_pending;
    struct gshmemi_preq *next; /* in its pair's queue */
    struct gshmemi_preq *all_prev, *all_next; /* every request of this PE */
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

/* The one lock of the module's host state. */
extern pthread_mutex_t gshmemi_part_lock;

/* Ends the job after logging `call: <reason>`. */
void gshmemi_part_fail(const char *call, const char *fmt, ...)
    __attribute__((noreturn, cold, format(printf, 2, 3)));

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
/* A word of this PE's heap, read as polls read it. */
uint64_t gshmemi_part_load(const char *call, const uint64_t *word);

#endif
