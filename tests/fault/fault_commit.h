/* The fault a victim PE commits, shared by the fault matrix's programs
 * (fault.c on the CPU, fault_gpu.cu on the GPU heap). */
#ifndef GSHMEM_TESTS_FAULT_COMMIT_H
#define GSHMEM_TESTS_FAULT_COMMIT_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

/* The victim faults in place of its FAULT_AT-th step. */
#define FAULT_AT 50

static const char *fault; /* kill, stop, exit0, global or none */
static int victim, me = -1;

/* Commits `fault`: SIGKILL or SIGSTOP to itself, exit(0) without
 * finalize, or gshmem_global_exit(7). */
static void commit(void)
{
    fprintf(stderr, "fault: pe %d commits %s\n", me, fault);
    fflush(stderr);
    if (strcmp(fault, "kill") == 0)
        raise(SIGKILL);
    else if (strcmp(fault, "stop") == 0)
        raise(SIGSTOP);
    else if (strcmp(fault, "exit0") == 0)
        exit(0);
    else if (strcmp(fault, "global") == 0)
        gshmem_global_exit(7);
    fprintf(stderr, "fault: unknown fault %s\n", fault);
    exit(2);
}

#endif
