/* The one definition of the atomics (src/core/amo.h) and the host heap's
 * access, which applies it: every op on every type of the AMO tables with
 * random operands, checked against the operation written with the type's
 * own C operators, the words around the target poisoned and checked
 * untouched; then threads adding to one word at once lose no update. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <gshmem.h>

#include "core/amo.h"
#include "heap/backend.h"
#include "heap/heap.h"
#include "test_util.h"

#define POISON 0xa5

static unsigned long long seed = 0x2545f4914f6cdd1dull;

/* The word sits between poisoned words; after the op they must be intact. */
struct cell {
    unsigned char before[8];
    union {
        uint64_t u64;
        uint32_t u32;
        unsigned char bytes[8];
    } w;
    unsigned char after[8];
};

static void poison(struct cell *c)
{
    memset(c, POISON, sizeof(*c));
}

static int intact(const struct cell *c, size_t size)
{
    for (size_t i = 0; i < 8; i++)
        if (c->before[i] != POISON || c->after[i] != POISON || (i >= size && c->w.bytes[i] != POISON))
            return 0;
    return 1;
}

static int fits(uint64_t v, size_t size)
{
    return size >= 8 || v >> (8 * size) == 0;
}

/* Applies op both ways the library can on host memory (the applier and
 * the hostshm access's single and batched forms) and checks each. */
#define CHECK_OP(TYPE, NAME, OP, init, av, bv, want_new, want_old)                                \
    do {                                                                                          \
        const TYPE i_ = (init), a_ = (av), b_ = (bv), wn_ = (want_new), wo_ = (want_old);         \
        uint64_t a = 0, b = 0;                                                                    \
        memcpy(&a, &a_, sizeof(TYPE));                                                            \
        memcpy(&b, &b_, sizeof(TYPE));                                                            \
        const struct gshmemi_heap_access *acc = gshmemi_hostshm_ops.access;                       \
        for (int way = 0; way < 3; way++) {                                                       \
            struct cell c;                                                                        \
            uint64_t old = 0;                                                                     \
            TYPE got_old, got_new;                                                                \
            poison(&c);                                                                           \
            memcpy(&c.w, &i_, sizeof(TYPE));                                                      \
            if (way == 0) {                                                                       \
                old = gshmemi_amo_apply_host(&c.w, OP, sizeof(TYPE), a, b);                       \
            } else if (way == 1) {                                                                \
                old = acc->atomic("test", &c.w, OP, sizeof(TYPE), a, b, 1);                       \
            } else {                                                                              \
                struct gshmemi_amo_req r = {.addr = &c.w, .a = a, .b = b, .op = OP,               \
                                            .size = (int32_t)sizeof(TYPE)};                       \
                acc->atomics("test", &r, 1, &old);                                                \
            }                                                                                     \
            memcpy(&got_old, &old, sizeof(TYPE));                                                 \
            memcpy(&got_new, &c.w, sizeof(TYPE));                                                 \
            EXPECT(memcmp(&got_old, &wo_, sizeof(TYPE)) == 0, "%s %s way %d: wrong old value",   \
                   #NAME, #OP, way);                                                              \
            EXPECT(memcmp(&got_new, &wn_, sizeof(TYPE)) == 0, "%s %s way %d: wrong new value",   \
                   #NAME, #OP, way);                                                              \
            EXPECT(intact(&c, sizeof(TYPE)), "%s %s way %d: bytes around the word changed",       \
                   #NAME, #OP, way);                                                              \
            EXPECT(fits(old, sizeof(TYPE)), "%s %s way %d: old value wider than %zu bytes",      \
                   #NAME, #OP, way, sizeof(TYPE));                                                \
        }                                                                                         \
    } while (0)

/* Random bits of a type (any bit pattern: two's complement makes the
 * integer ops the same on signed and unsigned types). */
#define RANDOM(TYPE, v)                                                                           \
    do {                                                                                          \
        uint64_t r_ = test_rand(&seed);                                                           \
        memcpy(&(v), &r_, sizeof(TYPE));                                                          \
    } while (0)

/* The integer ops' reference as unsigned arithmetic of the type's width
 * (signed overflow is undefined in C; the hardware's add wraps). */
#define UNSIGNED_OF(TYPE)                                                                         \
    __typeof__(_Generic((TYPE)0, int: 0u, long: 0ul, long long: 0ull, unsigned int: 0u,          \
                        unsigned long: 0ul, unsigned long long: 0ull, default: 0ull))

#define TEST_EXTENDED(NAME, TYPE, G)                                                              \
    for (int k = 0; k < 200; k++) {                                                               \
        TYPE x, v;                                                                                \
        RANDOM(TYPE, x);                                                                          \
        RANDOM(TYPE, v);                                                                          \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_FETCH, x, v, v, x, x);                                   \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_SET, x, v, x, v, x);                                     \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_SWAP, x, v, x, v, x);                                    \
    }

#define TEST_STANDARD(NAME, TYPE, G)                                                              \
    for (int k = 0; k < 200; k++) {                                                               \
        TYPE x, v, w;                                                                             \
        RANDOM(TYPE, x);                                                                          \
        RANDOM(TYPE, v);                                                                          \
        RANDOM(TYPE, w);                                                                          \
        if (k % 4 == 0) /* small values too: carries across the word's bytes */                 \
            x = (TYPE)(k - 100), v = (TYPE)(100 - k);                                             \
        UNSIGNED_OF(TYPE) ux = (UNSIGNED_OF(TYPE))x, uv = (UNSIGNED_OF(TYPE))v;                   \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_ADD, x, v, w, (TYPE)(UNSIGNED_OF(TYPE))(ux + uv), x);    \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_ADD, x, (TYPE)1, w,                                      \
                 (TYPE)(UNSIGNED_OF(TYPE))(ux + 1u), x); /* inc */                                \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_CSWAP, x, x, w, w, x);   /* condition met */             \
        if (v != x)                                                                               \
            CHECK_OP(TYPE, NAME, GSHMEMI_AMO_CSWAP, x, v, w, x, x); /* not met */                 \
    }

#define TEST_BITWISE(NAME, TYPE, G)                                                               \
    for (int k = 0; k < 200; k++) {                                                               \
        TYPE x, v;                                                                                \
        RANDOM(TYPE, x);                                                                          \
        RANDOM(TYPE, v);                                                                          \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_AND, x, v, x, (TYPE)(x & v), x);                         \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_OR, x, v, x, (TYPE)(x | v), x);                          \
        CHECK_OP(TYPE, NAME, GSHMEMI_AMO_XOR, x, v, x, (TYPE)(x ^ v), x);                         \
    }

/* Threads add to one word (and to the neighbouring half of an 8-byte
 * word, for 4-byte words) at once: no update is lost. */
#define THREADS 4
#define ADDS 20000
static union {
    uint64_t u64;
    uint32_t u32[2];
} shared;

static void *adder(void *arg)
{
    const int size = (int)(intptr_t)arg;
    for (int i = 0; i < ADDS; i++) {
        if (size == 8) {
            gshmemi_amo_apply_host(&shared.u64, GSHMEMI_AMO_ADD, 8, 3, 0);
        } else {
            gshmemi_amo_apply_host(&shared.u32[0], GSHMEMI_AMO_ADD, 4, 1, 0);
            gshmemi_amo_apply_host(&shared.u32[1], GSHMEMI_AMO_XOR, 4, 1u << (i % 32), 0);
        }
    }
    return NULL;
}

static void concurrent(int size)
{
    pthread_t t[THREADS];
    memset(&shared, 0, sizeof(shared));
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, adder, (void *)(intptr_t)size);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    if (size == 8) {
        EXPECT(shared.u64 == 3ull * THREADS * ADDS, "8-byte adds: %llu, want %llu",
               (unsigned long long)shared.u64, 3ull * THREADS * ADDS);
    } else {
        EXPECT(shared.u32[0] == (uint32_t)THREADS * ADDS, "4-byte adds: %u, want %u",
               shared.u32[0], (uint32_t)THREADS * ADDS);
        /* every bit was flipped THREADS * ADDS / 32 times: an even count */
        EXPECT(shared.u32[1] == 0, "4-byte xors beside them: %#x, want 0", shared.u32[1]);
    }
}

int main(void)
{
    GSHMEM_FOR_AMO_EXTENDED_TYPES(TEST_EXTENDED)
    GSHMEM_FOR_AMO_STANDARD_TYPES(TEST_STANDARD)
    GSHMEM_FOR_AMO_BITWISE_TYPES(TEST_BITWISE)
    /* an op the applier does not know changes nothing and is refused */
    EXPECT(!gshmemi_amo_valid(GSHMEMI_AMO_XOR + 1) && !gshmemi_amo_valid(-1), "unknown ops accepted");
    EXPECT(gshmemi_amo_next(GSHMEMI_AMO_XOR + 1, 42, 1, 2, 8) == 42, "an unknown op changed the word");
    concurrent(8);
    concurrent(4);
    TEST_DONE();
}
