/* Death watch: blocking waits call gshmemi_watch_peers, which notices a
 * node-local peer whose process has gone and ends this PE with a message
 * naming it.  The first PE to notice leaves the lost PE's number in every
 * local peer's control segment before it exits, so a PE that next notices
 * *that* PE's exit names the PE that was really lost. */
#include <stdint.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "heap/heap.h"
#include "sync/wait.h"

static void end_for_loss(int lost, int reporter, const char *op)
{
    const struct gshmemi_peer *p = &gshmemi_rt.peers[lost];
    if (reporter >= 0)
        GSHMEMI_ERROR(CORE, "pe %d (pid %d on %s) ended while this pe was in %s (pe %d saw it "
                      "first); ending this pe", lost, (int)p->pid, p->host, op, reporter);
    else
        GSHMEMI_ERROR(CORE, "pe %d (pid %d on %s) ended while this pe was in %s; ending this pe",
                      lost, (int)p->pid, p->host, op);
    _exit(GSHMEMI_EXIT_ERROR);
}

void gshmemi_watch_peers(const char *op)
{
    static __thread uint64_t next_check;
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    uint64_t now = gshmemi_now_ns();

    if (now < next_check || rt->peers == NULL || gshmemi_heap.ctrl_base == NULL)
        return;
    next_check = now + 20 * 1000 * 1000; /* 20 ms: detection well within a second */
    uint64_t *notice = gshmemi_ctrl_word(rt->my_pe, GSHMEMI_AREA_LOST_PE);
    for (int i = 0; i < rt->n_local; i++) {
        int pe = rt->local_pes[i];
        if (pe == rt->my_pe || gshmemi_peer_alive(pe))
            continue;
        uint64_t seen = __atomic_load_n(notice, __ATOMIC_ACQUIRE);
        if (seen != 0)
            end_for_loss((int)(seen & 0xffffffffu) - 1, (int)(seen >> 32) - 1, op);
        /* First to notice: tell the others which PE it was, then go. */
        uint64_t mine = ((uint64_t)(rt->my_pe + 1) << 32) | (uint64_t)(pe + 1);
        for (int k = 0; k < rt->n_local; k++) {
            uint64_t *w = gshmemi_ctrl_word(rt->local_pes[k], GSHMEMI_AREA_LOST_PE);
            uint64_t zero = 0;
            __atomic_compare_exchange_n(w, &zero, mine, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
        }
        end_for_loss(pe, -1, op);
    }
}
