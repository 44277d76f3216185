/* The request FIFO on the CPU: many producer threads, far more than slots,
 * push at once; the consumer must see every request exactly once, intact,
 * and each producer's requests in its order; nothing is overwritten, and
 * nothing deadlocks.  `completed` lets a producer wait for its requests as
 * quiet will.  A request's tag unpacks to the fields it was packed from. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gshmem/internal/fifo.h>
#include "test_util.h"

struct run {
    struct gshmemi_fifo f;
    int producers;
    long per_producer;
    int quiet_every; /* producers wait for completion every so many pushes */
};

struct producer {
    struct run *run;
    int id;
};

static uint64_t check_word(uint64_t a, uint64_t b) { return a * 0x9e3779b97f4a7c15ull ^ (b + 17); }

static void *produce(void *arg)
{
    struct producer *p = arg;
    struct run *r = p->run;
    for (long i = 0; i < r->per_producer; i++) {
        uint64_t w[3] = {(uint64_t)p->id, (uint64_t)i, check_word((uint64_t)p->id, (uint64_t)i)};
        uint64_t n = gshmemi_fifo_push(&r->f, w, 3, (uint64_t)p->id);
        if (r->quiet_every && i % r->quiet_every == 0)
            gshmemi_fifo_wait_completed(&r->f, n);
    }
    return NULL;
}

/* cached: producers keep copies of taken and completed (as GPU producers
 * do), read the consumer's counter only when the ring looks full, and
 * once a wait is long, one of them at a time refreshes the copies. */
static void run_case(int producers, long per_producer, uint64_t capacity, int quiet_every, int cached)
{
    struct run r = {.producers = producers, .per_producer = per_producer,
                    .quiet_every = quiet_every};
    uint64_t head = 0, taken = 0, completed = 0, taken_cache = 0, completed_cache = 0;
    uint32_t look_lock[2] = {0, 0};
    pthread_t *th = calloc((size_t)producers, sizeof(*th));
    struct producer *pr = calloc((size_t)producers, sizeof(*pr));
    long *last = malloc(sizeof(long) * (size_t)producers);
    const uint64_t total = (uint64_t)producers * (uint64_t)per_producer;

    r.f.capacity = capacity;
    r.f.slots = calloc(capacity, sizeof(*r.f.slots));
    r.f.head = &head;
    r.f.taken = &taken;
    r.f.completed = &completed;
    r.f.taken_cache = cached ? &taken_cache : NULL;
    r.f.completed_cache = cached ? &completed_cache : NULL;
    r.f.look_lock = cached ? look_lock : NULL;
    for (int i = 0; i < producers; i++) {
        last[i] = -1;
        pr[i] = (struct producer){&r, i};
        pthread_create(&th[i], NULL, produce, &pr[i]);
    }
    uint64_t next = 0;
    int bad = 0;
    time_t progress = time(NULL);
    while (next < total && !bad) {
        struct gshmemi_fifo_slot s;
        if (!gshmemi_fifo_peek(&r.f, next, &s)) {
            if (time(NULL) - progress > 5) { /* lost requests show up as a stall */
                fprintf(stderr, "FAIL: the consumer stalled at request %llu of %llu (%d producers, "
                        "%llu slots): a request was lost or overwritten\n",
                        (unsigned long long)next, (unsigned long long)total, producers,
                        (unsigned long long)capacity);
                exit(1);
            }
            sched_yield();
            continue;
        }
        progress = time(NULL);
        int id = (int)s.w[0];
        if (id < 0 || id >= producers || s.ctrl != s.w[0] ||
            s.w[2] != check_word(s.w[0], s.w[1])) {
            EXPECT(0, "request %llu is corrupt", (unsigned long long)next);
            bad = 1;
        } else if ((long)s.w[1] != last[id] + 1) {
            EXPECT(0, "producer %d: request %llu after %ld (lost, repeated or reordered)", id,
                   (unsigned long long)s.w[1], last[id]);
            bad = 1;
        } else {
            last[id] = (long)s.w[1];
        }
        next++;
        __atomic_store_n(&taken, next, __ATOMIC_RELEASE);
        __atomic_store_n(&completed, next, __ATOMIC_RELEASE);
    }
    for (int i = 0; i < producers; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < producers && !bad; i++)
        EXPECT(last[i] == per_producer - 1, "producer %d: %ld of %ld seen", i, last[i] + 1,
               per_producer);
    EXPECT(head == total, "head %llu, expected %llu", (unsigned long long)head,
           (unsigned long long)total);
    EXPECT(look_lock[0] == 0 && look_lock[1] == 0, "a poller's lock was left taken");
    free(r.f.slots);
    free(last);
    free(pr);
    free(th);
}

/* gshmemi_req_untag(gshmemi_req_tag(...)) gives the fields back: as the
 * consumer reads the tag (the FIFO's parity bit taken off) and with the
 * parity bit still on, which the tag never sets itself. */
static int tag_round_trips(int kind, int op, int size, int pe)
{
    const uint64_t tag = gshmemi_req_tag(kind, op, size, pe);
    const struct gshmemi_req_fields a = gshmemi_req_untag(tag);
    const struct gshmemi_req_fields b = gshmemi_req_untag(tag | GSHMEMI_FIFO_PARITY);
    return (tag & GSHMEMI_FIFO_PARITY) == 0 && a.kind == kind && a.op == op && a.size == size &&
           a.pe == pe && b.kind == kind && b.op == op && b.size == size && b.pe == pe;
}

/* Every size, or under the sanitizers the first 1024 and then every 61st
 * and the largest. */
static int next_size(int size)
{
    if (!test_sanitized() || size < 1024 || size == 65535)
        return size + 1;
    return size + 61 > 65535 ? 65535 : size + 61;
}

static void check_tags(void)
{
    static const int kinds[] = {GSHMEMI_REQ_PUT, GSHMEMI_REQ_GET, GSHMEMI_REQ_AMO,
                                GSHMEMI_REQ_SIGNAL, GSHMEMI_REQ_QUIET, GSHMEMI_REQ_PUT_INLINE,
                                GSHMEMI_REQ_FENCE, GSHMEMI_REQ_IPUT, GSHMEMI_REQ_IGET, 0, 255};
    static const int ops[] = {GSHMEMI_AMO_FETCH, GSHMEMI_AMO_SET, GSHMEMI_AMO_SWAP,
                              GSHMEMI_AMO_CSWAP, GSHMEMI_AMO_ADD, GSHMEMI_AMO_AND,
                              GSHMEMI_AMO_OR, GSHMEMI_AMO_XOR, 255};
    static const int pes[] = {0, 1, 2, 255, 256, 65535, 65536, 1 << 24, INT32_MAX - 1, INT32_MAX};
    unsigned long long seed = 0x9e3779b97f4a7c15ull, checked = 0, failed = 0;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
            for (int size = 0; size <= 65535; size = next_size(size)) {
                const int random_pe = (int)(test_rand(&seed) & INT32_MAX);
                for (size_t p = 0; p <= sizeof(pes) / sizeof(pes[0]); p++) {
                    const int pe = p < sizeof(pes) / sizeof(pes[0]) ? pes[p] : random_pe;
                    checked++;
                    if (tag_round_trips(kinds[k], ops[o], size, pe) || failed++ > 0)
                        continue;
                    const uint64_t tag = gshmemi_req_tag(kinds[k], ops[o], size, pe);
                    const struct gshmemi_req_fields got = gshmemi_req_untag(tag);
                    EXPECT(0, "kind %d op %d size %d pe %d: tag %#llx unpacks to kind %d op %d "
                           "size %d pe %d", kinds[k], ops[o], size, pe, (unsigned long long)tag,
                           got.kind, got.op, got.size, got.pe);
                }
            }
    /* every byte value of kind and op, beyond the enums */
    for (int kind = 0; kind <= 255; kind++)
        for (int op = 0; op <= 255; op++) {
            checked++;
            if (!tag_round_trips(kind, op, kind << 8 | op, (int)(test_rand(&seed) & INT32_MAX)))
                failed++;
        }
    EXPECT(failed == 0, "%llu of %llu tags did not round-trip", failed, checked);
}

int main(void)
{
    check_tags();
    const long s = test_sanitized() ? 4 : 1; /* a quarter of the requests: still many laps */
    for (int cached = 0; cached <= 1; cached++) {
        run_case(1, 200000 / s, 1024, 0, cached); /* one producer, laps galore */
        run_case(16, 30000 / s, 64, 0, cached);   /* many producers, a small ring */
        run_case(48, 5000 / s, 8, 0, cached);     /* six times more producers than slots */
        run_case(8, 20000 / s, 16, 100, cached);  /* producers waiting for completion as quiet does */
        run_case(4, 50000 / s, 1, 0, cached);     /* a ring of one slot */
    }
    TEST_DONE();
}
