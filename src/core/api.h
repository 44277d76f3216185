/* Private: the visibility attribute for exported definitions, and the
 * internal headers every module shares. */
#ifndef GSHMEMI_CORE_API_H
#define GSHMEMI_CORE_API_H

#include "gshmem_config.h"

#define GSHMEMI_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GSHMEMI_ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define GSHMEMI_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GSHMEMI_MAX(a, b) ((a) > (b) ? (a) : (b))
#define GSHMEMI_LIKELY(x) __builtin_expect(!!(x), 1)
#define GSHMEMI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Status propagation without logging: the origin has logged. */
#define GSHMEMI_CHECK(call)                  \
    do {                                     \
        int gshmemi_check_st_ = (call);      \
        if (gshmemi_check_st_ != 0)          \
            return gshmemi_check_st_;        \
    } while (0)
#define GSHMEMI_CHECK_GOTO(call, st, label)  \
    do {                                     \
        (st) = (call);                       \
        if ((st) != 0)                       \
            goto label;                      \
    } while (0)

#endif
