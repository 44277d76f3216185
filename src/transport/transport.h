/* Transports: how a PE reaches peers whose heap it has not mapped.  One ops
 * table per transport (tcp.c, ibrc.c; nic.c picks ibrc's RDMA device).  Addresses are heap offsets,
 * the same on every PE.  Host-initiated operations call these from the
 * calling thread; the target side is served by the transport's own thread. */
#ifndef GSHMEMI_TRANSPORT_H
#define GSHMEMI_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

struct gshmemi_transport_ops {
    const char *name;
    /* its atomics are the NIC's: atomic only among themselves, so this PE's
     * own atomics and signals must go through it too */
    int nic_atomics;

    /* setup: connects to every PE in peers (collective) */
    int (*open)(const int *peers, int n_peers);
    void (*close)(void);

    /* RMA: complete locally on return (the source may be reused) */
    void (*put)(const char *call, int pe, uint64_t off, const void *src, size_t n);
    void (*get)(const char *call, int pe, uint64_t off, void *dst, size_t n);
    /* atomics (gshmemi_amo_op), size 4 or 8; the old value when fetch */
    uint64_t (*atomic)(const char *call, int pe, uint64_t off, int op, size_t size, uint64_t a,
                       uint64_t b, int fetch);
    /* signal set (op 0) or add (1), after the puts to pe issued before */
    void (*signal)(const char *call, int pe, uint64_t off, uint64_t value, int op);
    /* adds to a word of pe's control segment (barriers across nodes) */
    void (*ctrl_add)(const char *call, int pe, size_t word, uint64_t value);

    /* completion: everything issued to every peer is done at the target */
    void (*quiet)(const char *call);
    /* optional: puts issued after this to a peer take effect there after
     * those issued before (NULL: the transport keeps every put in order) */
    void (*fence)(void);

    /* optional: the calling thread is about to issue many operations (the
     * proxy's batch) and may hold them back until batch_end; an operation
     * that waits for an answer is never held */
    void (*batch_begin)(void);
    void (*batch_end)(void);

    /* optional: a get (dst: host or GPU memory) or a fetching atomic that
     * returns at once with a token (NULL: do it the blocking way); finish
     * waits for it and returns the old value of an atomic */
    void *(*get_start)(const char *call, int pe, uint64_t off, void *dst, size_t n);
    void *(*atomic_start)(const char *call, int pe, uint64_t off, int op, size_t size, uint64_t a,
                          uint64_t b);
    uint64_t (*finish)(const char *call, void *token);
};

extern const struct gshmemi_transport_ops gshmemi_tcp_ops;
extern const struct gshmemi_transport_ops gshmemi_ibrc_ops; /* built with libibverbs */

/* The transport in use (NULL where every peer is mapped). */
extern const struct gshmemi_transport_ops *gshmemi_transport;

/* Opens the transport for the PEs this PE has not mapped (collective). */
int gshmemi_transport_init(void);
void gshmemi_transport_fini(void);

#endif
