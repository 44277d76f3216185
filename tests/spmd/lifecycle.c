/* Start-up, shut-down and failure scenarios, one per run: `lifecycle MODE
 * [args]`.  check_launch.py runs them and checks how each ends. */
#include <arpa/inet.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "gshmem_config.h"

#if GSHMEM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Bytes of GPU memory in use on the current device; -1 without one. */
static long long gpu_used(void)
{
#if GSHMEM_HAVE_CUDA
    size_t free_b, total_b;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
        return (long long)(total_b - free_b);
    cudaGetLastError();
#endif
    return -1;
}

static int count_entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Each PE puts its number into the next PE's box; returns 0 if right. */
static int ring_check(void)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int *box = gshmem_malloc(sizeof(int));
    gshmem_int_p(box, me + 100, (me + 1) % n);
    gshmem_barrier_all();
    int got; /* read through the API: the heap may be GPU memory */
    gshmem_getmem(&got, box, sizeof(got), me);
    int ok = got == (me + n - 1) % n + 100;
    gshmem_free(box);
    return ok ? 0 : 1;
}

static void intrude_root(void)
{
    gshmemx_uniqueid_t uid;
    char text[80], host[64];
    int port;
    const char *env = getenv("GSHMEM_LAUNCH_UNIQUEID");
    if (env == NULL || gshmemi_uid_decode(env, &uid) != 0 ||
        gshmemi_uid_root_address(&uid, text, sizeof(text)) != 0 ||
        sscanf(text, "%63[^:]:%d", host, &port) != 2) {
        fprintf(stderr, "lifecycle: no unique id to intrude with\n");
        exit(2);
    }
    for (int k = 0; k < 2; k++) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        inet_pton(AF_INET, host, &sa.sin_addr);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
            exit(2);
        if (k == 0) { /* a hello-sized message with the right magic, wrong secret */
            unsigned char junk[64];
            memcpy(junk, uid.internal, sizeof(junk));
            junk[12] ^= 0xff;
            (void)!write(fd, junk, sizeof(junk));
        }
        close(fd);
    }
    printf("intruded at %s\n", text);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";

    if (strcmp(mode, "uid") == 0) {
        /* lifecycle uid RANK NRANKS FILE: the application holds the unique id. */
        int rank = atoi(argv[2]), nranks = atoi(argv[3]);
        const char *file = argv[4];
        gshmemx_uniqueid_t uid;
        gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
        if (rank == 0) {
            char tmp[4096];
            if (gshmemx_get_uniqueid(&uid) != 0)
                return 2;
            snprintf(tmp, sizeof(tmp), "%s.tmp", file);
            FILE *f = fopen(tmp, "wb");
            fwrite(&uid, sizeof(uid), 1, f);
            fclose(f);
            rename(tmp, file);
        } else {
            FILE *f = NULL;
            for (int i = 0; i < 3000 && (f = fopen(file, "rb")) == NULL; i++)
                usleep(10000);
            if (f == NULL || fread(&uid, sizeof(uid), 1, f) != 1)
                return 2;
            fclose(f);
        }
        if (gshmemx_set_attr_uniqueid_args(rank, nranks, &uid, &attr) != 0)
            return 2;
        int st = gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
        if (st != 0) {
            fprintf(stderr, "lifecycle: gshmemx_init_attr failed: %s\n", gshmem_status_string(st));
            return 4;
        }
        int bad = ring_check() || gshmem_my_pe() != rank || gshmem_n_pes() != nranks;
        printf("uid rank %d of %d: %s\n", rank, nranks, bad ? "wrong" : "ok");
        gshmem_finalize();
        return bad;
    }
    if (strcmp(mode, "intrude") == 0 && atoi(getenv("GSHMEM_LAUNCH_RANK")) == 0)
        intrude_root();
    if (strcmp(mode, "leaks") == 0) {
        /* lifecycle leaks [CYCLES]: init, grow the heap, finalize, again.  On
         * the GPU heap the baseline is taken after the first cycle: the CUDA
         * context's own descriptors and memory stay for the process's life
         * (gshmem does not destroy the application's context). */
        const int cycles = argc > 2 ? atoi(argv[2]) : 20;
        const int on_gpu = getenv("GSHMEM_HEAP") && strcmp(getenv("GSHMEM_HEAP"), "device") == 0;
        int fds = 0, threads = 0, shm = 0;
        long long gpu = -1;
        for (int i = 0; i < cycles; i++) {
            if (i == (on_gpu ? 1 : 0)) {
                fds = count_entries("/proc/self/fd");
                threads = count_entries("/proc/self/task");
                shm = count_entries("/dev/shm");
                gpu = on_gpu ? gpu_used() : -1;
            }
            gshmem_init();
            void *p = gshmem_malloc(8 << 20); /* grows the 4 MiB heap */
            if (p == NULL || ring_check() != 0)
                return 3;
            gshmem_free(p);
            gshmem_finalize();
        }
        int fds2 = count_entries("/proc/self/fd"), threads2 = count_entries("/proc/self/task");
        int shm2 = count_entries("/dev/shm");
        long long gpu2 = on_gpu ? gpu_used() : -1;
        printf("leaks: %d cycles: fds %d -> %d, threads %d -> %d, /dev/shm entries %d -> %d, "
               "GPU memory in use %lld -> %lld\n", cycles, fds, fds2, threads, threads2, shm, shm2,
               gpu, gpu2);
        return fds2 != fds || threads2 != threads || shm2 > shm || gpu2 != gpu;
    }

    gshmem_init();
    int me = gshmem_my_pe();
    if (strcmp(mode, "barrier-kill") == 0) {
        /* PE 2 dies by SIGKILL in the middle of a run of barriers. */
        for (long i = 0; i < 10000000; i++) {
            if (me == 2 && i == 300)
                raise(SIGKILL);
            gshmem_barrier_all();
        }
        return 0;
    }
    if (strcmp(mode, "barrier-stop") == 0) {
        /* PE 2 stops (alive, silent) in the middle of a run of barriers. */
        for (long i = 0; i < 10000000; i++) {
            if (me == 2 && i == 300)
                raise(SIGSTOP);
            gshmem_barrier_all();
        }
        return 0;
    }
    if (strcmp(mode, "exit-status") == 0) {
        gshmem_barrier_all();
        if (me == 1)
            exit(3);
        gshmem_barrier_all();
        return 0;
    }
    if (strcmp(mode, "global-exit") == 0) {
        gshmem_barrier_all();
        if (me == 1)
            gshmem_global_exit(5);
        gshmem_barrier_all();
        return 0;
    }
    if (strcmp(mode, "sleep") == 0) {
        gshmem_barrier_all();
        printf("pe %d sleeping\n", me);
        fflush(stdout);
        sleep(60);
        return 0;
    }
    if (strcmp(mode, "serve") == 0) {
        /* lifecycle serve SECONDS: up and checked, then idle while
         * check_intrude.py knocks on the job's sockets, then the heap grows
         * (an fd exchange, which meets what knocked on the handle sockets)
         * and is checked again. */
        int bad = ring_check();
        gshmem_barrier_all();
        printf("pe %d serving\n", me);
        fflush(stdout);
        sleep((unsigned)atoi(argc > 2 ? argv[2] : "5"));
        void *big = gshmem_malloc(8 << 20); /* grows the 4 MiB heap */
        bad |= big == NULL || ring_check();
        gshmem_free(big);
        printf("pe %d: %s\n", me, bad ? "wrong" : "ok");
        gshmem_finalize();
        return bad;
    }
    int bad = ring_check();
    printf("pe %d: %s\n", me, bad ? "wrong" : "ok");
    gshmem_finalize();
    return bad;
}
