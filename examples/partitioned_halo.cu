// partitioned_halo: a neighbour exchange whose halo leaves piece by piece.
// Every PE keeps a field of P partitions of W values and, each step, sends a
// halo computed from it to the next PE around the ring, which folds the
// halo into its own field (the next step's: the producer still reads this one).  With partitioned transfers, each block of the
// producer kernel computes its partition of the outgoing halo and marks it
// ready at once (gshmemx_pready_block): it leaves while the other blocks
// still compute.  The consumer kernel runs beside it, and each of its
// blocks starts on its partition as soon as that one has arrived
// (gshmemx_parrived_block), not when the whole halo has.  Rounds are started
// and waited for on the stream.  At the end PE 0 gathers every field and
// checks it, to the bit, against the same steps run for all PEs on its GPU
// alone.
//
//   nvcc -arch=sm_90 partitioned_halo.cu -lgshmem -o partitioned_halo
//   gshmrun -n 2 ./partitioned_halo
#include <cstdio>
#include <cstring>
#include <vector>

#include <gshmem_device.cuh>

#define P 16    // partitions: one per producer and consumer block
#define W 4096  // values in a partition
#define STEPS 40

// The halo PE pe sends at `step` from its field value v, and the field's
// next value from v and the halo h received; rounded the same way in both
// runs (no contraction left to the compiler).
__device__ __forceinline__ float halo_of(float v, int pe, int step)
{
    return __fmaf_rn(v, 0.75f, __int2float_rn(pe + step) * 0.125f);
}
__device__ __forceinline__ float folded(float v, float h) { return __fmaf_rn(h, 0.5f, __fmul_rn(v, 0.5f)); }

__device__ __forceinline__ float initial(int pe, int i) { return __int2float_rn((pe * 7 + i) % 101); }

__global__ void init_field(float *field, int pe)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < P * W; i += gridDim.x * blockDim.x)
        field[i] = initial(pe, i);
}

// Block b computes partition b of the outgoing halo, then sends it.
__global__ void produce(gshmemx_prequest_t send, float *halo_out, const float *field, int me,
                        int step)
{
    const int b = blockIdx.x;
    for (int i = threadIdx.x; i < W; i += blockDim.x)
        halo_out[b * W + i] = halo_of(field[b * W + i], me, step);
    __syncthreads();
    gshmemx_pready_block(send, b);
}

// Block b waits for partition b of the incoming halo only, then folds it
// into the next field (the producer still reads this one).
__global__ void consume(gshmemx_prequest_t recv, float *next, const float *field,
                        const float *halo_in)
{
    const int b = blockIdx.x;
    while (!gshmemx_parrived_block(recv, b))
        ;
    for (int i = threadIdx.x; i < W; i += blockDim.x) {
        const float h = *reinterpret_cast<const volatile float *>(&halo_in[b * W + i]);
        next[b * W + i] = folded(field[b * W + i], h);
    }
}

// The same steps for all n PEs on one GPU: PE pe's field at fields[pe * P *
// W], its incoming halo at halos[pe * P * W].  Each thread owns indices i of
// every PE, so a step needs no barrier: first every halo, then every fold.
__global__ void reference(float *fields, float *halos, int n)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
    for (int i = tid; i < P * W; i += nt)
        for (int pe = 0; pe < n; pe++)
            fields[pe * P * W + i] = initial(pe, i);
    for (int step = 0; step < STEPS; step++)
        for (int i = tid; i < P * W; i += nt) {
            for (int pe = 0; pe < n; pe++) {
                const int left = (pe + n - 1) % n;
                halos[pe * P * W + i] = halo_of(fields[left * P * W + i], left, step);
            }
            for (int pe = 0; pe < n; pe++)
                fields[pe * P * W + i] = folded(fields[pe * P * W + i], halos[pe * P * W + i]);
        }
}

int main()
{
    gshmem_init();
    const int me = gshmem_my_pe(), n = gshmem_n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    const size_t bytes = sizeof(float) * P * W;
    // two fields, this step's and the next (symmetric: PE 0 gathers them)
    float *fields[2] = {static_cast<float *>(gshmem_malloc(bytes)),
                        static_cast<float *>(gshmem_malloc(bytes))};
    float *halo_out = static_cast<float *>(gshmem_malloc(bytes));
    float *halo_in = static_cast<float *>(gshmem_malloc(bytes));
    if (n < 2 || fields[0] == nullptr || fields[1] == nullptr || halo_out == nullptr ||
        halo_in == nullptr) {
        if (me == 0)
            std::printf("partitioned_halo needs 2 PEs or more and a GPU heap\n");
        gshmem_finalize();
        return n < 2 ? 0 : 1;
    }
    gshmemx_prequest_t recv, send; // from the left; to the right, into its halo_in
    gshmemx_precv_init(halo_in, P, sizeof(float) * W, left, &recv);
    gshmemx_psend_init(halo_in, halo_out, P, sizeof(float) * W, right, &send);

    cudaStream_t s, c;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking);
    cudaEvent_t go, done;
    cudaEventCreateWithFlags(&go, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    init_field<<<64, 256, 0, s>>>(fields[0], me);
    for (int step = 0; step < STEPS; step++) {
        float *field = fields[step % 2], *next = fields[(step + 1) % 2];
        gshmemx_pstart_on_stream(recv, s);
        gshmemx_pstart_on_stream(send, s);
        cudaEventRecord(go, s);
        cudaStreamWaitEvent(c, go, 0);
        consume<<<P, 256, 0, c>>>(recv, next, field, halo_in); // runs beside the producer
        produce<<<P, 256, 0, s>>>(send, halo_out, field, me, step);
        cudaEventRecord(done, c);
        cudaStreamWaitEvent(s, done, 0);
        gshmemx_pwait_on_stream(send, s);
        gshmemx_pwait_on_stream(recv, s);
    }
    cudaStreamSynchronize(s);
    gshmem_barrier_all();
    const float *field = fields[STEPS % 2];

    int bad = 0;
    if (me == 0) {
        std::vector<float> got(static_cast<size_t>(n) * P * W), want(got.size());
        for (int pe = 0; pe < n; pe++)
            gshmem_getmem(&got[static_cast<size_t>(pe) * P * W], field, bytes, pe);
        float *all, *halos;
        cudaMalloc(&all, bytes * n);
        cudaMalloc(&halos, bytes * n);
        reference<<<1, 1024>>>(all, halos, n);
        cudaMemcpy(want.data(), all, bytes * n, cudaMemcpyDeviceToHost);
        cudaFree(all);
        cudaFree(halos);
        for (size_t i = 0; i < got.size() && bad < 5; i++)
            if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) {
                std::printf("pe %zu value %zu: %g, one GPU alone: %g\n", i / (P * W), i % (P * W),
                            got[i], want[i]);
                bad++;
            }
        std::printf("partitioned_halo: %d PEs, %d steps of %d partitions x %zu bytes: %s\n", n,
                    STEPS, P, sizeof(float) * W, bad ? "MISMATCH" : "matches one GPU");
    }
    gshmemx_prequest_free(&send);
    gshmemx_prequest_free(&recv);
    gshmem_free(halo_in);
    gshmem_free(halo_out);
    gshmem_free(fields[1]);
    gshmem_free(fields[0]);
    gshmem_finalize();
    return bad ? 1 : 0;
}
