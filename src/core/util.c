#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/api.h"
#include "core/log.h"
#include "core/util.h"

int gshmemi_random_bytes(void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = getrandom((char *)buf + done, len - done, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            GSHMEMI_ERROR(CORE, "getrandom failed: %s", strerror(errno));
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* FNV-1a folded through a final mix: fine for names and ids, not crypto. */
uint64_t gshmemi_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

void gshmemi_hex(const void *data, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * len] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int gshmemi_unhex(const char *hex, void *data, size_t len)
{
    unsigned char *p = data;
    if (strlen(hex) != 2 * len)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        p[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

void gshmemi_backoff_wait(struct gshmemi_backoff *b)
{
    if (b->spins < 64) {
        b->spins++;
        gshmemi_cpu_relax();
    } else if (b->spins < 4096) {
        b->spins++;
        sched_yield();
    } else {
        /* Long waits sleep a little: an idle PE leaves the core to others. */
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

int gshmemi_process_stopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *end = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
    return end != NULL && end[1] == ' ' && end[2] == 'T';
}

int gshmemi_read_int_file(const char *path)
{
    int v = -1;
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}
