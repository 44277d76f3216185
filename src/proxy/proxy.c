/* The proxy thread: takes requests from the FIFO in order, carries them out
 * on the transport, and publishes how many it has taken (free slots) and
 * completed.  Busy, it spins; idle, it backs off to short sleeps so that it
 * costs little of a core. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "proxy/proxy.h"
#include "transport/transport.h"

#define FIFO_CAPACITY 4096
_Static_assert((FIFO_CAPACITY & (FIFO_CAPACITY - 1)) == 0, "the FIFO's capacity is a power of two");
#define BATCH 64
#define STAGE_BYTES (1u << 20)

static struct {
    struct gshmemi_fifo fifo;
    uint64_t counters[3 * 8]; /* CPU producers: head, taken, completed a cache line apart */
    int on_gpu;               /* GPU producers: slots and counters in mapped host memory; head, the
                               * counters' copies and their pollers' locks in GPU memory */
    void *gpu_host, *gpu_own;
    struct gshmemi_staging stage; /* GPU producers: their put sources, read in batches */
    void *stream;
    struct gshmemi_transport *transport; /* carries the requests out */
    pthread_t thread;
    int stop; /* set by gshmemi_proxy_stop, atomically: the thread polls it */
    int running;
} px;

struct gshmemi_fifo *gshmemi_proxy_fifo(void) { return px.running ? &px.fifo : NULL; }

/* Gets and fetching atomics a batch has in flight, finished together at
 * its end (the proxy does not wait on one peer at a time).  The bytes of
 * gets in flight stay well under what the sockets buffer: two progress
 * threads each sending the other a reply must never both block. */
#define GET_BYTES_IN_FLIGHT (1u << 20)
struct answer {
    uint64_t *result;              /* the producer's address, or */
    struct gshmemi_fifo_cell *cell; /* its slot's cell, */
    uint64_t number;               /* tagged with the request's number */
};
struct in_flight {
    void *token;
    struct answer to; /* a fetching atomic's old value, or a g's bytes */
    uint64_t bytes;   /* a g's bytes land here first */
    int is_g;
};
struct batch_state {
    struct in_flight fl[BATCH];
    int n;
    size_t get_bytes;
};

/* Answers for cells whose answer of a lap before is still unread, given in
 * their order once it is read, while the proxy goes on: the reader may be
 * waiting on the proxy itself (a small get pushes 16 requests before it
 * reads their answers: past a lap of other threads' requests, the
 * proxy's waiting for a cell it holds, while it pushes into a full ring or
 * waits for a later request, stopped both).  Unbounded but for LATE_MOST,
 * past which the proxy waits; one left unread GSHMEM_TIMEOUT (a kernel
 * that ended without reading its answer) ends the job, saying so. */
#define LATE_MOST (1u << 20)
struct late_answer {
    struct gshmemi_fifo_cell *cell;
    uint64_t number, value;
};
static struct {
    struct late_answer *q; /* a ring of cap: [head, head + n) */
    size_t head, n, cap;
    uint64_t deadline; /* for the first's cell to be read; 0: not yet set */
} late;

/* Whether c, which request `number` answers into, is free; GSHMEM_TIMEOUT
 * after *deadline's first setting (0: not yet) that it was not, the job
 * ends. */
static int cell_free(const struct gshmemi_fifo_cell *c, uint64_t number, uint64_t *deadline)
{
    if (__atomic_load_n(&c->tag, __ATOMIC_ACQUIRE) == GSHMEMI_FIFO_CELL_FREE)
        return 1;
    if (*deadline == 0) {
        *deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
    } else if (gshmemi_now_ns() > *deadline) {
        GSHMEMI_ERROR(PROXY, "request %llu's answer cannot be given: request %llu (the same slot a "
                      "lap before) was answered and its answer is still unread after "
                      "GSHMEM_TIMEOUT (%g s)", (unsigned long long)number,
                      (unsigned long long)__atomic_load_n(&c->tag, __ATOMIC_RELAXED),
                      gshmemi_env.TIMEOUT);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "the proxy");
    }
    return 0;
}

static void cell_answer(struct gshmemi_fifo_cell *c, uint64_t number, uint64_t value)
{
    __atomic_store_n(&c->value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&c->tag, number, __ATOMIC_RELEASE);
}

/* The late answers whose cells are free, in order; 1 while some are left. */
static int give_late(void)
{
    while (late.n > 0) {
        const struct late_answer *a = &late.q[late.head];
        if (!cell_free(a->cell, a->number, &late.deadline))
            return 1;
        cell_answer(a->cell, a->number, a->value);
        late.head = (late.head + 1) % late.cap;
        late.n--;
        late.deadline = 0;
    }
    return 0;
}

static void answer_late(struct gshmemi_fifo_cell *c, uint64_t number, uint64_t value)
{
    if (late.n == late.cap && late.cap < LATE_MOST) { /* grown, in order from 0 */
        const size_t cap = late.cap ? 2 * late.cap : 64;
        struct late_answer *q = malloc(cap * sizeof(*q));
        if (q != NULL) {
            for (size_t i = 0; i < late.n; i++)
                q[i] = late.q[(late.head + i) % late.cap];
            free(late.q);
            late.q = q;
            late.head = 0;
            late.cap = cap;
        }
    }
    if (late.cap == 0) { /* none could be kept: this one waits for its cell */
        uint64_t deadline = 0;
        while (!cell_free(c, number, &deadline))
            gshmemi_cpu_relax();
        cell_answer(c, number, value);
        return;
    }
    while (late.n == late.cap && give_late()) /* no room: the oldest go first */
        gshmemi_cpu_relax();
    late.q[(late.head + late.n++) % late.cap] = (struct late_answer){c, number, value};
}

/* A fetching request's answer where the producer reads it. */
static void answer(const struct answer *to, uint64_t value)
{
    if (to->cell != NULL) {
        uint64_t deadline = 0;
        if (late.n == 0 && cell_free(to->cell, to->number, &deadline))
            cell_answer(to->cell, to->number, value);
        else
            answer_late(to->cell, to->number, value);
    } else if (to->result != NULL) {
        __atomic_store_n(to->result, value, __ATOMIC_RELEASE);
    }
}

/* Where request `number`'s answer goes, given the address it names. */
static struct answer answer_to(uint64_t address, uint64_t number)
{
    if (address == GSHMEMI_REQ_TO_CELL && px.fifo.cells != NULL)
        return (struct answer){NULL, &px.fifo.cells[number & (px.fifo.capacity - 1)], number};
    return (struct answer){(uint64_t *)(uintptr_t)address, NULL, number};
}

/* A request the transport could not carry out ends the job (it said why). */
static void check(const char *what, int st)
{
    if (st != 0)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, what);
}

static void execute(const struct gshmemi_fifo_slot *s, uint64_t number, struct batch_state *bs)
{
    const struct gshmemi_req_fields req = gshmemi_req_untag(s->ctrl);
    const int kind = req.kind, op = req.op, size = req.size, pe = req.pe;
    struct gshmemi_transport *t = px.transport;
    const struct gshmemi_transport_ops *o = t->ops;

    switch (kind) {
    case GSHMEMI_REQ_PUT:
        check("proxy put", o->put(t, "proxy put", pe, s->w[0], (const void *)(uintptr_t)s->w[1],
                                  s->w[2]));
        break;
    case GSHMEMI_REQ_PUT_INLINE:
        check("proxy put", o->put(t, "proxy put", pe, s->w[0], &s->w[1], (size_t)size));
        break;
    case GSHMEMI_REQ_GET: {
        if (s->w[1] == GSHMEMI_REQ_TO_CELL) { /* a g: at most 8 bytes, answered in the cell */
            struct in_flight *fl = &bs->fl[bs->n];
            const size_t n = s->w[2] < 8 ? s->w[2] : 8;
            *fl = (struct in_flight){NULL, answer_to(s->w[1], number), 0, 1};
            if (o->get_start(t, "proxy g", pe, s->w[0], &fl->bytes, n, &fl->token) == 0) {
                bs->n++;
            } else {
                check("proxy g", o->get(t, "proxy g", pe, s->w[0], &fl->bytes, n));
                answer(&fl->to, fl->bytes);
            }
            break;
        }
        void *dst = (void *)(uintptr_t)s->w[1], *token;
        if (bs->get_bytes + s->w[2] <= GET_BYTES_IN_FLIGHT &&
            o->get_start(t, "proxy get", pe, s->w[0], dst, s->w[2], &token) == 0) {
            bs->fl[bs->n++] = (struct in_flight){token, {NULL, NULL, 0}, 0, 0};
            bs->get_bytes += s->w[2];
        } else {
            check("proxy get", o->get(t, "proxy get", pe, s->w[0], dst, s->w[2]));
        }
        break;
    }
    case GSHMEMI_REQ_AMO: {
        const struct answer to = answer_to(s->w[3], number);
        const int fetch = to.result != NULL || to.cell != NULL;
        void *token;
        if (fetch && o->atomic_start(t, "proxy atomic", pe, s->w[0], op, (size_t)size, s->w[1],
                                     s->w[2], &token) == 0) {
            bs->fl[bs->n++] = (struct in_flight){token, to, 0, 0};
            break;
        }
        uint64_t old = 0;
        check("proxy atomic", o->atomic(t, "proxy atomic", pe, s->w[0], op, (size_t)size, s->w[1],
                                        s->w[2], fetch ? &old : NULL));
        if (fetch)
            answer(&to, old);
        break;
    }
    case GSHMEMI_REQ_SIGNAL:
        check("proxy signal", o->signal(t, "proxy signal", pe, s->w[0], s->w[1], op));
        break;
    case GSHMEMI_REQ_QUIET:
        check("proxy quiet", o->quiet(t, "proxy quiet"));
        break;
    case GSHMEMI_REQ_FENCE:
        check("proxy fence", o->fence(t));
        break;
    case GSHMEMI_REQ_IPUT:
    case GSHMEMI_REQ_IGET:
        if (size <= 0 || s->w[2] == 0 || s->w[3] < (uint64_t)size || s->w[4] < (uint64_t)size) {
            GSHMEMI_ERROR(PROXY, "a strided %s request for pe %d of %llu elements of %d bytes at "
                          "pitches %llu and %llu: the pitches must be at least an element",
                          kind == GSHMEMI_REQ_IPUT ? "put" : "get", pe,
                          (unsigned long long)s->w[2], size, (unsigned long long)s->w[3],
                          (unsigned long long)s->w[4]);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "proxy");
        }
        if (kind == GSHMEMI_REQ_IPUT)
            check("proxy iput", o->put_strided(t, "proxy iput", pe, s->w[0], s->w[3],
                                               (const void *)(uintptr_t)s->w[1], s->w[4],
                                               (size_t)size, s->w[2]));
        else
            check("proxy iget", o->get_strided(t, "proxy iget", pe, s->w[0], s->w[3],
                                               (void *)(uintptr_t)s->w[1], s->w[4], (size_t)size,
                                               s->w[2]));
        break;
    default:
        GSHMEMI_ERROR(PROXY, "a request of unknown kind %d", kind);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "proxy");
    }
}

/* GPU producers' put sources are GPU addresses: a batch's are read into
 * pinned memory with one batch of copies and one wait, not one
 * synchronous copy each.  A source that does not fit is left to the
 * transport. */
static void stage_sources(struct gshmemi_fifo_slot *b, int n)
{
    void *dsts[BATCH];
    const void *srcs[BATCH];
    size_t sizes[BATCH], k = 0, used = 0;

    for (int i = 0; i < n; i++) {
        if (gshmemi_req_untag(b[i].ctrl).kind != GSHMEMI_REQ_PUT || b[i].w[2] > STAGE_BYTES - used)
            continue;
        dsts[k] = px.stage.base + used;
        srcs[k] = (const void *)(uintptr_t)b[i].w[1];
        sizes[k] = b[i].w[2];
        b[i].w[1] = (uint64_t)(uintptr_t)dsts[k];
        used += (b[i].w[2] + 63) & ~(size_t)63;
        k++;
    }
    if (k > 0) {
        gshmemi_gpu_copy_batch("proxy put", dsts, srcs, sizes, k, NULL, px.stream);
        gshmemi_gpu_stream_sync("proxy put", px.stream);
    }
}

static void *proxy_main(void *arg)
{
    struct gshmemi_fifo *f = &px.fifo;
    uint64_t next = 0, misses = 0, idle_since = 0, idle_ns = 0;
    (void)arg;

    gshmemi_gpu_bind_thread("proxy");
    while (!__atomic_load_n(&px.stop, __ATOMIC_ACQUIRE)) {
        struct gshmemi_fifo_slot b[BATCH];
        int n = 0;
        if (late.n > 0) /* (idle or not: a reader may have freed a cell) */
            give_late();
        /* A batch: as many as are published, copied out (their slots are
         * free at once), carried out, then one publication. */
        while (n < BATCH && gshmemi_fifo_peek(f, next + (uint64_t)n, &b[n]))
            n++;
        if (n > 0) {
            __atomic_store_n(f->taken, next + (uint64_t)n, __ATOMIC_RELEASE);
            struct gshmemi_transport *t = px.transport;
            if (px.on_gpu)
                stage_sources(b, n);
            struct batch_state bs; /* not zeroed: on every batch's path, a lone request's too */
            bs.n = 0;
            bs.get_bytes = 0;
            t->ops->batch_begin(t);
            for (int i = 0; i < n; i++)
                execute(&b[i], next + (uint64_t)i, &bs);
            t->ops->batch_end(t);
            for (int i = 0; i < bs.n; i++) {
                uint64_t old = 0;
                check("proxy", t->ops->finish(t, "proxy", bs.fl[i].token, &old));
                answer(&bs.fl[i].to, bs.fl[i].is_g ? bs.fl[i].bytes : old);
            }
            next += (uint64_t)n;
            __atomic_store_n(f->completed, next, __ATOMIC_RELEASE);
            gshmemi_cache_demote(f->completed); /* where the producers' polls read it soonest */
            misses = 0;
            idle_ns = 0;
            continue;
        }
        /* Idle: spin for 10 ms after the last request, then sleep longer
         * the longer nothing comes (at most 1 ms late after a second).
         * The clock is read every 64 looks: a read costs about as much as
         * a look in a virtual machine, and a request that lands meanwhile
         * waits for it.  (Once napping, that is every 64 naps: each step
         * comes up to 64 naps late.) */
        if (misses % 64 == 0) {
            const uint64_t now = gshmemi_now_ns();
            if (misses == 0) /* the first look that found nothing */
                idle_since = now;
            idle_ns = now - idle_since;
        }
        misses++;
        if (idle_ns < 10000000ull) {
            gshmemi_cpu_relax();
        } else {
            long ns = idle_ns < 100000000ull ? 20000 : idle_ns < 1000000000ull ? 200000 : 1000000;
            struct timespec ts = {0, ns};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

static void release_fifo(void)
{
    if (late.n > 0)
        GSHMEMI_WARN(PROXY, "the proxy stopped with %zu answers not given: their cells' answers of "
                     "a lap before were never read (a kernel ended without reading them?)", late.n);
    free(late.q);
    memset(&late, 0, sizeof(late));
    if (px.on_gpu) {
        gshmemi_gpu_host_free(px.gpu_host);
        gshmemi_gpu_free(px.gpu_own);
        gshmemi_staging_free(&px.stage);
        gshmemi_gpu_stream_free(px.stream);
    } else {
        free(px.fifo.slots);
        free(px.fifo.cells);
    }
}

int gshmemi_proxy_start(void)
{
    memset(&px, 0, sizeof(px));
    if (gshmemi_transport == NULL)
        return 0;
    px.transport = gshmemi_transport;
    px.fifo.capacity = FIFO_CAPACITY;
    if (gshmemi_gpu_device() >= 0) {
        /* GPU threads push: they claim with an atomic in their own memory,
         * write slots the proxy reads, and read what the proxy publishes
         * (taken only when their own copy says the ring may be full). */
        size_t slots = FIFO_CAPACITY * sizeof(*px.fifo.slots);
        size_t cells = FIFO_CAPACITY * sizeof(*px.fifo.cells);
        px.on_gpu = 1;
        px.gpu_host = gshmemi_gpu_host_alloc_near(slots + 2 * 64 + cells);
        px.gpu_own = gshmemi_gpu_dev_alloc(4 * 128);
        px.stream = gshmemi_gpu_stream_new("gshmem_init");
        if (px.gpu_host == NULL || px.gpu_own == NULL || px.stream == NULL) {
            GSHMEMI_ERROR(PROXY, "cannot allocate the proxy's FIFO in GPU-visible memory");
            release_fifo();
            return GSHMEM_ERR_NO_MEMORY;
        }
        if (gshmemi_staging_alloc(&px.stage, STAGE_BYTES, "proxy") != 0) {
            release_fifo();
            return GSHMEM_ERR_NO_MEMORY;
        }
        px.fifo.slots = px.gpu_host;
        px.fifo.taken = (uint64_t *)((char *)px.gpu_host + slots);
        px.fifo.completed = (uint64_t *)((char *)px.gpu_host + slots + 64);
        px.fifo.cells = (struct gshmemi_fifo_cell *)((char *)px.gpu_host + slots + 2 * 64);
        memset(px.fifo.cells, 0xff, cells); /* every tag GSHMEMI_FIFO_CELL_FREE */
        px.fifo.head = px.gpu_own;
        px.fifo.taken_cache = (uint64_t *)((char *)px.gpu_own + 128);
        px.fifo.completed_cache = (uint64_t *)((char *)px.gpu_own + 256);
        px.fifo.look_lock = (uint32_t *)((char *)px.gpu_own + 384);
        /* The target's side of tcp writes a GPU heap with CUDA calls, which
         * a lazy kernel load elsewhere in the process blocks while it
         * waits for GPU work that waits on this proxy. */
        if (gshmemi_heap.on_device && gshmemi_gpu_lazy_loading() && gshmemi_rt.my_pe == 0)
            GSHMEMI_WARN(PROXY, "gshmem_init: peers are reached through the proxy with the heap in "
                         "GPU memory, and CUDA loads kernels lazily: a kernel launched for the "
                         "first time while GPU work waits on the proxy (a device call or a "
                         "stream-ordered operation to such a peer) stalls the job until "
                         "GSHMEM_TIMEOUT; set CUDA_MODULE_LOADING=EAGER (gshmrun does)");
    } else {
        /* CPU producers (tests): the same cells as the GPU's, in plain memory */
        px.fifo.slots = calloc(FIFO_CAPACITY, sizeof(*px.fifo.slots));
        px.fifo.cells = malloc(FIFO_CAPACITY * sizeof(*px.fifo.cells));
        if (px.fifo.slots == NULL || px.fifo.cells == NULL) {
            release_fifo();
            return GSHMEM_ERR_NO_MEMORY;
        }
        memset(px.fifo.cells, 0xff, FIFO_CAPACITY * sizeof(*px.fifo.cells));
        px.fifo.head = &px.counters[0];
        px.fifo.taken = &px.counters[8];
        px.fifo.completed = &px.counters[16];
    }
    if ((errno = pthread_create(&px.thread, NULL, proxy_main, NULL)) != 0) {
        GSHMEMI_ERROR(PROXY, "cannot start the proxy thread: %s", strerror(errno));
        release_fifo();
        return GSHMEM_ERR_INTERNAL;
    }
    pthread_setname_np(px.thread, "gshmem-proxy");
    px.running = 1;
    return 0;
}

/* GPU producers: the number below which every request is published (what
 * a finished kernel pushed is), read from host memory: the slot after the
 * last one taken, and a few beyond it (a request of a running kernel that
 * claimed its number but has not yet published it may stand before one of
 * a finished kernel; it is published soon, as publishing waits only on
 * the proxy).  Not `head`, which lives in GPU memory: reading it would
 * cost every host quiet a copy from the GPU. */
#define DRAIN_LOOKAHEAD 8
static int published_beyond(uint64_t *upto)
{
    struct gshmemi_fifo_slot s;
    const uint64_t t = __atomic_load_n(px.fifo.taken, __ATOMIC_ACQUIRE);
    for (uint64_t i = 0; i < DRAIN_LOOKAHEAD; i++)
        if (gshmemi_fifo_peek(&px.fifo, t + i, &s))
            return 1;
    *upto = t;
    return 0;
}

void gshmemi_proxy_drain(const char *call)
{
    uint64_t upto = 0;
    if (!px.running)
        return;
    struct gshmemi_backoff backoff = {0};
    const uint64_t deadline = gshmemi_deadline_after(gshmemi_env.TIMEOUT);
    for (;;) {
        const uint64_t done = __atomic_load_n(px.fifo.completed, __ATOMIC_ACQUIRE);
        if (px.on_gpu ? !published_beyond(&upto) && done >= upto
                      : done >= (upto = __atomic_load_n(px.fifo.head, __ATOMIC_ACQUIRE)))
            return;
        gshmemi_backoff_wait(&backoff);
        if (backoff.spins >= 64 && gshmemi_now_ns() > deadline) {
            GSHMEMI_ERROR(PROXY, "%s: requests kernels pushed still wait for the proxy after "
                          "GSHMEM_TIMEOUT (%g s): it has taken %llu and completed %llu", call,
                          gshmemi_env.TIMEOUT,
                          (unsigned long long)__atomic_load_n(px.fifo.taken, __ATOMIC_ACQUIRE),
                          (unsigned long long)done);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
        }
    }
}

void gshmemi_proxy_stop(void)
{
    if (!px.running)
        return;
    __atomic_store_n(&px.stop, 1, __ATOMIC_RELEASE);
    pthread_join(px.thread, NULL);
    release_fifo();
    memset(&px, 0, sizeof(px));
}
