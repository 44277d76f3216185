/* Private to the tcp transport: its object and what its three parts share
 * (tcp.c: setup; tcp_initiator.c: requests from this PE; tcp_target.c: the
 * progress thread serving peers' requests on this PE's heap). */
#ifndef GSHMEMI_TRANSPORT_TCP_PRIV_H
#define GSHMEMI_TRANSPORT_TCP_PRIV_H

#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/tcp_wire.h"
#include "transport/transport.h"

#define GSHMEMI_TCP_RX_BUF (256u << 10) /* per connection: many small frames per receive */
#define GSHMEMI_TCP_PUT_BATCH 128
/* GPU heap: larger puts' and strided puts' bytes pass through a pinned ring */
#define GSHMEMI_TCP_RING_BYTES (4u << 20)
#define GSHMEMI_TCP_RING_SEGS 4 /* in segments */
#define GSHMEMI_TCP_GET_SLOTS 4 /* GPU heap: gets copied out at once, a chunk of the bounce each */

/* A caller waiting for a reply. */
struct gshmemi_tcp_pending {
    uint64_t id;
    int pe; /* asked: only its reply answers */
    void *dst;
    size_t len;
    uint64_t old;
    int done;
    struct gshmemi_tcp_pending *next;
};

/* An answer of the progress thread's that could not leave at once. */
struct gshmemi_tcp_out {
    struct gshmemi_tcp_out *next;
    size_t len, sent;
    char bytes[];
};

struct gshmemi_tcp_conn {
    int fd;
    int bye; /* the peer said goodbye: its closing is no loss */
    /* Requests a quiet must complete: how many were sent (under send_lock),
     * and how many of them a finished quiet's round trip covered. */
    uint64_t sent, quieted;
    uint64_t last_rx, last_tx; /* for heartbeats and silence */
    int heard; /* a frame came: the peer's progress thread runs */
    pthread_mutex_t send_lock;
    /* The progress thread's answers that could not leave at once (the
     * socket was full, or another thread was sending): they leave in order,
     * before the next frame any thread sends here.  So the progress thread
     * never waits for room and keeps receiving; two PEs putting into each
     * other while each answers the other's gets would otherwise each wait
     * for the other's receiving.  The list is under out_lock; an answer's
     * bytes go out under send_lock. */
    pthread_mutex_t out_lock;
    struct gshmemi_tcp_out *out_head, *out_tail;
    int out_waiting; /* out_head != NULL, read without out_lock */
    int corked; /* TCP_CORK is on: a batch's requests leave together */
    int fence_next; /* the next put is fenced (the target keeps it behind earlier ones) */
    int fenced; /* the target's: a fenced put came since pe's last write to host memory landed */
    char *rx; /* received, not yet taken: [rx_head, rx_tail) */
    size_t rx_head, rx_tail;
    int bulk; /* the last frame was a large put: a stream of them */
    /* chunks of gets in flight at once: at most get_window (tcp.c's) among
     * all the threads that get, or one each where more of them get */
    int get_window;
    int gets_in_flight;
};

/* The most chunks of gets in flight at once on a connection. */
#define GSHMEMI_TCP_GET_WINDOW_MAX 16

/* The GPU heap's puts, copied to the GPU in one batch (one driver call
 * instead of one each, which the progress thread would otherwise spend
 * between receives): small ones straight from the receive buffers (read
 * before the call returns), larger ones from the pinned ring (in stream
 * order).  Issued before any other operation (a strided put too) is
 * applied, before a receive buffer or the ring is reused, and before a put
 * to the same bytes or after a fence. */
struct gshmemi_tcp_put_batch {
    void *dst[GSHMEMI_TCP_PUT_BATCH];
    const void *src[GSHMEMI_TCP_PUT_BATCH];
    size_t size[GSHMEMI_TCP_PUT_BATCH];
    unsigned char now[GSHMEMI_TCP_PUT_BATCH]; /* the source is reused: read it during the call */
    size_t n;
};

struct gshmemi_tcp {
    struct gshmemi_transport base;
    struct gshmemi_tcp_conn *conns; /* by PE; fd -1 where none */
    int *peers;
    int n_peers;
    pthread_t thread;
    int thread_up;
    int wake[2];
    volatile int closing;
    pthread_mutex_t lock; /* pending list */
    struct gshmemi_tcp_pending *pending;
    uint64_t next_id;
    /* the target's: a get's bytes, read from a heap host code cannot read
     * itself (GPU memory), or a strided get's elements packed, before they
     * leave; GSHMEMI_TCP_GET_SLOTS chunks */
    struct gshmemi_staging bounce;
    void *get_done[GSHMEMI_TCP_GET_SLOTS]; /* GPU heap: after each chunk's copy */
    /* the target's, for a heap host code cannot write itself (GPU memory) */
    struct gshmemi_tcp_put_batch batch;
    struct gshmemi_staging ring; /* larger and strided puts' bytes, before the GPU copies them */
    int seg;                     /* the ring's segment being filled */
    size_t seg_used;             /* bytes of it */
    void *seg_done[GSHMEMI_TCP_RING_SEGS]; /* after the last copies from each segment */
    int gpu_pending; /* issued into GPU memory since the last wait for the stream */
    /* the progress thread's, while a receive waits: the sockets it polls
     * and their PEs (tcp_target.c's wait_readable) */
    struct pollfd *waits;
    int *wait_pes;
};

static inline struct gshmemi_tcp *gshmemi_tcp_of(struct gshmemi_transport *t)
{
    return (struct gshmemi_tcp *)t;
}

/* This thread is in a batch (the proxy's): requests that wait for no
 * answer are corked until the batch ends. */
extern __thread int gshmemi_tcp_in_batch;

/* Sends a frame and its payload to pe (one system call); a closed
 * connection is a lost PE, a peer that takes nothing for GSHMEM_TIMEOUT
 * ends the job. */
void gshmemi_tcp_send_frame(struct gshmemi_tcp *t, const char *call, int pe,
                            const struct gshmemi_tcp_frame *frame, const void *payload, size_t len);
/* The progress thread's answer to pe (a then b): what the socket does not
 * take at once is queued (see out_head); it never waits. */
void gshmemi_tcp_answer(struct gshmemi_tcp *t, int pe, const void *a, size_t alen, const void *b,
                        size_t blen);
/* More of pe's queued answers, where no other thread sends there now;
 * returns 0 where one did (it sends them itself before its frame). */
int gshmemi_tcp_answer_more(struct gshmemi_tcp *t, int pe);
/* pe's queued answers out, waiting for room up to deadline (the
 * connection's end, once the progress thread has stopped), and freed;
 * returns 1 where all of them went (else the stream ends mid-answer). */
int gshmemi_tcp_answers_end(struct gshmemi_tcp *t, int pe, uint64_t deadline);
/* A heartbeat to pe, after its queued answers, unless a frame is being
 * sent there now or answers still wait (which pe hears as well): the
 * progress thread never waits behind another send. */
void gshmemi_tcp_heartbeat(struct gshmemi_tcp *t, int pe);
/* What a batch held back on pe's connection leaves now. */
void gshmemi_tcp_uncork(struct gshmemi_tcp *t, int pe);
/* pe's connection failed (`what` says how): the job ends naming pe,
 * unless this PE is closing. */
void gshmemi_tcp_lost(struct gshmemi_tcp *t, int pe, const char *what);

/* The target's progress thread (arg: the transport). */
void *gshmemi_tcp_progress_main(void *arg);

/* The initiator's operations (the ops table is tcp.c's). */
int gshmemi_tcp_put(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                    const void *src, size_t n);
int gshmemi_tcp_put_strided(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                            size_t dpitch, const void *src, size_t spitch, size_t esize,
                            size_t count);
int gshmemi_tcp_get_strided(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                            size_t spitch, void *dst, size_t dpitch, size_t esize, size_t count);
int gshmemi_tcp_get(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                    void *dst, size_t n);
int gshmemi_tcp_atomic(struct gshmemi_transport *t, const char *call, int pe, uint64_t off, int op,
                       size_t size, uint64_t a, uint64_t b, uint64_t *old);
int gshmemi_tcp_signal(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                       uint64_t value, int op);
int gshmemi_tcp_ctrl_add(struct gshmemi_transport *t, const char *call, int pe, size_t word,
                         uint64_t value);
int gshmemi_tcp_quiet(struct gshmemi_transport *t, const char *call);
int gshmemi_tcp_fence(struct gshmemi_transport *t);
void gshmemi_tcp_batch_begin(struct gshmemi_transport *t);
void gshmemi_tcp_batch_end(struct gshmemi_transport *t);
int gshmemi_tcp_get_start(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                          void *dst, size_t n, void **token);
int gshmemi_tcp_atomic_start(struct gshmemi_transport *t, const char *call, int pe, uint64_t off,
                             int op, size_t size, uint64_t a, uint64_t b, void **token);
int gshmemi_tcp_finish(struct gshmemi_transport *t, const char *call, void *token, uint64_t *old);

#endif
