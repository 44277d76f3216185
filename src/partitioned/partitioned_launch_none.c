/* A build without CUDA: the stream-ordered partitioned calls never reach
 * these (they need the heap in GPU memory), which say so by failing. */
#include "partitioned/partitioned_launch.h"

int gshmemi_launch_pstart(void *stream, gshmemx_prequest_t req)
{
    (void)stream, (void)req;
    return -1;
}

int gshmemi_launch_pwait(void *stream, gshmemx_prequest_t req, int helpers)
{
    (void)stream, (void)req, (void)helpers;
    return -1;
}
