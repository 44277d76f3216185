/*
 * gshmem internal ABI between libgshmem and the device API header: the part
 * of a partitioned request that kernels read and write.  Where the heap is
 * on the GPU there are two copies: the one gshmemx_prequest_t points at is
 * in GPU memory, where kernels read it at the speed of their own memory;
 * the host's is in pinned host memory (its `mirror`).  The host writes its
 * copy and then the GPU's (a copy engine's write); a kernel writes the GPU's
 * copy and then the host's (a store the GPU does not wait for), so each
 * side reads only the memory nearest it.  Users never include this header.
 * Its layout changes with GSHMEMI_DEVICE_STATE_VERSION.
 */
#ifndef GSHMEMI_PARTITIONED_ABI_H
#define GSHMEMI_PARTITIONED_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A request's match with its peer's. */
enum gshmemi_preq_match {
    GSHMEMI_PREQ_UNMATCHED = 0, /* waiting for the peer's post (send) or answer (receive) */
    GSHMEMI_PREQ_MATCHED = 1,   /* written by the host after the fields it sets */
    GSHMEMI_PREQ_PEER_FREED = 2, /* the peer freed its request before the match */
};

/* Words a peer writes carry the owner request's uid in the upper half and
 * a round in the lower: a write meant for a freed request, landing in a
 * word handed out again, is never taken for the new owner's. */
struct gshmemi_preq_dev {
    int32_t is_send;
    int32_t peer;
    int32_t partitions;
    int32_t match;       /* enum gshmemi_preq_match */
    uint32_t uid;        /* unique among this PE's requests */
    uint32_t peer_uid;   /* the matched peer request's */
    uint64_t bytes;      /* per partition */
    uint64_t seq;        /* its number among the pair's requests, from 1 */
    char *dest;          /* the receiver's buffer (symmetric address) */
    const char *source;  /* send */
    uint64_t *flags;     /* receive: its flags here; send: the receiver's (symmetric) */
    uint64_t *start;     /* send: the word here the receiver writes its round starts
                          * into; receive: that word at the sender (symmetric) */
    uint64_t *marked;    /* send: per partition, the round it was last marked ready */
    uint64_t round;      /* the current (or last) round, from 1 */
    int32_t open;        /* a round is open */
    int32_t ce;          /* send: the host's progress moves the partitions kernels mark,
                          * with the copy engines (GSHMEM_PARTITION_CE_MIN) */
    uint64_t owed;       /* receive: a round a kernel started before the match, whose start
                          * the host's progress writes to the sender once matched */
    /* the GPU's copy: the host's copy, and its marked[] (kernels write
     * round, open and owed to both, and marked[] where ce is set); NULL in
     * the host's */
    struct gshmemi_preq_dev *mirror;
    uint64_t *mirror_marked;
    uint64_t moved;      /* send: partitions the host has moved, over all rounds (the
                          * GPU's copy: written after them, in their stream's order) */
    uint64_t marks;      /* send, the GPU's copy: partitions kernels marked this round
                          * (a kernel's pwait reads marked[] only when it is short) */
    /* send, the GPU's copy, where chunk is set: zeroed with marks at a round's start */
    uint64_t queued;      /* partitions in queue[] this round */
    uint64_t chunks_done; /* partitions whose chunks have all moved this round */
    uint64_t helped;      /* blocks of the round's stream wait done taking chunks */
    int32_t packets;     /* partitions of 1-8 bytes to a mapped GPU heap: each travels as
                          * a flag packet (gshmemi_preq_packet), two words of flags[]
                          * a partition */
    /* A send whose partitions a mapped peer receives by stores, in chunks
     * of this many bytes (0: each whole, by the group that readies it):
     * the group that readies a partition and the blocks of the round's
     * stream wait (gshmemx_pwait_on_stream, launched to overlap the
     * producer's end) take its chunks in turn, and whoever moves the last
     * sets the flag. */
    uint64_t chunk;
    /* the GPU's copy (NULL in the host's): per partition its claim word
     * and its done word, each (round << 32) | chunks, then queue[]: the
     * partitions readied this round in the order they were, each
     * (round << 32) | partition */
    uint64_t *work;
    uint64_t ended;      /* the round whose stream wait has seen its producer end */
    uint64_t seen;       /* send, the GPU's copy: (uid << 32) | round, left by a round's
                          * first ready call once it has seen the receiver start it (a
                          * hint, read with the request's other words: a call finding its
                          * round there skips the start word) */
};

/* A flag packet: a partition's data (up to 8 bytes, little-endian, zero
 * padded) and its flag in one 16-byte store, {data low, round, data high,
 * receiver's uid ^ round}.  Each 8-byte half lands whole, and both carry
 * the round, so a half left from an earlier round, or written for another
 * request (another uid) into a reused word, never passes. */
struct gshmemi_preq_packet {
    uint32_t lo, round, hi, tag;
};

/* The device failure of a partitioned call (GSHMEMI_DEV_FAIL_PARTITIONED's
 * cmp); addr holds the partition (or count), expected the round. */
enum gshmemi_preq_fail {
    GSHMEMI_PREQ_FAIL_NULL = 0,      /* the request is NULL */
    GSHMEMI_PREQ_FAIL_ROLE,          /* a ready on a receive, an arrival test on a send */
    GSHMEMI_PREQ_FAIL_NO_ROUND,      /* no round is open */
    GSHMEMI_PREQ_FAIL_OPEN,          /* a start with a round open */
    GSHMEMI_PREQ_FAIL_RANGE,         /* a partition out of range */
    GSHMEMI_PREQ_FAIL_TWICE,         /* ready twice in one round */
    GSHMEMI_PREQ_FAIL_NOT_MARKED,    /* a send's wait with partitions not marked (found: how many) */
    GSHMEMI_PREQ_FAIL_NOT_MATCHED,   /* a wait past the deadline for the match */
    GSHMEMI_PREQ_FAIL_NOT_STARTED,   /* ... for the receiver's start of the round */
    GSHMEMI_PREQ_FAIL_MISSING,       /* ... for partitions (found: how many missing) */
    GSHMEMI_PREQ_FAIL_PEER_FREED,    /* the receiver freed its request before the match */
    GSHMEMI_PREQ_FAIL_SEND_FREED,    /* the sender freed its request before the match */
    GSHMEMI_PREQ_FAIL_RECV_UNMATCHED, /* a receive's wait past the deadline, never matched */
    GSHMEMI_PREQ_FAIL_LIST,          /* a list call with n < 0, or NULL (found: n) */
    GSHMEMI_PREQ_FAIL_BAD_RANGE,     /* a range lo..hi (addr, found) not within the partitions */
    GSHMEMI_PREQ_FAIL_ROUNDS,        /* a start past the last round a request can run */
    GSHMEMI_PREQ_FAIL_CHUNKS,        /* a wait past the deadline for chunks still moving
                                      * (addr: partitions not done, found: blocks not done) */
};

#ifdef __cplusplus
}
#endif

#endif
