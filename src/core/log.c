#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/api.h"
#include "core/log.h"

int gshmemi_log_level = GSHMEMI_LOG_WARN;
unsigned gshmemi_log_mask = ~0u;

static const char *const subsys_names[] = {
#define GSHMEMI_SUBSYS_NAME(ID, name) #name,
    GSHMEMI_FOR_SUBSYS(GSHMEMI_SUBSYS_NAME)
#undef GSHMEMI_SUBSYS_NAME
};
static const char *const level_names[] = {"error", "warn", "info", "trace"};

static int log_pe = -1;
static FILE *log_file; /* NULL: stderr */
static char hostname_buf[64];

const char *gshmemi_hostname(void)
{
    if (hostname_buf[0] == '\0') {
        if (gethostname(hostname_buf, sizeof(hostname_buf) - 1) != 0)
            snprintf(hostname_buf, sizeof(hostname_buf), "unknown");
        char *dot = strchr(hostname_buf, '.');
        if (dot != NULL)
            *dot = '\0';
    }
    return hostname_buf;
}

void gshmemi_log_set_pe(int pe) { log_pe = pe; }

static int parse_level(const char *s)
{
    for (size_t i = 0; i < GSHMEMI_ARRAY_SIZE(level_names); i++)
        if (strcasecmp(s, level_names[i]) == 0)
            return (int)i;
    return -1;
}

static int parse_subsys(const char *spec, unsigned *mask_out)
{
    char buf[256];
    int exclude = 0;
    unsigned mask = 0;

    if (spec[0] == '^') {
        exclude = 1;
        spec++;
    }
    snprintf(buf, sizeof(buf), "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        if (strcasecmp(tok, "all") == 0) {
            mask = ~0u;
            continue;
        }
        for (int i = 0; i < GSHMEMI_SUB_COUNT; i++) {
            if (strcasecmp(tok, subsys_names[i]) == 0) {
                mask |= 1u << i;
                found = 1;
            }
        }
        if (!found)
            return -1;
    }
    *mask_out = exclude ? ~mask : mask;
    return 0;
}

/* Expands %h (host name) and %p (process id) in a file name pattern. */
static void expand_pattern(const char *pattern, char *out, size_t outlen)
{
    size_t n = 0;
    for (const char *p = pattern; *p != '\0' && n + 1 < outlen; p++) {
        if (p[0] == '%' && (p[1] == 'h' || p[1] == 'p')) {
            int w = p[1] == 'h' ? snprintf(out + n, outlen - n, "%s", gshmemi_hostname())
                                : snprintf(out + n, outlen - n, "%d", (int)getpid());
            n += (size_t)w < outlen - n ? (size_t)w : outlen - n - 1;
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
}

int gshmemi_log_init(const char *level, const char *subsys, const char *file)
{
    int lvl = parse_level(level);
    unsigned mask;

    if (lvl < 0) {
        gshmemi_log(GSHMEMI_LOG_ERROR, GSHMEMI_SUB_CORE,
                    "GSHMEM_DEBUG is '%s': expected error, warn, info or trace", level);
        return -1;
    }
    if (parse_subsys(subsys, &mask) != 0) {
        gshmemi_log(GSHMEMI_LOG_ERROR, GSHMEMI_SUB_CORE,
                    "GSHMEM_DEBUG_SUBSYS is '%s': expected a comma-separated list of "
                    "core, bootstrap, heap, rma, sync, launch or all",
                    subsys);
        return -1;
    }
    gshmemi_log_level = lvl;
    gshmemi_log_mask = mask;
    gshmemi_log_close();
    if (file != NULL && file[0] != '\0') {
        char path[4096];
        expand_pattern(file, path, sizeof(path));
        log_file = fopen(path, "a");
        if (log_file == NULL) {
            gshmemi_log(GSHMEMI_LOG_ERROR, GSHMEMI_SUB_CORE,
                        "cannot open GSHMEM_DEBUG_FILE '%s': %s", path, strerror(errno));
            return -1;
        }
        setvbuf(log_file, NULL, _IOLBF, 0);
    }
    return 0;
}

void gshmemi_log_close(void)
{
    if (log_file != NULL) {
        fclose(log_file);
        log_file = NULL;
    }
}

void gshmemi_vlog(int level, int subsys, const char *fmt, va_list ap)
{
    char line[2048];
    int n;
    int saved_errno = errno;

    if (log_pe >= 0)
        n = snprintf(line, sizeof(line), "gshmem pe %d (%s:%d) %s %s: ", log_pe,
                     gshmemi_hostname(), (int)getpid(), level_names[level],
                     subsys_names[subsys]);
    else
        n = snprintf(line, sizeof(line), "gshmem (%s:%d) %s %s: ", gshmemi_hostname(),
                     (int)getpid(), level_names[level], subsys_names[subsys]);
    if (n > 0 && (size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    /* One write per line so lines of concurrent PEs do not interleave. */
    size_t len = strnlen(line, sizeof(line) - 2);
    line[len++] = '\n';
    line[len] = '\0';
    if (log_file != NULL) {
        fputs(line, log_file);
        if (level == GSHMEMI_LOG_ERROR)
            (void)!write(STDERR_FILENO, line, len);
    } else {
        (void)!write(STDERR_FILENO, line, len);
    }
    errno = saved_errno;
}

void gshmemi_log(int level, int subsys, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gshmemi_vlog(level, subsys, fmt, ap);
    va_end(ap);
}
