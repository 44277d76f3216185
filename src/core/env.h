/* Environment: parsed once from GSHMEMI_ENV_TABLE into gshmemi_env. */
#ifndef GSHMEMI_CORE_ENV_H
#define GSHMEMI_CORE_ENV_H

#include <stddef.h>

#include "core/env_table.h"

#define GSHMEMI_ENV_CTYPE_BOOL int
#define GSHMEMI_ENV_CTYPE_INT long
#define GSHMEMI_ENV_CTYPE_SIZE size_t
#define GSHMEMI_ENV_CTYPE_SECONDS double
#define GSHMEMI_ENV_CTYPE_STRING const char *

struct gshmemi_env {
#define GSHMEMI_ENV_FIELD(NAME, TYPE, DEF, HELP) GSHMEMI_ENV_CTYPE_##TYPE NAME;
    GSHMEMI_ENV_TABLE(GSHMEMI_ENV_FIELD)
#undef GSHMEMI_ENV_FIELD
};

struct gshmemi_env_desc {
    const char *name; /* with the GSHMEM_ prefix */
    const char *type;
    const char *def;
    const char *help;
};

extern struct gshmemi_env gshmemi_env;
extern const struct gshmemi_env_desc gshmemi_env_descs[];
extern const size_t gshmemi_env_count;

/* Parses every variable (defaults where unset).  Fails, having logged the
 * variable and the value, when one does not parse. */
int gshmemi_env_load(void);
/* Warns about each GSHMEM_* variable that is not in the table, naming the
 * closest known one.  Returns how many there were. */
int gshmemi_env_warn_unknown(void);
const char *gshmemi_env_closest(const char *name);
/* NVSHMEM's variable read where d's is unset, or NULL. */
const char *gshmemi_env_nvshmem_alias(const struct gshmemi_env_desc *d);
/* Warns once (from pe 0, after the bootstrap) naming the NVSHMEM_*
 * variables set that have no gshmem counterpart. */
void gshmemi_env_warn_nvshmem(void);

int gshmemi_parse_size(const char *s, size_t *out);
int gshmemi_parse_bool(const char *s, int *out);
/* A finite duration from 0 to GSHMEMI_SECONDS_MAX (about 31 years: its
 * nanoseconds, and a deadline that far ahead, fit 64 bits). */
#define GSHMEMI_SECONDS_MAX 1e9
int gshmemi_parse_seconds(const char *s, double *out);
int gshmemi_parse_long(const char *s, long *out);
/* Writes a size as "1g", "64m", "4096" into buf. */
const char *gshmemi_format_size(size_t v, char *buf, size_t len);

#endif
