/* Death watch: blocking waits call gshmemi_watch_peers, which notices a
 * node-local peer whose process has gone, or that has been stopped (by
 * SIGSTOP or SIGTSTP: alive, but silent) for GSHMEM_HEARTBEAT_TIMEOUT, and
 * ends this PE with a message naming it (gshmemi_end_for_lost_pe names the
 * PE really lost when the one seen is only following it out); and a
 * launcher that has gone (this PE reparented), which leaves no job to wait
 * in.  Peers on other nodes are watched by their transports (tcp and ibrc
 * heartbeats).  A peer stopped by a debugger (traced) is not counted as
 * stopped: a breakpoint must not end the job. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Whether process pid is stopped by a job-control signal ('T' in
 * /proc/PID/stat; 't', stopped by a tracer, is not). */
static int process_stopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *end = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
    return end != NULL && end[1] == ' ' && end[2] == 'T';
}

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
        if (!process_stopped(rt->peers[pe].pid))
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

/* dead_too: a peer that is gone counts as lost (not in a collective of
 * the bootstrap that has not failed: gshmemi_wait_hook_fn). */
static void watch(const char *op, int at_once, int dead_too)
{
    static __thread uint64_t next_check;
    const struct gshmemi_runtime *rt = &gshmemi_rt;
    uint64_t now = gshmemi_now_ns();

    if ((now < next_check && !at_once) || rt->peers == NULL || gshmemi_ctrl.base == NULL)
        return;
    next_check = now + WATCH_EVERY_NS;
    for (int i = 0; i < rt->n_local && dead_too; i++) {
        int pe = rt->local_pes[i];
        if (pe == rt->my_pe || gshmemi_peer_alive(pe))
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

void gshmemi_watch_peers(const char *op) { watch(op, 0, 1); }

void gshmemi_watch_hook(const char *op, int failed) { watch(op, failed, failed); }
