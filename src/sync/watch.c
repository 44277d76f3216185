/* Death watch: blocking waits call gshmemi_watch_peers, which notices a
 * node-local peer whose process has gone, or that has been stopped (by
 * SIGSTOP or SIGTSTP: alive, but silent) for GSHMEM_HEARTBEAT_TIMEOUT, and
 * ends this PE with a message naming it (gshmemi_end_for_lost_pe names the
 * PE really lost when the one seen is only following it out); and a
 * launcher that has gone (this PE reparented), which leaves no job to wait
 * in.  Peers on other nodes are watched by their transports (tcp and ibrc
 * heartbeats).  A peer stopped by a debugger (traced) is not counted as
 * stopped: a breakpoint must not end the job.
 *
 * Where a GPU is in use, kernels and stream-ordered operations wait on
 * peers while the host thread sits in a CUDA call, out of gshmem's waits:
 * a thread of its own (gshmemi_watch_start) then watches the same way,
 * woken at once by a peer's exit (its pidfd), from init until finalize. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "heap/ctrl.h"
#include "sync/wait.h"

#define WATCH_EVERY_NS (20ull * 1000 * 1000)    /* detection well within a second */
#define STOPPED_EVERY_NS (250ull * 1000 * 1000) /* /proc reads: a few a second */

/* When each PE was first seen stopped (0: running), shared by the threads
 * that wait; sized for the job, made again for a job of another size. */
static pthread_mutex_t stopped_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *stopped_since;
static int stopped_n;

/* Node-local peers stopped for GSHMEM_HEARTBEAT_TIMEOUT end this PE. */
static void watch_stopped(const char *op, uint64_t now)
{
    static __thread uint64_t next_check;
    const struct gshmemi_runtime *rt = &gshmemi_rt;

    if (now < next_check)
        return;
    next_check = now + STOPPED_EVERY_NS;
    const uint64_t limit = (uint64_t)(gshmemi_env.HEARTBEAT_TIMEOUT * 1e9);
    int lost = -1;
    pthread_mutex_lock(&stopped_lock);
    if (stopped_n != rt->n_pes) {
        free(stopped_since);
        stopped_since = calloc((size_t)rt->n_pes, sizeof(*stopped_since));
        stopped_n = stopped_since != NULL ? rt->n_pes : 0;
    }
    for (int i = 0; i < rt->n_local && stopped_since != NULL && lost < 0; i++) {
        const int pe = rt->local_pes[i];
        if (pe == rt->my_pe)
            continue;
        if (!gshmemi_process_stopped(rt->peers[pe].pid))
            stopped_since[pe] = 0;
        else if (stopped_since[pe] == 0)
            stopped_since[pe] = now;
        else if (now - stopped_since[pe] >= limit)
            lost = pe;
    }
    pthread_mutex_unlock(&stopped_lock);
    if (lost >= 0) {
        char how[200];
        snprintf(how, sizeof(how), "was stopped (not running, by SIGSTOP or SIGTSTP) for %g s "
                 "(GSHMEM_HEARTBEAT_TIMEOUT) while this pe was in %s", gshmemi_env.HEARTBEAT_TIMEOUT, op);
        gshmemi_end_for_stopped_pe(lost, how);
    }
}

/* What the watch thread says this PE was in, unless a thread of it has
 * been in a gshmem wait in the last RECENT_NS (recent_op, recent_ns). */
static const char GPU_WORK[] = "GPU work (a kernel or a stream-ordered operation) that waits on peers";
#define RECENT_NS (100ull * 1000 * 1000)
static const char *recent_op;
static uint64_t recent_ns;
static __thread int is_watch_thread;

/* Which gone peers count as lost: every one, or those that had not entered
 * gshmem_finalize (in a collective of the bootstrap that has not failed,
 * gshmemi_wait_hook_fn: a peer that has seen finalize's last one end may
 * leave while this PE has yet to see it end). */
enum { DEAD_ALL, DEAD_UNFINALIZED };

static void watch(const char *op, int at_once, int dead)
{
    static __thread uint64_t next_check;
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    uint64_t now = gshmemi_now_ns();

    if ((now < next_check && !at_once) || rt->peers == NULL || gshmemi_ctrl.base == NULL)
        return;
    next_check = now + WATCH_EVERY_NS;
    if (!is_watch_thread) { /* the watch thread names what a waiting thread waits in */
        __atomic_store_n(&recent_op, op, __ATOMIC_RELAXED);
        __atomic_store_n(&recent_ns, now, __ATOMIC_RELEASE);
    }
    for (int i = 0; i < rt->n_local; i++) {
        int pe = rt->local_pes[i];
        if (pe == rt->my_pe || gshmemi_peer_alive(pe) ||
            (dead == DEAD_UNFINALIZED && gshmemi_ctrl_finalizing(pe)))
            continue;
        char how[160];
        snprintf(how, sizeof(how), "ended while this pe was in %s", op);
        gshmemi_end_for_lost_pe(pe, how);
    }
    if (rt->launcher_pid > 0 && getppid() != rt->launcher_pid) {
        GSHMEMI_ERROR(CORE, "the launcher (pid %d) that started this pe has gone while this pe "
                      "was in %s; ending this pe", (int)rt->launcher_pid, op);
        _exit(GSHMEMI_EXIT_ERROR);
    }
    if (gshmemi_env.HEARTBEAT_TIMEOUT > 0)
        watch_stopped(op, now);
}

void gshmemi_watch_peers(const char *op) { watch(op, 0, DEAD_ALL); }

void gshmemi_watch_hook(const char *op, int failed)
{
    watch(op, failed, failed ? DEAD_ALL : DEAD_UNFINALIZED);
}

/* ---- the watch thread ------------------------------------------------------ */

static struct {
    pthread_t thread;
    int stop_fd; /* eventfd: readable when the thread is to stop */
    int running;
} wt = {.stop_fd = -1};

static void *watch_main(void *arg)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    struct pollfd *fds = arg;
    int n = 0, all_pidfds = 1;

    is_watch_thread = 1;
    fds[n++] = (struct pollfd){.fd = wt.stop_fd, .events = POLLIN};
    for (int i = 0; i < rt->n_local; i++) {
        const int pe = rt->local_pes[i];
        if (pe == rt->my_pe)
            continue;
        if (rt->peers[pe].pidfd >= 0)
            fds[n++] = (struct pollfd){.fd = rt->peers[pe].pidfd, .events = POLLIN};
        else
            all_pidfds = 0;
    }
    /* A peer's exit wakes the poll; the stopped peers and the launcher are
     * looked at a few times a second, as often as the waits look. */
    const int every_ms = all_pidfds ? (int)(STOPPED_EVERY_NS / 1000000) : (int)(WATCH_EVERY_NS / 1000000);
    for (;;) {
        int k = poll(fds, (nfds_t)n, every_ms);
        if (k < 0 && errno != EINTR) {
            GSHMEMI_WARN(CORE, "the watch thread stops: poll: %s", strerror(errno));
            break;
        }
        if (fds[0].revents != 0)
            break;
        const uint64_t seen = __atomic_load_n(&recent_ns, __ATOMIC_ACQUIRE);
        const char *op = __atomic_load_n(&recent_op, __ATOMIC_RELAXED);
        watch(op != NULL && gshmemi_now_ns() - seen < RECENT_NS ? op : GPU_WORK, 1, DEAD_ALL);
    }
    free(fds);
    return NULL;
}

int gshmemi_watch_start(void)
{
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    if (wt.running || rt->n_local < 2)
        return 0;
    struct pollfd *fds = calloc((size_t)rt->n_local + 1, sizeof(*fds));
    wt.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fds == NULL || wt.stop_fd < 0) {
        GSHMEMI_ERROR(CORE, "gshmem_init: cannot set up the watch thread: %s", strerror(errno));
        goto fail;
    }
    if ((errno = pthread_create(&wt.thread, NULL, watch_main, fds)) != 0) {
        GSHMEMI_ERROR(CORE, "gshmem_init: cannot start the watch thread: %s", strerror(errno));
        goto fail;
    }
    pthread_setname_np(wt.thread, "gshmem-watch");
    wt.running = 1;
    return 0;
fail:
    free(fds);
    if (wt.stop_fd >= 0)
        close(wt.stop_fd);
    wt.stop_fd = -1;
    return GSHMEM_ERR_INTERNAL;
}

void gshmemi_watch_stop(void)
{
    if (!wt.running)
        return;
    const uint64_t one = 1;
    if (write(wt.stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
        GSHMEMI_WARN(CORE, "the watch thread could not be told to stop: %s", strerror(errno));
    pthread_join(wt.thread, NULL);
    close(wt.stop_fd);
    wt.stop_fd = -1;
    wt.running = 0;
}
