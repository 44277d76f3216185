/* Preloaded into a job by check_intrude.py: each process stops itself
 * (SIGSTOP) right after every successful listen(), so the driver can knock
 * on the new socket before anyone honest reaches it, then resumes it with
 * SIGCONT.  Without INTRUDE_PAUSE in the environment it only listens. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>

__attribute__((visibility("default"))) int listen(int fd, int backlog)
{
    int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "listen");
    int r = real(fd, backlog);
    if (r == 0 && getenv("INTRUDE_PAUSE") != NULL)
        raise(SIGSTOP);
    return r;
}
