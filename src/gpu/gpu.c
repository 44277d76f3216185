#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"

/* nvcc writes "__nv_static_" L "_", then L characters of the unit's own,
 * then "_". */
size_t gshmemi_gpu_rdc_prefix_len(const char *name)
{
    static const char tag[] = "__nv_static_";
    char *end;
    if (strncmp(name, tag, sizeof(tag) - 1) != 0)
        return 0;
    unsigned long l = strtoul(name + sizeof(tag) - 1, &end, 10);
    if (end == name + sizeof(tag) - 1 || *end != '_' || strlen(end + 1) <= l || end[1 + l] != '_')
        return 0;
    return (size_t)(end + 2 + l - name);
}

#if GSHMEM_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>
#if GSHMEM_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif

static struct {
    pthread_mutex_t lock; /* the pinned result and bounce buffers: the
                           * application's thread and the transport's */
    int device;
    int overlap; /* stream kernels launched with programmatic dependent launch */
    cudaStream_t ops;  /* copies, atomics, signals: in issue order */
    cudaStream_t poll; /* reads for waits */
    /* the last fence's point in ops, until a write to host memory waited
     * for it (fence_open); under fence_lock */
    pthread_mutex_t fence_lock;
    cudaEvent_t fence;
    int fence_open;
    uint64_t *result;  /* pinned: a batch of atomics' fetched values */
    struct gshmemi_staging bounce; /* GPU_BOUNCE bytes: poll reads */
    /* stream memory operations (NULL where the driver has none) */
    CUresult (*write64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
    CUresult (*wait64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
    CUresult (*batch)(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int);
    /* cuFlushGPUDirectRDMAWrites, where this GPU needs it (NULL elsewhere) */
    CUresult (*flush_rdma)(CUflushGPUDirectRDMAWritesTarget, CUflushGPUDirectRDMAWritesScope);
} gpu = {
    .lock = PTHREAD_MUTEX_INITIALIZER, .fence_lock = PTHREAD_MUTEX_INITIALIZER, .device = -1};
#define GPU_BOUNCE (64u << 10)

#define GPU_FAIL(call, what, err)                                                                \
    do {                                                                                         \
        GSHMEMI_ERROR(GPU, "%s: %s failed: %s", call, what, cudaGetErrorString(err));           \
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);                                              \
    } while (0)
#define GPU_CHECK(call, what, expr)                                                              \
    do {                                                                                         \
        cudaError_t gpu_err_ = (expr);                                                           \
        if (gpu_err_ != cudaSuccess)                                                             \
            GPU_FAIL(call, what, gpu_err_);                                                      \
    } while (0)

static void *driver_symbol(const char *name, unsigned int version)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return fn;
}

void *gshmemi_gpu_driver_symbol(const char *name) { return driver_symbol(name, 12000); }

/* With lazy loading (CUDA's default) a kernel is loaded at its first
 * launch, and the loader waits for the GPU's running kernels while it
 * holds the context's lock.  When a running kernel waits on the proxy,
 * whose copies then wait on that lock, the job hangs: so every kernel of
 * a translation unit that uses the device API is loaded at init. */
/* The kernels of a module, in *fns (the caller frees it); their number, or
 * a negative gshmem status where the driver cannot list them (before 12.4). */
static int module_functions(CUmodule mod, CUfunction **fns)
{
    CUresult (*count)(unsigned int *, CUmodule) = driver_symbol("cuModuleGetFunctionCount", 12040);
    CUresult (*list)(CUfunction *, unsigned int, CUmodule) =
        driver_symbol("cuModuleEnumerateFunctions", 12040);
    unsigned int n = 0;
    if (count == NULL || list == NULL || count(&n, mod) != CUDA_SUCCESS)
        return GSHMEM_ERR_NOT_SUPPORTED;
    *fns = calloc(n ? n : 1, sizeof(**fns));
    if (*fns == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    if (list(*fns, n, mod) != CUDA_SUCCESS) {
        free(*fns);
        *fns = NULL;
        return GSHMEM_ERR_CUDA;
    }
    return (int)n;
}

int gshmemi_gpu_load_module(void *module)
{
    CUresult (*mode)(CUmoduleLoadingMode *) = driver_symbol("cuModuleGetLoadingMode", 12000);
    CUresult (*load)(CUfunction) = driver_symbol("cuFuncLoad", 12040);
    CUmoduleLoadingMode m;
    CUfunction *fns = NULL;

    if (mode == NULL || mode(&m) != CUDA_SUCCESS || m == CU_MODULE_EAGER_LOADING)
        return 0;
    if (load == NULL)
        return GSHMEM_ERR_NOT_SUPPORTED;
    int n = module_functions((CUmodule)module, &fns);
    int rc = n < 0 ? n : 0;
    for (int i = 0; i < n && rc == 0; i++)
        if (load(fns[i]) != CUDA_SUCCESS)
            rc = GSHMEM_ERR_CUDA;
    free(fns);
    return rc;
}

int gshmemi_gpu_load_module_of(void *function)
{
    CUresult (*mode)(CUmoduleLoadingMode *) = driver_symbol("cuModuleGetLoadingMode", 12000);
    CUresult (*module_of)(CUmodule *, CUfunction) = driver_symbol("cuFuncGetModule", 12000);
    CUmoduleLoadingMode m;
    CUmodule mod;

    if (mode == NULL || mode(&m) != CUDA_SUCCESS || m == CU_MODULE_EAGER_LOADING)
        return 0;
    if (module_of == NULL || module_of(&mod, (CUfunction)function) != CUDA_SUCCESS)
        return GSHMEM_ERR_NOT_SUPPORTED;
    return gshmemi_gpu_load_module(mod);
}

/* A unit compiled whole (no -rdc) names its state object plainly; one
 * compiled with -rdc gets a prefix of its own on every internal name,
 * the same on the state object as on the unit's anchor kernel, so the
 * anchors found among the module's kernels give the state objects'
 * names.  Every unit is counted, max of them written. */
int gshmemi_gpu_module_states(void *module, const char *state, const char *anchor,
                              size_t bytes, void **addrs, int max)
{
    CUresult (*global)(CUdeviceptr *, size_t *, CUmodule, const char *) =
        driver_symbol("cuModuleGetGlobal", 12000);
    CUresult (*name_of)(const char **, CUfunction) = driver_symbol("cuFuncGetName", 12030);
    CUmodule mod = (CUmodule)module;
    CUdeviceptr p;
    size_t got;
    int found = 0;

    if (global == NULL)
        return GSHMEM_ERR_NOT_SUPPORTED;
    if (global(&p, &got, mod, state) == CUDA_SUCCESS) {
        if (got != bytes)
            return GSHMEM_ERR_ASYMMETRIC;
        addrs[found++] = (void *)(uintptr_t)p;
    }
    CUfunction *fns = NULL;
    int n = name_of == NULL ? GSHMEM_ERR_NOT_SUPPORTED : module_functions(mod, &fns);
    if (n < 0)
        return found > 0 ? found : n;
    const size_t anchor_len = strlen(anchor);
    int st = 0;
    for (int i = 0; i < n && st == 0; i++) {
        const char *name;
        size_t len, pre;
        if (name_of(&name, fns[i]) != CUDA_SUCCESS || (pre = gshmemi_gpu_rdc_prefix_len(name)) == 0)
            continue;
        len = strlen(name);
        if (len < anchor_len || strcmp(name + len - anchor_len, anchor) != 0)
            continue;
        char full[512];
        if (snprintf(full, sizeof(full), "%.*s%s", (int)pre, name, state) >= (int)sizeof(full) ||
            global(&p, &got, mod, full) != CUDA_SUCCESS) {
            GSHMEMI_ERROR(GPU, "a module's unit has the anchor kernel %s but no state object %s",
                          name, full);
            st = GSHMEM_ERR_INTERNAL;
        } else if (got != bytes) {
            st = GSHMEM_ERR_ASYMMETRIC;
        } else if (found++ < max) {
            addrs[found - 1] = (void *)(uintptr_t)p;
        }
    }
    free(fns);
    return st != 0 ? st : found;
}

/* A driver call's error, in words. */
static const char *driver_error(CUresult r)
{
    CUresult (*error_name)(CUresult, const char **) = driver_symbol("cuGetErrorString", 6000);
    const char *e = NULL;
    return error_name != NULL && error_name(r, &e) == CUDA_SUCCESS && e != NULL ? e : "unknown error";
}

int gshmemi_gpu_library_module(void *library, void **module, char *why, size_t why_len)
{
    CUresult (*get)(CUmodule *, CUlibrary) = driver_symbol("cuLibraryGetModule", 12000);
    CUmodule m;
    CUresult r;
    if (get == NULL) {
        snprintf(why, why_len, "the CUDA driver has no cuLibraryGetModule");
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    if ((r = get(&m, (CUlibrary)library)) != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuLibraryGetModule in the calling thread's context: %s",
                 driver_error(r));
        return GSHMEM_ERR_INVALID_ARG;
    }
    *module = m;
    return 0;
}

int gshmemi_gpu_copy_to_module(void *addr, const void *src, size_t n, void *stream)
{
    return (int)cudaMemcpyAsync(addr, src, n, cudaMemcpyHostToDevice, (cudaStream_t)stream);
}

int gshmemi_gpu_lazy_loading(void)
{
    CUresult (*mode)(CUmoduleLoadingMode *) = driver_symbol("cuModuleGetLoadingMode", 12000);
    CUmoduleLoadingMode m;
    return mode != NULL && mode(&m) == CUDA_SUCCESS && m == CU_MODULE_LAZY_LOADING;
}

/* Whether the application made a context current before gshmem_init. */
static int app_device(void)
{
    CUresult (*get_current)(CUcontext *) = gshmemi_gpu_driver_symbol("cuCtxGetCurrent");
    CUcontext ctx = NULL;
    int dev;
    if (get_current == NULL || get_current(&ctx) != CUDA_SUCCESS || ctx == NULL)
        return -1;
    return cudaGetDevice(&dev) == cudaSuccess ? dev : -1;
}

int gshmemi_gpu_count(char *why, size_t why_len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice)
        snprintf(why, why_len, "no NVIDIA driver, or one older than this CUDA runtime (%s)",
                 cudaGetErrorString(err));
    else if (err != cudaSuccess)
        snprintf(why, why_len, "%s", cudaGetErrorString(err));
    else if (count == 0)
        snprintf(why, why_len, "the CUDA runtime sees no GPU");
    cudaGetLastError(); /* clear it */
    return err == cudaSuccess ? count : 0;
}

int gshmemi_gpu_describe(int dev, char *buf, size_t len)
{
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
        return GSHMEM_ERR_CUDA;
    cudaDeviceGetPCIBusId(bus, sizeof(bus), dev);
    snprintf(buf, len, "%s, sm_%d%d, %.1f GiB, PCI %s", prop.name, prop.major, prop.minor,
             (double)prop.totalGlobalMem / (1 << 30), bus);
    return 0;
}

/* A device attribute of dev through the driver, 0 where it cannot be read. */
static int driver_attribute(CUdevice_attribute what, int dev)
{
    CUresult (*attr)(int *, CUdevice_attribute, CUdevice) =
        gshmemi_gpu_driver_symbol("cuDeviceGetAttribute");
    int v = 0;
    if (attr == NULL || attr(&v, what, dev) != CUDA_SUCCESS)
        return 0;
    return v;
}

/* A NIC's writes into dev's memory (GPUDirect RDMA) reach it in an order of
 * their own, unless the device promises to see them in order; where it
 * does not and can flush them, gets into its memory end with a flush. */
static int rdma_flush_needed(int dev)
{
    return driver_attribute(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, dev) <
               CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER &&
           (driver_attribute(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, dev) &
            CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST);
}

int gshmemi_gpu_describe_rdma(int dev, char *buf, size_t len)
{
    snprintf(buf, len, "dma-buf export %s, GPUDirect RDMA on VMM memory %s, NIC writes %s",
             driver_attribute(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) ? "yes" : "no",
             driver_attribute(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, dev)
                 ? "yes" : "no",
             driver_attribute(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, dev) >=
                     CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER ? "seen in order"
                                                             : "flushed after gets");
    return 0;
}

int gshmemi_gpu_peermem_loaded(void)
{
    return access("/sys/module/nvidia_peermem", F_OK) == 0 ||
           access("/sys/module/nv_peer_mem", F_OK) == 0;
}

/* What gshmemi_gpu_open made, as much of it as it made. */
static void release(void)
{
    if (gpu.ops != NULL) {
        cudaStreamSynchronize(gpu.ops);
        cudaStreamDestroy(gpu.ops);
        gpu.ops = NULL;
    }
    if (gpu.poll != NULL)
        cudaStreamDestroy(gpu.poll);
    if (gpu.fence != NULL)
        cudaEventDestroy(gpu.fence);
    if (gpu.result != NULL)
        cudaFreeHost(gpu.result);
    gpu.poll = NULL;
    gpu.fence = NULL;
    gpu.fence_open = 0;
    gpu.result = NULL;
    gshmemi_staging_free(&gpu.bounce);
}

int gshmemi_gpu_open(int local_rank, char *why, size_t why_len)
{
    int count = gshmemi_gpu_count(why, why_len), dev, prio_low, prio_high;
    cudaError_t err;

    if (count == 0)
        return GSHMEM_ERR_NOT_SUPPORTED;
    if (gshmemi_env.DEVICE >= 0) {
        dev = (int)gshmemi_env.DEVICE;
        if (dev >= count) {
            GSHMEMI_ERROR(GPU, "GSHMEM_DEVICE is %d but this process sees %d GPU(s)", dev, count);
            return GSHMEM_ERR_INVALID_ARG;
        }
    } else if ((dev = app_device()) < 0) {
        dev = local_rank % count;
    }
    if ((err = cudaSetDevice(dev)) != cudaSuccess || (err = cudaFree(NULL)) != cudaSuccess ||
        (err = cudaDeviceGetStreamPriorityRange(&prio_low, &prio_high)) != cudaSuccess ||
        /* The highest priority: the runtime's small kernels (atomics,
         * signals) get the first free SM when application kernels leave one. */
        (err = cudaStreamCreateWithPriority(&gpu.ops, cudaStreamNonBlocking, prio_high)) !=
            cudaSuccess ||
        (err = cudaStreamCreateWithPriority(&gpu.poll, cudaStreamNonBlocking, prio_high)) !=
            cudaSuccess ||
        (err = cudaEventCreateWithFlags(&gpu.fence, cudaEventDisableTiming)) != cudaSuccess ||
        (err = cudaHostAlloc((void **)&gpu.result, GSHMEMI_AMO_BATCH * sizeof(uint64_t),
                            cudaHostAllocMapped)) != cudaSuccess) {
        GSHMEMI_ERROR(GPU, "cannot set up GPU %d: %s", dev, cudaGetErrorString(err));
        release();
        return GSHMEM_ERR_CUDA;
    }
    if ((err = (cudaError_t)gshmemi_preload_kernels()) != cudaSuccess) {
        /* Not fatal: the host copies need no kernel; a launch will say more. */
        GSHMEMI_WARN(GPU, "cannot load gshmem's kernels on GPU %d: %s (a GPU older than the "
                     "build's -Dgpu_arch?); their first launches may wait for running kernels",
                     dev, cudaGetErrorString(err));
        cudaGetLastError();
    }
    gpu.write64 = gshmemi_gpu_driver_symbol("cuStreamWriteValue64");
    gpu.wait64 = gshmemi_gpu_driver_symbol("cuStreamWaitValue64");
    gpu.batch = gshmemi_gpu_driver_symbol("cuStreamBatchMemOp");
    gpu.flush_rdma = rdma_flush_needed(dev) ? gshmemi_gpu_driver_symbol("cuFlushGPUDirectRDMAWrites")
                                            : NULL;
    gpu.device = dev;
    int major = 0;
    gpu.overlap = gshmemi_env.STREAM_PDL &&
                  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ==
                      cudaSuccess &&
                  major >= 9 && gshmemi_kernels_wait_previous();
    if (gshmemi_staging_alloc(&gpu.bounce, GPU_BOUNCE, "host's polls of GPU memory") != 0) {
        gshmemi_gpu_close();
        return GSHMEM_ERR_NO_MEMORY;
    }
    GSHMEMI_INFO(GPU, "using GPU %d of %d%s", dev, count,
                 gpu.overlap ? ", stream kernels with programmatic dependent launch" : "");
    return 0;
}

void gshmemi_gpu_close(void)
{
    if (gpu.device < 0)
        return;
    release();
    gpu.device = -1;
}

int gshmemi_gpu_device(void) { return gpu.device; }
int gshmemi_gpu_overlap_launches(void) { return gpu.overlap; }

int gshmemi_gpu_bus_id(char *buf, size_t len)
{
    if (gpu.device < 0 || cudaDeviceGetPCIBusId(buf, (int)len, gpu.device) != cudaSuccess)
        return GSHMEM_ERR_CUDA;
    for (char *c = buf; *c; c++) /* as sysfs spells it */
        *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
    return 0;
}

int gshmemi_gpu_numa_node(void)
{
#if GSHMEM_HAVE_NUMA
    char bus[32], path[128];
    if (gpu.device < 0 || numa_available() < 0 || gshmemi_gpu_bus_id(bus, sizeof(bus)) != 0)
        return -1;
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", bus);
    int node = gshmemi_read_int_file(path);
    /* A machine of one node (or a virtual one) often says -1 */
    return node >= 0 ? node : numa_num_configured_nodes() == 1 ? 0 : -1;
#else
    return -1;
#endif
}

void gshmemi_gpu_bind_thread(const char *who)
{
    if (gpu.device < 0)
        return;
    cudaSetDevice(gpu.device);
    /* Its copies and synchronisations never touch an application's stream:
     * allowed while the application captures one in CUDA's global mode. */
    (void)gshmemi_gpu_capture_relax();
#if GSHMEM_HAVE_NUMA
    int node = gshmemi_gpu_numa_node();
    if (node >= 0 && numa_run_on_node(node) == 0)
        GSHMEMI_INFO(GPU, "%s thread on NUMA node %d, the GPU's", who, node);
#else
    (void)who;
#endif
}


int gshmemi_gpu_uuid(int dev, unsigned char uuid[16])
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
        return GSHMEM_ERR_CUDA;
    memcpy(uuid, prop.uuid.bytes, 16);
    return 0;
}

int gshmemi_gpu_ordinal_of(const unsigned char uuid[16])
{
    int count = 0;
    unsigned char u[16];
    cudaGetDeviceCount(&count);
    for (int d = 0; d < count; d++)
        if (gshmemi_gpu_uuid(d, u) == 0 && memcmp(u, uuid, 16) == 0)
            return d;
    return -1;
}

int gshmemi_gpu_can_access(int dev, int peer_dev)
{
    int can = 0;
    if (dev == peer_dev)
        return 1;
    return cudaDeviceCanAccessPeer(&can, dev, peer_dev) == cudaSuccess && can;
}

void gshmemi_gpu_copy(const char *call, void *dst, const void *src, size_t n, int blocking)
{
    const int prev = gshmemi_gpu_enter();
    GPU_CHECK(call, "cudaMemcpyAsync", cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, gpu.ops));
    if (blocking)
        GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize(gpu.ops));
    gshmemi_gpu_leave(prev);
}

void gshmemi_gpu_copy_strided(const char *call, void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t esize, size_t count, int blocking)
{
    const int prev = gshmemi_gpu_enter();
    GPU_CHECK(call, "cudaMemcpy2DAsync",
              cudaMemcpy2DAsync(dst, dpitch, src, spitch, esize, count, cudaMemcpyDefault, gpu.ops));
    if (blocking)
        GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize(gpu.ops));
    gshmemi_gpu_leave(prev);
}

void gshmemi_gpu_memset(const char *call, void *dst, int value, size_t n)
{
    const int prev = gshmemi_gpu_enter();
    GPU_CHECK(call, "cudaMemsetAsync", cudaMemsetAsync(dst, value, n, gpu.ops));
    GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize(gpu.ops));
    gshmemi_gpu_leave(prev);
}

/* Through a pinned bounce of fixed size, allocated at init: cudaFreeHost
 * waits for the whole device, so growing it here could wait for a kernel
 * that waits for this thread. */
void gshmemi_gpu_read(const char *call, void *dst, const void *src, size_t n)
{
    const int prev = gshmemi_gpu_enter();
    pthread_mutex_lock(&gpu.lock);
    for (size_t done = 0; done < n; done += GPU_BOUNCE) {
        const size_t len = GSHMEMI_MIN(n - done, (size_t)GPU_BOUNCE);
        GPU_CHECK(call, "cudaMemcpyAsync",
                  cudaMemcpyAsync(gpu.bounce.base, (const char *)src + done, len, cudaMemcpyDefault,
                                  gpu.poll));
        GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize(gpu.poll));
        memcpy((char *)dst + done, gpu.bounce.base, len);
    }
    pthread_mutex_unlock(&gpu.lock);
    gshmemi_gpu_leave(prev);
}

void gshmemi_gpu_atomics(const char *call, const struct gshmemi_amo_req *ops, size_t n,
                         uint64_t *old)
{
    if (n == 0)
        return;
    const int prev = gshmemi_gpu_enter();
    if (old == NULL) {
        int err = gshmemi_launch_amos(gpu.ops, ops, n, NULL);
        if (err != cudaSuccess)
            GPU_FAIL(call, "the atomics kernel", (cudaError_t)err);
        gshmemi_gpu_leave(prev);
        return;
    }
    pthread_mutex_lock(&gpu.lock);
    int err = gshmemi_launch_amos(gpu.ops, ops, n, gpu.result);
    if (err != cudaSuccess)
        GPU_FAIL(call, "the atomics kernel", (cudaError_t)err);
    GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize(gpu.ops));
    for (size_t i = 0; i < n; i++)
        old[i] = ops[i].size == 4 ? (uint32_t)gpu.result[i] : gpu.result[i];
    pthread_mutex_unlock(&gpu.lock);
    gshmemi_gpu_leave(prev);
}

uint64_t gshmemi_gpu_atomic(const char *call, void *addr, int op, size_t size, uint64_t a,
                            uint64_t b, int fetch)
{
    const struct gshmemi_amo_req o = {.addr = addr, .a = a, .b = b, .op = op, .size = (int32_t)size};
    uint64_t old = 0;
    gshmemi_gpu_atomics(call, &o, 1, fetch ? &old : NULL);
    return old;
}

static void copy_batch(const char *call, void *const *dsts, const void *const *srcs,
                       const size_t *sizes, size_t n, const unsigned char *src_now, void *stream)
{
    cudaStream_t s = stream != NULL ? (cudaStream_t)stream : gpu.ops;
    /* one attribute per run of copies with the same source order */
    struct cudaMemcpyAttributes attrs[64];
    size_t first[64], n_attrs = 0, any_now = 0;
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        const int now = src_now != NULL && src_now[i];
        any_now |= (size_t)now;
        if (n_attrs > 0 && (attrs[n_attrs - 1].srcAccessOrder ==
                            cudaMemcpySrcAccessOrderDuringApiCall) == now)
            continue;
        if (n_attrs == 64) { /* too many runs for one call: the rest as a second batch */
            copy_batch(call, dsts, srcs, sizes, i, src_now, stream);
            copy_batch(call, dsts + i, srcs + i, sizes + i, n - i,
                       src_now != NULL ? src_now + i : NULL, stream);
            return;
        }
        attrs[n_attrs] = (struct cudaMemcpyAttributes){
            .srcAccessOrder = now ? cudaMemcpySrcAccessOrderDuringApiCall
                                  : cudaMemcpySrcAccessOrderStream};
        first[n_attrs++] = i;
    }
    cudaError_t err = cudaMemcpyBatchAsync(dsts, srcs, sizes, n, attrs, first, n_attrs, s);
    if (err == cudaErrorNotSupported || err == cudaErrorCallRequiresNewerDriver) {
        /* An older driver: one copy at a time, done before the sources go. */
        cudaGetLastError();
        for (size_t i = 0; i < n; i++)
            GPU_CHECK(call, "cudaMemcpyAsync",
                      cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], cudaMemcpyDefault, s));
        if (any_now)
            GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize(s));
        return;
    }
    GPU_CHECK(call, "cudaMemcpyBatchAsync", err);
}

void gshmemi_gpu_copy_batch(const char *call, void *const *dsts, const void *const *srcs,
                            const size_t *sizes, size_t n, const unsigned char *src_now,
                            void *stream)
{
    const int prev = gshmemi_gpu_enter();
    copy_batch(call, dsts, srcs, sizes, n, src_now, stream);
    gshmemi_gpu_leave(prev);
}

int gshmemi_gpu_enter(void)
{
    int cur;
    if (gpu.device < 0 || cudaGetDevice(&cur) != cudaSuccess || cur == gpu.device)
        return -1;
    cudaSetDevice(gpu.device);
    return cur;
}

void gshmemi_gpu_leave(int prev)
{
    if (prev >= 0)
        cudaSetDevice(prev);
}

void *gshmemi_gpu_stream_new(const char *call)
{
    cudaStream_t s;
    int lo, hi;
    const int prev = gshmemi_gpu_enter();
    cudaError_t err = cudaDeviceGetStreamPriorityRange(&lo, &hi);
    if (err == cudaSuccess)
        err = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, hi);
    gshmemi_gpu_leave(prev);
    if (err != cudaSuccess) {
        GSHMEMI_ERROR(GPU, "%s: cannot create a stream: %s", call, cudaGetErrorString(err));
        cudaGetLastError();
        return NULL;
    }
    return s;
}

void gshmemi_gpu_stream_free(void *stream)
{
    if (stream != NULL)
        cudaStreamDestroy((cudaStream_t)stream);
}

void gshmemi_gpu_stream_sync(const char *call, void *stream)
{
    GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize((cudaStream_t)stream));
}

int gshmemi_gpu_stream_finish(void *stream)
{
    return (int)cudaStreamSynchronize((cudaStream_t)stream);
}

int gshmemi_gpu_sets_need_no_sm(void) { return gpu.write64 != NULL; }

/* A set is a stream memory operation, which needs no SM: it lands even when
 * the application's kernels occupy every SM.  An add needs a kernel. */
void gshmemi_gpu_signal(const char *call, uint64_t *addr, uint64_t value, int op)
{
    const int prev = gshmemi_gpu_enter();
    if (op == 0 && gpu.write64 != NULL &&
        gpu.write64((CUstream)gpu.ops, (CUdeviceptr)(uintptr_t)addr, value, 0) == CUDA_SUCCESS) {
        gshmemi_gpu_leave(prev);
        return;
    }
    int err = gshmemi_launch_signal(gpu.ops, addr, value, op);
    if (err != cudaSuccess)
        GPU_FAIL(call, "the signal kernel", (cudaError_t)err);
    gshmemi_gpu_leave(prev);
}

/* (the driver takes up to 256 operations a batch) */
#define SET_BATCH 128

void gshmemi_gpu_set_words(const char *call, uint64_t *const *addr, const uint64_t *value, size_t n)
{
    if (gpu.batch == NULL || gpu.write64 == NULL) {
        for (size_t i = 0; i < n; i++)
            gshmemi_gpu_signal(call, addr[i], value[i], GSHMEM_SIGNAL_SET);
        return;
    }
    const int prev = gshmemi_gpu_enter();
    CUstreamBatchMemOpParams ops[SET_BATCH];
    for (size_t i = 0; i < n;) {
        unsigned k = 0;
        for (; k < SET_BATCH && i < n; k++, i++) {
            memset(&ops[k], 0, sizeof(ops[k]));
            ops[k].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
            ops[k].writeValue.address = (CUdeviceptr)(uintptr_t)addr[i];
            ops[k].writeValue.value64 = value[i];
        }
        CUresult r = gpu.batch((CUstream)gpu.ops, k, ops, 0);
        if (r != CUDA_SUCCESS) {
            GSHMEMI_ERROR(GPU, "%s: cuStreamBatchMemOp of %u writes failed: %s", call, k,
                          driver_error(r));
            gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
        }
    }
    gshmemi_gpu_leave(prev);
}

void gshmemi_gpu_quiet(const char *call)
{
    if (gpu.device >= 0)
        GPU_CHECK(call, "cudaStreamSynchronize", cudaStreamSynchronize(gpu.ops));
}

void gshmemi_gpu_fence(const char *call)
{
    const int prev = gshmemi_gpu_enter(), mode = gshmemi_gpu_capture_relax();
    pthread_mutex_lock(&gpu.fence_lock);
    GPU_CHECK(call, "cudaEventRecord", cudaEventRecord(gpu.fence, gpu.ops));
    __atomic_store_n(&gpu.fence_open, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&gpu.fence_lock);
    gshmemi_gpu_capture_restore(mode);
    gshmemi_gpu_leave(prev);
}

void gshmemi_gpu_fence_wait(const char *call)
{
    if (!__atomic_load_n(&gpu.fence_open, __ATOMIC_ACQUIRE))
        return;
    const int prev = gshmemi_gpu_enter(), mode = gshmemi_gpu_capture_relax();
    pthread_mutex_lock(&gpu.fence_lock); /* a fence meanwhile records after this: not lost */
    if (gpu.fence_open) {
        GPU_CHECK(call, "cudaEventSynchronize", cudaEventSynchronize(gpu.fence));
        __atomic_store_n(&gpu.fence_open, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&gpu.fence_lock);
    gshmemi_gpu_capture_restore(mode);
    gshmemi_gpu_leave(prev);
}

void gshmemi_gpu_flush_rdma_writes(const char *call)
{
    if (gpu.device < 0 || gpu.flush_rdma == NULL)
        return;
    CUresult r = gpu.flush_rdma(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER);
    if (r != CUDA_SUCCESS) {
        GSHMEMI_ERROR(GPU, "%s: cuFlushGPUDirectRDMAWrites failed (CUDA driver error %d)", call,
                      (int)r);
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
    }
}

void *gshmemi_gpu_mark_new(void)
{
    cudaEvent_t e;
    const int prev = gshmemi_gpu_enter();
    const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    gshmemi_gpu_leave(prev);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return e;
}

void gshmemi_gpu_mark(const char *call, void *mark)
{
    GPU_CHECK(call, "cudaEventRecord", cudaEventRecord((cudaEvent_t)mark, gpu.ops));
}

void gshmemi_gpu_mark_wait(const char *call, void *mark)
{
    GPU_CHECK(call, "cudaEventSynchronize", cudaEventSynchronize((cudaEvent_t)mark));
}

int gshmemi_gpu_mark_done(const char *call, void *mark)
{
    const cudaError_t err = cudaEventQuery((cudaEvent_t)mark);
    if (err == cudaErrorNotReady)
        return 0;
    GPU_CHECK(call, "cudaEventQuery", err);
    return 1;
}

void gshmemi_gpu_mark_free(void *mark)
{
    if (mark != NULL)
        cudaEventDestroy((cudaEvent_t)mark);
}

void gshmemi_gpu_copy_on(const char *call, void *dst, const void *src, size_t n, void *stream)
{
    const int prev = gshmemi_gpu_enter();
    GPU_CHECK(call, "cudaMemcpyAsync",
              cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, (cudaStream_t)stream));
    gshmemi_gpu_leave(prev);
}

void *gshmemi_gpu_table(const char *call, const void *host, size_t n)
{
    void *p = NULL;
    const int prev = gshmemi_gpu_enter();
    GPU_CHECK(call, "cudaMalloc", cudaMalloc(&p, n));
    GPU_CHECK(call, "cudaMemcpy", cudaMemcpy(p, host, n, cudaMemcpyHostToDevice));
    gshmemi_gpu_leave(prev);
    return p;
}

void gshmemi_gpu_free(void *p)
{
    if (p != NULL)
        cudaFree(p);
}

int gshmemi_gpu_capturing(void *stream)
{
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing((cudaStream_t)stream, &st);
    return st != cudaStreamCaptureStatusNone;
}

int gshmemi_gpu_capture_relax(void)
{
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) {
        cudaGetLastError(); /* (the application's) */
        return -1;
    }
    return (int)mode;
}

void gshmemi_gpu_capture_restore(int mode)
{
    enum cudaStreamCaptureMode m = (enum cudaStreamCaptureMode)mode;
    if (mode >= 0 && cudaThreadExchangeStreamCaptureMode(&m) != cudaSuccess)
        cudaGetLastError();
}

int gshmemi_gpu_wait_value(void *stream, const uint64_t *addr, uint64_t value, int eq)
{
    if (gpu.wait64 == NULL)
        return -1;
    return gpu.wait64((CUstream)stream, (CUdeviceptr)(uintptr_t)addr, value,
                  eq ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS ? 0 : -1;
}

void gshmemi_gpu_launch_failed(const char *call, const char *what, int err)
{
    GPU_FAIL(call, what, (cudaError_t)err);
}

void *gshmemi_gpu_host_alloc(size_t n)
{
    void *p = NULL;
    if (cudaHostAlloc(&p, n, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    memset(p, 0, n);
    return p;
}

void *gshmemi_gpu_host_alloc_near(size_t n)
{
#if GSHMEM_HAVE_NUMA
    /* A pinned allocation's pages are expected on the node the calling
     * thread runs on (the kernel's default, local policy), so the thread
     * runs on the GPU's node for the call; where they landed is logged
     * (GSHMEM_DEBUG=info) and checked by tests/gpu/gpu_fifo.  Memory placed
     * with numa_alloc_onnode and then registered landed exactly, but left
     * GPU memory in use growing over init/finalize cycles. */
    const int node = gshmemi_gpu_numa_node();
    cpu_set_t was;
    const int moved = node >= 0 && sched_getaffinity(0, sizeof(was), &was) == 0 &&
                      numa_run_on_node(node) == 0;
    void *p = gshmemi_gpu_host_alloc(n);
    if (moved)
        sched_setaffinity(0, sizeof(was), &was);
    int at = -1;
    if (p != NULL && node >= 0 && get_mempolicy(&at, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR) == 0)
        GSHMEMI_INFO(GPU, "%zu bytes of pinned host memory on NUMA node %d (the GPU's: %d)", n, at,
                     node);
    return p;
#else
    return gshmemi_gpu_host_alloc(n);
#endif
}

int gshmemi_gpu_is_device_ptr(const void *p)
{
    struct cudaPointerAttributes attr;
    if (gpu.device < 0)
        return 0;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

void gshmemi_gpu_copy_local(const char *call, void *dst, const void *src, size_t n)
{
    if (gshmemi_gpu_is_device_ptr(dst) || gshmemi_gpu_is_device_ptr(src))
        gshmemi_gpu_copy(call, dst, src, n, 1);
    else
        memcpy(dst, src, n);
}

int gshmemi_gpu_kernel_reachable(const void *p)
{
    struct cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
           (attr.type == cudaMemoryTypeHost && attr.devicePointer == p);
}

void gshmemi_gpu_host_free(void *p)
{
    if (p != NULL)
        cudaFreeHost(p);
}

void *gshmemi_gpu_dev_alloc(size_t n)
{
    void *p = NULL;
    const int prev = gshmemi_gpu_enter();
    /* zeroed on the runtime's stream, not the legacy one: that would wait
     * for the application's kernels */
    const int failed =
        cudaMalloc(&p, n) != cudaSuccess ||
        (gpu.ops != NULL ? cudaMemsetAsync(p, 0, n, gpu.ops) : cudaMemset(p, 0, n)) != cudaSuccess ||
        (gpu.ops != NULL && cudaStreamSynchronize(gpu.ops) != cudaSuccess);
    gshmemi_gpu_leave(prev);
    if (failed) {
        cudaGetLastError();
        if (p != NULL)
            cudaFree(p);
        return NULL;
    }
    return p;
}

int gshmemi_gpu_pin(const char *call, void *addr, size_t len)
{
    struct cudaPointerAttributes attr;
    cudaError_t err;
    if (cudaPointerGetAttributes(&attr, addr) == cudaSuccess &&
        (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged))
        return 1;
    cudaGetLastError();
    err = cudaHostRegister(addr, len, cudaHostRegisterDefault);
    if (err != cudaSuccess) {
        GSHMEMI_ERROR(GPU, "%s(%p, %zu): cudaHostRegister failed: %s", call, addr, len,
                      cudaGetErrorString(err));
        cudaGetLastError();
        return GSHMEM_ERR_CUDA;
    }
    return 0;
}

void gshmemi_gpu_unpin(void *addr)
{
    cudaHostUnregister(addr);
}

#else /* !GSHMEM_HAVE_CUDA: no GPU, and nothing here is ever reached */

int gshmemi_gpu_count(char *why, size_t why_len)
{
    snprintf(why, why_len, "this gshmem was built without CUDA");
    return 0;
}
int gshmemi_gpu_describe(int dev, char *buf, size_t len)
{
    (void)dev;
    (void)buf;
    (void)len;
    return GSHMEM_ERR_NOT_SUPPORTED;
}
int gshmemi_gpu_describe_rdma(int dev, char *buf, size_t len)
{
    return gshmemi_gpu_describe(dev, buf, len);
}
int gshmemi_gpu_peermem_loaded(void) { return 0; }
int gshmemi_gpu_open(int local_rank, char *why, size_t why_len)
{
    (void)local_rank;
    return gshmemi_gpu_count(why, why_len) == 0 ? GSHMEM_ERR_NOT_SUPPORTED : GSHMEM_ERR_INTERNAL;
}
void gshmemi_gpu_close(void) {}
int gshmemi_gpu_device(void) { return -1; }
int gshmemi_gpu_overlap_launches(void) { return 0; }
void gshmemi_gpu_bind_thread(const char *who) { (void)who; }
int gshmemi_gpu_numa_node(void) { return -1; }
void *gshmemi_gpu_host_alloc_near(size_t n) { (void)n; return NULL; }
int gshmemi_gpu_bus_id(char *buf, size_t len) { (void)buf; (void)len; return GSHMEM_ERR_NOT_SUPPORTED; }
void *gshmemi_gpu_driver_symbol(const char *name) { (void)name; return NULL; }
int gshmemi_gpu_load_module_of(void *function) { (void)function; return GSHMEM_ERR_NOT_SUPPORTED; }
int gshmemi_gpu_load_module(void *module) { (void)module; return GSHMEM_ERR_NOT_SUPPORTED; }
int gshmemi_gpu_module_states(void *module, const char *state, const char *anchor, size_t bytes,
                              void **addrs, int max)
{ (void)module; (void)state; (void)anchor; (void)bytes; (void)addrs; (void)max; return GSHMEM_ERR_NOT_SUPPORTED; }
int gshmemi_gpu_library_module(void *library, void **module, char *why, size_t why_len)
{ (void)library; (void)module; snprintf(why, why_len, "a build without CUDA"); return GSHMEM_ERR_NOT_SUPPORTED; }
int gshmemi_gpu_copy_to_module(void *addr, const void *src, size_t n, void *stream)
{ (void)addr; (void)src; (void)n; (void)stream; return -1; }
int gshmemi_gpu_lazy_loading(void) { return 0; }
int gshmemi_gpu_uuid(int dev, unsigned char uuid[16]) { (void)dev; (void)uuid; return GSHMEM_ERR_NOT_SUPPORTED; }
int gshmemi_gpu_ordinal_of(const unsigned char uuid[16]) { (void)uuid; return -1; }
int gshmemi_gpu_can_access(int dev, int peer_dev) { (void)dev; (void)peer_dev; return 0; }

static void no_gpu(const char *call)
{
    GSHMEMI_ERROR(GPU, "%s: GPU memory reached in a build without CUDA", call);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
}
void gshmemi_gpu_copy(const char *call, void *d, const void *s, size_t n, int b)
{ (void)d; (void)s; (void)n; (void)b; no_gpu(call); }
void gshmemi_gpu_copy_strided(const char *call, void *d, size_t dp, const void *s, size_t sp,
                              size_t e, size_t c, int b)
{ (void)d; (void)dp; (void)s; (void)sp; (void)e; (void)c; (void)b; no_gpu(call); }
void gshmemi_gpu_memset(const char *call, void *d, int v, size_t n) { (void)d; (void)v; (void)n; no_gpu(call); }
void gshmemi_gpu_read(const char *call, void *d, const void *s, size_t n) { (void)d; (void)s; (void)n; no_gpu(call); }
uint64_t gshmemi_gpu_atomic(const char *call, void *addr, int op, size_t size, uint64_t a,
                            uint64_t b, int fetch)
{ (void)addr; (void)op; (void)size; (void)a; (void)b; (void)fetch; no_gpu(call); return 0; }
void gshmemi_gpu_atomics(const char *call, const struct gshmemi_amo_req *o, size_t n, uint64_t *old)
{ (void)o; (void)n; (void)old; no_gpu(call); }
void gshmemi_gpu_signal(const char *call, uint64_t *a, uint64_t v, int op) { (void)a; (void)v; (void)op; no_gpu(call); }
void gshmemi_gpu_set_words(const char *call, uint64_t *const *a, const uint64_t *v, size_t n)
{ (void)a; (void)v; (void)n; no_gpu(call); }
void gshmemi_gpu_quiet(const char *call) { (void)call; }
void gshmemi_gpu_flush_rdma_writes(const char *call) { (void)call; }
void gshmemi_gpu_fence(const char *call) { (void)call; }
void gshmemi_gpu_fence_wait(const char *call) { (void)call; }
void *gshmemi_gpu_mark_new(void) { return NULL; }
void gshmemi_gpu_mark(const char *call, void *m) { (void)m; no_gpu(call); }
void gshmemi_gpu_mark_wait(const char *call, void *m) { (void)m; no_gpu(call); }
int gshmemi_gpu_mark_done(const char *call, void *m) { (void)m; no_gpu(call); return 1; }
void gshmemi_gpu_mark_free(void *m) { (void)m; }
void gshmemi_gpu_copy_on(const char *call, void *d, const void *s, size_t n, void *st)
{ (void)d; (void)s; (void)n; (void)st; no_gpu(call); }
void *gshmemi_gpu_table(const char *call, const void *h, size_t n) { (void)h; (void)n; no_gpu(call); return NULL; }
void gshmemi_gpu_free(void *p) { (void)p; }
int gshmemi_gpu_pin(const char *call, void *addr, size_t len) { (void)call; (void)addr; (void)len; return 1; }
void *gshmemi_gpu_host_alloc(size_t n) { (void)n; return NULL; }
void gshmemi_gpu_host_free(void *p) { (void)p; }
int gshmemi_gpu_is_device_ptr(const void *p) { (void)p; return 0; }
void gshmemi_gpu_copy_local(const char *call, void *d, const void *s, size_t n)
{ (void)call; memcpy(d, s, n); }
int gshmemi_gpu_kernel_reachable(const void *p) { (void)p; return 0; }
void *gshmemi_gpu_dev_alloc(size_t n) { (void)n; return NULL; }
void gshmemi_gpu_unpin(void *addr) { (void)addr; }
int gshmemi_gpu_capturing(void *stream) { (void)stream; return 0; }
int gshmemi_gpu_capture_relax(void) { return 0; }
void gshmemi_gpu_capture_restore(int mode) { (void)mode; }
int gshmemi_gpu_wait_value(void *st, const uint64_t *a, uint64_t v, int eq) { (void)st; (void)a; (void)v; (void)eq; return -1; }
void gshmemi_gpu_copy_batch(const char *call, void *const *d, const void *const *s, const size_t *z,
                            size_t n, const unsigned char *now, void *st)
{ (void)d; (void)s; (void)z; (void)n; (void)now; (void)st; no_gpu(call); }
int gshmemi_gpu_enter(void) { return -1; }
void gshmemi_gpu_leave(int prev) { (void)prev; }
void *gshmemi_gpu_stream_new(const char *call) { no_gpu(call); return NULL; }
void gshmemi_gpu_stream_free(void *s) { (void)s; }
void gshmemi_gpu_stream_sync(const char *call, void *s) { (void)s; no_gpu(call); }
int gshmemi_gpu_stream_finish(void *s) { (void)s; return -1; }
int gshmemi_gpu_sets_need_no_sm(void) { return 0; }
void gshmemi_gpu_launch_failed(const char *call, const char *what, int err)
{ (void)what; (void)err; no_gpu(call); for (;;) {} }
int gshmemi_launch_wait(void *s, const uint64_t *a, int c, uint64_t v, uint64_t t, int pe)
{ (void)s; (void)a; (void)c; (void)v; (void)t; (void)pe; return -1; }
int gshmemi_launch_barrier(void *s, const struct gshmemi_stream_barrier *b, int o)
{ (void)s; (void)b; (void)o; return -1; }
int gshmemi_launch_fence(void *s) { (void)s; return -1; }
int gshmemi_launch_amos(void *s, const struct gshmemi_amo_req *o, size_t n, uint64_t *r)
{ (void)s; (void)o; (void)n; (void)r; return -1; }
int gshmemi_launch_signal(void *s, uint64_t *a, uint64_t v, int op) { (void)s; (void)a; (void)v; (void)op; return -1; }
int gshmemi_launch_put_signal(void *s, void *d, const void *src, size_t n, uint64_t *sig, uint64_t v, int op)
{ (void)s; (void)d; (void)src; (void)n; (void)sig; (void)v; (void)op; return -1; }
int gshmemi_preload_kernels(void) { return -1; }
int gshmemi_kernels_wait_previous(void) { return 0; }

#endif

/* ---- staging buffers (with or without CUDA) ------------------------------ */

int gshmemi_staging_alloc(struct gshmemi_staging *s, size_t size, const char *who)
{
    s->size = size;
    s->pinned = gshmemi_gpu_device() >= 0;
    s->base = s->pinned ? gshmemi_gpu_host_alloc_near(size)
                        : aligned_alloc(4096, GSHMEMI_ALIGN_UP(size, 4096));
    if (s->base == NULL) {
        GSHMEMI_ERROR(GPU, "cannot allocate %zu bytes of %s staging for the %s", size,
                      s->pinned ? "pinned" : "host", who);
        return GSHMEM_ERR_NO_MEMORY;
    }
    return 0;
}

void gshmemi_staging_free(struct gshmemi_staging *s)
{
    if (s->base != NULL && s->pinned)
        gshmemi_gpu_host_free(s->base);
    else
        free(s->base);
    s->base = NULL;
}
