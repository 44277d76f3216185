// ring: each PE's kernel puts a block of data to the next PE with a signal,
// and waits for its own from the previous PE, for several rounds; the data
// received is checked in the kernel.  Build without -rdc:
//
//   nvcc -arch=sm_90 ring.cu -lgshmem -o ring && gshmrun -n 2 ./ring
#include <cstdio>

#include <gshmem_device.cuh>

#define N 4096 // ints per message
#define ROUNDS 8

__global__ void ring(int *inbox, const int *outbox, uint64_t *sig, int *errors)
{
    const int me = gshmem_my_pe(), n = gshmem_n_pes();
    const int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (int r = 1; r <= ROUNDS; r++) {
        // our message for round r, to the next PE; then the signal
        gshmemx_int_put_signal_block(inbox + (r % 2) * N, outbox + (r % 2) * N, N, sig, r,
                                     GSHMEM_SIGNAL_SET, next);
        if (threadIdx.x == 0)
            gshmem_signal_wait_until(sig, GSHMEM_CMP_GE, r);
        __syncthreads();
        for (int i = threadIdx.x; i < N; i += blockDim.x)
            if (inbox[(r % 2) * N + i] != prev * 1000000 + (r % 2) * N + i)
                atomicAdd(errors, 1);
        // the two halves alternate: nobody overwrites a half before it was read
        gshmem_sync_all(); // every thread of the grid, on every PE

    }
}

__global__ void fill(int *outbox, int me)
{
    for (int i = threadIdx.x; i < 2 * N; i += blockDim.x)
        outbox[i] = me * 1000000 + i;
}

int main()
{
    gshmem_init();
    const int me = gshmem_my_pe();
    int *inbox = (int *)gshmem_malloc(2 * N * sizeof(int));
    int *outbox = (int *)gshmem_malloc(2 * N * sizeof(int));
    uint64_t *sig = (uint64_t *)gshmem_calloc(1, sizeof(uint64_t));
    int *errors;
    cudaMallocManaged(&errors, sizeof(int));
    *errors = 0;
    fill<<<1, 256>>>(outbox, me);
    cudaDeviceSynchronize();
    gshmem_barrier_all();
    void *args[] = {&inbox, &outbox, &sig, &errors};
    // gshmem_sync_all in a kernel needs every block resident: a collective launch
    if (gshmemx_collective_launch((const void *)ring, 1, 256, args, 0, 0) != 0 ||
        cudaDeviceSynchronize() != cudaSuccess)
        gshmem_global_exit(1);
    std::printf("pe %d of %d: %d rounds of %d ints around the ring, %d wrong\n", me,
                gshmem_n_pes(), ROUNDS, N, *errors);
    gshmem_finalize();
    return *errors != 0;
}
