/*
 * An NVSHMEM program written as NVSHMEM's documentation teaches, built
 * against gshmem's nvshmem.h with no change: a device ring with
 * put-with-signal from a block, a collective launch whose kernel meets at
 * nvshmem_barrier_all (one thread a PE), a block's fcollect, an on-stream
 * reduction, a registered user buffer as a stream put's source, and a
 * perftest-style device ping-pong of p and wait_until.  Every result is
 * checked against values computed here; the first wrong one is reported
 * (PE, step, index) and the program exits 1.
 *
 *   gshmrun -n N ./nvshmem_style        (GPU heap; N >= 1)
 *   gshmrun -n N ./nvshmem_style uid    (init by a unique id that rank 0
 *                                        makes and hands out in a file)
 *
 * The same source builds against NVSHMEM itself (bench's twin build,
 * nvshmem_style_nvshmem), where the uid form is how it starts under
 * gshmrun, which only starts the processes.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define CUDA_CHECK(x)                                                                     \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "nvshmem_style: %s: %s\n", #x, cudaGetErrorString(e_));      \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static int me, npes, failures;

static void expect(const char *step, size_t i, long got, long want)
{
    if (got != want && failures++ == 0)
        fprintf(stderr, "nvshmem_style: pe %d: %s: element %zu is %ld, want %ld\n", me, step, i,
                got, want);
}

static int value(int pe, int i, int round) { return pe * 1000003 + i * 7 + round; }

__global__ void fill(int *buf, int n, int pe, int round)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        buf[i] = pe * 1000003 + i * 7 + round;
}

/* One block: the whole vector to the next PE with the signal set to round. */
__global__ void ring_step(int *dst, const int *src, uint64_t *sig, int n, int round)
{
    const int peer = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
    nvshmemx_int_put_signal_nbi_block(dst, src, n, sig, (uint64_t)round, NVSHMEM_SIGNAL_SET,
                                      peer);
    if (threadIdx.x == 0)
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)round);
    __syncthreads();
}

/* Launched collectively: thread 0 of block 0 of each PE writes its number
 * into slot me on the next PE, meets the others, then reads its own slots. */
__global__ void launched(int *slots, int *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    const int mype = nvshmem_my_pe(), n = nvshmem_n_pes();
    nvshmem_int_p(slots + mype, mype + 1, (mype + 1) % n);
    nvshmem_barrier_all();
    *out = slots[(mype + n - 1) % n];
}

__global__ void fcollect_block(int *dest, const int *src, int n)
{
    nvshmemx_int_fcollect_block(NVSHMEM_TEAM_WORLD, dest, src, n);
}

/* PE 0 and PE 1 hand a counter back and forth with p and wait_until. */
__global__ void ping_pong(int *flag, int iters, long long *cycles)
{
    const int mype = nvshmem_my_pe(), other = 1 - mype;
    const long long t0 = clock64();
    for (int i = 1; i <= iters; i++) {
        if (mype == 0) {
            nvshmem_int_p(flag, 2 * i - 1, other);
            nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 2 * i);
        } else {
            nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 2 * i - 1);
            nvshmem_int_p(flag, 2 * i, other);
        }
    }
    *cycles = clock64() - t0;
}

static int env_int(const char *name)
{
    const char *v = getenv(name);
    if (v == NULL) {
        fprintf(stderr, "nvshmem_style: %s is not set (run under gshmrun)\n", name);
        exit(2);
    }
    return atoi(v);
}

/* NVSHMEM's documented unique-id start: rank 0 makes the id, the
 * application hands it to the others (here through a file named after the
 * launch), every rank passes its rank and the size. */
static void init_by_uniqueid(void)
{
    const int rank = env_int("GSHMEM_LAUNCH_RANK"), size = env_int("GSHMEM_LAUNCH_SIZE");
    const char *job = getenv("GSHMEM_LAUNCH_UNIQUEID");
    unsigned long h = 5381;
    for (const char *c = job != NULL ? job : ""; *c != '\0'; c++)
        h = h * 33 + (unsigned char)*c;
    char file[128], tmp[140];
    snprintf(file, sizeof(file), "/tmp/nvshmem-style-uid-%lx", h);
    snprintf(tmp, sizeof(tmp), "%s.tmp", file);
    int ngpu = 1;
    CUDA_CHECK(cudaGetDeviceCount(&ngpu));
    CUDA_CHECK(cudaSetDevice(rank % ngpu));
    nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0) {
        nvshmemx_get_uniqueid(&uid);
        FILE *f = fopen(tmp, "wb");
        if (f == NULL || fwrite(&uid, sizeof(uid), 1, f) != 1 || fclose(f) != 0 ||
            rename(tmp, file) != 0) {
            fprintf(stderr, "nvshmem_style: cannot write %s\n", file);
            exit(2);
        }
    } else {
        FILE *f;
        for (int waited = 0; (f = fopen(file, "rb")) == NULL; waited++) {
            if (waited == 60000) {
                fprintf(stderr, "nvshmem_style: rank %d: no unique id in %s\n", rank, file);
                exit(2);
            }
            usleep(1000);
        }
        if (fread(&uid, sizeof(uid), 1, f) != 1)
            exit(2);
        fclose(f);
    }
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, size, &uid, &attr);
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) {
        fprintf(stderr, "nvshmem_style: rank %d: nvshmemx_init_attr failed\n", rank);
        exit(1);
    }
    if (nvshmem_my_pe() != rank || nvshmem_n_pes() != size) {
        fprintf(stderr, "nvshmem_style: rank %d of %d became pe %d of %d\n", rank, size,
                nvshmem_my_pe(), nvshmem_n_pes());
        exit(1);
    }
    nvshmem_barrier_all();
    if (rank == 0)
        unlink(file);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "uid") == 0)
        init_by_uniqueid();
    else
        nvshmem_init();
    me = nvshmem_my_pe();
    npes = nvshmem_n_pes();
    if (nvshmemx_init_status() != NVSHMEM_STATUS_IS_INITIALIZED) {
        fprintf(stderr, "nvshmem_style: nvshmemx_init_status says not initialised\n");
        return 1;
    }
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    const int n = 4099, prev = (me + npes - 1) % npes;
    int *src = (int *)nvshmem_malloc(sizeof(int) * n);
    int *dst = (int *)nvshmem_malloc(sizeof(int) * n * (npes > 1 ? npes : 1));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    int *host = (int *)malloc(sizeof(int) * n * npes);

    /* the ring, three rounds */
    for (int round = 1; round <= 3; round++) {
        fill<<<8, 256, 0, stream>>>(src, n, me, round);
        CUDA_CHECK(cudaGetLastError()); /* the launch itself */
        CUDA_CHECK(cudaMemsetAsync(dst, 0xff, sizeof(int) * n, stream));
        nvshmemx_barrier_all_on_stream(stream);
        ring_step<<<1, 256, 0, stream>>>(dst, src, sig, n, round);
        CUDA_CHECK(cudaGetLastError()); /* the launch itself */
        CUDA_CHECK(cudaMemcpyAsync(host, dst, sizeof(int) * n, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int i = 0; i < n; i++)
            expect("ring put_signal", (size_t)i, host[i], value(prev, i, round));
        nvshmem_barrier_all();
    }

    /* a collective launch meeting at the device barrier_all */
    int *slots = (int *)nvshmem_calloc((size_t)npes, sizeof(int));
    int *out = NULL;
    CUDA_CHECK(cudaMalloc(&out, sizeof(int)));
    void *args[] = {&slots, &out};
    if (nvshmemx_collective_launch((const void *)launched, dim3(2), dim3(64), args, 0, stream) != 0)
        expect("nvshmemx_collective_launch status", 0, 1, 0);
    int got = 0;
    CUDA_CHECK(cudaMemcpyAsync(&got, out, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    expect("collective launch, barrier_all", 0, got, prev + 1);
    nvshmem_barrier_all();

    /* p and g in stream order: p takes its value when called */
    int pval = 7000 + me;
    nvshmemx_int_p_on_stream(&slots[me], pval, (me + 1) % npes, stream);
    pval = -1;
    nvshmemx_barrier_all_on_stream(stream);
    expect("p_on_stream then g_on_stream", 0,
           nvshmemx_int_g_on_stream(&slots[me], (me + 1) % npes, stream), 7000 + me);
    nvshmem_barrier_all();

    /* a block's fcollect */
    fill<<<8, 256, 0, stream>>>(src, n, me, 11);
    CUDA_CHECK(cudaGetLastError()); /* the launch itself */
    CUDA_CHECK(cudaMemsetAsync(dst, 0xff, sizeof(int) * n * npes, stream));
    nvshmemx_barrier_all_on_stream(stream);
    /* as many threads as the kernel can have (NVSHMEM's build of it uses
     * more registers than 512 threads may) */
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, fcollect_block));
    const int threads = (fa.maxThreadsPerBlock < 512 ? fa.maxThreadsPerBlock : 512) / 32 * 32;
    fcollect_block<<<1, threads, 0, stream>>>(dst, src, n);
    CUDA_CHECK(cudaGetLastError()); /* the launch itself */
    CUDA_CHECK(cudaMemcpyAsync(host, dst, sizeof(int) * n * npes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < n; i++)
            expect("fcollect_block", (size_t)pe * n + i, host[pe * n + i], value(pe, i, 11));
    nvshmem_barrier_all();

    /* an on-stream float sum: every PE adds its (exact) values */
    float *fs = (float *)nvshmem_malloc(sizeof(float) * n);
    float *fd = (float *)nvshmem_malloc(sizeof(float) * n);
    float *fh = (float *)malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++)
        fh[i] = (float)((me + 1) * (i % 97)) / 4.0f;
    CUDA_CHECK(cudaMemcpyAsync(fs, fh, sizeof(float) * n, cudaMemcpyHostToDevice, stream));
    nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, fd, fs, n, stream);
    CUDA_CHECK(cudaMemcpyAsync(fh, fd, sizeof(float) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; i++) {
        float want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += (float)((pe + 1) * (i % 97)) / 4.0f;
        expect("float_sum_reduce_on_stream (x4)", (size_t)i, (long)(fh[i] * 4), (long)(want * 4));
    }
    nvshmem_barrier_all();

    /* a registered cudaMalloc buffer as a stream put's source */
    int *local = NULL;
    CUDA_CHECK(cudaMalloc(&local, sizeof(int) * n));
    if (nvshmemx_buffer_register(local, sizeof(int) * n) != 0)
        expect("nvshmemx_buffer_register status", 0, 1, 0);
    fill<<<8, 256, 0, stream>>>(local, n, me, 21);
    CUDA_CHECK(cudaGetLastError()); /* the launch itself */
    CUDA_CHECK(cudaMemsetAsync(dst, 0xff, sizeof(int) * n, stream));
    nvshmemx_barrier_all_on_stream(stream);
    nvshmemx_int_put_nbi_on_stream(dst, local, n, (me + 1) % npes, stream);
    nvshmemx_quiet_on_stream(stream);
    nvshmemx_barrier_all_on_stream(stream);
    CUDA_CHECK(cudaMemcpyAsync(host, dst, sizeof(int) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; i++)
        expect("put_nbi_on_stream from a registered buffer", (size_t)i, host[i],
               value(prev, i, 21));
    nvshmemx_buffer_unregister(local);
    CUDA_CHECK(cudaFree(local));

    /* perftest style: PE 0 and 1 ping-pong from a kernel */
    double us = 0;
    if (npes >= 2) {
        int *flag = (int *)nvshmem_calloc(1, sizeof(int));
        long long *cycles = NULL, c = 0;
        CUDA_CHECK(cudaMalloc(&cycles, sizeof(long long)));
        const int iters = 200; /* PEs sharing a GPU take turns: keep it short */
        nvshmem_barrier_all();
        if (me < 2) {
            ping_pong<<<1, 1, 0, stream>>>(flag, iters, cycles);
            CUDA_CHECK(cudaGetLastError()); /* the launch itself */
            CUDA_CHECK(cudaMemcpyAsync(&c, cycles, sizeof(c), cudaMemcpyDeviceToHost, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            int last = 0;
            CUDA_CHECK(cudaMemcpy(&last, flag, sizeof(int), cudaMemcpyDeviceToHost));
            expect("ping-pong final flag", 0, last, me == 0 ? 2 * iters : 2 * iters - 1);
            int khz = 0;
            CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
            us = khz > 0 ? (double)c / khz * 1e3 / iters / 2 : 0;
        }
        nvshmem_barrier_all();
        nvshmem_free(flag);
        CUDA_CHECK(cudaFree(cycles));
    }

    int all_failures = 0;
    int *fails = (int *)nvshmem_malloc(sizeof(int)), *sum = (int *)nvshmem_malloc(sizeof(int));
    CUDA_CHECK(cudaMemcpy(fails, &failures, sizeof(int), cudaMemcpyHostToDevice));
    /* From pageable memory, cudaMemcpy may return before its DMA lands;
     * gshmem's host operations run on a stream of their own. */
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, sum, fails, 1);
    CUDA_CHECK(cudaMemcpy(&all_failures, sum, sizeof(int), cudaMemcpyDeviceToHost));
    if (me == 0) {
        if (all_failures == 0)
            printf("nvshmem_style: %d PEs: ring put_signal (block), collective launch with "
                   "barrier_all, p/g on stream, fcollect_block, float_sum_reduce_on_stream, "
                   "put_nbi_on_stream from a registered buffer, ping-pong%s: all checks passed\n",
                   npes,
                   npes >= 2 ? "" : " (skipped: 1 PE)");
        else
            printf("nvshmem_style: %d PEs: %d wrong values\n", npes, all_failures);
        if (npes >= 2)
            printf("nvshmem_style: device ping-pong, one way: %.2f us (not a benchmark)\n", us);
    }
    nvshmem_free(fails);
    nvshmem_free(sum);
    nvshmem_free(fs);
    nvshmem_free(fd);
    nvshmem_free(slots);
    nvshmem_free(sig);
    nvshmem_free(dst);
    nvshmem_free(src);
    free(host);
    free(fh);
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return all_failures == 0 ? 0 : 1;
}
