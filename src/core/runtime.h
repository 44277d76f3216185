/* The process-wide state of an initialised gshmem, and the end of a job.
 * Layers above register what they must do when the job ends (tell the
 * launcher, tell node-local peers, end through the bootstrap): core calls
 * them, never the layers themselves. */
#ifndef GSHMEMI_CORE_RUNTIME_H
#define GSHMEMI_CORE_RUNTIME_H

#include <stdarg.h>
#include <sys/types.h>

struct gshmemi_bootstrap;

/* A node is what shares memory: a machine, or with GSHMEM_TEST_SIM_NODES one
 * of the simulated nodes a machine's PEs are split into.  Everything that
 * maps, watches or counts peers reads the node; only what truly belongs to
 * the machine (its GPUs, its loopback) reads the machine. */
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
    int local_rank; /* among the PEs of this node */
    int local_size;
    int node_id;
    int n_nodes;
    int sim_nodes;          /* nodes each machine is split into (1: none) */
    int n_machines;         /* real ones: n_nodes / sim_nodes */
    int machine_local_rank; /* among the PEs of this machine: picks the GPU */
    int thread_level;
    int host_heap_default; /* GSHMEMX_INIT_HOST_HEAP: GSHMEM_HEAP=auto means host */
    struct gshmemi_bootstrap *bs;
    struct gshmemi_peer *peers;
    int *local_pes; /* PEs on this node, ascending */
    int n_local;
    pid_t launcher_pid; /* the launcher that started this PE (its parent), watched while
                         * this PE waits; 0: none known (a job the application started) */
};

extern struct gshmemi_runtime gshmemi_rt;

/* What ending a job does, in this order; each stage has at most one hook,
 * set by the layer that owns it while it is up (NULL: nothing). */
enum gshmemi_abort_stage {
    GSHMEMI_ABORT_TELL_PEERS,    /* node-local peers learn the job is ending (before any
                                  * signal, so they do not report this PE as lost) */
    GSHMEMI_ABORT_TELL_LAUNCHER, /* the launcher learns which PE ended the job and how */
    GSHMEMI_ABORT_END,           /* the bootstrap ends the job as the launcher allows */
    GSHMEMI_ABORT_STAGES
};
typedef void (*gshmemi_abort_hook_fn)(void *arg, int status, const char *why);
void gshmemi_abort_hook_set(enum gshmemi_abort_stage stage, gshmemi_abort_hook_fn fn, void *arg);

/* Ends the whole job with status: runs the hooks, stops node-local peers
 * (SIGTERM), exits.  The caller has logged why. */
void gshmemi_abort_job(int status, const char *why) __attribute__((noreturn));
/* A misused call: logs `call: <reason>` under the log subsystem subsys
 * (GSHMEMI_SUB_*), then ends the job (GSHMEMI_EXIT_ERROR). */
void gshmemi_vfail(int subsys, const char *call, const char *fmt, va_list ap)
    __attribute__((noreturn, cold));
/* A collective step of the runtime's own (the bootstrap's all-gather or
 * barrier, the heap's fd exchange) failed with st.  GSHMEM_ERR_PEER_LOST: a
 * peer is gone, the layer that saw it has named it, and every other PE
 * learns of it on its own (the bootstrap passes the loss on along its links):
 * this PE ends alone, so that each says what it saw.  Else the job ends
 * (gshmemi_abort_job), `why` given to the launcher. */
void gshmemi_end_after_collective(int st, const char *why) __attribute__((noreturn));
/* Whether this PE is ending the job (its peers' going is then no news). */
int gshmemi_aborting(void);

/* A wait of a layer below sync (the bootstrap's collectives) calls
 * gshmemi_waiting now and then while it waits on peers; the hook, set by
 * the layer that watches them (sync/watch.c), may end this PE for a peer
 * that is stopped or a launcher that is gone.  Not for a peer that is
 * gone: in such a collective a peer that has seen it complete may leave
 * (the job's last barrier) while this PE has yet to see it.  When the layer
 * has seen the collective fail, it calls gshmemi_waiting_now before it
 * reports the loss: the watch then looks at every node-local peer, gone
 * ones too, at once and for half a second, and where a node-local peer saw
 * the loss first names the PE it saw (the one this layer saw go may only
 * have followed it out); it returns only if nothing local explains the
 * loss.  `op` names what this PE is doing. */
typedef void (*gshmemi_wait_hook_fn)(const char *op, int failed);
void gshmemi_wait_hook_set(gshmemi_wait_hook_fn fn);
void gshmemi_waiting(const char *op);
void gshmemi_waiting_now(const char *op);

/* Whether a node-local peer's process is still there. */
int gshmemi_peer_alive(int pe);

/* The exit status used when the runtime ends a job for an error. */
#define GSHMEMI_EXIT_ERROR 255

#endif
