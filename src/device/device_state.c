/* The device API's state: what kernels read (my pe, heap bases, timeouts),
 * copied into every registered translation unit's __constant__ object at
 * init, on heap growth and at finalize; and the watch that turns a device
 * thread's failure (bad input, a wait past its deadline) into the end of
 * the job with one message naming the call, block, thread and PE. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gshmem.h>
#include <gshmem/internal/device_state.h>
#include <gshmem/internal/partitioned.h>
#include <gshmemx.h>

#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "device/device_state.h"
#include "gpu/gpu.h"
#include "heap/heap.h"
#include "proxy/proxy.h"

#define API __attribute__((visibility("default")))

/* A module the application loaded itself (gshmemx_cumodule_init): its
 * units' copies of the state. */
#define MODULE_MAX_UNITS 64
struct module_states {
    void *module;
    void *addrs[MODULE_MAX_UNITS];
    int n;
};

/* Host collectives that run as their stream forms at once (threads on
 * several teams): more run unnamed in a kernel's failure. */
enum { HOST_CALLS = 8 };

static struct {
    pthread_mutex_t lock;
    gshmemi_device_state_update_fn *fns;
    size_t n_fns, cap_fns;
    int refused; /* units of another device-state version (the first one's below) */
    unsigned refused_version;
    size_t refused_bytes;
    struct module_states *modules; /* gshmemx_cumodule_init's */
    size_t n_modules, cap_modules;
    struct gshmemi_device_state state; /* what the last publication copied */
    void *stream;
    struct gshmemi_device_failure *failure; /* host-mapped, read by the watch */
    struct gshmemi_device_team *teams;      /* GPU memory: the table kernels read */
    int *team_pes;                          /* GPU memory: n_pes ints per slot */
    pthread_t watch;
    int watching;
    int stop_watch; /* atomic: the watch thread polls it */
    struct {
        int state;        /* atomic: 0 free, 1 being written, 2 set */
        const char *call;   /* a host collective running as its stream form */
        const char *kernel; /* the call its kernel names in a failure (NULL: derived) */
    } host_calls[HOST_CALLS];
} ds = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Copies ds.state into a module's units; the caller syncs ds.stream. */
static void publish_module(const char *call, const struct module_states *m)
{
    for (int i = 0; i < m->n; i++) {
        int err = gshmemi_gpu_copy_to_module(m->addrs[i], &ds.state, sizeof(ds.state), ds.stream);
        if (err != 0) {
            char what[160];
            snprintf(what, sizeof(what), "the copy of the device state into CUDA module %p "
                     "(unloaded before gshmemx_cumodule_finalize?)", m->module);
            gshmemi_gpu_launch_failed(call, what, err);
        }
    }
}

/* Copies ds.state to the translation units fns[0..n) and, with modules,
 * to every module's.  Caller holds lock. */
static void publish_to(const char *call, gshmemi_device_state_update_fn *fns, size_t n,
                       int modules)
{
    for (size_t i = 0; i < n; i++) {
        int err = fns[i](&ds.state, ds.stream);
        if (err != 0)
            gshmemi_gpu_launch_failed(call, "the copy of the device state into a kernel module", err);
    }
    for (size_t i = 0; modules && i < ds.n_modules; i++)
        publish_module(call, &ds.modules[i]);
    if (ds.stream != NULL)
        gshmemi_gpu_stream_sync(call, ds.stream);
}

static void publish_locked(const char *call) { publish_to(call, ds.fns, ds.n_fns, 1); }

/* The message for units built against another device-state version
 * (the first one's version and size). */
static void refused_message(char *buf, size_t n, int units, unsigned version, size_t bytes)
{
    if (units == 1)
        snprintf(buf, n, "a translation unit of this program was built with gshmem_device.cuh of "
                 "device-state version %u (%zu bytes); this libgshmem has version %u (%zu "
                 "bytes): rebuild it against the installed headers", version, bytes,
                 GSHMEMI_DEVICE_STATE_VERSION, sizeof(struct gshmemi_device_state));
    else
        snprintf(buf, n, "%d translation units of this program were built with gshmem_device.cuh "
                 "of another device-state version (the first: version %u, %zu bytes); this "
                 "libgshmem has version %u (%zu bytes): rebuild them against the installed "
                 "headers", units, version, bytes, GSHMEMI_DEVICE_STATE_VERSION,
                 sizeof(struct gshmemi_device_state));
}

API int gshmemi_device_state_register(gshmemi_device_state_update_fn fn, unsigned int version,
                                      size_t bytes)
{
    if (version != GSHMEMI_DEVICE_STATE_VERSION || bytes != sizeof(struct gshmemi_device_state)) {
        /* Its kernels would read a state never copied to them.  Before
         * gshmem_init (a static initialiser) the PE is not known yet:
         * gshmem_init says it.  After it (a library opened with dlopen)
         * the job ends here. */
        pthread_mutex_lock(&ds.lock);
        if (ds.refused++ == 0) {
            ds.refused_version = version;
            ds.refused_bytes = bytes;
        }
        pthread_mutex_unlock(&ds.lock);
        if (__atomic_load_n(&gshmemi_rt.initialized, __ATOMIC_ACQUIRE)) {
            char why[320];
            refused_message(why, sizeof(why), 1, version, bytes);
            GSHMEMI_ERROR(CORE, "a library loaded after gshmem_init: %s", why);
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "a unit of another device-state version");
        }
        return -1;
    }
    pthread_mutex_lock(&ds.lock);
    if (ds.n_fns == ds.cap_fns) {
        size_t cap = ds.cap_fns ? 2 * ds.cap_fns : 16;
        gshmemi_device_state_update_fn *f = realloc(ds.fns, cap * sizeof(*f));
        if (f == NULL) {
            pthread_mutex_unlock(&ds.lock);
            fprintf(stderr, "gshmem: out of memory registering a translation unit's device state\n");
            return -1;
        }
        ds.fns = f;
        ds.cap_fns = cap;
    }
    ds.fns[ds.n_fns++] = fn;
    /* Loaded after init (a library opened with dlopen): brought up to date now. */
    if (ds.state.initialized)
        publish_to("gshmemi_device_state_register", &ds.fns[ds.n_fns - 1], 1, 0);
    pthread_mutex_unlock(&ds.lock);
    return 0;
}

API void gshmemi_device_load_unit(void *function)
{
    static int warned;
    int rc = gshmemi_gpu_load_module_of(function);
    if (rc != 0 && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        GSHMEMI_WARN(CORE, "gshmem_init: cannot load the kernels of a translation unit that uses "
                     "the device API (status %d); with CUDA's lazy loading, a kernel launched for "
                     "the first time while another waits on the proxy can hang the job: set "
                     "CUDA_MODULE_LOADING=EAGER", rc);
}

API void gshmemi_device_state_unregister(gshmemi_device_state_update_fn fn)
{
    pthread_mutex_lock(&ds.lock);
    for (size_t i = 0; i < ds.n_fns; i++) {
        if (ds.fns[i] == fn) {
            ds.fns[i] = ds.fns[--ds.n_fns];
            break;
        }
    }
    pthread_mutex_unlock(&ds.lock);
}

GSHMEM_API int gshmemx_cumodule_init(struct CUmod_st *module)
{
    struct module_states m = {.module = module};

    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(CORE, "gshmemx_cumodule_init called before gshmem_init");
        return GSHMEM_ERR_NOT_INITIALIZED;
    }
    if (!gshmemi_heap.on_device) {
        GSHMEMI_ERROR(CORE, "gshmemx_cumodule_init(%p): the heap is in host memory (GSHMEM_HEAP), "
                      "where kernels have no device API", (void *)module);
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    if (module == NULL) {
        GSHMEMI_ERROR(CORE, "gshmemx_cumodule_init(NULL): no module");
        return GSHMEM_ERR_INVALID_ARG;
    }
    m.n = gshmemi_gpu_module_states(module, "gshmemi_dstate", "gshmemi_tu_anchorEv",
                                    sizeof(struct gshmemi_device_state), m.addrs,
                                    MODULE_MAX_UNITS);
    if (m.n == GSHMEM_ERR_ASYMMETRIC) {
        GSHMEMI_ERROR(CORE, "gshmemx_cumodule_init(%p): the module was built with another "
                      "version of gshmem_device.cuh than this libgshmem's (device state of "
                      "another size): rebuild it against the installed headers", (void *)module);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (m.n > MODULE_MAX_UNITS) {
        GSHMEMI_ERROR(CORE, "gshmemx_cumodule_init(%p): the module has %d units that include "
                      "the device API, more than the %d gshmem keeps track of", (void *)module,
                      m.n, MODULE_MAX_UNITS);
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    if (m.n <= 0) {
        GSHMEMI_ERROR(CORE, "gshmemx_cumodule_init(%p): the module holds no gshmem device state: "
                      "none of its sources includes gshmem_device.cuh (or nvshmem.h)%s",
                      (void *)module, m.n < 0 ? ", or it was linked with -rdc and this driver "
                      "cannot list its kernels (CUDA 12.4 can)" : "");
        return m.n < 0 ? m.n : GSHMEM_ERR_INVALID_ARG;
    }
    if (gshmemi_gpu_load_module(module) != 0)
        GSHMEMI_WARN(CORE, "gshmemx_cumodule_init(%p): cannot load the module's kernels; with "
                     "CUDA's lazy loading, one launched for the first time while another waits "
                     "on the proxy can hang the job: set CUDA_MODULE_LOADING=EAGER",
                     (void *)module);
    pthread_mutex_lock(&ds.lock);
    size_t i = 0;
    while (i < ds.n_modules && ds.modules[i].module != module)
        i++;
    if (i == ds.n_modules) {
        if (ds.n_modules == ds.cap_modules) {
            size_t cap = ds.cap_modules ? 2 * ds.cap_modules : 8;
            struct module_states *a = realloc(ds.modules, cap * sizeof(*a));
            if (a == NULL) {
                pthread_mutex_unlock(&ds.lock);
                GSHMEMI_ERROR(CORE, "gshmemx_cumodule_init(%p): out of memory", (void *)module);
                return GSHMEM_ERR_NO_MEMORY;
            }
            ds.modules = a;
            ds.cap_modules = cap;
        }
        ds.n_modules++;
    }
    ds.modules[i] = m;
    if (ds.state.initialized) {
        publish_module("gshmemx_cumodule_init", &ds.modules[i]);
        gshmemi_gpu_stream_sync("gshmemx_cumodule_init", ds.stream);
    }
    pthread_mutex_unlock(&ds.lock);
    return 0;
}

GSHMEM_API int gshmemx_cumodule_finalize(struct CUmod_st *module)
{
    pthread_mutex_lock(&ds.lock);
    for (size_t i = 0; i < ds.n_modules; i++) {
        if (ds.modules[i].module == module) {
            ds.modules[i] = ds.modules[--ds.n_modules];
            pthread_mutex_unlock(&ds.lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&ds.lock);
    GSHMEMI_ERROR(CORE, "gshmemx_cumodule_finalize(%p): not a module gshmemx_cumodule_init "
                  "was given", (void *)module);
    return GSHMEM_ERR_INVALID_ARG;
}

/* A library (cuLibraryLoad*) is a module in each context: this PE's. */
static struct CUmod_st *library_module(const char *call, struct CUlib_st *library)
{
    void *m = NULL;
    char why[160] = "no library";
    if (library == NULL || gshmemi_gpu_library_module(library, &m, why, sizeof(why)) != 0) {
        GSHMEMI_ERROR(CORE, "%s(%p): %s", call, (void *)library, why);
        return NULL;
    }
    return m;
}

GSHMEM_API int gshmemx_culibrary_init(struct CUlib_st *library)
{
    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(CORE, "gshmemx_culibrary_init called before gshmem_init");
        return GSHMEM_ERR_NOT_INITIALIZED;
    }
    struct CUmod_st *m = library_module("gshmemx_culibrary_init", library);
    return m == NULL ? GSHMEM_ERR_INVALID_ARG : gshmemx_cumodule_init(m);
}

GSHMEM_API int gshmemx_culibrary_finalize(struct CUlib_st *library)
{
    struct CUmod_st *m = library_module("gshmemx_culibrary_finalize", library);
    return m == NULL ? GSHMEM_ERR_INVALID_ARG : gshmemx_cumodule_finalize(m);
}

API void gshmemi_device_api_error(const char *call, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    GSHMEMI_ERROR(CORE, "%s: %s", call, msg);
}

static void gshmemi_coll_arg_text(int which, uint64_t v, char *buf, size_t n)
{
    static const char *const shapes[] = {"?",      "broadcast",     "collect", "fcollect",
                                         "alltoall", "alltoalls",   "reduce",  "reducescatter",
                                         "inscan", "exscan"};
    static const char *const ops[] = {"", "and ", "or ", "xor ", "min ", "max ", "sum ", "prod "};
    static const char *const elems[] = {"",       "signed integers", "unsigned integers",
                                        "floats", "complex numbers", "halfs",
                                        "bfloat16s"};
    const uint64_t kind = v % 4096, elem = v / 4096 % 16, size = v / 65536;
    const char *op = kind % 16 < GSHMEMI_ARRAY_SIZE(ops) ? ops[kind % 16] : "? ";
    const char *shape = kind / 16 < GSHMEMI_ARRAY_SIZE(shapes) ? shapes[kind / 16] : "?";
    if (which == GSHMEMI_COLL_ARG_KIND && elem > 0) /* the host's and stream forms' reductions */
        snprintf(buf, n, "%s%s of %llu-byte %s", op, shape, (unsigned long long)size,
                 elem < GSHMEMI_ARRAY_SIZE(elems) ? elems[elem] : "?");
    else if (which == GSHMEMI_COLL_ARG_KIND)
        snprintf(buf, n, "%s%s", op, shape);
    else if (which == GSHMEMI_COLL_ARG_BYTES)
        snprintf(buf, n, "%llu", (unsigned long long)v);
    else
        snprintf(buf, n, "%lld", (long long)(int64_t)v);
}

void gshmemi_coll_args_differ(int which, int next_pe, uint64_t theirs, uint64_t mine, char *buf,
                              size_t n)
{
    static const char *const fields[] = {"the collective", "bytes per member", "root"};
    char a[64], b[64];
    gshmemi_coll_arg_text(which, theirs, a, sizeof(a));
    gshmemi_coll_arg_text(which, mine, b, sizeof(b));
    snprintf(buf, n, "pe %d (the next member of the team) passed %s %s, this pe %s: every member "
             "must pass the same (GSHMEM_DEBUG_CHECKS)", next_pe,
             fields[which >= 0 && which < GSHMEMI_COLL_ARGS ? which : GSHMEMI_COLL_ARG_ROOT], a, b);
}

/* A partitioned call's failure (include/gshmem/internal/partitioned.h), in
 * the host forms' words. */
static void partitioned_text(const struct gshmemi_device_failure *f, char *buf, size_t n)
{
    const unsigned long long p = (unsigned long long)f->addr, parts = f->size,
                             r = f->expected, count = f->found;
    switch (f->cmp) {
    case GSHMEMI_PREQ_FAIL_NULL: snprintf(buf, n, "the request is NULL"); break;
    case GSHMEMI_PREQ_FAIL_ROLE:
        snprintf(buf, n, "%s", strstr(f->call, "parrived") != NULL
                                   ? "the request is a send: only the receiver tests arrival"
                                   : "the request is a receive: only the sender marks "
                                     "partitions ready");
        break;
    case GSHMEMI_PREQ_FAIL_NO_ROUND:
        snprintf(buf, n, "no round is open: call gshmemx_pstart first");
        break;
    case GSHMEMI_PREQ_FAIL_OPEN:
        snprintf(buf, n, "round %llu is still open: call gshmemx_pwait first", r);
        break;
    case GSHMEMI_PREQ_FAIL_RANGE:
        snprintf(buf, n, "partition %lld is out of range: the request has %llu partitions (0 to "
                 "%llu)", (long long)(int)p, parts, parts - 1);
        break;
    case GSHMEMI_PREQ_FAIL_TWICE:
        snprintf(buf, n, "partition %llu was already marked ready in round %llu", p, r);
        break;
    case GSHMEMI_PREQ_FAIL_NOT_MARKED:
        snprintf(buf, n, "round %llu ends with %llu of %llu partitions not marked ready (the "
                 "first: %llu)", r, count, parts, p);
        break;
    case GSHMEMI_PREQ_FAIL_NOT_MATCHED:
        snprintf(buf, n, "waited past GSHMEM_TIMEOUT (%g s): pe %d has not made receive request "
                 "%llu of the pair (gshmemx_precv_init with pe %d)", gshmemi_env.TIMEOUT, f->pe,
                 count, gshmemi_rt.my_pe);
        break;
    case GSHMEMI_PREQ_FAIL_NOT_STARTED:
        snprintf(buf, n, "waited past GSHMEM_TIMEOUT (%g s): pe %d has not started round %llu of "
                 "the pair's request %llu (gshmemx_pstart)", gshmemi_env.TIMEOUT, f->pe, r, count);
        break;
    case GSHMEMI_PREQ_FAIL_MISSING:
        snprintf(buf, n, "waited past GSHMEM_TIMEOUT (%g s): round %llu from pe %d is missing "
                 "%llu of %llu partitions (the first: %llu)", gshmemi_env.TIMEOUT, r, f->pe,
                 count, parts, p);
        break;
    case GSHMEMI_PREQ_FAIL_PEER_FREED:
        snprintf(buf, n, "pe %d freed its receive request %llu before it matched this send", f->pe,
                 count);
        break;
    case GSHMEMI_PREQ_FAIL_SEND_FREED:
        snprintf(buf, n, "pe %d freed its send request %llu before it matched this receive", f->pe,
                 count);
        break;
    case GSHMEMI_PREQ_FAIL_RECV_UNMATCHED:
        snprintf(buf, n, "waited past GSHMEM_TIMEOUT (%g s): pe %d has not matched receive request "
                 "%llu of the pair (its gshmemx_psend_init with pe %d, then a partitioned call or "
                 "a wait there)", gshmemi_env.TIMEOUT, f->pe, count, gshmemi_rt.my_pe);
        break;
    case GSHMEMI_PREQ_FAIL_LIST:
        snprintf(buf, n, "n is %lld with list %s", (long long)(int)count,
                 f->addr == 0 ? "NULL" : "given");
        break;
    case GSHMEMI_PREQ_FAIL_BAD_RANGE:
        snprintf(buf, n, "partitions %lld..%lld are not a range within 0..%llu", (long long)(int)p,
                 (long long)(int)count, parts - 1);
        break;
    case GSHMEMI_PREQ_FAIL_ROUNDS:
        snprintf(buf, n, "the request has run %llu rounds, the most it can", r);
        break;
    case GSHMEMI_PREQ_FAIL_CHUNKS:
        snprintf(buf, n, "round %llu: waited past GSHMEM_TIMEOUT (%g s) for %llu partitions' chunks "
                 "still moving and %lld of the wait's blocks still taking them", r,
                 gshmemi_env.TIMEOUT, p, (long long)count);
        break;
    default: snprintf(buf, n, "partitioned failure %d", f->cmp);
    }
}

static const char *reason_text(const struct gshmemi_device_failure *f, char *buf, size_t n)
{
    switch (f->reason) {
    case GSHMEMI_DEV_FAIL_PE_RANGE:
        snprintf(buf, n, "pe %d is not in [0, %d)", f->pe, gshmemi_rt.n_pes);
        break;
    case GSHMEMI_DEV_FAIL_NOT_HEAP:
        snprintf(buf, n, "address %#llx (%llu bytes) is not in the symmetric heap [%p, %p)",
                 (unsigned long long)f->addr, (unsigned long long)f->size, ds.state.heap_base,
                 ds.state.heap_base + ds.state.heap_size);
        break;
    case GSHMEMI_DEV_FAIL_MISALIGNED:
        snprintf(buf, n, "address %#llx is not aligned to the atomic's %llu bytes",
                 (unsigned long long)f->addr, (unsigned long long)f->size);
        break;
    case GSHMEMI_DEV_FAIL_UNMAPPED:
        snprintf(buf, n, "pe %d is not mapped into this PE (GSHMEM_DISABLE_P2P, or no P2P path "
                 "between the GPUs) and no proxy is running to reach it", f->pe);
        break;
    case GSHMEMI_DEV_FAIL_TIMEOUT: {
        /* A collective's wait names the member whose store it waited for. */
        char from[64] = "";
        if (f->pe >= 0 && f->pe != gshmemi_rt.my_pe)
            snprintf(from, sizeof(from), " (pe %d's to write)", f->pe);
        snprintf(buf, n, "waited past GSHMEM_TIMEOUT (%g s) at %#llx%s for cmp %d value %llu; it "
                 "holds %llu%s", gshmemi_env.TIMEOUT, (unsigned long long)f->addr, from, f->cmp,
                 (unsigned long long)f->expected, (unsigned long long)f->found,
                 ds.state.has_proxy ? " (with the proxy in use, one cause is a kernel outside the "
                                      "device API's units launched for the first time meanwhile: "
                                      "CUDA's lazy loading then stalls the proxy; "
                                      "CUDA_MODULE_LOADING=EAGER rules that out)" : "");
        break;
    }
    case GSHMEMI_DEV_FAIL_NOT_INIT:
        snprintf(buf, n, "gshmem is not initialised");
        break;
    case GSHMEMI_DEV_FAIL_TEAM:
        snprintf(buf, n, "team %d is not a team this pe is in", f->pe);
        break;
    case GSHMEMI_DEV_FAIL_COLL_ARGS:
        gshmemi_coll_args_differ((int)f->addr, f->pe, f->expected, f->found, buf, n);
        break;
    case GSHMEMI_DEV_FAIL_TEAM_GONE:
        snprintf(buf, n, "team %d was destroyed after the call was put on its stream (a CUDA graph "
                 "that holds it replayed after gshmem_team_destroy?)", f->pe);
        break;
    case GSHMEMI_DEV_FAIL_COLL_OVERLAP: {
        static const char *const rules[] = {
            "this collective has no in-place form", "in place, dest must be source",
            "in place, source must be this member's block of dest",
            "in place, dest must be this member's block of source"};
        snprintf(buf, n, "dest [%#llx, +%llu) overlaps source [%#llx, +%llu); %s (GSHMEM_DEBUG_CHECKS)",
                 (unsigned long long)f->addr, (unsigned long long)f->size,
                 (unsigned long long)f->expected, (unsigned long long)f->found,
                 rules[f->cmp >= 0 && f->cmp < 4 ? f->cmp : 0]);
        break;
    }
    case GSHMEMI_DEV_FAIL_PARTITIONED:
        partitioned_text(f, buf, n);
        break;
    default:
        snprintf(buf, n, "failure %d", f->reason);
    }
    return buf;
}

int gshmemi_device_host_call_enter(const char *call, const char *kernel_call)
{
    for (int i = 0; i < HOST_CALLS; i++) {
        int free_ = 0;
        if (__atomic_compare_exchange_n(&ds.host_calls[i].state, &free_, 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
            ds.host_calls[i].call = call;
            ds.host_calls[i].kernel = kernel_call;
            __atomic_store_n(&ds.host_calls[i].state, 2, __ATOMIC_RELEASE);
            return i;
        }
    }
    return -1;
}

void gshmemi_device_host_call_leave(int slot)
{
    if (slot >= 0)
        __atomic_store_n(&ds.host_calls[slot].state, 0, __ATOMIC_RELEASE);
}

/* The call a failed kernel ran for: where the host form of a collective
 * ran it as its stream form (the kernel's call one of those in flight
 * names), that host call. */
static void failed_call(const struct gshmemi_device_failure *f, char *buf, size_t n)
{
    char call[sizeof(f->call) + 1];
    memcpy(call, f->call, sizeof(f->call));
    call[sizeof(f->call)] = 0;
    for (int i = 0; i < HOST_CALLS; i++) {
        if (__atomic_load_n(&ds.host_calls[i].state, __ATOMIC_ACQUIRE) != 2)
            continue;
        char typed[64];
        const char *kernel = ds.host_calls[i].kernel;
        if (kernel == NULL) { /* built here, not on every call */
            snprintf(typed, sizeof(typed), "gshmemx_%s_on_stream",
                     strchr(ds.host_calls[i].call, '_') + 1);
            kernel = typed;
        }
        if (strcmp(kernel, call) == 0) {
            snprintf(buf, n, "%s (on the GPU, as its stream form)", ds.host_calls[i].call);
            return;
        }
    }
    snprintf(buf, n, "%s", call);
}

/* The job ends with one message, from whichever thread sees the failure
 * first: the watch, or a host call whose wait for the GPU the failing
 * kernel ended. */
static void report_failure(struct gshmemi_device_failure *f)
{
    static int reported;
    if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL) == 0) {
        char why[512], call[sizeof(f->call) + 128];
        failed_call(f, call, sizeof(call));
        GSHMEMI_ERROR(CORE, "%s in a kernel (block %u,%u,%u thread %u,%u,%u) failed: %s", call,
                      f->block[0], f->block[1], f->block[2], f->thread[0], f->thread[1],
                      f->thread[2], reason_text(f, why, sizeof(why)));
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "a device-side failure");
    }
    for (;;) { /* the other thread is ending the job */
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}

/* One look at the failure record, the watch's and failure_wait's alike:
 * report it (not returning), else sleep 5 ms. */
static void poll_failure(struct gshmemi_device_failure *f)
{
    if (__atomic_load_n(&f->ready, __ATOMIC_ACQUIRE))
        report_failure(f);
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

void gshmemi_device_failure_wait(void)
{
    struct gshmemi_device_failure *f = ds.failure;
    for (int i = 0; f != NULL && i < 200; i++) /* the trap may reach the host first */
        poll_failure(f);
}

/* A device failure is final for the job: the failing kernel has trapped,
 * so this PE's CUDA context is gone and its peers would wait for ever. */
static void *watch_main(void *arg)
{
    struct gshmemi_device_failure *f = arg;
    while (!__atomic_load_n(&ds.stop_watch, __ATOMIC_ACQUIRE))
        poll_failure(f);
    return NULL;
}

/* Kernels see the grown heap's size (its bases do not move). */
static int heap_grown(void *arg, size_t old_size, size_t new_size)
{
    (void)arg, (void)old_size;
    pthread_mutex_lock(&ds.lock);
    if (ds.state.initialized) {
        ds.state.heap_size = new_size;
        publish_locked("the heap's growth");
    }
    pthread_mutex_unlock(&ds.lock);
    return 0;
}

static struct gshmemi_heap_listener heap_listener = {.grown = heap_grown};

int gshmemi_device_state_start(void)
{
    struct gshmemi_heap *h = &gshmemi_heap;
    struct gshmemi_device_state *s = &ds.state;

    char why[320];
    pthread_mutex_lock(&ds.lock);
    const int refused = ds.refused;
    if (refused > 0)
        refused_message(why, sizeof(why), refused, ds.refused_version, ds.refused_bytes);
    pthread_mutex_unlock(&ds.lock);
    if (refused > 0) { /* a wrong build, whichever heap this run has */
        GSHMEMI_ERROR(CORE, "gshmem_init: %s", why);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (!h->on_device)
        return 0;
    pthread_mutex_lock(&ds.lock);
    memset(s, 0, sizeof(*s));
    s->version = GSHMEMI_DEVICE_STATE_VERSION;
    s->bytes = sizeof(*s);
    s->my_pe = gshmemi_rt.my_pe;
    s->n_pes = gshmemi_rt.n_pes;
    s->debug_checks = gshmemi_env.DEBUG_CHECKS;
    s->heap_base = h->my_base;
    s->heap_size = h->size;
    s->peer_base = h->dev_peer_base;
    for (int pe = 0; pe < gshmemi_rt.n_pes && pe < GSHMEMI_DEVICE_NEAR_PES; pe++)
        s->peer_base_near[pe] = gshmemi_heap_peer_addr(h->my_base, pe);
    s->dev_area = (uint64_t *)(void *)h->dev_internal;
    s->dev_area_off = (uint64_t)(h->dev_internal - h->my_base);
    _Static_assert(GSHMEMI_DEVICE_DBAR_MAX_ROUNDS >= 31, "an int count of PEs needs 31 rounds");
    for (long long d = 1; d < s->n_pes; d *= 2) {
        const int to = (int)((s->my_pe + d) % s->n_pes);
        char *base = gshmemi_heap_peer_addr(h->my_base, to);
        const int r = s->dbar_rounds++;
        s->dbar[r].pe = to;
        s->dbar[r].word = base == NULL ? NULL
                                       : (uint64_t *)(void *)(base + s->dev_area_off) +
                                             GSHMEMI_DEV_AREA_DBAR_ROUNDS + r;
    }
    s->timeout_ns = gshmemi_env.TIMEOUT > 0 ? (uint64_t)(gshmemi_env.TIMEOUT * 1e9) : 0;
    if (gshmemi_proxy_fifo() != NULL) {
        s->fifo = *gshmemi_proxy_fifo();
        s->has_proxy = 1;
    }
    if (ds.failure == NULL)
        ds.failure = gshmemi_gpu_host_alloc(sizeof(*ds.failure));
    s->failure = ds.failure;
    ds.stream = gshmemi_gpu_stream_new("gshmem_init");
    if (s->failure == NULL || ds.stream == NULL) {
        pthread_mutex_unlock(&ds.lock);
        GSHMEMI_ERROR(CORE, "gshmem_init: no memory for the device state");
        return GSHMEM_ERR_NO_MEMORY;
    }
    ds.stop_watch = 0;
    if (pthread_create(&ds.watch, NULL, watch_main, s->failure) != 0) {
        pthread_mutex_unlock(&ds.lock);
        GSHMEMI_ERROR(CORE, "gshmem_init: cannot start the device-failure watch thread");
        return GSHMEM_ERR_NO_MEMORY;
    }
    ds.watching = 1;
    s->initialized = 1;
    publish_locked("gshmem_init");
    pthread_mutex_unlock(&ds.lock);
    gshmemi_heap_listen(&heap_listener);
    return 0;
}

void gshmemi_device_state_stop(void)
{
    gshmemi_heap_unlisten(&heap_listener);
    pthread_mutex_lock(&ds.lock);
    if (ds.state.initialized) {
        /* Kernels launched after finalize fail with "not initialised". */
        memset(&ds.state, 0, sizeof(ds.state));
        ds.state.version = GSHMEMI_DEVICE_STATE_VERSION;
        ds.state.bytes = sizeof(ds.state);
        ds.state.my_pe = -1;
        publish_locked("gshmem_finalize");
    }
    /* The program may unload its modules now: a later init needs
     * gshmemx_cumodule_init again. */
    ds.n_modules = 0;
    if (ds.watching) {
        __atomic_store_n(&ds.stop_watch, 1, __ATOMIC_RELEASE);
        pthread_join(ds.watch, NULL);
        ds.watching = 0;
    }
    gshmemi_gpu_stream_free(ds.stream);
    ds.stream = NULL;
    gshmemi_gpu_free(ds.teams);
    gshmemi_gpu_free(ds.team_pes);
    ds.teams = NULL;
    ds.team_pes = NULL;
    /* The failure page stays for the next init: a kernel still running
     * after finalize may yet write it. */
    pthread_mutex_unlock(&ds.lock);
}

/* ---- teams ------------------------------------------------------------------ */

int gshmemi_device_teams_open(int n_teams, uint64_t words_off, uint64_t sizes_off,
                              const struct gshmemi_device_coll_area *coll)
{
    const size_t n_pes = (size_t)gshmemi_rt.n_pes;
    if (!gshmemi_heap.on_device)
        return 0;
    pthread_mutex_lock(&ds.lock);
    ds.teams = gshmemi_gpu_dev_alloc(sizeof(*ds.teams) * (size_t)n_teams); /* zeroed: n 0 */
    ds.team_pes = gshmemi_gpu_dev_alloc(sizeof(int) * n_pes * (size_t)n_teams);
    if (ds.teams == NULL || ds.team_pes == NULL) {
        gshmemi_gpu_free(ds.teams);
        gshmemi_gpu_free(ds.team_pes);
        ds.teams = NULL;
        ds.team_pes = NULL;
        pthread_mutex_unlock(&ds.lock);
        GSHMEMI_ERROR(CORE, "gshmem_init: no GPU memory for the teams' table");
        return GSHMEM_ERR_NO_MEMORY;
    }
    ds.state.teams = ds.teams;
    ds.state.n_teams = n_teams;
    ds.state.team_words_off = words_off;
    ds.state.coll_sizes_off = sizes_off;
    ds.state.coll_off = coll->off;
    ds.state.coll_slot_bytes = coll->slot_bytes;
    ds.state.coll_ll_off = coll->ll_off;
    ds.state.coll_ll_packets = coll->ll_packets;
    ds.state.coll_ll_max = coll->ll_max;
    publish_locked("gshmem_init");
    pthread_mutex_unlock(&ds.lock);
    return 0;
}

void gshmemi_device_state_load_units(const char *call)
{
    pthread_mutex_lock(&ds.lock);
    if (ds.state.initialized && !ds.state.load_units) {
        ds.state.load_units = 1;
        publish_locked(call);
    }
    pthread_mutex_unlock(&ds.lock);
}

void gshmemi_device_team_set(int slot, const int *pes, int n, int my, int mapped, int generation)
{
    if (ds.teams == NULL)
        return;
    int *gpu_pes = ds.team_pes + (size_t)slot * (size_t)gshmemi_rt.n_pes;
    const struct gshmemi_device_team t = {
        .n = n, .my = my, .mapped = mapped, .generation = generation, .pes = gpu_pes};
    gshmemi_gpu_copy("gshmem_team_split", gpu_pes, pes, sizeof(int) * (size_t)n, 1);
    gshmemi_gpu_copy("gshmem_team_split", &ds.teams[slot], &t, sizeof(t), 1);
}

void gshmemi_device_team_clear(int slot)
{
    static const struct gshmemi_device_team none = {.n = 0};
    if (ds.teams != NULL)
        gshmemi_gpu_copy("gshmem_team_destroy", &ds.teams[slot], &none, sizeof(none), 1);
}
