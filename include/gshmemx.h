/*
 * gshmem extensions: initialisation attributes and application-held unique
 * ids (as NVSHMEM has), init status, signal operations.
 */
#ifndef GSHMEMX_H
#define GSHMEMX_H

#include "gshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bootstrap choice for gshmemx_init_attr. */
enum {
    GSHMEMX_INIT_DEFAULT = 0,       /* as GSHMEM_BOOTSTRAP says (auto by default) */
    GSHMEMX_INIT_WITH_UNIQUEID = 1, /* the unique id in attr, rank and size from attr */
    GSHMEMX_INIT_WITH_PMIX = 2,     /* PMIx, wherever GSHMEM_BOOTSTRAP points */
};

#define GSHMEMX_UNIQUEID_BYTES 128

/* An opaque, copyable job identity: the root's address and the job secret.
 * Made by one process with gshmemx_get_uniqueid and sent by the application
 * (MPI_Bcast, a file, ...) to all others. */
typedef struct {
    unsigned char internal[GSHMEMX_UNIQUEID_BYTES];
} gshmemx_uniqueid_t;

#define GSHMEMX_UNIQUEID_INITIALIZER {{0}}

typedef struct {
    int rank;
    int nranks;
    gshmemx_uniqueid_t uniqueid;
    int has_uniqueid;
} gshmemx_uniqueid_args_t;

typedef struct {
    gshmemx_uniqueid_args_t uid_args;
} gshmemx_init_attr_t;

#define GSHMEMX_INIT_ATTR_INITIALIZER {{0, 0, GSHMEMX_UNIQUEID_INITIALIZER, 0}}

enum {
    GSHMEMX_STATUS_NOT_INITIALIZED = 0,
    GSHMEMX_STATUS_IS_INITIALIZED = 1,
};

/* Makes a unique id and starts, in this process, the root service that the
 * ranks meet at.  Call it in exactly one process of the job. */
GSHMEM_API int gshmemx_get_uniqueid(gshmemx_uniqueid_t *uid);
GSHMEM_API int gshmemx_set_attr_uniqueid_args(int rank, int nranks,
                                              const gshmemx_uniqueid_t *uid,
                                              gshmemx_init_attr_t *attr);
GSHMEM_API int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t *attr);
GSHMEM_API int gshmemx_init_status(void);

GSHMEM_API void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEMX_H */
