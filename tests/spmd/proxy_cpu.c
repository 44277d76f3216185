/* The proxy path end to end, with CPU threads in the role the GPU's threads
 * play: several threads per PE push puts, gets, fetching atomics and
 * signals for the next PE (not mapped: run with GSHMEM_DISABLE_P2P=1) into
 * the proxy's FIFO, wait for completion as quiet does, and every value is
 * checked.  Fetching atomics and g answer either at an address the thread
 * names or, as for GPU threads, in the cell of the request's slot: enough
 * of those that the cells are answered again a lap later, and three laps
 * of g pushed before any answer is read.  Uses the runtime's internals. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "gpu/gpu.h"
#include "heap/heap.h"
#include "proxy/proxy.h"
#include "spmd_util.h"

#define THREADS 6
#define K 150
#define CHUNK 4096
#define CELL_FETCHES 800 /* per thread: 4800 answers in cells, more than the ring's 4096 slots */

static int me, npes, to;
static unsigned char *inbox;  /* symmetric: THREADS * K chunks from the PE before */
static uint64_t *counter, *cell_counter, *sig; /* symmetric */
/* Requests name heap offsets, the same on every PE. */
static uint64_t off_of(const void *sym)
{
    return (uint64_t)((const char *)sym - gshmemi_heap.my_base);
}

static uint64_t push(int kind, int op, int size, const uint64_t *w, int nw)
{
    return gshmemi_fifo_push(gshmemi_proxy_fifo(), w, nw, gshmemi_req_tag(kind, op, size, to));
}

static void quiet(void)
{
    uint64_t n = push(GSHMEMI_REQ_QUIET, 0, 0, NULL, 0);
    while (__atomic_load_n(gshmemi_proxy_fifo()->completed, __ATOMIC_ACQUIRE) <= n)
        sched_yield();
}

struct job {
    int t;
    unsigned char *src;
    uint64_t fetched[K];
    uint64_t cell_fetched[CELL_FETCHES];
};

/* A fetching request answered in its slot's cell, as a GPU thread's is. */
static uint64_t fetch_in_cell(int kind, int op, int size, uint64_t *w, int nw)
{
    const struct gshmemi_fifo *f = gshmemi_proxy_fifo();
    uint64_t n = push(kind, op, size, w, nw);
    gshmemi_fifo_wait_completed(f, n);
    return gshmemi_fifo_take_answer(f, n);
}

static void *worker(void *arg)
{
    struct job *j = arg;
    for (int k = 0; k < K; k++) {
        unsigned char *chunk = j->src + (size_t)k * CHUNK;
        spmd_fill(chunk, CHUNK, 7, me, (uint64_t)(j->t * K + k));
        uint64_t put[3] = {off_of(inbox + ((size_t)j->t * K + k) * CHUNK), (uint64_t)(uintptr_t)chunk,
                           CHUNK};
        push(GSHMEMI_REQ_PUT, 0, 0, put, 3);
        uint64_t amo[4] = {off_of(counter), 1, 0, (uint64_t)(uintptr_t)&j->fetched[k]};
        push(GSHMEMI_REQ_AMO, GSHMEMI_AMO_ADD, 8, amo, 4);
        if (k % 50 == 49)
            quiet();
    }
    for (int k = 0; k < CELL_FETCHES; k++) {
        uint64_t amo[4] = {off_of(cell_counter), 1, 0, GSHMEMI_REQ_TO_CELL};
        j->cell_fetched[k] = fetch_in_cell(GSHMEMI_REQ_AMO, GSHMEMI_AMO_ADD, 8, amo, 4);
    }
    push(GSHMEMI_REQ_FENCE, 0, 0, NULL, 0);
    quiet();
    uint64_t s[2] = {off_of(sig), 1};
    push(GSHMEMI_REQ_SIGNAL, 1, 8, s, 2); /* after this thread's puts, in order */
    return NULL;
}

/* One request for a strided put and one for a strided get of IELEMS
 * uint32 each, as a GPU thread's iput and iget make: the put from this
 * PE's memory at a pitch of 2 to every third of the next PE's, the get of
 * every fifth of the next PE's table to every fourth here; poisoned around. */
#define IELEMS 30000
static uint32_t ivalue(int pe, size_t i, int what)
{
    return (uint32_t)(spmd_mix(((uint64_t)pe << 40) ^ ((uint64_t)what << 32) ^ i) >> 7);
}

static void strided_requests(int from)
{
    uint32_t *dest = gshmem_malloc(IELEMS * 3 * 4), *table = gshmem_malloc(IELEMS * 5 * 4);
    uint32_t *src = malloc(IELEMS * 2 * 4), *got = malloc(IELEMS * 4 * 4);
    CHECK(dest != NULL && table != NULL && src != NULL && got != NULL, "strided buffers");
    uint32_t *t = malloc(IELEMS * 5 * 4);
    CHECK(t != NULL, "strided buffers");
    for (size_t i = 0; i < IELEMS * 5; i++)
        t[i] = ivalue(me, i, 1);
    spmd_store(table, t, IELEMS * 5 * 4);
    free(t);
    spmd_set(dest, POISON, IELEMS * 3 * 4);
    for (size_t i = 0; i < IELEMS * 2; i++)
        src[i] = ivalue(me, i, 2);
    memset(got, POISON, IELEMS * 4 * 4);
    gshmem_barrier_all();
    uint64_t iput[5] = {off_of(dest), (uint64_t)(uintptr_t)src, IELEMS, 3 * 4, 2 * 4};
    push(GSHMEMI_REQ_IPUT, 0, 4, iput, 5);
    uint64_t iget[5] = {off_of(table), (uint64_t)(uintptr_t)got, IELEMS, 5 * 4, 4 * 4};
    push(GSHMEMI_REQ_IGET, 0, 4, iget, 5);
    quiet();
    gshmem_barrier_all();
    uint32_t *mine = malloc(IELEMS * 3 * 4);
    CHECK(mine != NULL, "strided buffers");
    spmd_load(mine, dest, IELEMS * 3 * 4);
    for (size_t i = 0; i < IELEMS * 3; i++) {
        uint32_t want;
        memset(&want, POISON, 4);
        if (i % 3 == 0)
            want = ivalue(from, i / 3 * 2, 2);
        CHECK(mine[i] == want, "strided put through the proxy from pe %d: element %zu is %#x, "
              "expected %#x", from, i, mine[i], want);
    }
    for (size_t i = 0; i < IELEMS * 4; i++) {
        uint32_t want;
        memset(&want, POISON, 4);
        if (i % 4 == 0)
            want = ivalue(to, i / 4 * 5, 1);
        CHECK(got[i] == want, "strided get through the proxy from pe %d: element %zu is %#x, "
              "expected %#x", to, i, got[i], want);
    }
    gshmem_barrier_all();
    free(mine);
    free(got);
    free(src);
    gshmem_free(table);
    gshmem_free(dest);
}

/* `proxy_cpu proxy-unread-answer` (check_negative.py --proxy): pe 0 leaves
 * one answer in its cell unread, then needs that cell a lap later; its
 * proxy must end the job past GSHMEM_TIMEOUT, not wait for ever. */
static int unread_answer(void)
{
    uint64_t *word = gshmem_calloc(1, sizeof(uint64_t));
    gshmem_barrier_all();
    if (me == 0) {
        uint64_t amo[4] = {off_of(word), 1, 0, GSHMEMI_REQ_TO_CELL};
        push(GSHMEMI_REQ_AMO, GSHMEMI_AMO_ADD, 8, amo, 4); /* its answer is never taken */
        for (uint64_t k = 0; k < gshmemi_proxy_fifo()->capacity; k++)
            (void)fetch_in_cell(GSHMEMI_REQ_AMO, GSHMEMI_AMO_ADD, 8, amo, 4);
        fprintf(stderr, "proxy_cpu: the proxy answered into a cell whose answer was unread\n");
        return 1;
    }
    sleep(30); /* no deadline of its own here: pe 0's proxy ends the job first */
    return 1;
}

/* `proxy_cpu proxy-strided-pitch` (check_negative.py --proxy): pe 0 asks
 * for a strided get whose source pitch is below an element; its proxy
 * must refuse it, naming it, and end the job. */
static int strided_pitch(void)
{
    uint32_t *table = gshmem_calloc(16, sizeof(uint32_t));
    gshmem_barrier_all();
    if (me == 0) {
        uint32_t got[12];
        uint64_t iget[5] = {off_of(table), (uint64_t)(uintptr_t)got, 3, 2, 4};
        push(GSHMEMI_REQ_IGET, 0, 4, iget, 5);
        quiet();
        fprintf(stderr, "proxy_cpu: the proxy carried out a strided get at a pitch of 2 bytes\n");
        return 1;
    }
    sleep(30); /* pe 0's proxy ends the job first */
    return 1;
}

int main(int argc, char **argv)
{
    gshmem_init();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    to = (me + 1) % npes;
    const int from = (me + npes - 1) % npes;
    if (npes < 2 || gshmemi_proxy_fifo() == NULL) {
        if (me == 0)
            printf("proxy_cpu: needs 2+ PEs with GSHMEM_DISABLE_P2P=1 (proxy not running)\n");
        gshmem_finalize();
        return npes < 2 ? 0 : 1;
    }
    if (argc > 1 && strcmp(argv[1], "proxy-unread-answer") == 0)
        return unread_answer();
    if (argc > 1 && strcmp(argv[1], "proxy-strided-pitch") == 0)
        return strided_pitch();
    inbox = gshmem_malloc((size_t)THREADS * K * CHUNK);
    counter = gshmem_calloc(1, sizeof(uint64_t));
    cell_counter = gshmem_calloc(1, sizeof(uint64_t));
    sig = gshmem_calloc(1, sizeof(uint64_t));
    spmd_set(inbox, POISON, (size_t)THREADS * K * CHUNK);
    gshmem_barrier_all();

    struct job jobs[THREADS];
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t].t = t;
        jobs[t].src = malloc((size_t)K * CHUNK);
        pthread_create(&th[t], NULL, worker, &jobs[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    quiet();
    /* The signals arrive after all of each thread's puts. */
    gshmem_uint64_wait_until(sig, GSHMEM_CMP_EQ, THREADS);

    unsigned char *got = malloc(CHUNK), *expect = malloc(CHUNK);
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < K; k++) {
            spmd_load(got, inbox + ((size_t)t * K + k) * CHUNK, CHUNK);
            spmd_fill(expect, CHUNK, 7, from, (uint64_t)(t * K + k));
            CHECK(memcmp(got, expect, CHUNK) == 0, "chunk %d/%d from pe %d", t, k, from);
        }
    /* Each PE's adds land on the next PE's counter: the old values it saw
     * are each of 0..THREADS*K-1 exactly once. */
    CHECK(LOAD(uint64_t, counter) == (uint64_t)THREADS * K, "counter %llu",
          (unsigned long long)LOAD(uint64_t, counter));
    char *seen = calloc(THREADS * K, 1);
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < K; k++) {
            uint64_t v = jobs[t].fetched[k];
            CHECK(v < THREADS * K && !seen[v], "fetched value %llu repeated or out of range",
                  (unsigned long long)v);
            seen[v] = 1;
        }
    free(seen);
    seen = calloc(THREADS * CELL_FETCHES, 1);
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < CELL_FETCHES; k++) {
            uint64_t v = jobs[t].cell_fetched[k];
            CHECK(v < THREADS * CELL_FETCHES && !seen[v], "fetched value %llu (answered in a cell) "
                  "repeated or out of range", (unsigned long long)v);
            seen[v] = 1;
        }
    /* g: 1 to 8 bytes of the chunk the next PE holds from this PE, in cells */
    spmd_fill(expect, CHUNK, 7, me, 3);
    for (int bytes = 1; bytes <= 8; bytes++) {
        uint64_t g[3] = {off_of(inbox + CHUNK * 3 + 100 + bytes), GSHMEMI_REQ_TO_CELL, (uint64_t)bytes};
        uint64_t v = fetch_in_cell(GSHMEMI_REQ_GET, 0, 0, g, 3), want = 0;
        memcpy(&want, expect + 100 + bytes, (size_t)bytes);
        CHECK(v == want, "g of %d bytes through the proxy: %#llx, expected %#llx", bytes,
              (unsigned long long)v, (unsigned long long)want);
    }
    /* g answered in cells, all pushed before any answer is read, as a GPU
     * thread's small get pushes 16 of them: three laps of the ring, so
     * that most cells are answered again while their answer is unread (the
     * proxy must go on meanwhile, not wait for them). */
    const uint64_t laps = 3 * gshmemi_proxy_fifo()->capacity;
    uint64_t *number = malloc(laps * sizeof(uint64_t));
    for (uint64_t i = 0; i < laps; i++) {
        uint64_t g[3] = {off_of(inbox + i * 8), GSHMEMI_REQ_TO_CELL, 8};
        number[i] = push(GSHMEMI_REQ_GET, 0, 0, g, 3);
    }
    gshmemi_fifo_wait_completed(gshmemi_proxy_fifo(), number[laps - 1]);
    for (uint64_t i = 0; i < laps; i++) {
        const uint64_t v = gshmemi_fifo_take_answer(gshmemi_proxy_fifo(), number[i]);
        uint64_t want;
        if (i * 8 % CHUNK == 0)
            spmd_fill(expect, CHUNK, 7, me, i * 8 / CHUNK);
        memcpy(&want, expect + i * 8 % CHUNK, 8);
        CHECK(v == want, "g %llu of %llu pushed before any was read: %#llx, expected %#llx",
              (unsigned long long)i, (unsigned long long)laps, (unsigned long long)v,
              (unsigned long long)want);
    }
    free(number);
    /* A get through the proxy: the chunk the next PE holds from this PE. */
    gshmem_barrier_all();
    uint64_t get[3] = {off_of(inbox + CHUNK * 5), (uint64_t)(uintptr_t)got, CHUNK};
    push(GSHMEMI_REQ_GET, 0, 0, get, 3);
    quiet();
    spmd_fill(expect, CHUNK, 7, me, 5);
    CHECK(memcmp(got, expect, CHUNK) == 0, "get through the proxy");
    strided_requests(from);
    free(seen);
    free(got);
    free(expect);
    for (int t = 0; t < THREADS; t++)
        free(jobs[t].src);
    gshmem_free(sig);
    gshmem_free(cell_counter);
    gshmem_free(counter);
    gshmem_free(inbox);
    SPMD_DONE();
}
