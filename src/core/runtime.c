/* The runtime's state and the end of a job. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/log.h"
#include "core/runtime.h"

struct gshmemi_runtime gshmemi_rt = {.my_pe = -1};

/* A hook and its argument are set and read as a pair, under the lock: a
 * thread ending the job while another sets or clears a hook (a transport's
 * thread during finalize) runs the old pair or the new one, never a mix. */
static struct {
    gshmemi_abort_hook_fn fn;
    void *arg;
} hooks[GSHMEMI_ABORT_STAGES];
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static int aborting;

void gshmemi_abort_hook_set(enum gshmemi_abort_stage stage, gshmemi_abort_hook_fn fn, void *arg)
{
    pthread_mutex_lock(&hooks_lock);
    hooks[stage].fn = fn;
    hooks[stage].arg = arg;
    pthread_mutex_unlock(&hooks_lock);
}

static void run_hook(enum gshmemi_abort_stage stage, int status, const char *why)
{
    pthread_mutex_lock(&hooks_lock);
    gshmemi_abort_hook_fn fn = hooks[stage].fn;
    void *arg = hooks[stage].arg;
    pthread_mutex_unlock(&hooks_lock);
    if (fn != NULL)
        fn(arg, status, why);
}

int gshmemi_aborting(void) { return __atomic_load_n(&aborting, __ATOMIC_ACQUIRE); }

void gshmemi_vfail(int subsys, const char *call, const char *fmt, va_list ap)
{
    char reason[512];
    vsnprintf(reason, sizeof(reason), fmt, ap);
    gshmemi_log(GSHMEMI_LOG_ERROR, subsys, "%s: %s", call, reason);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
}

void gshmemi_abort_job(int status, const char *why)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;

    if (__atomic_exchange_n(&aborting, 1, __ATOMIC_SEQ_CST))
        _exit(status);
    /* Node-local peers end now rather than report this PE as lost: told
     * first, through shared memory, before the launcher hears of it and
     * signals every PE, this one included (a peer may see this PE's
     * connections close before its own signal comes).  Those of another
     * node, simulated ones on this machine included, are ended by the
     * bootstrap's end below. */
    run_hook(GSHMEMI_ABORT_TELL_PEERS, status, why);
    run_hook(GSHMEMI_ABORT_TELL_LAUNCHER, status, why);
    if (rt->peers != NULL)
        for (int i = 0; i < rt->n_local; i++)
            if (rt->local_pes[i] != rt->my_pe)
                kill(rt->peers[rt->local_pes[i]].pid, SIGTERM);
    run_hook(GSHMEMI_ABORT_END, status, why);
    _exit(status);
}

static gshmemi_wait_hook_fn wait_hook;

void gshmemi_wait_hook_set(gshmemi_wait_hook_fn fn) { __atomic_store_n(&wait_hook, fn, __ATOMIC_RELEASE); }

void gshmemi_waiting(const char *op)
{
    gshmemi_wait_hook_fn fn = __atomic_load_n(&wait_hook, __ATOMIC_ACQUIRE);
    if (fn != NULL)
        fn(op, 0);
}

void gshmemi_waiting_now(const char *op)
{
    gshmemi_wait_hook_fn fn = __atomic_load_n(&wait_hook, __ATOMIC_ACQUIRE);
    /* A peer's connections close as it exits, a moment before its process
     * is seen gone: the watch gets half a second to see it. */
    const struct timespec nap = {0, 20 * 1000 * 1000};
    for (int i = 0; fn != NULL && i < 25; i++) {
        fn(op, 1);
        nanosleep(&nap, NULL);
    }
}

void gshmemi_end_after_collective(int st, const char *why)
{
    if (st == GSHMEM_ERR_PEER_LOST && !gshmemi_aborting())
        _exit(GSHMEMI_EXIT_ERROR);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, why);
}

int gshmemi_peer_alive(int pe)
{
    const struct gshmemi_peer *p = &gshmemi_rt.peers[pe];
    if (p->pidfd >= 0) {
        struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) == 0;
    }
    return kill(p->pid, 0) == 0 || errno != ESRCH;
}
