/*
 * proxy_idle: how much of a core the runtime's own threads (the proxy and
 * the transport's progress thread) use while nothing is queued.
 *
 *   GSHMEM_DISABLE_P2P=1 gshmrun -n 2 ./bench/proxy_idle [seconds]
 *
 * After init (and the proxy's 10 ms of spinning after its last request),
 * each PE sleeps; the CPU time of each named thread over that time, from
 * /proc/self/task/N/stat, divided by the time, is its share of one core.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gshmem.h>

struct sample {
    char name[32];
    double cpu_s;
};

static int sample_threads(struct sample *out, int max)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && n < max;) {
        char path[300], buf[1024];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL || fgets(buf, sizeof(buf), f) == NULL) {
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        char *open = strchr(buf, '('), *close = strrchr(buf, ')');
        unsigned long utime, stime;
        if (open == NULL || close == NULL ||
            sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                   &stime) != 2)
            continue;
        snprintf(out[n].name, sizeof(out[n].name), "%.*s", (int)(close - open - 1), open + 1);
        out[n].cpu_s = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 3;
    gshmem_init();
    gshmem_barrier_all();
    struct timespec settle = {0, 200 * 1000 * 1000};
    nanosleep(&settle, NULL); /* past the proxy's spinning window */
    struct sample a[64], b[64];
    int na = sample_threads(a, 64);
    struct timespec t = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
    nanosleep(&t, NULL);
    int nb = sample_threads(b, 64);
    for (int i = 0; i < nb; i++) {
        if (strncmp(b[i].name, "gshmem-", 7) != 0)
            continue;
        for (int j = 0; j < na; j++)
            if (strcmp(a[j].name, b[i].name) == 0)
                printf("RESULT pe=%d thread=%s idle_core_share=%.4f (%.3f s of CPU in %.1f s)\n",
                       gshmem_my_pe(), b[i].name, (b[i].cpu_s - a[j].cpu_s) / secs,
                       b[i].cpu_s - a[j].cpu_s, secs);
    }
    gshmem_barrier_all();
    gshmem_finalize();
    return 0;
}
