/* NVSHMEM's extensions header: with gshmem, the same names as nvshmem.h
 * (which declares the nvshmemx_ ones too). */
#ifndef GSHMEM_COMPAT_NVSHMEMX_H
#define GSHMEM_COMPAT_NVSHMEMX_H

#include "nvshmem.h"

#endif /* GSHMEM_COMPAT_NVSHMEMX_H */
