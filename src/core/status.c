#include <gshmem.h>

#include "core/api.h"

GSHMEM_API const char *gshmem_status_string(int status)
{
    switch ((gshmem_status_t)status) {
    case GSHMEM_SUCCESS: return "success";
    case GSHMEM_ERR_INVALID_ARG: return "invalid argument";
    case GSHMEM_ERR_NO_MEMORY: return "out of memory";
    case GSHMEM_ERR_TIMEOUT: return "timed out";
    case GSHMEM_ERR_IO: return "input/output error";
    case GSHMEM_ERR_NOT_SUPPORTED: return "not supported";
    case GSHMEM_ERR_PEER_LOST: return "a peer was lost";
    case GSHMEM_ERR_BOOTSTRAP: return "bootstrap failed";
    case GSHMEM_ERR_CUDA: return "CUDA error";
    case GSHMEM_ERR_ASYMMETRIC: return "asymmetric collective call";
    case GSHMEM_ERR_NOT_INITIALIZED: return "not initialized";
    case GSHMEM_ERR_PERMISSION: return "permission denied";
    case GSHMEM_ERR_INTERNAL: return "internal error";
    case GSHMEM_ERR_UNREACHABLE: return "peer not reachable";
    }
    return "unknown status";
}
