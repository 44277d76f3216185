/* The environment table: parsers, defaults, bad values, unknown names. */
#include <stdlib.h>
#include <string.h>

#include <gshmem.h>

#include "core/env.h"
#include "core/log.h"
#include "core/util.h"
#include "test_util.h"

int main(void)
{
    size_t sz;
    double sec;
    int b;
    char buf[32];

    EXPECT(gshmemi_parse_size("4096", &sz) == 0 && sz == 4096, "plain");
    EXPECT(gshmemi_parse_size("2k", &sz) == 0 && sz == 2048, "k");
    EXPECT(gshmemi_parse_size("3M", &sz) == 0 && sz == 3u << 20, "M");
    EXPECT(gshmemi_parse_size("1g", &sz) == 0 && sz == 1u << 30, "g");
    EXPECT(gshmemi_parse_size("2t", &sz) == 0 && sz == 2ull << 40, "t");
    EXPECT(gshmemi_parse_size("64KiB", &sz) == 0 && sz == 64u << 10, "KiB");
    EXPECT(gshmemi_parse_size("8mb", &sz) == 0 && sz == 8u << 20, "mb");
    EXPECT(gshmemi_parse_size("0x100", &sz) == 0 && sz == 256, "hex");
    EXPECT(gshmemi_parse_size("12q", &sz) != 0, "bad suffix");
    EXPECT(gshmemi_parse_size("-1", &sz) != 0, "negative");
    EXPECT(gshmemi_parse_size("", &sz) != 0, "empty");
    EXPECT(gshmemi_parse_size("99999999999t", &sz) != 0, "overflow");
    EXPECT(gshmemi_parse_seconds("2.5", &sec) == 0 && sec == 2.5, "seconds");
    EXPECT(gshmemi_parse_seconds("250ms", &sec) == 0 && sec == 0.25, "ms");
    EXPECT(gshmemi_parse_seconds("abc", &sec) != 0, "bad seconds");
    /* Found by fuzz_env: durations whose nanoseconds overflow a deadline. */
    EXPECT(gshmemi_parse_seconds("nan", &sec) != 0, "nan");
    EXPECT(gshmemi_parse_seconds("inf", &sec) != 0, "inf");
    EXPECT(gshmemi_parse_seconds("3e22", &sec) != 0, "3e22");
    EXPECT(gshmemi_parse_seconds("2e12ms", &sec) != 0, "2e12ms");
    EXPECT(gshmemi_parse_seconds("1e9", &sec) == 0 && sec == 1e9, "1e9, the most");
    EXPECT(gshmemi_deadline_after(1e9) > gshmemi_now_ns(), "a far deadline");
    EXPECT(gshmemi_deadline_after(1e30) == UINT64_MAX, "past 64 bits: never");
    EXPECT(gshmemi_deadline_after(0.0 / 0.0) == UINT64_MAX, "NaN: never");
    EXPECT(gshmemi_parse_bool("yes", &b) == 0 && b == 1, "yes");
    EXPECT(gshmemi_parse_bool("OFF", &b) == 0 && b == 0, "off");
    EXPECT(gshmemi_parse_bool("maybe", &b) != 0, "maybe");
    EXPECT(strcmp(gshmemi_format_size(1u << 30, buf, sizeof(buf)), "1g") == 0, "format 1g");
    EXPECT(strcmp(gshmemi_format_size(1000, buf, sizeof(buf)), "1000") == 0, "format 1000");

    /* Defaults apply when unset; values are parsed; a bad value fails. */
    unsetenv("GSHMEM_SYMMETRIC_SIZE");
    setenv("GSHMEM_TIMEOUT", "12", 1);
    EXPECT(gshmemi_env_load() == 0, "load");
    EXPECT(gshmemi_env.SYMMETRIC_SIZE == 1u << 30, "default symmetric size");
    EXPECT(gshmemi_env.TIMEOUT == 12, "timeout parsed");
    setenv("GSHMEM_MAX_HEAP", "lots", 1);
    EXPECT(gshmemi_env_load() != 0, "bad size accepted");
    unsetenv("GSHMEM_MAX_HEAP");

    /* Every entry is documented; names are unique. */
    for (size_t i = 0; i < gshmemi_env_count; i++) {
        EXPECT(strncmp(gshmemi_env_descs[i].name, "GSHMEM_", 7) == 0, "prefix");
        EXPECT(strlen(gshmemi_env_descs[i].help) > 10, "%s undocumented", gshmemi_env_descs[i].name);
        for (size_t j = i + 1; j < gshmemi_env_count; j++)
            EXPECT(strcmp(gshmemi_env_descs[i].name, gshmemi_env_descs[j].name) != 0, "duplicate");
    }

    /* Misspelt names: the warning names the closest known one. */
    EXPECT(strcmp(gshmemi_env_closest("GSHMEM_SYMETRIC_SIZE"), "GSHMEM_SYMMETRIC_SIZE") == 0,
           "closest to SYMETRIC");
    EXPECT(strcmp(gshmemi_env_closest("GSHMEM_TIMOUT"), "GSHMEM_TIMEOUT") == 0, "closest");
    setenv("GSHMEM_BOOTSTRP", "uid", 1);
    EXPECT(gshmemi_env_warn_unknown() == 1, "one unknown variable");
    unsetenv("GSHMEM_BOOTSTRP");
    EXPECT(gshmemi_env_warn_unknown() == 0, "no unknown variable");
    /* Log level and subsystem mask. */
    EXPECT(gshmemi_log_init("info", "heap,rma", "") == 0, "log init");
    EXPECT(gshmemi_log_level == GSHMEMI_LOG_INFO, "level");
    EXPECT(GSHMEMI_LOG_ON(GSHMEMI_LOG_INFO, HEAP) && GSHMEMI_LOG_ON(GSHMEMI_LOG_WARN, RMA) &&
           !GSHMEMI_LOG_ON(GSHMEMI_LOG_INFO, BOOTSTRAP) && !GSHMEMI_LOG_ON(GSHMEMI_LOG_TRACE, HEAP),
           "mask heap,rma");
    EXPECT(gshmemi_log_init("trace", "^bootstrap", "") == 0, "log init ^");
    EXPECT(GSHMEMI_LOG_ON(GSHMEMI_LOG_TRACE, HEAP) && !GSHMEMI_LOG_ON(GSHMEMI_LOG_ERROR + 1, BOOTSTRAP),
           "mask ^bootstrap");
    EXPECT(gshmemi_log_init("loud", "all", "") != 0, "bad level accepted");
    EXPECT(gshmemi_log_init("warn", "heap,nonsense", "") != 0, "bad subsystem accepted");
    EXPECT(gshmemi_log_init("warn", "all", "") == 0, "log reset");
    TEST_DONE();
}
