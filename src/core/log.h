/* Logging: GSHMEM_DEBUG sets the level, GSHMEM_DEBUG_SUBSYS the subsystems,
 * GSHMEM_DEBUG_FILE the destination.  Every line names the PE and the
 * subsystem.  Log once, where an error starts, with the reason. */
#ifndef GSHMEMI_CORE_LOG_H
#define GSHMEMI_CORE_LOG_H

#include <stdarg.h>

enum gshmemi_log_level {
    GSHMEMI_LOG_ERROR = 0,
    GSHMEMI_LOG_WARN,
    GSHMEMI_LOG_INFO,
    GSHMEMI_LOG_TRACE,
};

#define GSHMEMI_FOR_SUBSYS(X) X(CORE, core) X(BOOTSTRAP, bootstrap) X(GPU, gpu) X(HEAP, heap) \
    X(TRANSPORT, transport) X(PROXY, proxy) X(RMA, rma) X(SYNC, sync) X(COLL, coll) \
    X(PART, part) X(LAUNCH, launch)

enum gshmemi_subsys {
#define GSHMEMI_SUBSYS_ENUM(ID, name) GSHMEMI_SUB_##ID,
    GSHMEMI_FOR_SUBSYS(GSHMEMI_SUBSYS_ENUM)
#undef GSHMEMI_SUBSYS_ENUM
    GSHMEMI_SUB_COUNT
};

extern int gshmemi_log_level;
extern unsigned gshmemi_log_mask;

int gshmemi_log_init(const char *level, const char *subsys, const char *file);
void gshmemi_log_close(void);
void gshmemi_log_set_pe(int pe);
const char *gshmemi_hostname(void);
void gshmemi_log(int level, int subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gshmemi_vlog(int level, int subsys, const char *fmt, va_list ap);

#define GSHMEMI_LOG_ON(level, sub) \
    ((level) <= gshmemi_log_level && (gshmemi_log_mask & (1u << GSHMEMI_SUB_##sub)))

/* Errors are always printed, whatever the subsystem mask. */
#define GSHMEMI_ERROR(sub, ...) gshmemi_log(GSHMEMI_LOG_ERROR, GSHMEMI_SUB_##sub, __VA_ARGS__)
#define GSHMEMI_WARN(sub, ...)                                                  \
    do {                                                                        \
        if (GSHMEMI_LOG_ON(GSHMEMI_LOG_WARN, sub))                              \
            gshmemi_log(GSHMEMI_LOG_WARN, GSHMEMI_SUB_##sub, __VA_ARGS__);      \
    } while (0)
#define GSHMEMI_INFO(sub, ...)                                                  \
    do {                                                                        \
        if (GSHMEMI_LOG_ON(GSHMEMI_LOG_INFO, sub))                              \
            gshmemi_log(GSHMEMI_LOG_INFO, GSHMEMI_SUB_##sub, __VA_ARGS__);      \
    } while (0)
#define GSHMEMI_TRACE(sub, ...)                                                 \
    do {                                                                        \
        if (GSHMEMI_LOG_ON(GSHMEMI_LOG_TRACE, sub))                             \
            gshmemi_log(GSHMEMI_LOG_TRACE, GSHMEMI_SUB_##sub, __VA_ARGS__);     \
    } while (0)

#endif
