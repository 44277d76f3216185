/* The control segment and loss notices (ctrl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "heap/backend.h"
#include "heap/ctrl.h"

struct gshmemi_ctrl gshmemi_ctrl;

/* ---- loss notices ------------------------------------------------------- */

static void say_lost(int lost, int reporter, const char *how)
{
    const struct gshmemi_peer *p = &gshmemi_rt.peers[lost];
    if (reporter >= 0)
        GSHMEMI_ERROR(CORE, "pe %d (pid %d on %s) %s (pe %d saw it first); ending this pe", lost,
                      (int)p->pid, p->host, how, reporter);
    else
        GSHMEMI_ERROR(CORE, "pe %d (pid %d on %s) %s; ending this pe", lost, (int)p->pid, p->host,
                      how);
}

/* This PE ends the job: local peers, told through their control segments
 * before it goes, take its closed connections for that, not for a loss. */
static void mark_job_ending(void *arg, int status, const char *why)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    (void)arg, (void)status, (void)why;
    for (int k = 0; k < rt->n_local; k++)
        __atomic_store_n(gshmemi_ctrl_word(rt->local_pes[k], GSHMEMI_CTRL_ENDING),
                         (uint64_t)rt->my_pe + 1, __ATOMIC_RELEASE);
}

#define GSHMEMI_LOST_STOPPED (1ull << 63)

static void __attribute__((noreturn)) end_for(int pe, const char *how, uint64_t flags)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    /* One message a PE: a waiting thread and the watch thread may see the
     * loss at once; the second leaves it to the first, which exits. */
    static int ending;
    if (__atomic_exchange_n(&ending, 1, __ATOMIC_ACQ_REL))
        for (;;)
            pause();
    /* This PE, or a local peer, is ending the job and has said why: the
     * peers it ends go quietly, and the aborting thread's exit status
     * stands (this thread leaves on its own only if that one is held up,
     * or the launcher's signal is slow to come). */
    if (gshmemi_aborting() ||
        (gshmemi_ctrl.base != NULL &&
         __atomic_load_n(gshmemi_ctrl_word(rt->my_pe, GSHMEMI_CTRL_ENDING), __ATOMIC_ACQUIRE))) {
        sleep(5);
        _exit(GSHMEMI_EXIT_ERROR);
    }
    uint64_t *notice = gshmemi_ctrl.base != NULL
                           ? gshmemi_ctrl_word(rt->my_pe, GSHMEMI_CTRL_LOST_PE) : NULL;
    uint64_t seen = notice != NULL ? __atomic_load_n(notice, __ATOMIC_ACQUIRE) : 0;

    if (seen != 0) {
        /* Following the PE that saw the loss first: what this PE saw go is
         * that one, so `how` ("ended while ...") is said of the PE really
         * lost, as "was stopped" where it is only stopped. */
        const char *rest = strncmp(how, "ended ", 6) == 0 ? how + 6 : NULL;
        char text[200];
        if ((seen & GSHMEMI_LOST_STOPPED) && rest != NULL) {
            snprintf(text, sizeof(text), "was stopped %s", rest);
            how = text;
        }
        seen &= ~GSHMEMI_LOST_STOPPED;
        say_lost((int)(seen & 0xffffffffu) - 1, (int)(seen >> 32) - 1, how);
    } else {
        uint64_t mine = ((uint64_t)(rt->my_pe + 1) << 32) | (uint64_t)(pe + 1) | flags;
        for (int k = 0; notice != NULL && k < rt->n_local; k++) {
            uint64_t *w = gshmemi_ctrl_word(rt->local_pes[k], GSHMEMI_CTRL_LOST_PE);
            uint64_t zero = 0;
            __atomic_compare_exchange_n(w, &zero, mine, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
        }
        say_lost(pe, -1, how);
    }
    _exit(GSHMEMI_EXIT_ERROR);
}

void gshmemi_ctrl_mark_finalizing(void)
{
    if (gshmemi_ctrl.base != NULL)
        __atomic_store_n(gshmemi_ctrl_word(gshmemi_rt.my_pe, GSHMEMI_CTRL_FINALIZING), 1,
                         __ATOMIC_RELEASE);
}

int gshmemi_ctrl_finalizing(int pe)
{
    const uint64_t *w = gshmemi_ctrl.base != NULL ? gshmemi_ctrl_word(pe, GSHMEMI_CTRL_FINALIZING) : NULL;
    return w != NULL && __atomic_load_n(w, __ATOMIC_ACQUIRE) != 0;
}

void gshmemi_end_for_lost_pe(int pe, const char *how) { end_for(pe, how, 0); }

void gshmemi_end_for_stopped_pe(int pe, const char *how) { end_for(pe, how, GSHMEMI_LOST_STOPPED); }

/* ---- control segment ------------------------------------------------------ */

/* Maps every node-local PE's control segment (host memory, zeroed). */
int gshmemi_ctrl_init(struct gshmemi_fdx *fdx)
{
    struct gshmemi_ctrl *h = &gshmemi_ctrl;
    const int me = gshmemi_rt.my_pe, n_local = gshmemi_rt.n_local;
    struct gshmemi_heap_mem mem = {.fd = -1};
    int *peers = NULL, *fds = NULL, n_peers = 0, st;

    h->slot_of_pe = malloc(sizeof(int) * (size_t)gshmemi_rt.n_pes);
    peers = malloc(sizeof(int) * (size_t)n_local);
    fds = malloc(sizeof(int) * (size_t)n_local);
    if (h->slot_of_pe == NULL || peers == NULL || fds == NULL) {
        st = GSHMEM_ERR_NO_MEMORY;
        goto out;
    }
    for (int pe = 0; pe < gshmemi_rt.n_pes; pe++)
        h->slot_of_pe[pe] = -1;
    for (int i = 0; i < n_local; i++) {
        h->slot_of_pe[gshmemi_rt.local_pes[i]] = i;
        if (gshmemi_rt.local_pes[i] != me)
            peers[n_peers++] = gshmemi_rt.local_pes[i];
    }
    h->n_slots = n_local;
    GSHMEMI_CHECK_GOTO(gshmemi_hostshm_ops.reserve((size_t)n_local * GSHMEMI_CTRL_SIZE,
                                                   (void **)&h->base), st, out);
    GSHMEMI_CHECK_GOTO(gshmemi_hostshm_ops.create(GSHMEMI_CTRL_SIZE, &mem), st, out);
    GSHMEMI_CHECK_GOTO(gshmemi_hostshm_ops.map(&mem, h->base + (size_t)h->slot_of_pe[me] *
                                                         GSHMEMI_CTRL_SIZE), st, out);
    if (n_peers > 0)
        GSHMEMI_CHECK_GOTO(gshmemi_fdx_exchange(fdx, mem.fd, UINT64_MAX, peers, n_peers, fds,
                                                gshmemi_env.BOOTSTRAP_TIMEOUT), st, out);
    for (int i = 0; i < n_peers; i++) {
        struct gshmemi_heap_mem peer = {.fd = fds[i], .size = GSHMEMI_CTRL_SIZE};
        if (st == 0)
            st = gshmemi_hostshm_ops.map(&peer, h->base + (size_t)h->slot_of_pe[peers[i]] *
                                                               GSHMEMI_CTRL_SIZE);
        gshmemi_hostshm_ops.destroy(&peer);
    }
out:
    if (st == 0)
        gshmemi_abort_hook_set(GSHMEMI_ABORT_TELL_PEERS, mark_job_ending, NULL);
    gshmemi_hostshm_ops.destroy(&mem);
    free(fds);
    free(peers);
    return st;
}

void gshmemi_ctrl_fini(void)
{
    struct gshmemi_ctrl *h = &gshmemi_ctrl;
    gshmemi_abort_hook_set(GSHMEMI_ABORT_TELL_PEERS, NULL, NULL);
    if (h->base != NULL)
        gshmemi_hostshm_ops.release(h->base, (size_t)h->n_slots * GSHMEMI_CTRL_SIZE);
    free(h->slot_of_pe);
    h->base = NULL;
    h->slot_of_pe = NULL;
}
