/* Registered local buffers: memory outside the heap that puts read from and
 * gets write to.  Host memory is pinned so the copy engines reach it
 * directly; the network transports will register the same ranges with the
 * NIC.  Ranges never overlap; unregister takes the registered address. */
#include <pthread.h>
#include <stdlib.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "core/log.h"
#include "core/runtime.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "rma/rma.h"

struct registration {
    char *addr;
    size_t len;
    int pinned;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct registration *regs;
static size_t n_regs, cap_regs;

GSHMEM_API int gshmemx_buffer_register(void *addr, size_t length)
{
    char *a = addr;
    int st = 0;

    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(RMA, "gshmemx_buffer_register called before gshmem_init");
        return GSHMEM_ERR_NOT_INITIALIZED;
    }
    if (addr == NULL || length == 0) {
        GSHMEMI_ERROR(RMA, "gshmemx_buffer_register(%p, %zu): empty range", addr, length);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (a < gshmemi_heap.my_base + gshmemi_heap.size && a + length > gshmemi_heap.my_base) {
        GSHMEMI_ERROR(RMA, "gshmemx_buffer_register(%p, %zu): the range overlaps the symmetric "
                      "heap, which needs no registration", addr, length);
        return GSHMEM_ERR_INVALID_ARG;
    }
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_regs; i++) {
        if (a < regs[i].addr + regs[i].len && a + length > regs[i].addr) {
            GSHMEMI_ERROR(RMA, "gshmemx_buffer_register(%p, %zu): overlaps the range [%p, +%zu) "
                          "registered before", addr, length, (void *)regs[i].addr, regs[i].len);
            st = GSHMEM_ERR_INVALID_ARG;
            goto out;
        }
    }
    if (n_regs == cap_regs) {
        size_t cap = cap_regs ? 2 * cap_regs : 16;
        struct registration *r = realloc(regs, cap * sizeof(*r));
        if (r == NULL) {
            st = GSHMEM_ERR_NO_MEMORY;
            goto out;
        }
        regs = r;
        cap_regs = cap;
    }
    int pinned = gshmemi_gpu_device() >= 0 ? gshmemi_gpu_pin("gshmemx_buffer_register", addr, length)
                                           : 1;
    if (pinned < 0) {
        st = pinned;
        goto out;
    }
    regs[n_regs++] = (struct registration){a, length, pinned == 0};
out:
    pthread_mutex_unlock(&lock);
    return st;
}

GSHMEM_API int gshmemx_buffer_unregister(void *addr)
{
    int st = GSHMEM_ERR_INVALID_ARG;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_regs; i++) {
        if (regs[i].addr == (char *)addr) {
            if (regs[i].pinned)
                gshmemi_gpu_unpin(addr);
            regs[i] = regs[--n_regs];
            st = 0;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    if (st != 0)
        GSHMEMI_ERROR(RMA, "gshmemx_buffer_unregister(%p): no range was registered at that address",
                      addr);
    return st;
}

/* gshmem_finalize: what the application left registered is released. */
void gshmemi_buffers_release(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_regs; i++)
        if (regs[i].pinned)
            gshmemi_gpu_unpin(regs[i].addr);
    free(regs);
    regs = NULL;
    n_regs = cap_regs = 0;
    pthread_mutex_unlock(&lock);
}
