/* The environment parser (core/env.c): the value of every variable of
 * env_table.h, of each type, under its GSHMEM_ name or its NVSHMEM_
 * counterpart, unknown names of both prefixes, and the log settings.
 * Input: a mode byte, a variable byte, then the value (up to a NUL; the
 * log mode takes a second string after it).  A value that parses must
 * give a result the rest of gshmem can use as it is: a duration that
 * makes a deadline, a size that prints and parses back the same. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/log.h"
#include "core/util.h"
#include "fuzz.h"

extern char **environ;

/* Every GSHMEM_ and NVSHMEM_ variable out of the process's environment,
 * so that each input starts from the same place. */
static void clean_env(void)
{
    for (;;) {
        char name[256];
        const char *found = NULL;
        for (char **e = environ; e != NULL && *e != NULL && found == NULL; e++)
            if (strncmp(*e, "GSHMEM_", 7) == 0 || strncmp(*e, "NVSHMEM_", 8) == 0)
                found = *e;
        if (found == NULL)
            return;
        size_t len = strcspn(found, "=");
        if (len >= sizeof(name))
            len = sizeof(name) - 1;
        memcpy(name, found, len);
        name[len] = '\0';
        unsetenv(name);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    clean_env();
    return 0;
}

static void check_seconds(double v)
{
    FUZZ_CHECK(isfinite(v) && v >= 0, "duration %g", v);
    const uint64_t before = gshmemi_now_ns();
    uint64_t d = gshmemi_deadline_after(v); /* UBSan: the conversion to nanoseconds */
    /* 0 waits forever; any other duration ends no earlier than now (one
     * under a nanosecond ends at once), and never wraps into the past. */
    FUZZ_CHECK(v > 0 || d == UINT64_MAX, "duration %g: deadline %llu", v, (unsigned long long)d);
    FUZZ_CHECK(d >= before, "duration %g: a deadline in the past", v);
}

static void parsers(const char *s)
{
    size_t sz;
    double sec;
    long l;
    int b;
    char buf[32];
    if (gshmemi_parse_size(s, &sz) == 0) {
        size_t back;
        gshmemi_format_size(sz, buf, sizeof(buf));
        FUZZ_CHECK(gshmemi_parse_size(buf, &back) == 0 && back == sz, "size %zu -> '%s'", sz, buf);
    }
    if (gshmemi_parse_seconds(s, &sec) == 0)
        check_seconds(sec);
    if (gshmemi_parse_bool(s, &b) == 0)
        FUZZ_CHECK(b == 0 || b == 1, "bool %d", b);
    (void)gshmemi_parse_long(s, &l);
}

/* After a load that succeeded, every value is usable. */
static void check_loaded(void)
{
#define CHECK_BOOL(v) FUZZ_CHECK((v) == 0 || (v) == 1, "bool %d", (v))
#define CHECK_INT(v) (void)(v)
#define CHECK_SIZE(v) (void)(v)
#define CHECK_SECONDS(v) check_seconds(v)
#define CHECK_STRING(v) FUZZ_CHECK((v) != NULL, "string NULL")
#define CHECK_FIELD(NAME, TYPE, DEF, HELP) CHECK_##TYPE(gshmemi_env.NAME);
    GSHMEMI_ENV_TABLE(CHECK_FIELD)
#undef CHECK_FIELD
}

static void load(const char *var, const char *value)
{
    if (setenv(var, value, 1) != 0)
        return;
    if (gshmemi_env_load() == 0)
        check_loaded();
    gshmemi_env_warn_nvshmem();
    unsetenv(var);
}

/* A variable name from the input: what a shell could export. */
static void name_from(const char *prefix, const char *s, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s", prefix);
    for (; *s != '\0' && n + 1 < len; s++)
        out[n++] = isalnum((unsigned char)*s) || *s == '_' ? *s : '_';
    out[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char value[512], var[160];
    if (size < 2)
        return 0;
    const unsigned mode = data[0] % 5, which = data[1];
    size_t n = size - 2 < sizeof(value) - 1 ? size - 2 : sizeof(value) - 1;
    memcpy(value, data + 2, n);
    value[n] = '\0';
    const struct gshmemi_env_desc *d = &gshmemi_env_descs[which % gshmemi_env_count];

    switch (mode) {
    case 0: /* the typed parsers themselves */
        parsers(value);
        break;
    case 1: /* a GSHMEM_ variable of the table */
        load(d->name, value);
        break;
    case 2: { /* an NVSHMEM_ variable with a gshmem counterpart, its value translated */
        const char *alias = gshmemi_env_nvshmem_alias(d);
        load(alias != NULL ? alias : "NVSHMEM_BOOTSTRAP", value);
        break;
    }
    case 3: /* names gshmem does not know, of either prefix */
        name_from(which & 1 ? "NVSHMEM_" : "GSHMEM_", value, var, sizeof(var));
        if (setenv(var, "1", 1) == 0) {
            const char *closest = gshmemi_env_closest(var);
            FUZZ_CHECK(closest != NULL && strncmp(closest, "GSHMEM_", 7) == 0, "closest");
            (void)gshmemi_env_warn_unknown();
            gshmemi_env_warn_nvshmem();
            unsetenv(var);
        }
        break;
    case 4: { /* GSHMEM_DEBUG and GSHMEM_DEBUG_SUBSYS: level, then subsystems after a NUL */
        const char *subsys = value + strlen(value) + (strlen(value) < n ? 1 : 0);
        (void)gshmemi_log_init(value, subsys, "");
        (void)gshmemi_log_init("warn", "all", "");
        break;
    }
    }
    clean_env();
    return 0;
}
