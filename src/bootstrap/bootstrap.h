/* Bootstrap: how PEs find each other and exchange small data before (and
 * besides) the symmetric heap.  One file per backend: uid.c (TCP unique id,
 * a root, then log2(n) rounds), pmix.c, mpi.c, single.c.  Every receive has
 * a deadline. */
#ifndef GSHMEMI_BOOTSTRAP_H
#define GSHMEMI_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#include <gshmemx.h>

#define GSHMEMI_SECRET_BYTES 16

struct gshmemi_bootstrap;

struct gshmemi_bootstrap_ops {
    const char *name;
    /* collectives */
    int (*allgather)(struct gshmemi_bootstrap *bs, const void *in, void *out, size_t len);
    /* optional (NULL: gshmemi_bootstrap_alltoall gathers everything) */
    int (*alltoall)(struct gshmemi_bootstrap *bs, const void *in, void *out, size_t len);
    int (*barrier)(struct gshmemi_bootstrap *bs);
    /* failure: ends the whole job with status, as the launcher allows */
    void (*abort)(struct gshmemi_bootstrap *bs, int status, const char *msg);
    /* teardown */
    void (*finalize)(struct gshmemi_bootstrap *bs);
};

struct gshmemi_bootstrap {
    const struct gshmemi_bootstrap_ops *ops;
    int rank;
    int size;
    int local_rank; /* -1 until known: computed from host identity if so */
    int local_size;
    int node_id;
    int n_nodes;
    unsigned char secret[GSHMEMI_SECRET_BYTES];
    uint64_t job_id;
    int launcher_ctrl_fd; /* gshmrun's abort channel, -1 elsewhere */
};

/* Opens the bootstrap chosen by flags/attr and GSHMEM_BOOTSTRAP. */
int gshmemi_bootstrap_open(unsigned flags, const gshmemx_init_attr_t *attr,
                           struct gshmemi_bootstrap **out);
int gshmemi_bootstrap_bcast(struct gshmemi_bootstrap *bs, void *buf, size_t len, int root);
/* in: size blocks of len bytes, block j for rank j; out: block j from rank
 * j.  Where the backend has no alltoall of its own, an allgather of every
 * rank's blocks (size^2 len bytes a rank). */
int gshmemi_bootstrap_alltoall(struct gshmemi_bootstrap *bs, const void *in, void *out,
                               size_t len);
void gshmemi_bootstrap_close(struct gshmemi_bootstrap *bs);

/* Backends. */
int gshmemi_bootstrap_uid_open(const gshmemx_uniqueid_t *uid, int rank, int size,
                               double timeout, struct gshmemi_bootstrap **out);
int gshmemi_bootstrap_pmix_open(double timeout, struct gshmemi_bootstrap **out);
int gshmemi_bootstrap_single_open(struct gshmemi_bootstrap **out);
/* comm: the application's MPI_Comm (its address, as attr.mpi_comm holds it). */
int gshmemi_bootstrap_mpi_open(const void *comm, struct gshmemi_bootstrap **out);
/* GSHMEM_BOOTSTRAP=mpi: MPI_COMM_WORLD of the MPI library in the process. */
int gshmemi_bootstrap_mpi_world_open(struct gshmemi_bootstrap **out);
int gshmemi_bootstrap_pmix_available(void);

/* The uid root service: the place the ranks meet.  `loopback` picks the
 * loopback interface when GSHMEM_BOOTSTRAP_IFNAME is unset; a `persistent`
 * root serves one meeting after another (gshmrun: gshmem_init again after
 * gshmem_finalize), else it serves one. */
struct gshmemi_uid_root;
int gshmemi_uid_root_start(int loopback, int persistent, double timeout,
                           gshmemx_uniqueid_t *uid, struct gshmemi_uid_root **out);
/* Waits for the root to finish (all ranks met, or it gave up) and frees it. */
int gshmemi_uid_root_join(struct gshmemi_uid_root *root);
/* Stops a root that is still waiting, and frees it. */
void gshmemi_uid_root_stop(struct gshmemi_uid_root *root);
/* The launcher saw rank go (`why`: "exited with status 0"): a meeting that
 * rank has not joined, under way or to come, fails at once, the ranks in it
 * told why, instead of waiting out its deadline. */
int gshmemi_uid_root_rank_gone(struct gshmemi_uid_root *root, int rank, const char *why);
/* The rank a meeting failed for (gshmemi_uid_root_rank_gone), or -1. */
int gshmemi_uid_root_failed_for(struct gshmemi_uid_root *root);
/* Text form of a unique id, for environment variables. */
void gshmemi_uid_encode(const gshmemx_uniqueid_t *uid, char *out /* 257 bytes */);
int gshmemi_uid_decode(const char *text, gshmemx_uniqueid_t *uid);
/* The address the root listens on, as text (tests use it to intrude). */
int gshmemi_uid_root_address(const gshmemx_uniqueid_t *uid, char *buf, size_t len);

#endif
