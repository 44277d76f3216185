/* The tcp transport's wire format: the target's check of every frame
 * (transport/tcp_wire.h) accepts what a peer of the same build sends and
 * refuses, with a reason, whatever would reach outside the heap and the
 * static data or that the target cannot make sense of; random frames never
 * get through with a range outside them.  And the hello: magic and secret. */
#include <stdint.h>
#include <string.h>

#include <gshmem.h>

#include "core/amo.h"
#include "heap/ctrl.h"
#include "heap/static_data.h"
#include "transport/tcp_wire.h"
#include "tcp_frame_reach.h"
#include "test_util.h"

#define HEAP (4ull << 20)
#define STATIC (64ull << 10) /* the program's static data, at GSHMEMI_STATIC_OFF */
#define S GSHMEMI_STATIC_OFF

static int ok(struct gshmemi_tcp_frame f)
{
    char why[160] = "";
    int st = gshmemi_tcp_frame_check(&f, HEAP, STATIC, why, sizeof(why));
    if (st != 0 && why[0] == '\0')
        return -1; /* refused without a reason */
    return st == 0;
}

static struct gshmemi_tcp_frame frame(uint32_t type, uint64_t off, uint64_t len)
{
    struct gshmemi_tcp_frame f;
    memset(&f, 0, sizeof(f));
    f.type = type;
    f.off = off;
    f.len = len;
    return f;
}

static struct gshmemi_tcp_frame amo(uint32_t op, uint32_t size, uint64_t off, uint32_t fetch)
{
    struct gshmemi_tcp_frame f = frame(GSHMEMI_TCP_AMO, off, 0);
    f.op = op;
    f.size = size;
    f.fetch = fetch;
    return f;
}

static struct gshmemi_tcp_frame with_op(struct gshmemi_tcp_frame f, uint32_t op)
{
    f.op = op;
    return f;
}

static struct gshmemi_tcp_frame strided(uint64_t off, uint64_t len, uint32_t size, uint64_t pitch)
{
    struct gshmemi_tcp_frame f = with_op(frame(GSHMEMI_TCP_PUT, off, len), GSHMEMI_TCP_PUT_STRIDED);
    f.size = size;
    f.a = pitch;
    return f;
}

static struct gshmemi_tcp_frame strided_get(uint64_t off, uint64_t len, uint32_t size,
                                            uint64_t pitch)
{
    struct gshmemi_tcp_frame f = strided(off, len, size, pitch);
    f.type = GSHMEMI_TCP_GET;
    f.op = GSHMEMI_TCP_GET_STRIDED;
    return f;
}

int main(void)
{
    EXPECT(sizeof(struct gshmemi_tcp_frame) == 56, "frame header is %zu bytes",
           sizeof(struct gshmemi_tcp_frame));
    EXPECT(sizeof(struct gshmemi_tcp_hello) == 32, "hello is %zu bytes",
           sizeof(struct gshmemi_tcp_hello));

    /* puts and gets: inside the heap, gets no longer than a chunk */
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, 0, HEAP)) == 1, "a put of the whole heap");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, HEAP, 0)) == 1, "an empty put at the heap's end");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, HEAP - 8, 9)) == 0, "a put crossing the heap's end");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, HEAP + 1, 0)) == 0, "a put past the heap");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, 64, UINT64_MAX)) == 0, "a put whose end overflows");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, UINT64_MAX, 1)) == 0, "a put at offset 2^64-1");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_PUT, 0, 8), GSHMEMI_TCP_PUT_FENCED)) == 1, "a fenced put");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_PUT, 0, 8), 4)) == 0, "a put with unknown flags");

    /* strided puts: whole elements at a pitch no smaller than one, at most
     * GSHMEMI_TCP_STRIDED_MAX bytes of them, the last element inside */
    EXPECT(ok(strided(HEAP - 120, 64, 8, 16)) == 1, "8 elements of 8 bytes 16 apart at the end");
    EXPECT(ok(strided(HEAP - 119, 64, 8, 16)) == 0, "the same, its last element crossing the end");
    const uint32_t fenced = GSHMEMI_TCP_PUT_STRIDED | GSHMEMI_TCP_PUT_FENCED;
    EXPECT(ok(with_op(strided(0, 64, 8, 16), fenced)) == 1, "a fenced strided put");
    EXPECT(ok(strided(0, 1, 1, 1)) == 1, "one byte, pitch 1");
    EXPECT(ok(strided(0, GSHMEMI_TCP_STRIDED_MAX, 1, 2)) == 1, "the most a frame carries");
    EXPECT(ok(strided(0, GSHMEMI_TCP_STRIDED_MAX + 8, 8, 8)) == 0, "over the most a frame carries");
    EXPECT(ok(strided(0, 64, 8, 7)) == 0, "a pitch smaller than an element");
    EXPECT(ok(strided(0, 64, 0, 8)) == 0, "elements of 0 bytes");
    EXPECT(ok(strided(0, 60, 8, 16)) == 0, "a payload that is no whole number of elements");
    EXPECT(ok(strided(0, 0, 8, 16)) == 0, "no elements");
    EXPECT(ok(strided(0, 24, 8, UINT64_MAX / 2)) == 0, "a span whose end overflows");
    EXPECT(ok(strided(0, 24, 8, 1ull << 63)) == 0, "a span whose pitches overflow (to 0)");
    EXPECT(ok(strided(HEAP - 8, 8, 8, UINT64_MAX)) == 1, "one element: any pitch");
    EXPECT(ok(strided(S + STATIC - 24, 16, 8, 16)) == 1, "into the static data, at its end");
    EXPECT(ok(strided(S + STATIC - 23, 16, 8, 16)) == 0, "crossing the static data's end");
    {
        char why[160] = "";
        struct gshmemi_tcp_frame f = strided(HEAP - 64, 64, 8, 64);
        EXPECT(gshmemi_tcp_frame_check(&f, HEAP, STATIC, why, sizeof(why)) != 0 &&
                   strstr(why, "+456)") != NULL,
               "a strided put past the heap is refused naming the bytes it spans: %s", why);
    }
    EXPECT(ok(frame(GSHMEMI_TCP_GET, HEAP - GSHMEMI_TCP_GET_CHUNK, GSHMEMI_TCP_GET_CHUNK)) == 1,
           "a get of a chunk at the heap's end");
    EXPECT(ok(frame(GSHMEMI_TCP_GET, 0, GSHMEMI_TCP_GET_CHUNK + 1)) == 0, "a get over a chunk");
    EXPECT(ok(frame(GSHMEMI_TCP_GET, HEAP - 4, 8)) == 0, "a get crossing the heap's end");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_GET, 0, 8), 2)) == 0, "a get with unknown flags");

    /* strided gets: as strided puts, at most a get's chunk of elements */
    EXPECT(ok(strided_get(HEAP - 120, 64, 8, 16)) == 1, "a strided get ending at the heap's end");
    EXPECT(ok(strided_get(HEAP - 119, 64, 8, 16)) == 0, "its last element crossing the end");
    EXPECT(ok(strided_get(0, GSHMEMI_TCP_GET_CHUNK, 4, 8)) == 1, "a chunk of elements");
    EXPECT(ok(strided_get(0, GSHMEMI_TCP_GET_CHUNK + 4, 4, 8)) == 0, "over a chunk of elements");
    EXPECT(ok(strided_get(0, 64, 8, 7)) == 0, "a get's pitch smaller than an element");
    EXPECT(ok(strided_get(0, 64, 0, 8)) == 0, "a get of elements of 0 bytes");
    EXPECT(ok(strided_get(0, 60, 8, 16)) == 0, "a get of no whole number of elements");
    EXPECT(ok(strided_get(0, 0, 8, 16)) == 0, "a strided get of no elements");
    EXPECT(ok(strided_get(0, 24, 8, 1ull << 63)) == 0, "a get whose pitches overflow (to 0)");
    EXPECT(ok(strided_get(HEAP - 8, 8, 8, UINT64_MAX)) == 1, "a get of one element: any pitch");
    EXPECT(ok(strided_get(S + STATIC - 24, 16, 8, 16)) == 1, "a strided get of static data");
    EXPECT(ok(strided_get(S + STATIC - 23, 16, 8, 16)) == 0, "crossing the static data's end");
    {
        char why[160] = "";
        struct gshmemi_tcp_frame f = strided_get(HEAP - 64, 64, 8, 64);
        EXPECT(gshmemi_tcp_frame_check(&f, HEAP, STATIC, why, sizeof(why)) != 0 &&
                   strstr(why, "+456)") != NULL,
               "a strided get past the heap is refused naming the bytes it spans: %s", why);
        f = strided_get(0, 60, 8, 16);
        EXPECT(gshmemi_tcp_frame_check(&f, HEAP, STATIC, why, sizeof(why)) != 0 &&
                   strstr(why, "strided get") != NULL,
               "a strided get of part of an element is refused naming it: %s", why);
    }

    /* atomics: 4 or 8 bytes, aligned, a known op, inside the heap */
    for (uint32_t op = GSHMEMI_AMO_FETCH; op <= GSHMEMI_AMO_XOR; op++) {
        EXPECT(ok(amo(op, 8, HEAP - 8, 1)) == 1, "an 8-byte atomic of op %u at the heap's end", op);
        EXPECT(ok(amo(op, 4, 4, 0)) == 1, "a 4-byte atomic of op %u", op);
    }
    EXPECT(ok(amo(GSHMEMI_AMO_XOR + 1, 8, 0, 0)) == 0, "an atomic of unknown op");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 2, 0, 0)) == 0, "a 2-byte atomic");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 16, 0, 0)) == 0, "a 16-byte atomic");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 8, 4, 0)) == 0, "a misaligned 8-byte atomic");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 4, 2, 0)) == 0, "a misaligned 4-byte atomic");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 8, HEAP, 0)) == 0, "an atomic past the heap");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 8, 0, 2)) == 0, "an atomic whose fetch flag is 2");

    /* signals: set or add, an aligned word inside the heap */
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, HEAP - 8, 0), 0)) == 1, "a signal set");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, 8, 0), 1)) == 1, "a signal add");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, 8, 0), 2)) == 0, "a signal of op 2");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, 12, 0), 0)) == 0, "a misaligned signal");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, HEAP, 0), 0)) == 0, "a signal past the heap");

    /* the static data: from GSHMEMI_STATIC_OFF, no further than its size */
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, S, STATIC)) == 1, "a put of all the static data");
    EXPECT(ok(frame(GSHMEMI_TCP_GET, S + STATIC - 8, 8)) == 1, "a get at the static data's end");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, S + STATIC - 8, 9)) == 0, "a put crossing its end");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, S - 8, 16)) == 0, "a put crossing into it from below");
    EXPECT(ok(frame(GSHMEMI_TCP_PUT, S + STATIC + 1, 0)) == 0, "a put past it");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 8, S + STATIC - 8, 1)) == 1, "an atomic at its end");
    EXPECT(ok(amo(GSHMEMI_AMO_ADD, 8, S + STATIC, 1)) == 0, "an atomic past it");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, S + 8, 0), 1)) == 1, "a signal in it");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, S + STATIC, 0), 1)) == 0, "a signal past it");
    {
        char why[160] = "";
        struct gshmemi_tcp_frame f = frame(GSHMEMI_TCP_PUT, S + STATIC, 8);
        EXPECT(gshmemi_tcp_frame_check(&f, HEAP, 0, why, sizeof(why)) != 0 &&
                   strstr(why, "static data") != NULL,
               "a put into a target without symmetric static data is refused naming it: %s", why);
    }

    /* control words, replies and the bare frames */
    EXPECT(ok(frame(GSHMEMI_TCP_CTRL, GSHMEMI_CTRL_SIZE / 8 - 1, 0)) == 1, "the last control word");
    EXPECT(ok(frame(GSHMEMI_TCP_CTRL, GSHMEMI_CTRL_SIZE / 8, 0)) == 0, "a control word past the end");
    /* frames without a payload that say they have one: what follows would be read as frames */
    EXPECT(ok(frame(GSHMEMI_TCP_CTRL, 0, 8)) == 0, "a control word with a payload");
    EXPECT(ok(with_op(frame(GSHMEMI_TCP_SIGNAL, 8, 64), 0)) == 0, "a signal with a payload");
    EXPECT(ok(frame(GSHMEMI_TCP_QUIET, 0, 1)) == 0, "a quiet with a payload");
    struct gshmemi_tcp_frame long_amo = amo(GSHMEMI_AMO_ADD, 8, 0, 1);
    long_amo.len = 16;
    EXPECT(ok(long_amo) == 0, "an atomic with a payload");
    EXPECT(ok(frame(GSHMEMI_TCP_REPLY, 0, GSHMEMI_TCP_GET_CHUNK)) == 1, "a reply of a chunk");
    EXPECT(ok(frame(GSHMEMI_TCP_REPLY, 0, GSHMEMI_TCP_GET_CHUNK + 1)) == 0, "a reply over a chunk");
    for (uint32_t type = GSHMEMI_TCP_QUIET; type <= GSHMEMI_TCP_HEARTBEAT; type++) {
        if (type == GSHMEMI_TCP_REPLY)
            continue;
        EXPECT(ok(frame(type, 0, 0)) == 1, "a frame of type %u", type);
        EXPECT(ok(frame(type, 0, 1)) == 0, "a frame of type %u with a payload", type);
    }
    EXPECT(ok(frame(0, 0, 0)) == 0, "a frame of type 0");
    EXPECT(ok(frame(GSHMEMI_TCP_HEARTBEAT + 1, 0, 0)) == 0, "a frame of unknown type");

    /* random frames: what passes stays inside, and a refusal has a reason */
    unsigned long long seed = 0x9e3779b97f4a7c15ull;
    long accepted = 0, strided_puts = 0, strided_gets = 0;
    for (int i = 0; i < 200000; i++) {
        struct gshmemi_tcp_frame f;
        uint64_t r = test_rand(&seed);
        f.type = (uint32_t)(r % 11);
        f.op = (uint32_t)(test_rand(&seed) % 10);
        f.id = test_rand(&seed);
        /* offsets and lengths near the heap's size and near 2^64 */
        const uint64_t scale[] = {16, HEAP, HEAP * 2, UINT64_MAX};
        f.off = test_rand(&seed) % scale[test_rand(&seed) % 4];
        f.len = test_rand(&seed) % scale[test_rand(&seed) % 4];
        if (test_rand(&seed) % 2)
            f.off = HEAP - f.off % HEAP;
        else if (test_rand(&seed) % 3 == 0) /* near the static data's edges */
            f.off = S + STATIC - f.off % (2 * STATIC) + (test_rand(&seed) % 2 ? STATIC : 0);
        f.a = test_rand(&seed) % 2 ? test_rand(&seed) : test_rand(&seed) % 64; /* small: a pitch */
        f.b = test_rand(&seed);
        f.size = (uint32_t)(1u << (test_rand(&seed) % 5));
        f.fetch = (uint32_t)(test_rand(&seed) % 3);
        int v = ok(f);
        EXPECT(v >= 0, "frame %d (type %u) refused without a reason", i, f.type);
        if (v == 1) {
            accepted++;
            strided_puts += f.type == GSHMEMI_TCP_PUT && (f.op & GSHMEMI_TCP_PUT_STRIDED);
            strided_gets += f.type == GSHMEMI_TCP_GET && (f.op & GSHMEMI_TCP_GET_STRIDED);
            EXPECT(tcp_frame_inside(&f, HEAP, STATIC), "frame %d (type %u, off %llu, len %llu, size %u) passed but reaches "
                   "outside", i, f.type, (unsigned long long)f.off, (unsigned long long)f.len,
                   f.size);
        }
    }
    EXPECT(accepted > 1000, "only %ld random frames passed: the fuzz is too narrow", accepted);
    EXPECT(strided_puts > 20 && strided_gets > 20, "only %ld random strided puts and %ld gets "
           "passed: the fuzz is too narrow", strided_puts, strided_gets);

    /* hello */
    unsigned char secret[GSHMEMI_SECRET_BYTES], other[GSHMEMI_SECRET_BYTES];
    for (int i = 0; i < GSHMEMI_SECRET_BYTES; i++)
        secret[i] = (unsigned char)(i * 37 + 1), other[i] = secret[i];
    other[GSHMEMI_SECRET_BYTES - 1] ^= 1;
    struct gshmemi_tcp_hello h = {.magic = GSHMEMI_TCP_MAGIC, .rank = 3};
    memcpy(h.secret, secret, sizeof(secret));
    EXPECT(gshmemi_tcp_hello_valid(&h, secret), "a good hello");
    EXPECT(!gshmemi_tcp_hello_valid(&h, other), "a hello with another job's secret");
    h.magic ^= 1;
    EXPECT(!gshmemi_tcp_hello_valid(&h, secret), "a hello with a wrong magic");
    TEST_DONE();
}
