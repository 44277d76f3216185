/*
 * OpenSHMEM extensions on gshmem: shmem.h, and gshmem's own extensions
 * (gshmemx.h) under their gshmemx_ names; the node teams under the names
 * OpenSHMEM implementations commonly give them.
 */
#ifndef GSHMEM_COMPAT_SHMEMX_H
#define GSHMEM_COMPAT_SHMEMX_H

#include "../../gshmemx.h" /* found from here, as shmem.h finds gshmem.h */

#include "shmem.h"

#define SHMEMX_TEAM_NODE GSHMEMX_TEAM_NODE
#define SHMEMX_TEAM_SAME_MYPE_NODE GSHMEMX_TEAM_SAME_MYPE_NODE

static inline void shmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    gshmemx_signal_op(sig_addr, signal, sig_op, pe);
}

#endif /* GSHMEM_COMPAT_SHMEMX_H */
