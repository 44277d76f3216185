#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/log.h"
#include "rma/rma.h"

void gshmemi_rma_fail(const char *call, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    GSHMEMI_ERROR(RMA, "%s: %s", call, reason);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
}

void gshmemi_rma_bad_symmetric(const char *call, const char *what, const void *addr, size_t len,
                               int pe)
{
    const struct gshmemi_heap *h = &gshmemi_heap;
    const char *p = addr, *end = h->my_base + h->size;

    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(RMA, "%s called before gshmem_init", call);
        _exit(GSHMEMI_EXIT_ERROR);
    }
    if (pe < 0 || pe >= gshmemi_rt.n_pes)
        gshmemi_rma_fail(call, "pe %d is out of range: there are %d PEs (0 to %d)", pe,
                         gshmemi_rt.n_pes, gshmemi_rt.n_pes - 1);
    if (p == NULL)
        gshmemi_rma_fail(call, "%s is NULL with %zu bytes to transfer", what, len);
    if (p < h->my_base || p >= end)
        gshmemi_rma_fail(call, "%s %p is not in the symmetric heap [%p, %p)", what, addr,
                         (void *)h->my_base, (void *)end);
    if (len > (size_t)(end - p))
        gshmemi_rma_fail(call, "%s range [%p, +%zu) crosses the end of the symmetric heap at %p",
                         what, addr, len, (void *)end);
    gshmemi_rma_fail(call, "pe %d is not reachable from this pe: its heap is not mapped%s and "
                     "this build has no network transport yet", pe,
                     gshmemi_env.DISABLE_P2P ? " (GSHMEM_DISABLE_P2P is set)" : "");
}
