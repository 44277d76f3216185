#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "core/env.h"
#include "core/log.h"

extern char **environ;

struct gshmemi_env gshmemi_env;

/* NVSHMEM's variables with a gshmem counterpart: read where the GSHMEM_
 * one is unset, so that an NVSHMEM job's settings carry over.  Values are
 * NVSHMEM's: translate() maps those spelled otherwise. */
static const char *nvshmem_alias(const char *name)
{
    static const char *const pairs[][2] = {
        {"SYMMETRIC_SIZE", "NVSHMEM_SYMMETRIC_SIZE"},
        {"DEBUG", "NVSHMEM_DEBUG"},
        {"DEBUG_FILE", "NVSHMEM_DEBUG_FILE"},
        {"BOOTSTRAP", "NVSHMEM_BOOTSTRAP"},
        {"BOOTSTRAP_IFNAME", "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME"},
        {"DISABLE_P2P", "NVSHMEM_DISABLE_P2P"},
        {"HCA_LIST", "NVSHMEM_HCA_LIST"},
        {"IB_GID_INDEX", "NVSHMEM_IB_GID_INDEX"},
        {"IB_TIMEOUT", "NVSHMEM_IB_TIMEOUT"},
        {"IB_RETRY_CNT", "NVSHMEM_IB_RETRY_CNT"},
        {"MAX_TEAMS", "NVSHMEM_MAX_TEAMS"},
    };
    for (size_t i = 0; i < GSHMEMI_ARRAY_SIZE(pairs); i++)
        if (strcmp(name, pairs[i][0]) == 0)
            return pairs[i][1];
    return NULL;
}

const struct gshmemi_env_desc gshmemi_env_descs[] = {
#define GSHMEMI_ENV_DESC(NAME, TYPE, DEF, HELP) {"GSHMEM_" #NAME, #TYPE, DEF, HELP},
    GSHMEMI_ENV_TABLE(GSHMEMI_ENV_DESC)
#undef GSHMEMI_ENV_DESC
};
const size_t gshmemi_env_count = GSHMEMI_ARRAY_SIZE(gshmemi_env_descs);

int gshmemi_parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned shift = 0;

    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0)
        return -1;
    switch (tolower((unsigned char)*end)) {
    case '\0': break;
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: return -1;
    }
    if (*end != '\0') {
        end++;
        if (tolower((unsigned char)*end) == 'b' || tolower((unsigned char)*end) == 'i') {
            /* accept kb, kib */
            end += (tolower((unsigned char)end[0]) == 'i' && tolower((unsigned char)end[1]) == 'b')
                       ? 2 : 1;
        }
        if (*end != '\0')
            return -1;
    }
    if (shift != 0 && v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int gshmemi_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    static const char *const no[] = {"0", "n", "no", "false", "off"};
    for (size_t i = 0; i < GSHMEMI_ARRAY_SIZE(yes); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

int gshmemi_parse_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* !(v >= 0) refuses NaN too; inf and anything past the cap would make
     * deadlines in nanoseconds that 64 bits cannot hold (0 waits forever). */
    if (errno != 0 || end == s || !(v >= 0))
        return -1;
    if (strcmp(end, "ms") == 0)
        v /= 1000.0;
    else if (*end != '\0' && strcmp(end, "s") != 0)
        return -1;
    if (v > GSHMEMI_SECONDS_MAX)
        return -1;
    *out = v;
    return 0;
}

int gshmemi_parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

const char *gshmemi_format_size(size_t v, char *buf, size_t len)
{
    static const char suffix[] = "kmgt";
    int i = -1;
    while (v != 0 && v % 1024 == 0 && i < 3) {
        v /= 1024;
        i++;
    }
    if (i < 0)
        snprintf(buf, len, "%zu", v);
    else
        snprintf(buf, len, "%zu%c", v, suffix[i]);
    return buf;
}

#define GSHMEMI_ENV_PARSE_BOOL(s, out) gshmemi_parse_bool(s, out)
#define GSHMEMI_ENV_PARSE_INT(s, out) gshmemi_parse_long(s, out)
#define GSHMEMI_ENV_PARSE_SIZE(s, out) gshmemi_parse_size(s, out)
#define GSHMEMI_ENV_PARSE_SECONDS(s, out) gshmemi_parse_seconds(s, out)
#define GSHMEMI_ENV_PARSE_STRING(s, out) (*(out) = (s), 0)

static const char *gshmemi_env_type_word(const char *type)
{
    if (strcmp(type, "BOOL") == 0)
        return "boolean (1/0, yes/no, true/false, on/off)";
    if (strcmp(type, "INT") == 0)
        return "integer";
    if (strcmp(type, "SIZE") == 0)
        return "size (bytes, with an optional k, m, g or t suffix)";
    if (strcmp(type, "SECONDS") == 0)
        return "duration (seconds, or with an ms suffix; at most 1e9 s)";
    return "string";
}

/* NVSHMEM_BOOTSTRAP's value where it names a way gshmem has not. */
static const char *ignored_bootstrap;

/* NVSHMEM's spelling of a value where gshmem's differs (NULL: none can be
 * given, the variable is ignored with a warning at init). */
static const char *translate(const char *var, const char *value)
{
    static const char *const map[][3] = {
        {"NVSHMEM_DEBUG", "VERSION", "warn"},  {"NVSHMEM_DEBUG", "ABORT", "error"},
        /* NVSHMEM's default: auto finds PMIx where there is a server, and
         * gshmrun's own variables under gshmrun (nvshmrun) */
        {"NVSHMEM_BOOTSTRAP", "PMI", "auto"},  {"NVSHMEM_BOOTSTRAP", "PMIX", "pmix"},
        {"NVSHMEM_BOOTSTRAP", "PMI-2", "auto"}, {"NVSHMEM_BOOTSTRAP", "PMI2", "auto"},
        {"NVSHMEM_BOOTSTRAP", "UID", "uid"},
        {"NVSHMEM_BOOTSTRAP", "MPI", "mpi"},
    };
    for (size_t i = 0; i < GSHMEMI_ARRAY_SIZE(map); i++)
        if (strcmp(var, map[i][0]) == 0 && strcasecmp(value, map[i][1]) == 0)
            return map[i][2];
    if (strcmp(var, "NVSHMEM_BOOTSTRAP") == 0) { /* SHMEM, plugin: said at init */
        ignored_bootstrap = value;
        return NULL;
    }
    return value;
}

/* GSHMEM_<name>, else its NVSHMEM counterpart, else NULL. */
static const char *env_value(const char *name)
{
    char var[64];
    snprintf(var, sizeof(var), "GSHMEM_%s", name);
    const char *value = getenv(var), *alias = nvshmem_alias(name), *nv;
    if (value != NULL || alias == NULL || (nv = getenv(alias)) == NULL)
        return value;
    return translate(alias, nv);
}

const char *gshmemi_env_nvshmem_alias(const struct gshmemi_env_desc *d)
{
    return nvshmem_alias(d->name + strlen("GSHMEM_"));
}

void gshmemi_env_warn_nvshmem(void)
{
    char names[512] = "";
    size_t len = 0;
    int n = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        const size_t l = eq != NULL ? (size_t)(eq - *e) : strlen(*e);
        int known = 0;
        if (strncmp(*e, "NVSHMEM_", 8) != 0)
            continue;
        for (size_t i = 0; i < gshmemi_env_count && !known; i++) {
            const char *a = gshmemi_env_nvshmem_alias(&gshmemi_env_descs[i]);
            known = a != NULL && strlen(a) == l && strncmp(*e, a, l) == 0;
        }
        if (!known && len + l + 2 < sizeof(names)) {
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%.*s", n ? ", " : "",
                                    (int)l, *e);
            n++;
        }
    }
    if (n > 0)
        GSHMEMI_WARN(CORE, "%s: NVSHMEM variable%s with no gshmem counterpart, ignored "
                     "(gshmem-info --env lists those read)", names, n > 1 ? "s" : "");
    if (ignored_bootstrap != NULL)
        GSHMEMI_WARN(CORE, "NVSHMEM_BOOTSTRAP=%s has no gshmem counterpart (gshmem boots "
                     "through PMIx, gshmrun, a unique id or MPI): ignored", ignored_bootstrap);
}

int gshmemi_env_load(void)
{
    int status = 0;
#define GSHMEMI_ENV_LOAD(NAME, TYPE, DEF, HELP)                                         \
    do {                                                                               \
        const char *value = env_value(#NAME);                                          \
        if (value == NULL || (value[0] == '\0' && strcmp(#TYPE, "STRING") != 0))       \
            value = DEF;                                                               \
        if (GSHMEMI_ENV_PARSE_##TYPE(value, &gshmemi_env.NAME) != 0) {                 \
            GSHMEMI_ERROR(CORE, "%s is '%s': not a valid %s value",                    \
                          getenv("GSHMEM_" #NAME) == NULL && nvshmem_alias(#NAME) != NULL \
                              ? nvshmem_alias(#NAME) : "GSHMEM_" #NAME,                \
                          value, gshmemi_env_type_word(#TYPE));                        \
            status = -1;                                                               \
        }                                                                              \
    } while (0);
    GSHMEMI_ENV_TABLE(GSHMEMI_ENV_LOAD)
#undef GSHMEMI_ENV_LOAD
    return status;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t row[128];

    if (lb >= GSHMEMI_ARRAY_SIZE(row))
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = toupper((unsigned char)a[i - 1]) == toupper((unsigned char)b[j - 1]) ? 0 : 1;
            size_t best = GSHMEMI_MIN(row[j - 1] + 1, up + 1);
            row[j] = GSHMEMI_MIN(best, diag + cost);
            diag = up;
        }
    }
    return row[lb];
}

const char *gshmemi_env_closest(const char *name)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < gshmemi_env_count; i++) {
        size_t d = edit_distance(name, gshmemi_env_descs[i].name);
        if (d < best_d) {
            best_d = d;
            best = gshmemi_env_descs[i].name;
        }
    }
    return best;
}

int gshmemi_env_warn_unknown(void)
{
    int unknown = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        char name[128];
        const char *eq = strchr(*e, '=');
        size_t len = eq != NULL ? (size_t)(eq - *e) : strlen(*e);
        int known = 0;

        if (strncmp(*e, "GSHMEM_", 7) != 0 || len >= sizeof(name))
            continue;
        memcpy(name, *e, len);
        name[len] = '\0';
        for (size_t i = 0; i < gshmemi_env_count && !known; i++)
            known = strcmp(name, gshmemi_env_descs[i].name) == 0;
        if (!known) {
            GSHMEMI_WARN(CORE, "unknown variable %s ignored; did you mean %s? "
                         "(gshmem-info --env lists them all)", name, gshmemi_env_closest(name));
            unknown++;
        }
    }
    return unknown;
}
