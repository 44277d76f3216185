/* Death watch: blocking waits call gshmemi_watch_peers, which notices a
 * node-local peer whose process has gone and ends this PE with a message
 * naming it (gshmemi_end_for_lost_pe names the PE really lost when the
 * one seen is only following it out). */
#include <stdint.h>
#include <stdio.h>

#include <gshmem.h>

#include "core/runtime.h"
#include "core/util.h"
#include "heap/ctrl.h"
#include "sync/wait.h"

void gshmemi_watch_peers(const char *op)
{
    static __thread uint64_t next_check;
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    uint64_t now = gshmemi_now_ns();

    if (now < next_check || rt->peers == NULL || gshmemi_ctrl.base == NULL)
        return;
    next_check = now + 20 * 1000 * 1000; /* 20 ms: detection well within a second */
    for (int i = 0; i < rt->n_local; i++) {
        int pe = rt->local_pes[i];
        if (pe == rt->my_pe || gshmemi_peer_alive(pe))
            continue;
        char how[160];
        snprintf(how, sizeof(how), "ended while this pe was in %s", op);
        gshmemi_end_for_lost_pe(pe, how);
    }
}
