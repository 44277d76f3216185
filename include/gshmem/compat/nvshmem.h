/*
 * NVSHMEM 3.x names on gshmem (DESIGN.md section 10).
 *
 * Put include/gshmem/compat on the include path and link libgshmem, or
 * NVSHMEM's library names (-lnvshmem_host -lnvshmem_device; gshmem
 * installs them, src/compat/meson.build): an NVSHMEM program then builds
 * unchanged.  nvshmem_names.h (generated from gshmem's own headers by
 * scripts/gen-compat-names.py) renames every gshmem name into NVSHMEM's
 * prefix: nvshmem_int_put is gshmem_int_put, on the host and in kernels
 * alike.  This file adds what NVSHMEM spells or means otherwise:
 * - in kernels, nvshmem_barrier_all and nvshmem_sync_all are called by one
 *   thread of each PE (gshmem's own are grid-wide, for collective
 *   launches), and the _block/_warp forms by one block or warp;
 * - NVSHMEM's version and status constants, nvshmemx_hostlib_*,
 *   nvshmemx_mc_ptr (NULL: gshmem uses no multicast objects) and
 *   nvshmemx_vendor_get_version_info (the NVSHMEM API level this layer
 *   follows, 3.0).
 */
#ifndef GSHMEM_COMPAT_NVSHMEM_H
#define GSHMEM_COMPAT_NVSHMEM_H

/* gshmem's headers by their place relative to this one, so that the
 * compat folder alone on the include path is enough (NVSHMEM programs name
 * one include folder). */
#include "../../gshmem.h"
#include "../../gshmemx.h"
#ifdef __CUDACC__
#include "../../gshmem_device.cuh"
#endif

#include "nvshmem_names.h"

/* ---- constants NVSHMEM spells otherwise ----------------------------------- */

#define NVSHMEM_MAJOR_VERSION GSHMEM_MAJOR_VERSION /* the OpenSHMEM specification's */
#define NVSHMEM_MINOR_VERSION GSHMEM_MINOR_VERSION
#define NVSHMEM_MAX_NAME_LEN GSHMEM_MAX_NAME_LEN
#define NVSHMEM_VENDOR_STRING GSHMEM_VENDOR_STRING
#define NVSHMEM_VENDOR_MAJOR_VERSION 3 /* the NVSHMEM API this layer follows */
#define NVSHMEM_VENDOR_MINOR_VERSION 0
#define NVSHMEM_VENDOR_PATCH_VERSION 0

/* In NVSHMEM's order; gshmem initialises in one step, so it never answers
 * IS_BOOTSTRAPPED. */
#define NVSHMEM_STATUS_NOT_INITIALIZED GSHMEMX_STATUS_NOT_INITIALIZED
#define NVSHMEM_STATUS_IS_BOOTSTRAPPED GSHMEMX_STATUS_IS_BOOTSTRAPPED
#define NVSHMEM_STATUS_IS_INITIALIZED GSHMEMX_STATUS_IS_INITIALIZED

#if defined(__CUDACC__)
#define NVSHMEMI_COMPAT_HD static inline __host__ __device__
#define NVSHMEMI_COMPAT_DEVICE static inline __device__
#else
#define NVSHMEMI_COMPAT_HD static inline
#endif

/* ---- setup and query ------------------------------------------------------- */

static inline int nvshmemx_hostlib_init_attr(unsigned int flags, gshmemx_init_attr_t *attr)
{
    return gshmemx_init_attr(flags, attr);
}
static inline void nvshmemx_hostlib_finalize(void) { gshmem_finalize(); }
static inline void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch)
{
    *major = NVSHMEM_VENDOR_MAJOR_VERSION;
    *minor = NVSHMEM_VENDOR_MINOR_VERSION;
    *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}

NVSHMEMI_COMPAT_HD void *nvshmemx_mc_ptr(gshmem_team_t team, const void *ptr)
{
    (void)team;
    (void)ptr;
    return 0;
}

/* ---- barriers: one thread (block, warp) of each PE in kernels ------------- */

#undef nvshmem_barrier_all
#undef nvshmem_sync_all
NVSHMEMI_COMPAT_HD void nvshmem_barrier_all(void)
{
#ifdef __CUDA_ARCH__
    gshmem_barrier(GSHMEM_TEAM_WORLD);
#else
    gshmem_barrier_all();
#endif
}
NVSHMEMI_COMPAT_HD void nvshmem_sync_all(void)
{
#ifdef __CUDA_ARCH__
    gshmem_team_sync(GSHMEM_TEAM_WORLD);
#else
    gshmem_sync_all();
#endif
}

#ifdef __CUDACC__
NVSHMEMI_COMPAT_DEVICE void nvshmemx_barrier_all_block(void)
{
    gshmemx_barrier_block(GSHMEM_TEAM_WORLD);
}
NVSHMEMI_COMPAT_DEVICE void nvshmemx_barrier_all_warp(void)
{
    gshmemx_barrier_warp(GSHMEM_TEAM_WORLD);
}
NVSHMEMI_COMPAT_DEVICE void nvshmemx_sync_all_block(void)
{
    gshmemx_team_sync_block(GSHMEM_TEAM_WORLD);
}
NVSHMEMI_COMPAT_DEVICE void nvshmemx_sync_all_warp(void)
{
    gshmemx_team_sync_warp(GSHMEM_TEAM_WORLD);
}
#endif

#endif /* GSHMEM_COMPAT_NVSHMEM_H */
