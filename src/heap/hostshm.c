/* hostshm backend: the symmetric heap in host memory, chunks are memfds
 * shared with node-local PEs. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gshmem.h>

#include "core/api.h"
#include "core/log.h"
#include "heap/backend.h"
#include "heap/heap.h"

#define HOSTSHM_GRANULARITY (2u << 20)

static int hostshm_open(size_t *granularity, int *share_by_blob)
{
    *granularity = HOSTSHM_GRANULARITY;
    *share_by_blob = 0;
    return 0;
}

/* Every PE of the node shares memory with every other. */
static int hostshm_plan(const int *local_pes, int n_local, int *mappable)
{
    (void)local_pes;
    for (int i = 0; i < n_local; i++)
        mappable[i] = 1;
    return 0;
}

static void hostshm_close(void) {}

/* Under ThreadSanitizer: other PEs write this PE's heap (through its tcp
 * thread, or through their own mappings) in an order set through other
 * processes, which it cannot see, so every such access looks like a race.
 * Declared benign here, they are dropped before any report is built (a
 * suppression is matched only after). */
static void heap_races_benign(void *base, size_t size)
{
    void (*benign)(const char *, int, const volatile void *, size_t, const char *) =
        (void (*)(const char *, int, const volatile void *, size_t, const char *))dlsym(
            RTLD_DEFAULT, "AnnotateBenignRaceSized");
    if (benign != NULL)
        benign(__FILE__, __LINE__, base, size, "the symmetric heap's contents");
}

static int hostshm_reserve(size_t size, void **base_out)
{
    /* Over-reserve to align the base, then trim. */
    size_t len = size + GSHMEMI_HEAP_BASE_ALIGN;
    char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        GSHMEMI_ERROR(HEAP, "cannot reserve %zu bytes of address space: %s", size,
                      strerror(errno));
        return GSHMEM_ERR_NO_MEMORY;
    }
    char *base = (char *)GSHMEMI_ALIGN_UP((uintptr_t)p, GSHMEMI_HEAP_BASE_ALIGN);
    if (base > p)
        munmap(p, (size_t)(base - p));
    munmap(base + size, (size_t)(p + len - (base + size)));
    heap_races_benign(base, size);
    *base_out = base;
    return 0;
}

static void hostshm_release(void *base, size_t size) { munmap(base, size); }

static int hostshm_create(size_t size, struct gshmemi_heap_mem *mem)
{
    int fd = memfd_create("gshmem-heap", MFD_CLOEXEC);
    if (fd < 0) {
        GSHMEMI_ERROR(HEAP, "memfd_create failed: %s", strerror(errno));
        return GSHMEM_ERR_NO_MEMORY;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        GSHMEMI_ERROR(HEAP, "cannot size a heap chunk to %zu bytes: %s", size, strerror(errno));
        close(fd);
        return GSHMEM_ERR_NO_MEMORY;
    }
    mem->fd = fd;
    mem->handle = 0;
    mem->size = size;
    return 0;
}

static int hostshm_export_fd(struct gshmemi_heap_mem *mem, int *fd_out)
{
    *fd_out = mem->fd;
    return 0;
}

static int hostshm_import_fd(int fd, size_t size, struct gshmemi_heap_mem *mem)
{
    mem->fd = fd;
    mem->handle = 0;
    mem->size = size;
    return 0;
}

static int hostshm_map(const struct gshmemi_heap_mem *mem, void *addr)
{
    void *p = mmap(addr, mem->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mem->fd, 0);
    if (p == MAP_FAILED) {
        GSHMEMI_ERROR(HEAP, "cannot map a heap chunk of %zu bytes at %p: %s", mem->size, addr,
                      strerror(errno));
        return GSHMEM_ERR_NO_MEMORY;
    }
    /* Huge pages where the kernel allows them for shared memory
     * (shmem_enabled=advise): fewer TLB misses on large copies. */
    (void)madvise(addr, mem->size, MADV_HUGEPAGE);
    return 0;
}

static int hostshm_unmap(void *addr, size_t size)
{
    void *p = mmap(addr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
                   -1, 0);
    return p == MAP_FAILED ? GSHMEM_ERR_IO : 0;
}

static void hostshm_destroy(struct gshmemi_heap_mem *mem)
{
    if (mem->fd >= 0)
        close(mem->fd);
    mem->fd = -1;
}

/* ---- access: host code loads and stores the memory ------------------- */

static void host_copy(const char *call, void *dst, const void *src, size_t n, int blocking)
{
    (void)call, (void)blocking;
    memcpy(dst, src, n);
}

/* An element a load and a store where its size is known here: a memcpy
 * call for each element cost more than copying a small one. */
#define COPY_EACH(n)                                                                               \
    for (size_t i = 0; i < count; i++)                                                             \
        memcpy((char *)dst + i * dpitch, (const char *)src + i * spitch, n)

static void host_copy_strided(const char *call, void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t esize, size_t count, int blocking)
{
    (void)call, (void)blocking;
    switch (esize) {
    case 1: COPY_EACH(1); break;
    case 2: COPY_EACH(2); break;
    case 4: COPY_EACH(4); break;
    case 8: COPY_EACH(8); break;
    case 16: COPY_EACH(16); break;
    default: COPY_EACH(esize); break;
    }
}
#undef COPY_EACH

static void host_memset(const char *call, void *dst, int value, size_t n)
{
    (void)call;
    memset(dst, value, n);
}

static uint64_t host_atomic(const char *call, void *addr, int op, size_t size, uint64_t a,
                            uint64_t b, int fetch)
{
    (void)call, (void)fetch;
    return gshmemi_amo_apply_host(addr, op, size, a, b);
}

static void host_atomics(const char *call, const struct gshmemi_amo_req *ops, size_t n,
                         uint64_t *old)
{
    (void)call;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = gshmemi_amo_apply_host(ops[i].addr, ops[i].op, (size_t)ops[i].size, ops[i].a,
                                            ops[i].b);
        if (old != NULL)
            old[i] = o;
    }
}

/* Release: the data written before the signal is seen before it. */
static void host_signal(const char *call, uint64_t *addr, uint64_t value, int op)
{
    (void)call;
    if (op == 0)
        __atomic_store_n(addr, value, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(addr, value, __ATOMIC_RELEASE);
}

/* Word by word with acquire loads, each as wide as the alignment allows. */
static void host_read(const char *call, void *dst, const void *src, size_t n)
{
    const size_t align = ((uintptr_t)src | n) & 7;
    char *d = dst;
    const char *s = src;
    (void)call;
    if (align == 0)
        for (size_t i = 0; i < n; i += 8) {
            uint64_t v = __atomic_load_n((const uint64_t *)(const void *)(s + i), __ATOMIC_ACQUIRE);
            memcpy(d + i, &v, 8);
        }
    else if ((align & 3) == 0)
        for (size_t i = 0; i < n; i += 4) {
            uint32_t v = __atomic_load_n((const uint32_t *)(const void *)(s + i), __ATOMIC_ACQUIRE);
            memcpy(d + i, &v, 4);
        }
    else if ((align & 1) == 0)
        for (size_t i = 0; i < n; i += 2) {
            uint16_t v = __atomic_load_n((const uint16_t *)(const void *)(s + i), __ATOMIC_ACQUIRE);
            memcpy(d + i, &v, 2);
        }
    else
        for (size_t i = 0; i < n; i++)
            d[i] = __atomic_load_n(s + i, __ATOMIC_ACQUIRE);
}

static void host_quiet(const char *call)
{
    (void)call;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void host_nic_written(const char *call) { (void)call; }

const struct gshmemi_heap_access gshmemi_host_access = {
    .host_direct = 1,
    .copy = host_copy,
    .copy_strided = host_copy_strided,
    .memset = host_memset,
    .atomic = host_atomic,
    .atomics = host_atomics,
    .signal = host_signal,
    .read = host_read,
    .quiet = host_quiet,
    .nic_written = host_nic_written,
};

const struct gshmemi_heap_backend_ops gshmemi_hostshm_ops = {
    .name = "hostshm",
    .on_device = 0,
    .access = &gshmemi_host_access,
    .open = hostshm_open,
    .plan = hostshm_plan,
    .close = hostshm_close,
    .reserve = hostshm_reserve,
    .release = hostshm_release,
    .create = hostshm_create,
    .export_fd = hostshm_export_fd,
    .import_fd = hostshm_import_fd,
    .map = hostshm_map,
    .unmap = hostshm_unmap,
    .destroy = hostshm_destroy,
};
