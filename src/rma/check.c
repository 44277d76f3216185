#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/log.h"
#include "rma/rma.h"

void gshmemi_rma_fail(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gshmemi_vfail(GSHMEMI_SUB_RMA, call, fmt, ap);
}

char *gshmemi_rma_static_target(const char *call, const char *what, const void *addr, size_t len,
                                int pe, const struct gshmemi_heap_access **access)
{
    const struct gshmemi_static_data *s = &gshmemi_static;
    const char *p = addr;
    if (!gshmemi_rt.initialized || (unsigned)pe >= (unsigned)gshmemi_rt.n_pes ||
        s->size == 0 /* not moved: base is NULL */ || p < s->base || p >= s->base + s->size)
        gshmemi_rma_bad_symmetric(call, what, addr, len, pe, 0);
    if (len > (size_t)(s->base + s->size - p))
        gshmemi_rma_fail(call, "%s range [%p, +%zu) crosses the end of the program's static data "
                         "at %p", what, addr, len, (void *)(s->base + s->size));
    if (s->peer_base[pe] == NULL && gshmemi_transport == NULL)
        gshmemi_rma_bad_symmetric(call, what, addr, len, pe, 0);
    gshmemi_gpu_fence_wait(call); /* after a fence on a GPU heap, its copies first */
    *access = &gshmemi_host_access;
    return gshmemi_static_peer_addr(addr, pe);
}

void gshmemi_rma_bad_symmetric(const char *call, const char *what, const void *addr, size_t len,
                               int pe, int heap_only)
{
    const struct gshmemi_heap *h = &gshmemi_heap;
    const char *p = addr, *end;

    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(RMA, "%s called before gshmem_init", call);
        _exit(GSHMEMI_EXIT_ERROR);
    }
    end = h->my_base + h->size; /* my_base is NULL before init */
    if (pe < 0 || pe >= gshmemi_rt.n_pes)
        gshmemi_rma_fail(call, "pe %d is out of range: there are %d PEs (0 to %d)", pe,
                         gshmemi_rt.n_pes, gshmemi_rt.n_pes - 1);
    if (p == NULL)
        gshmemi_rma_fail(call, "%s is NULL with %zu bytes to transfer", what, len);
    if (gshmemi_static_contains(p, 1) && heap_only)
        gshmemi_rma_fail(call, "%s %p is in the program's static data, which only host calls "
                         "reach: this call needs memory from the symmetric heap", what, addr);
    if (!gshmemi_static_contains(p, 1)) {
        if ((p < h->my_base || p >= end) && heap_only)
            gshmemi_rma_fail(call, "%s %p is not in the symmetric heap [%p, %p)", what, addr,
                             (void *)h->my_base, (void *)end);
        if ((p < h->my_base || p >= end) && gshmemi_static.why_not[0] != '\0')
            gshmemi_rma_fail(call, "%s %p is not in the symmetric heap [%p, %p), and the "
                             "program's static data is not symmetric: %s", what, addr,
                             (void *)h->my_base, (void *)end, gshmemi_static.why_not);
        if (p < h->my_base || p >= end)
            gshmemi_rma_fail(call, "%s %p is neither in the symmetric heap [%p, %p) nor in the "
                             "program's static data", what, addr, (void *)h->my_base, (void *)end);
        if (len > (size_t)(end - p))
            gshmemi_rma_fail(call, "%s range [%p, +%zu) crosses the end of the symmetric heap at "
                             "%p", what, addr, len, (void *)end);
    }
    gshmemi_rma_fail(call, "pe %d is not reachable from this pe: its heap is not mapped%s and "
                     "this build has no network transport yet", pe,
                     gshmemi_env.DISABLE_P2P ? " (GSHMEM_DISABLE_P2P is set)" : "");
}
