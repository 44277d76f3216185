/* The process-wide state of an initialised gshmem. */
#ifndef GSHMEMI_CORE_RUNTIME_H
#define GSHMEMI_CORE_RUNTIME_H

#include <sys/types.h>

struct gshmemi_bootstrap;

struct gshmemi_peer {
    pid_t pid;
    int node;  /* node index, 0.. n_nodes-1 */
    int pidfd; /* node-local peers: readable once it exits; -1 elsewhere */
    char host[48];
};

struct gshmemi_runtime {
    int initialized;
    int my_pe;
    int n_pes;
    int local_rank;
    int local_size;
    int node_id;
    int n_nodes;
    int thread_level;
    struct gshmemi_bootstrap *bs;
    struct gshmemi_peer *peers;
    int *local_pes; /* PEs on this node, ascending */
    int n_local;
};

extern struct gshmemi_runtime gshmemi_rt;

/* Ends the whole job with status: tells the launcher, stops node-local
 * peers, exits.  The caller has logged why. */
void gshmemi_abort_job(int status, const char *why) __attribute__((noreturn));
/* Whether this PE is ending the job (its peers' going is then no news). */
int gshmemi_aborting(void);

/* Whether a node-local peer's process is still there. */
int gshmemi_peer_alive(int pe);

/* The exit status used when the runtime ends a job for an error. */
#define GSHMEMI_EXIT_ERROR 255

#endif
