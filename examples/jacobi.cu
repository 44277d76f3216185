// jacobi: a 2D heat-diffusion stencil split by rows across the PEs.  One
// kernel (a collective launch) runs every iteration: it updates the PE's
// rows, sends its first and last rows into the neighbours' halo rows with
// put_signal, waits for its own halos, and meets the other PEs at a device
// barrier.  PE 0 then checks the whole grid against the same computation
// on one GPU.
//
//   nvcc -arch=sm_90 jacobi.cu -lgshmem -o jacobi && gshmrun -n 2 ./jacobi
#include <cmath>
#include <cstdio>
#include <vector>

#include <gshmem_device.cuh>

#define NX 1024
#define NY 1024
#define ITERS 200

// New value of one point: the same expression in both versions, so the
// distributed and the one-GPU results agree to the bit.
__device__ __forceinline__ float stencil(const float *up, const float *row, const float *down, int j)
{
    return 0.25f * (up[j] + down[j] + row[j - 1] + row[j + 1]);
}

// Global row g of the next grid from rows up/row/down (g == 0 and NY - 1,
// and columns 0 and NX - 1, are fixed).
__device__ void update_row(float *out, const float *up, const float *row, const float *down, int g,
                           int tid, int nthreads)
{
    for (int j = tid; j < NX; j += nthreads)
        out[j] = (g == 0 || g == NY - 1 || j == 0 || j == NX - 1) ? row[j] : stencil(up, row, down, j);
}

// a, b: (rows + 2) x NX, local row 0 and rows + 1 are the halos.  sig[0]:
// my top halo arrived (from the PE above), sig[1]: my bottom halo.
__global__ void jacobi(float *a, float *b, int rows, uint64_t *sig)
{
    const int me = gshmem_my_pe(), n = gshmem_n_pes(), r0 = me * rows;
    const int tid = blockIdx.x * blockDim.x + threadIdx.x, nthreads = gridDim.x * blockDim.x;
    for (int it = 1; it <= ITERS; it++) {
        const float *old = it % 2 ? a : b;
        float *cur = it % 2 ? b : a;
        for (int li = 1; li <= rows; li++)
            update_row(cur + li * NX, old + (li - 1) * NX, old + li * NX, old + (li + 1) * NX,
                       r0 + li - 1, tid, nthreads);
        gshmem_sync_all(); // every block's rows are done (and everybody's previous halos read)
        if (blockIdx.x == 0) {
            // my first row is the bottom halo of the PE above, my last the top halo of the one below
            if (me > 0)
                gshmemx_float_put_signal_block(cur + (rows + 1) * NX, cur + NX, NX, &sig[1], it,
                                               GSHMEM_SIGNAL_SET, me - 1);
            if (me < n - 1)
                gshmemx_float_put_signal_block(cur, cur + rows * NX, NX, &sig[0], it,
                                               GSHMEM_SIGNAL_SET, me + 1);
            if (threadIdx.x == 0) {
                if (me > 0)
                    gshmem_signal_wait_until(&sig[0], GSHMEM_CMP_GE, it);
                if (me < n - 1)
                    gshmem_signal_wait_until(&sig[1], GSHMEM_CMP_GE, it);
            }
        }
        gshmem_sync_all(); // the halos are in before any block reads them
    }
}

// The reference: the whole grid on one GPU, one launch per iteration.
__global__ void jacobi_one_gpu(float *out, const float *in)
{
    for (int g = blockIdx.x; g < NY; g += gridDim.x) {
        const float *row = in + (size_t)g * NX;
        update_row(out + (size_t)g * NX, g > 0 ? row - NX : row, row, g < NY - 1 ? row + NX : row, g,
                   threadIdx.x, blockDim.x);
    }
}

static void initial(std::vector<float> &grid)
{
    for (int g = 0; g < NY; g++)
        for (int j = 0; j < NX; j++)
            grid[(size_t)g * NX + j] = g == 0 ? 1.0f : (j == NX / 2 && g == NY / 2 ? 50.0f : 0.0f);
}

int main()
{
    gshmem_init();
    const int me = gshmem_my_pe(), n = gshmem_n_pes();
    if (NY % n != 0) {
        std::fprintf(stderr, "jacobi: %d rows do not split over %d PEs\n", NY, n);
        gshmem_global_exit(2);
    }
    const int rows = NY / n;
    const size_t local = (size_t)(rows + 2) * NX;
    float *a = (float *)gshmem_calloc(local, sizeof(float));
    float *b = (float *)gshmem_calloc(local, sizeof(float));
    uint64_t *sig = (uint64_t *)gshmem_calloc(2, sizeof(uint64_t));
    std::vector<float> grid((size_t)NX * NY);
    initial(grid);
    // my rows and, where there are neighbours, their boundary rows as halos
    for (int li = 0; li < rows + 2; li++) {
        const int g = me * rows + li - 1;
        if (g >= 0 && g < NY)
            cudaMemcpy(a + (size_t)li * NX, &grid[(size_t)g * NX], NX * sizeof(float),
                       cudaMemcpyHostToDevice);
    }
    cudaMemcpy(b, a, local * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaDeviceSynchronize();
    gshmem_barrier_all();

    int grid_blocks = 0;
    void *args[] = {&a, &b, (void *)&rows, &sig};
    gshmemx_collective_launch_query_gridsize((const void *)jacobi, 256, args, 0, &grid_blocks);
    grid_blocks = grid_blocks < 32 ? grid_blocks : 32;
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0);
    if (gshmemx_collective_launch((const void *)jacobi, grid_blocks, 256, args, 0, 0) != 0)
        gshmem_global_exit(1);
    cudaEventRecord(t1);
    if (cudaDeviceSynchronize() != cudaSuccess)
        gshmem_global_exit(1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    gshmem_barrier_all();

    int wrong = 0;
    if (me == 0) {
        // the distributed result: every PE's rows of the last grid written
        const float *last = ITERS % 2 ? b : a;
        std::vector<float> got((size_t)NX * NY);
        for (int pe = 0; pe < n; pe++)
            gshmem_getmem(&got[(size_t)pe * rows * NX], last + NX, (size_t)rows * NX * sizeof(float), pe);
        // the same on one GPU
        float *x, *y;
        cudaMalloc(&x, grid.size() * sizeof(float));
        cudaMalloc(&y, grid.size() * sizeof(float));
        cudaMemcpy(x, grid.data(), grid.size() * sizeof(float), cudaMemcpyHostToDevice);
        for (int it = 1; it <= ITERS; it++) {
            jacobi_one_gpu<<<256, 256>>>(it % 2 ? y : x, it % 2 ? x : y);
        }
        std::vector<float> want(grid.size());
        cudaMemcpy(want.data(), ITERS % 2 ? y : x, want.size() * sizeof(float), cudaMemcpyDeviceToHost);
        double sum = 0;
        for (size_t i = 0; i < want.size(); i++) {
            wrong += got[i] != want[i];
            sum += got[i];
        }
        std::printf("jacobi: %dx%d grid over %d PEs, %d iterations in %.2f ms (one kernel per PE); "
                    "%d of %zu points differ from the one-GPU run; sum %.6f\n",
                    NX, NY, n, ITERS, ms, wrong, want.size(), sum);
        cudaFree(x);
        cudaFree(y);
    }
    gshmem_barrier_all();
    gshmem_finalize();
    return wrong != 0;
}
