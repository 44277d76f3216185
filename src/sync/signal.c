/* Signal words: fetch and wait on this PE's copy. */
#include <gshmem.h>

#include "rma/rma.h"
#include "sync/wait.h"

static uint64_t read_signal(const char *call, const uint64_t *sig_addr)
{
    uint64_t v;
    gshmemi_sym_access(sig_addr)->read(call, &v, sig_addr, sizeof(v));
    return v;
}

GSHMEM_API uint64_t gshmem_signal_fetch(const uint64_t *sig_addr)
{
    const struct gshmemi_heap_access *access;
    (void)gshmemi_rma_sym_target(__func__, "sig_addr", sig_addr, sizeof(*sig_addr),
                                 gshmemi_rt.my_pe, &access);
    gshmemi_rma_check_aligned(__func__, "sig_addr", sig_addr, sizeof(*sig_addr));
    return read_signal(__func__, sig_addr);
}

GSHMEM_API uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    const struct gshmemi_wait w = {.call = __func__, .ivars = sig_addr, .nelems = 1,
                                   .esize = sizeof(uint64_t), .cmp = cmp, .value = cmp_value,
                                   .access = gshmemi_sym_access(sig_addr)};
    gshmemi_wait_check(&w);
    (void)gshmemi_wait_until(&w, GSHMEMI_WAIT_ALL, NULL);
    return read_signal(__func__, sig_addr);
}
