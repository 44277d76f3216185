// Built by check_install.sh against the installed headers and library only,
// as a user builds (nvcc -arch=sm_90 prog.cu -lgshmem, no -rdc); compiled
// and linked, not run (the machine may have no GPU).  Each PE's kernel puts
// a buffer to the next PE with a block, writes its number there with a p,
// and meets the others at a device barrier.
#include <cstdio>

#include <gshmem_device.cuh>

__global__ void pass_on(char *dest, const char *source, size_t bytes, int *from)
{
    const int me = gshmem_my_pe(), next = (me + 1) % gshmem_n_pes();
    gshmemx_putmem_nbi_block(dest, source, bytes, next);
    if (threadIdx.x == 0)
        gshmem_int_p(from, me, next);
    gshmem_barrier_all(); // every thread of the grid, on every PE
}

int main()
{
    gshmem_init();
    size_t bytes = 1 << 16;
    char *source = (char *)gshmem_malloc(bytes);
    char *dest = (char *)gshmem_malloc(bytes);
    int *from = (int *)gshmem_malloc(sizeof(int));
    void *args[] = {&dest, &source, &bytes, &from};
    // gshmem_barrier_all in a kernel needs every block resident
    int status = gshmemx_collective_launch((const void *)pass_on, 1, 256, args, 0, 0);
    if (status == 0 && cudaDeviceSynchronize() != cudaSuccess)
        status = 1;
    std::printf("pe %d: launch status %d\n", gshmem_my_pe(), status);
    gshmem_free(from);
    gshmem_free(dest);
    gshmem_free(source);
    gshmem_finalize();
    return status != 0;
}
