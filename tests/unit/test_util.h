/* Minimal check helpers for one-process unit tests. */
#ifndef GSHMEM_TEST_UTIL_H
#define GSHMEM_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

static int test_failures;

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            test_failures++;                                                  \
        }                                                                     \
    } while (0)

#define TEST_DONE()                                                           \
    do {                                                                      \
        if (test_failures) {                                                  \
            fprintf(stderr, "%d check(s) failed\n", test_failures);           \
            return 1;                                                         \
        }                                                                     \
        printf("all checks passed\n");                                        \
        return 0;                                                             \
    } while (0)

/* Under the sanitizers (scripts/test-sanitizers.sh sets
 * TEST_SANITIZED=1) a test's long loops may take a sample of their
 * iterations: the code paths are the same, each costs several times more. */
static inline int test_sanitized(void)
{
    const char *s = getenv("TEST_SANITIZED");
    return s != NULL && s[0] == '1';
}

static inline unsigned long long test_rand(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#endif
