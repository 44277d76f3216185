/* Kernels of the stream-ordered partitioned calls (partitioned_kernels.cu;
 * partitioned_launch_none.c in a build without CUDA, where they fail).
 * Each returns a cudaError_t (0: launched). */
#ifndef GSHMEMI_PARTITIONED_LAUNCH_H
#define GSHMEMI_PARTITIONED_LAUNCH_H

#include <gshmemx.h>

#ifdef __cplusplus
extern "C" {
#endif

int gshmemi_launch_pstart(void *stream, gshmemx_prequest_t req);
/* helpers: blocks of GSHMEMI_PHELP_THREADS beside the waiting one, for a
 * chunked send (0: none). */
#define GSHMEMI_PHELP_THREADS 512
int gshmemi_launch_pwait(void *stream, gshmemx_prequest_t req, int helpers);

#ifdef __cplusplus
}
#endif

#endif
