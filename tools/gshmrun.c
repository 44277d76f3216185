/*
 * gshmrun: starts N PEs of a gshmem program on this machine, on the uid
 * bootstrap, and watches them.
 *
 *   gshmrun -n N [-t SECONDS] [--] program [args...]
 *
 * It runs the bootstrap root itself and hands each PE the unique id, its
 * rank and the job size through the environment.  SIGINT, SIGTERM and
 * SIGHUP are forwarded.  When a PE exits non-zero or dies by a signal, the
 * others get a moment to notice and report it themselves, then are ended;
 * gshmrun says which PE failed and how, and exits with that status.  A PE
 * that ends the job on purpose (gshmem_global_exit, a fatal error) says so
 * on a pipe first, and the others are ended at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/env.h"
#include "core/log.h"
#include "core/util.h"

#define GRACE_NS (3ull * 1000 * 1000 * 1000)  /* for PEs to notice a lost peer */
#define KILL_NS (2ull * 1000 * 1000 * 1000)   /* from SIGTERM to SIGKILL */

struct pe_proc {
    pid_t pid;
    int done;
    int status;  /* wait status */
    int stopped; /* the signal that stopped it while it is stopped, else 0 */
    uint64_t stopped_at; /* since when, 0: not stopped or already told to the root */
};

enum cause { CAUSE_NONE, CAUSE_FAILED, CAUSE_ABORT, CAUSE_SIGNAL, CAUSE_TIMEOUT };

struct job {
    int n;
    struct pe_proc *pes;
    int live;
    enum cause cause;
    int cause_pe;
    int cause_status; /* exit status to return */
    uint64_t cause_at; /* when the failure was seen */
    uint64_t term_at; /* when to send SIGTERM, 0: not planned */
    uint64_t kill_at; /* when to send SIGKILL, 0: not planned */
    int termed;
    int stopped_pe; /* a PE that was stopped when the job failed, -1: none */
    int stopped_sig; /* the signal that stopped it */
    struct gshmemi_uid_root *root;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gshmrun -n N [-t SECONDS] [--] program [args...]\n"
               "  -n, --np N          number of PEs to start\n"
               "  -t, --timeout S     end the job after S seconds (exit status 124)\n"
               "  -h, --help          this text\n"
               "Each PE runs program with GSHMEM_LAUNCH_* set; gshmem_init finds them.\n"
               "With GSHMEM_DISABLE_P2P or GSHMEM_TRANSPORT set, CUDA_MODULE_LOADING is EAGER\n"
               "unless set: with lazy loading, a kernel's first launch can stall GPU work\n"
               "waiting on the proxy (docs/device-api.md).\n");
}

static void signal_all(struct job *j, int sig)
{
    for (int i = 0; i < j->n; i++)
        if (!j->pes[i].done && j->pes[i].pid > 0) {
            kill(-j->pes[i].pid, sig); /* its process group: the PE and its children */
            if (j->pes[i].stopped && sig != SIGKILL)
                kill(-j->pes[i].pid, SIGCONT); /* a stopped PE takes SIGTERM once it runs */
        }
}

static void plan_end(struct job *j, uint64_t grace)
{
    uint64_t now = gshmemi_now_ns();
    if (j->term_at == 0 || j->term_at > now + grace)
        j->term_at = now + grace;
}

/* Whether every PE still running is stopped (/proc's state now: a SIGCONT
 * may have come since the stop was reaped): the grace after a failure is
 * for PEs to notice the lost peer and say so, which a stopped one cannot. */
static int only_stopped_left(const struct job *j)
{
    for (int i = 0; i < j->n; i++)
        if (!j->pes[i].done && j->pes[i].pid > 0 &&
            (!j->pes[i].stopped || !gshmemi_process_stopped(j->pes[i].pid)))
            return 0;
    return 1;
}

static void describe_status(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "ended (wait status 0x%x)", status);
}

static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

static void read_ctrl(struct job *j, int fd)
{
    char buf[512];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    if (n <= 0)
        return;
    buf[n] = '\0';
    for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        int pe, status;
        if (sscanf(line, "abort %d %d", &pe, &status) == 2 && j->cause < CAUSE_ABORT) {
            j->cause = CAUSE_ABORT;
            j->cause_pe = pe;
            j->cause_status = status;
            plan_end(j, 0);
        }
    }
}

/* Reaps what has exited.  A PE killed by a signal is the likelier first
 * cause than PEs that exited with an error soon before or with it: those may
 * be ending because they saw it go (a dying process's sockets close before
 * its exit can be reaped).  Within a second, the cause is revised so. */
static void reap(struct job *j)
{
    int first = -1;
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG | WUNTRACED | WCONTINUED);
        if (pid <= 0)
            break;
        for (int i = 0; i < j->n; i++) {
            if (j->pes[i].pid != pid)
                continue;
            if (WIFSTOPPED(status) || WIFCONTINUED(status)) {
                /* The PEs decide whether a stopped peer ends the job (it
                 * may be a moment's SIGSTOP); gshmrun names it if it does. */
                j->pes[i].stopped = WIFSTOPPED(status) ? WSTOPSIG(status) : 0;
                j->pes[i].stopped_at = WIFSTOPPED(status) ? gshmemi_now_ns() : 0;
                continue;
            }
            char how[128];
            describe_status(status, how, sizeof(how));
            (void)gshmemi_uid_root_rank_gone(j->root, i, how); /* a meeting it missed fails */
            j->pes[i].done = 1;
            j->pes[i].status = status;
            j->live--;
            int failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            if (failed && (first < 0 || (WIFSIGNALED(status) &&
                                         !WIFSIGNALED(j->pes[first].status))))
                first = i;
        }
    }
    if (first < 0)
        return;
    /* (not a PE that gshmrun's own signals ended) */
    int revise = j->cause == CAUSE_FAILED && !j->termed && WIFSIGNALED(j->pes[first].status) &&
                 !WIFSIGNALED(j->pes[j->cause_pe].status) &&
                 gshmemi_now_ns() - j->cause_at < 1000000000ull;
    if (j->cause == CAUSE_NONE || revise) {
        if (j->cause == CAUSE_NONE) {
            j->cause_at = gshmemi_now_ns();
            plan_end(j, j->termed ? 0 : GRACE_NS);
            for (int i = 0; i < j->n && j->stopped_pe < 0; i++)
                if (j->pes[i].stopped && !j->pes[i].done) {
                    j->stopped_pe = i; /* the likelier cause: the others could not go on */
                    j->stopped_sig = j->pes[i].stopped;
                }
        }
        j->cause = CAUSE_FAILED;
        j->cause_pe = first;
        j->cause_status = exit_code(j->pes[first].status);
    }
}

/* A PE stopped for GSHMEM_HEARTBEAT_TIMEOUT before it joined the job ends
 * the bootstrap's meeting, as one that exited would: the ranks waiting there
 * would otherwise wait out its deadline (the PEs watch each other once they
 * have joined).  Returns when to look again. */
static uint64_t watch_stopped(struct job *j, uint64_t now)
{
    const uint64_t limit = (uint64_t)(gshmemi_env.HEARTBEAT_TIMEOUT * 1e9);
    uint64_t wake = UINT64_MAX;
    for (int i = 0; i < j->n && limit > 0; i++) {
        struct pe_proc *p = &j->pes[i];
        if (p->done || p->stopped_at == 0)
            continue;
        if (now - p->stopped_at < limit) {
            if (p->stopped_at + limit < wake)
                wake = p->stopped_at + limit;
            continue;
        }
        char how[160];
        snprintf(how, sizeof(how), "was stopped by signal %d (%s) for %g s", p->stopped,
                 strsignal(p->stopped), gshmemi_env.HEARTBEAT_TIMEOUT);
        (void)gshmemi_uid_root_rank_gone(j->root, i, how);
        p->stopped_at = 0;
    }
    return wake;
}

/* Whether the environment sends peers through the proxy, where CUDA's
 * lazy loading can stall it (docs/device-api.md).  Not otherwise: the
 * loading mode moves latencies by a few percent either way, and without
 * P2P between GPUs gshmem_init warns. */
static int proxy_forced(void)
{
    const char *p2p = getenv("GSHMEM_DISABLE_P2P"), *t = getenv("GSHMEM_TRANSPORT");
    if (p2p == NULL) /* NVSHMEM's, read by gshmem where gshmem's is unset (nvshmrun) */
        p2p = getenv("NVSHMEM_DISABLE_P2P");
    int off = 0;
    return (p2p != NULL && gshmemi_parse_bool(p2p, &off) == 0 && off) ||
           (t != NULL && *t != '\0' && strcmp(t, "auto") != 0);
}

static int start_pe(struct job *j, int rank, const char *uid_text, int ctrl_w, char **argv,
                    const sigset_t *oldmask)
{
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "gshmrun: fork failed: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        char num[32];
        extern char **environ;
        setpgid(0, 0);
        sigprocmask(SIG_SETMASK, oldmask, NULL);
        /* A PMIx server above gshmrun is not this job's launcher. */
        for (char **e = environ; *e != NULL;) {
            if (strncmp(*e, "PMIX_", 5) == 0) {
                char name[256];
                size_t len = strcspn(*e, "=");
                snprintf(name, sizeof(name), "%.*s", (int)len, *e);
                unsetenv(name);
            } else {
                e++;
            }
        }
        if (proxy_forced())
            setenv("CUDA_MODULE_LOADING", "EAGER", 0);
        setenv("GSHMEM_LAUNCH_UNIQUEID", uid_text, 1);
        snprintf(num, sizeof(num), "%d", rank);
        setenv("GSHMEM_LAUNCH_RANK", num, 1);
        snprintf(num, sizeof(num), "%d", j->n);
        setenv("GSHMEM_LAUNCH_SIZE", num, 1);
        int fd = dup(ctrl_w); /* dup clears close-on-exec */
        snprintf(num, sizeof(num), "%d", fd);
        setenv("GSHMEM_LAUNCH_CTRL_FD", num, 1);
        /* A PE must not outlive gshmrun (killed, it can end nothing). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "gshmrun: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    j->pes[rank].pid = pid;
    j->live++;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"np", required_argument, NULL, 'n'},
                                          {"timeout", required_argument, NULL, 't'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    struct job j = {0};
    double timeout = 0;
    int c, ctrl[2], sfd;
    sigset_t mask, oldmask;
    struct gshmemi_uid_root *root;
    gshmemx_uniqueid_t uid;
    char uid_text[2 * GSHMEMX_UNIQUEID_BYTES + 1];
    uint64_t job_deadline;

    while ((c = getopt_long(argc, argv, "+n:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': j.n = atoi(optarg); break;
        case 't':
            if (gshmemi_parse_seconds(optarg, &timeout) != 0) {
                fprintf(stderr, "gshmrun: -t %s is not a number of seconds\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (j.n <= 0 || optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (gshmemi_env_load() != 0 ||
        gshmemi_log_init(gshmemi_env.DEBUG, gshmemi_env.DEBUG_SUBSYS, "") != 0)
        return 2;
    j.pes = calloc((size_t)j.n, sizeof(*j.pes));
    if (j.pes == NULL)
        return 2;

    /* Signals arrive on a descriptor, with the children's exits. */
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, &oldmask);
    sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0 || pipe2(ctrl, O_CLOEXEC) != 0) {
        fprintf(stderr, "gshmrun: %s\n", strerror(errno));
        free(j.pes);
        return 2;
    }
    if (gshmemi_uid_root_start(1, 1, gshmemi_env.BOOTSTRAP_TIMEOUT, &uid, &root) != 0) {
        free(j.pes);
        return 2;
    }
    j.root = root;
    j.stopped_pe = -1;
    gshmemi_uid_encode(&uid, uid_text);

    for (int rank = 0; rank < j.n; rank++) {
        if (start_pe(&j, rank, uid_text, ctrl[1], argv + optind, &oldmask) != 0) {
            j.cause = CAUSE_FAILED;
            j.cause_pe = rank;
            j.cause_status = 2;
            plan_end(&j, 0);
            break;
        }
    }
    close(ctrl[1]);
    job_deadline = gshmemi_deadline_after(timeout);

    while (j.live > 0) {
        uint64_t now = gshmemi_now_ns(), wake = watch_stopped(&j, now);
        if (job_deadline < wake)
            wake = job_deadline;
        if (j.term_at != 0 && !j.termed && j.term_at < wake) /* (once signalled, past) */
            wake = j.term_at;
        if (j.kill_at != 0 && j.kill_at < wake)
            wake = j.kill_at;
        struct pollfd p[2] = {{.fd = ctrl[0], .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
        int k = poll(p, 2, gshmemi_ms_left(wake));
        if (k < 0 && errno != EINTR)
            break;
        if (k > 0 && (p[0].revents & POLLIN)) /* an abort notice outranks the exits it causes */
            read_ctrl(&j, ctrl[0]);
        if (k > 0 && (p[0].revents & POLLHUP))
            p[0].fd = -1;
        if (k > 0 && (p[1].revents & POLLIN)) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                if (si.ssi_signo == SIGCHLD)
                    continue;
                if (j.cause < CAUSE_SIGNAL) {
                    j.cause = CAUSE_SIGNAL;
                    j.cause_pe = (int)si.ssi_signo;
                    j.cause_status = 128 + (int)si.ssi_signo;
                }
                /* Forward it; a second one ends everything at once. */
                signal_all(&j, j.termed ? SIGKILL : (int)si.ssi_signo);
                j.termed = 1;
                if (j.kill_at == 0)
                    j.kill_at = gshmemi_now_ns() + KILL_NS;
            }
            reap(&j);
        }
        reap(&j);
        now = gshmemi_now_ns();
        if (now >= job_deadline && j.cause < CAUSE_TIMEOUT) {
            fprintf(stderr, "gshmrun: the job ran past its %g s timeout; ending it\n", timeout);
            j.cause = CAUSE_TIMEOUT;
            j.cause_status = 124;
            plan_end(&j, 0);
            job_deadline = UINT64_MAX;
        }
        if (j.term_at != 0 && !j.termed && (now >= j.term_at || only_stopped_left(&j))) {
            signal_all(&j, SIGTERM);
            j.termed = 1;
            j.kill_at = now + KILL_NS;
        }
        if (j.kill_at != 0 && now >= j.kill_at) {
            signal_all(&j, SIGKILL);
            j.kill_at = UINT64_MAX;
        }
    }
    const int missed = gshmemi_uid_root_failed_for(root);
    gshmemi_uid_root_stop(root);

    char how[128];
    int rc = 1;
    switch (j.cause) {
    case CAUSE_NONE:
        rc = 0;
        break;
    case CAUSE_FAILED:
        /* Where the PEs failed because one never joined or was stopped, that
         * one is named: the first to fail only followed it. */
        if (j.stopped_pe >= 0) {
            fprintf(stderr, "gshmrun: pe %d (pid %d) was stopped by signal %d (%s), and the others "
                    "could not go on; the job was ended\n", j.stopped_pe, (int)j.pes[j.stopped_pe].pid,
                    j.stopped_sig, strsignal(j.stopped_sig));
        } else if (missed >= 0) {
            describe_status(j.pes[missed].status, how, sizeof(how));
            fprintf(stderr, "gshmrun: pe %d (pid %d) %s before it joined the job (gshmem_init); "
                    "the job was ended\n", missed, (int)j.pes[missed].pid, how);
        } else {
            describe_status(j.pes[j.cause_pe].status, how, sizeof(how));
            fprintf(stderr, "gshmrun: pe %d (pid %d) %s; the job was ended\n", j.cause_pe,
                    (int)j.pes[j.cause_pe].pid, how);
        }
        rc = j.cause_status;
        break;
    case CAUSE_ABORT:
        if (j.cause_status != 0)
            fprintf(stderr, "gshmrun: pe %d ended the job with status %d\n", j.cause_pe,
                    j.cause_status);
        rc = j.cause_status;
        break;
    case CAUSE_SIGNAL:
        fprintf(stderr, "gshmrun: interrupted by signal %d (%s); the PEs were ended\n", j.cause_pe,
                strsignal(j.cause_pe));
        rc = j.cause_status;
        break;
    case CAUSE_TIMEOUT:
        rc = 124;
        break;
    }
    free(j.pes);
    return rc;
}
