/* The runtime's state and the end of a job. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "core/runtime.h"

struct gshmemi_runtime gshmemi_rt = {.my_pe = -1};

static struct {
    gshmemi_abort_hook_fn fn;
    void *arg;
} hooks[GSHMEMI_ABORT_STAGES];
static int aborting;

void gshmemi_abort_hook_set(enum gshmemi_abort_stage stage, gshmemi_abort_hook_fn fn, void *arg)
{
    hooks[stage].arg = arg;
    __atomic_store_n(&hooks[stage].fn, fn, __ATOMIC_RELEASE);
}

static void run_hook(enum gshmemi_abort_stage stage, int status, const char *why)
{
    gshmemi_abort_hook_fn fn = __atomic_load_n(&hooks[stage].fn, __ATOMIC_ACQUIRE);
    if (fn != NULL)
        fn(hooks[stage].arg, status, why);
}

int gshmemi_aborting(void) { return __atomic_load_n(&aborting, __ATOMIC_ACQUIRE); }

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

int gshmemi_peer_alive(int pe)
{
    const struct gshmemi_peer *p = &gshmemi_rt.peers[pe];
    if (p->pidfd >= 0) {
        struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) == 0;
    }
    return kill(p->pid, 0) == 0 || errno != ESRCH;
}
