/* The tcp transport's wire format.  A connection starts with a hello (the
 * job secret and the connecting PE's rank); from then on each message is a
 * frame header, followed by `len` payload bytes for puts and for replies
 * that carry data.  Both ends run the same build on the same kind of host:
 * fields are in host byte order.  The target checks every frame before it
 * acts on it (gshmemi_tcp_frame_check): a frame that would reach outside
 * its heap and static data, or that it cannot make sense of, ends the job
 * naming the PE. */
#ifndef GSHMEMI_TRANSPORT_TCP_WIRE_H
#define GSHMEMI_TRANSPORT_TCP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/bootstrap.h"

#define GSHMEMI_TCP_MAGIC 0x706374686d687367ull
/* The most a get asks for: a reply never fills the peer's socket buffer. */
#define GSHMEMI_TCP_GET_CHUNK (64u << 10)

enum gshmemi_tcp_frame_type {
    GSHMEMI_TCP_PUT = 1,   /* len payload bytes to heap offset off */
    GSHMEMI_TCP_GET,       /* len bytes from heap offset off, answered by a REPLY carrying them */
    GSHMEMI_TCP_AMO,       /* op (core/amo.h) on size bytes at off, operands a, b; fetch: answered */
    GSHMEMI_TCP_SIGNAL,    /* op 0: set, 1: add a to the 8-byte word at off */
    GSHMEMI_TCP_CTRL,      /* add a to word off of the control segment */
    GSHMEMI_TCP_QUIET,     /* answered once everything before it is done */
    GSHMEMI_TCP_REPLY,     /* to request id: a (an old value), then len bytes (a get's) */
    GSHMEMI_TCP_BYE,       /* the peer closes: its connection's end is no loss */
    GSHMEMI_TCP_HEARTBEAT, /* nothing but that the peer lives */
};
/* A put's op: a fence came before it, so the target applies it after every
 * put before it (small puts into a GPU heap otherwise go out together, in
 * no particular order). */
#define GSHMEMI_TCP_PUT_FENCED 1u
/* A put's op: its payload is len / size elements of size bytes, packed,
 * that land at off, off + a, off + 2a, ... (a >= size); at most
 * GSHMEMI_TCP_STRIDED_MAX bytes of them a frame. */
#define GSHMEMI_TCP_PUT_STRIDED 2u
#define GSHMEMI_TCP_STRIDED_MAX (64u << 10)
/* A get's op: it asks for len / size elements of size bytes at off,
 * off + a, off + 2a, ... (a >= size), answered packed; len at most
 * GSHMEMI_TCP_GET_CHUNK. */
#define GSHMEMI_TCP_GET_STRIDED 1u

struct gshmemi_tcp_frame {
    uint32_t type;
    uint32_t op;
    uint64_t id;  /* matches a reply to its request */
    uint64_t off; /* heap offset, or control word */
    uint64_t len; /* payload bytes that follow (put, reply) or asked for (get) */
    uint64_t a, b;
    uint32_t size;
    uint32_t fetch;
};

struct gshmemi_tcp_hello {
    uint64_t magic;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    int32_t rank;
    int32_t pad;
};

/* Whether a target whose heap holds heap_size bytes and whose symmetric
 * static data static_size (at offsets from GSHMEMI_STATIC_OFF) may serve
 * frame f: 0, or GSHMEM_ERR_INVALID_ARG with the reason in why. */
int gshmemi_tcp_frame_check(const struct gshmemi_tcp_frame *f, uint64_t heap_size,
                            uint64_t static_size, char *why, size_t why_len);
/* Whether a hello carries the magic and this job's secret (its rank is
 * checked by the caller, who knows whom it expects). */
int gshmemi_tcp_hello_valid(const struct gshmemi_tcp_hello *h,
                            const unsigned char secret[GSHMEMI_SECRET_BYTES]);

#endif
