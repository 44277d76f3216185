/* Small helpers: clocks and deadlines, randomness, hashing, CPU relax and
 * cache hints. */
#ifndef GSHMEMI_CORE_UTIL_H
#define GSHMEMI_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

static inline uint64_t gshmemi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A deadline `seconds` after `since` (gshmemi_now_ns's clock); 0 seconds
 * means none (UINT64_MAX). */
static inline uint64_t gshmemi_deadline_from(uint64_t since, double seconds)
{
    /* !(seconds > 0): NaN too; past about 584 years, as good as never */
    if (!(seconds > 0) || seconds >= 1.8e10)
        return UINT64_MAX;
    uint64_t ns = (uint64_t)(seconds * 1e9);
    return ns < UINT64_MAX - since ? since + ns : UINT64_MAX;
}

/* A deadline `seconds` from now; 0 seconds means none (UINT64_MAX). */
static inline uint64_t gshmemi_deadline_after(double seconds)
{
    return gshmemi_deadline_from(gshmemi_now_ns(), seconds);
}

/* Milliseconds left before a deadline, clamped to [0, INT32_MAX] for poll(). */
static inline int gshmemi_ms_left(uint64_t deadline)
{
    if (deadline == UINT64_MAX)
        return 1 << 30;
    uint64_t now = gshmemi_now_ns();
    if (now >= deadline)
        return 0;
    uint64_t ms = (deadline - now + 999999) / 1000000;
    return ms > (1u << 30) ? (1 << 30) : (int)ms;
}

static inline void gshmemi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Hints that the cache line holding p, just written by this CPU, move from
 * its core's private caches to the shared one: a device polling the line
 * across PCIe (a GPU thread waiting on the proxy) is then served there,
 * without a snoop into this core.  Worth it where the device reads the line
 * before this core writes it again.  x86's CLDEMOTE, a no-op on CPUs
 * without it; nothing elsewhere. */
static inline void gshmemi_cache_demote(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    /* CLDEMOTE [rax] as bytes: assemblers before binutils 2.31 (RHEL 8,
     * Ubuntu 18.04) lack the mnemonic.  The "m" operand, unused in the
     * text, keeps the compiler from moving stores to the 64 bytes at p
     * after it. */
    __asm__ __volatile__(".byte 0x0f, 0x1c, 0x00" ::"a"(p), "m"(*(const char(*)[64])p));
#else
    (void)p;
#endif
}

int gshmemi_random_bytes(void *buf, size_t len);
/* The integer a file holds (sysfs attributes), or -1. */
int gshmemi_read_int_file(const char *path);
/* Whether process pid is stopped by a job-control signal now ('T' in
 * /proc/PID/stat; 't', stopped by a tracer, is not). */
int gshmemi_process_stopped(pid_t pid);
uint64_t gshmemi_hash64(const void *data, size_t len, uint64_t seed);
void gshmemi_hex(const void *data, size_t len, char *out /* 2*len+1 */);
int gshmemi_unhex(const char *hex, void *data, size_t len);

/* Waits politely in a spin loop: spins first, then yields the CPU, so that
 * more PEs than cores still make progress. */
struct gshmemi_backoff {
    unsigned spins;
};
void gshmemi_backoff_wait(struct gshmemi_backoff *b);

#endif
