/* Shared by the libFuzzer harnesses: a check whose failure is a finding
 * (libFuzzer saves the input that broke it), and the job secret the seeds
 * were made with (gen_corpus.py). */
#ifndef GSHMEM_FUZZ_H
#define GSHMEM_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                                 \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* "fuzz-job-secret!": gen_corpus.py writes it into every seed that needs one. */
static const unsigned char fuzz_secret[16] = {'f', 'u', 'z', 'z', '-', 'j', 'o', 'b',
                                              '-', 's', 'e', 'c', 'r', 'e', 't', '!'};

/* A refusal says why, and the reason is a terminated string. */
static inline void fuzz_check_why(const char *why, size_t len)
{
    FUZZ_CHECK(why[0] != '\0', "refused without a reason");
    FUZZ_CHECK(memchr(why, '\0', len) != NULL, "reason not terminated");
}

#endif
