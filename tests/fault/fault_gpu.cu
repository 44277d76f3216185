/* The fault matrix's GPU rows (tests/fault/run_matrix.py --gpu): every PE
 * runs PHASE over and over on the GPU heap; PE `victim` commits FAULT from
 * its host thread in place of its 50th step, so the others are in a kernel
 * or a stream operation waiting for it.
 *
 *   fault_gpu PHASE FAULT VICTIM
 *
 * PHASE:  dev-barrier  a kernel calling the device gshmem_barrier_all
 *         dev-wait     a kernel waiting (gshmem_signal_wait_until) for its
 *                      left neighbour's count, then setting its right
 *                      neighbour's: a ring the victim breaks
 *         stream-coll  gshmemx_float_sum_reduce_on_stream on the world,
 *                      then the stream synchronised
 *         proxy-put    a kernel putting 1 MiB to the next PE and quieting
 *                      (through the proxy where GSHMEM_DISABLE_P2P=1), then
 *                      the host barrier; the victim faults with its
 *                      kernel's transfer in flight
 * FAULT:  kill, stop, exit0, global, none: as in fault.c.
 *
 * A GPU PE stopped with SIGSTOP leaves a running kernel running, so the
 * victim faults between its kernels (or, proxy-put, with the transfer its
 * stopped proxy thread would carry): the others then wait in theirs. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <gshmem.h>
#include <gshmem_device.cuh>
#include <gshmemx.h>

#include "fault_commit.h"

/* A CUDA error here is the test's own, not the fault's: name it and end. */
static void cuda_ok(cudaError_t err, const char *what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "fault_gpu: pe %d: %s: %s\n", me, what, cudaGetErrorString(err));
        exit(3);
    }
}

__global__ void barrier_kernel(void) { gshmem_barrier_all(); }

__global__ void wait_kernel(uint64_t *word, uint64_t want, uint64_t next_count, int right)
{
    if (want > 0)
        gshmem_signal_wait_until(word, GSHMEM_CMP_GE, want);
    gshmemx_signal_op(word, next_count, GSHMEM_SIGNAL_SET, right);
}

__global__ void put_kernel(char *buf, size_t bytes, int right)
{
    gshmemx_putmem_block(buf, buf, bytes, right);
    if (threadIdx.x == 0)
        gshmem_quiet();
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fault_gpu PHASE FAULT VICTIM\n");
        return 2;
    }
    const char *phase = argv[1];
    fault = argv[2];
    victim = atoi(argv[3]);
    int ngpu = 0;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    gshmem_init();
    me = gshmem_my_pe();
    const int n = gshmem_n_pes(), right = (me + 1) % n;
    if (victim < 0 || victim >= n) {
        fprintf(stderr, "fault_gpu: victim %d is not a PE of %d\n", victim, n);
        return 2;
    }
    const size_t big = (size_t)1 << 20;
    float *src = (float *)gshmem_malloc(64 * sizeof(float));
    float *dst = (float *)gshmem_malloc(64 * sizeof(float));
    uint64_t *word = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    char *buf = (char *)gshmem_malloc(big);
    if (src == NULL || dst == NULL || word == NULL || buf == NULL) {
        fprintf(stderr, "fault_gpu: pe %d: gshmem_malloc failed\n", me);
        return 3;
    }
    cudaStream_t stream;
    cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate");
    cuda_ok(cudaMemsetAsync(src, 0, 64 * sizeof(float), stream), "cudaMemsetAsync");
    cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    printf("fault: pe %d of %d up, phase %s\n", me, n, phase);
    fflush(stdout);
    gshmem_barrier_all();
    for (uint64_t i = 0;; i++) {
        const int now = me == victim && i == FAULT_AT && strcmp(fault, "none") != 0;
        if (strcmp(phase, "dev-barrier") == 0) {
            if (now)
                commit();
            void *args[] = {NULL};
            if (gshmemx_collective_launch((const void *)barrier_kernel, 1, 32, args, 0, stream) != 0)
                return 3;
        } else if (strcmp(phase, "dev-wait") == 0) {
            if (now)
                commit();
            const uint64_t want = me == 0 ? i : i + 1;
            wait_kernel<<<1, 1, 0, stream>>>(word, want, i + 1, right);
        } else if (strcmp(phase, "stream-coll") == 0) {
            if (now)
                commit();
            if (gshmemx_float_sum_reduce_on_stream(GSHMEM_TEAM_WORLD, dst, src, 64, stream) != 0)
                return 3;
        } else if (strcmp(phase, "proxy-put") == 0) {
            put_kernel<<<1, 256, 0, stream>>>(buf, big, right);
            if (now) {
                usleep(1000); /* the kernel's requests are in the FIFO */
                commit();
            }
        } else {
            fprintf(stderr, "fault_gpu: unknown phase %s\n", phase);
            return 2;
        }
        cuda_ok(cudaGetLastError(), "kernel launch");
        cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        if (strcmp(phase, "proxy-put") == 0)
            gshmem_barrier_all();
    }
}
