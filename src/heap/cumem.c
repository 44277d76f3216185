/* cumem backend: the symmetric heap in GPU memory (CUDA VMM).  Chunks are
 * cuMemCreate allocations exported as POSIX fds and imported by every
 * node-local PE whose GPU can reach ours (same GPU, or P2P over NVLink or
 * PCIe); each mapping is made accessible to this PE's GPU.  The driver is
 * reached through the runtime's entry points only, so libgshmem still loads
 * where there is no driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/api.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "core/util.h"
#include "gpu/gpu.h"
#include "heap/backend.h"
#include "heap/heap.h"

/* Host code reaches GPU memory through the GPU (gpu/gpu.h). */
static const struct gshmemi_heap_access cumem_access = {
    .host_direct = 0,
    .copy = gshmemi_gpu_copy,
    .copy_strided = gshmemi_gpu_copy_strided,
    .memset = gshmemi_gpu_memset,
    .atomic = gshmemi_gpu_atomic,
    .atomics = gshmemi_gpu_atomics,
    .signal = gshmemi_gpu_signal,
    .read = gshmemi_gpu_read,
    .quiet = gshmemi_gpu_quiet,
    .nic_written = gshmemi_gpu_flush_rdma_writes,
};

#if GSHMEM_HAVE_CUDA
#include <cuda.h>
#include <cudaTypedefs.h>

struct range {
    uintptr_t addr;
    size_t size;
};

static struct {
    PFN_cuMemGetAllocationGranularity_v10020 granularity;
    PFN_cuMemAddressReserve_v10020 reserve;
    PFN_cuMemAddressFree_v10020 address_free;
    PFN_cuMemCreate_v10020 create;
    PFN_cuMemRelease_v10020 release;
    PFN_cuMemExportToShareableHandle_v10020 export_handle;
    PFN_cuMemImportFromShareableHandle_v10020 import_handle;
    PFN_cuMemMap_v10020 map;
    PFN_cuMemUnmap_v10020 unmap;
    PFN_cuMemSetAccess_v10020 set_access;
    PFN_cuGetErrorString_v6000 error_string;
    PFN_cuDeviceGetAttribute_v2000 attribute;
    CUresult (*range_handle)(void *, CUdeviceptr, size_t, CUmemRangeHandleType,
                             unsigned long long); /* NULL before CUDA 11.7 */
    int device;
    int fabric; /* chunks shared as fabric handles */
    CUmemAllocationProp prop;
    struct range *mapped; /* unmapped before the reservation is freed */
    size_t n_mapped, cap_mapped;
} cm;

static const char *cu_error(CUresult r)
{
    const char *s = NULL;
    if (cm.error_string == NULL || cm.error_string(r, &s) != CUDA_SUCCESS || s == NULL)
        return "unknown CUDA driver error";
    return s;
}

#define CU_CHECK(what, expr, status)                                                    \
    do {                                                                                \
        CUresult cu_r_ = (expr);                                                        \
        if (cu_r_ != CUDA_SUCCESS) {                                                    \
            GSHMEMI_ERROR(HEAP, "%s failed: %s", what, cu_error(cu_r_));                \
            return (status);                                                            \
        }                                                                               \
    } while (0)

static int cumem_open(size_t *granularity, int *share_by_blob)
{
    struct {
        const char *name;
        void **fn;
    } syms[] = {
        {"cuMemGetAllocationGranularity", (void **)&cm.granularity},
        {"cuMemAddressReserve", (void **)&cm.reserve},
        {"cuMemAddressFree", (void **)&cm.address_free},
        {"cuMemCreate", (void **)&cm.create},
        {"cuMemRelease", (void **)&cm.release},
        {"cuMemExportToShareableHandle", (void **)&cm.export_handle},
        {"cuMemImportFromShareableHandle", (void **)&cm.import_handle},
        {"cuMemMap", (void **)&cm.map},
        {"cuMemUnmap", (void **)&cm.unmap},
        {"cuMemSetAccess", (void **)&cm.set_access},
        {"cuGetErrorString", (void **)&cm.error_string},
        {"cuDeviceGetAttribute", (void **)&cm.attribute},
    };
    size_t gran = 0;

    for (size_t i = 0; i < GSHMEMI_ARRAY_SIZE(syms); i++) {
        *syms[i].fn = gshmemi_gpu_driver_symbol(syms[i].name);
        if (*syms[i].fn == NULL) {
            GSHMEMI_ERROR(HEAP, "the CUDA driver has no %s (a driver for CUDA 12 or later is "
                          "needed for the GPU heap)", syms[i].name);
            return GSHMEM_ERR_NOT_SUPPORTED;
        }
    }
    cm.device = gshmemi_gpu_device();
    cm.fabric = strcmp(gshmemi_env.CUMEM_HANDLE, "fabric") == 0;
    if (!cm.fabric && strcmp(gshmemi_env.CUMEM_HANDLE, "posix") != 0) {
        GSHMEMI_ERROR(HEAP, "GSHMEM_CUMEM_HANDLE is '%s': expected posix or fabric",
                      gshmemi_env.CUMEM_HANDLE);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (cm.fabric) {
        int supported = 0;
        CUdevice dev = cm.device; /* ordinals of runtime and driver agree */
        if (cm.attribute(&supported, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev) !=
                CUDA_SUCCESS || !supported) {
            GSHMEMI_ERROR(HEAP, "GSHMEM_CUMEM_HANDLE=fabric: the driver offers no fabric handles "
                          "on GPU %d; use posix", cm.device);
            return GSHMEM_ERR_NOT_SUPPORTED;
        }
    }
    memset(&cm.prop, 0, sizeof(cm.prop));
    cm.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    cm.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    cm.prop.location.id = cm.device;
    cm.prop.requestedHandleTypes =
        cm.fabric ? CU_MEM_HANDLE_TYPE_FABRIC : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    {
        /* Chunks a NIC may reach (GPUDirect RDMA): ibrc registers them. */
        int gdr = 0;
        if (cm.attribute(&gdr, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED,
                         cm.device) == CUDA_SUCCESS && gdr)
            cm.prop.allocFlags.gpuDirectRDMACapable = 1;
    }
    cm.range_handle = gshmemi_gpu_driver_symbol("cuMemGetHandleForAddressRange");
    CU_CHECK("cuMemGetAllocationGranularity",
             cm.granularity(&gran, &cm.prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), GSHMEM_ERR_CUDA);
    if (cm.fabric) {
        /* Advertised is not enough: fabric memory also needs an IMEX channel. */
        CUmemGenericAllocationHandle probe;
        CUresult r = cm.create(&probe, gran, &cm.prop, 0);
        if (r != CUDA_SUCCESS) {
            GSHMEMI_ERROR(HEAP, "GSHMEM_CUMEM_HANDLE=fabric: GPU %d cannot make fabric memory: %s "
                          "(it needs an IMEX channel, /dev/nvidia-caps-imex-channels); use posix",
                          cm.device, cu_error(r));
            return GSHMEM_ERR_NOT_SUPPORTED;
        }
        cm.release(probe);
    }
    *granularity = gran;
    *share_by_blob = cm.fabric;
    return 0;
}

static int uuid_cmp(const void *a, const void *b) { return memcmp(a, b, 16); }

/* A local peer is mapped where its GPU is ours or P2P-reachable from ours;
 * notes whether two PEs of the job share a GPU. */
static int cumem_plan(const int *local_pes, int n_local, int *mappable)
{
    struct gshmemi_bootstrap *bs = gshmemi_rt.bs;
    unsigned char mine[16], *all = malloc(2 * 16 * (size_t)bs->size);
    int st;

    if (all == NULL)
        return GSHMEM_ERR_NO_MEMORY;
    if (gshmemi_gpu_uuid(cm.device, mine) != 0) {
        free(all);
        return GSHMEM_ERR_CUDA;
    }
    st = bs->ops->allgather(bs, mine, all, 16);
    if (st == 0) { /* UUIDs are unique: equal ones are one GPU */
        unsigned char *sorted = all + 16 * (size_t)bs->size;
        memcpy(sorted, all, 16 * (size_t)bs->size);
        qsort(sorted, (size_t)bs->size, 16, uuid_cmp);
        int shared = 0;
        for (int i = 1; i < bs->size; i++)
            shared |= memcmp(sorted + 16 * (size_t)(i - 1), sorted + 16 * (size_t)i, 16) == 0;
        gshmemi_heap.gpu_shared = shared;
    }
    for (int i = 0; st == 0 && i < n_local; i++) {
        int pe = local_pes[i];
        int dev = gshmemi_gpu_ordinal_of(all + 16 * (size_t)pe);
        mappable[i] = dev >= 0 && gshmemi_gpu_can_access(cm.device, dev);
        if (!mappable[i] && pe != gshmemi_rt.my_pe)
            GSHMEMI_INFO(HEAP, "pe %d's GPU %s: not mapped", pe,
                         dev < 0 ? "is not visible to this process" : "has no P2P path to ours");
    }
    free(all);
    return st;
}

static void cumem_close(void) {}

static int cumem_reserve(size_t size, void **base_out)
{
    CUdeviceptr p;
    /* The aligned base is a wish (see the reserve op); a driver that cannot
     * give it still gives one aligned on the granularity. */
    if (cm.reserve(&p, size, GSHMEMI_HEAP_BASE_ALIGN, 0, 0) != CUDA_SUCCESS)
        CU_CHECK("cuMemAddressReserve", cm.reserve(&p, size, 0, 0, 0), GSHMEM_ERR_NO_MEMORY);
    *base_out = (void *)(uintptr_t)p;
    return 0;
}

static void cumem_release(void *base, size_t size)
{
    for (size_t i = 0; i < cm.n_mapped; i++)
        cm.unmap((CUdeviceptr)cm.mapped[i].addr, cm.mapped[i].size);
    free(cm.mapped);
    cm.mapped = NULL;
    cm.n_mapped = cm.cap_mapped = 0;
    cm.address_free((CUdeviceptr)(uintptr_t)base, size);
}

static int cumem_create(size_t size, struct gshmemi_heap_mem *mem)
{
    CUmemGenericAllocationHandle h;
    uint64_t t0 = gshmemi_now_ns();
    CUresult r = cm.create(&h, size, &cm.prop, 0);
    if (r != CUDA_SUCCESS) {
        GSHMEMI_ERROR(HEAP, "cuMemCreate of %zu bytes on GPU %d failed: %s", size, cm.device,
                      cu_error(r));
        return r == CUDA_ERROR_OUT_OF_MEMORY ? GSHMEM_ERR_NO_MEMORY : GSHMEM_ERR_CUDA;
    }
    GSHMEMI_TRACE(HEAP, "cuMemCreate of %zu bytes: %.3f ms", size, (gshmemi_now_ns() - t0) * 1e-6);
    mem->fd = -1;
    mem->handle = (uint64_t)h;
    mem->size = size;
    return 0;
}

/* Made on first use, and only where a peer needs it.  The driver makes a
 * process's first export far slower than later ones while an exported fd
 * stays open: the heap keeps them (heap.h). */
static int cumem_export_fd(struct gshmemi_heap_mem *mem, int *fd_out)
{
    if (mem->fd < 0) {
        uint64_t t0 = gshmemi_now_ns();
        CU_CHECK("cuMemExportToShareableHandle",
                 cm.export_handle(&mem->fd, (CUmemGenericAllocationHandle)mem->handle,
                                  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                 GSHMEM_ERR_CUDA);
        GSHMEMI_TRACE(HEAP, "export of %zu bytes: %.3f ms", mem->size,
                      (gshmemi_now_ns() - t0) * 1e-6);
    }
    *fd_out = mem->fd;
    return 0;
}

static int cumem_export_blob(struct gshmemi_heap_mem *mem, void *blob)
{
    CUmemFabricHandle fh;
    _Static_assert(sizeof(fh) <= GSHMEMI_HEAP_BLOB_BYTES, "fabric handle too large");
    CU_CHECK("cuMemExportToShareableHandle (fabric)",
             cm.export_handle(&fh, (CUmemGenericAllocationHandle)mem->handle,
                              CU_MEM_HANDLE_TYPE_FABRIC, 0),
             GSHMEM_ERR_CUDA);
    memcpy(blob, &fh, sizeof(fh));
    return 0;
}

static int cumem_import_blob(const void *blob, size_t size, struct gshmemi_heap_mem *mem)
{
    CUmemGenericAllocationHandle h;
    CUmemFabricHandle fh;
    memcpy(&fh, blob, sizeof(fh));
    mem->fd = -1;
    mem->handle = 0;
    mem->size = size;
    CU_CHECK("cuMemImportFromShareableHandle (fabric)",
             cm.import_handle(&h, &fh, CU_MEM_HANDLE_TYPE_FABRIC), GSHMEM_ERR_CUDA);
    mem->handle = (uint64_t)h;
    return 0;
}

static int cumem_import_fd(int fd, size_t size, struct gshmemi_heap_mem *mem)
{
    CUmemGenericAllocationHandle h;
    mem->fd = fd;
    mem->handle = 0;
    mem->size = size;
    CU_CHECK("cuMemImportFromShareableHandle",
             cm.import_handle(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
             GSHMEM_ERR_CUDA);
    mem->handle = (uint64_t)h;
    return 0;
}

static int cumem_map(const struct gshmemi_heap_mem *mem, void *addr)
{
    CUmemAccessDesc access = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = cm.device},
                              .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)addr;

    if (cm.n_mapped == cm.cap_mapped) {
        size_t cap = cm.cap_mapped ? 2 * cm.cap_mapped : 64;
        struct range *r = realloc(cm.mapped, cap * sizeof(*r));
        if (r == NULL)
            return GSHMEM_ERR_NO_MEMORY;
        cm.mapped = r;
        cm.cap_mapped = cap;
    }
    CU_CHECK("cuMemMap", cm.map(p, mem->size, 0, (CUmemGenericAllocationHandle)mem->handle, 0),
             GSHMEM_ERR_CUDA);
    cm.mapped[cm.n_mapped++] = (struct range){(uintptr_t)addr, mem->size};
    CU_CHECK("cuMemSetAccess", cm.set_access(p, mem->size, &access, 1), GSHMEM_ERR_CUDA);
    return 0;
}

static int cumem_unmap(void *addr, size_t size)
{
    CU_CHECK("cuMemUnmap", cm.unmap((CUdeviceptr)(uintptr_t)addr, size), GSHMEM_ERR_CUDA);
    for (size_t i = 0; i < cm.n_mapped; i++)
        if (cm.mapped[i].addr == (uintptr_t)addr)
            cm.mapped[i] = cm.mapped[--cm.n_mapped];
    return 0;
}

/* The mapping keeps the memory: the handle can go at once. */
static void cumem_destroy(struct gshmemi_heap_mem *mem)
{
    if (mem->handle != 0)
        cm.release((CUmemGenericAllocationHandle)mem->handle);
    if (mem->fd >= 0)
        close(mem->fd);
    mem->handle = 0;
    mem->fd = -1;
}

static int cumem_adopt(void *addr, size_t size, int share, struct gshmemi_heap_mem *mem,
                       char *why, size_t why_len)
{
    CUresult (*retain)(CUmemGenericAllocationHandle *, void *) =
        gshmemi_gpu_driver_symbol("cuMemRetainAllocationHandle");
    CUresult (*props_of)(CUmemAllocationProp *, CUmemGenericAllocationHandle) =
        gshmemi_gpu_driver_symbol("cuMemGetAllocationPropertiesFromHandle");
    CUresult (*range_of)(CUdeviceptr *, size_t *, CUdeviceptr) =
        gshmemi_gpu_driver_symbol("cuMemGetAddressRange");
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp prop;
    CUdeviceptr base = 0;
    size_t range = 0;
    CUresult r;

    if (retain == NULL || props_of == NULL || range_of == NULL) {
        snprintf(why, why_len, "the CUDA driver has no cuMemRetainAllocationHandle");
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    if ((r = range_of(&base, &range, (CUdeviceptr)(uintptr_t)addr)) != CUDA_SUCCESS) {
        snprintf(why, why_len, "not GPU memory of this process (%s)", cu_error(r));
        return GSHMEM_ERR_INVALID_ARG;
    }
    /* cuMemMap maps whole allocations only */
    if (base != (CUdeviceptr)(uintptr_t)addr || range != size) {
        snprintf(why, why_len, "not one whole allocation of %zu bytes (the allocation there is "
                 "[%#llx, +%zu))", size, (unsigned long long)base, range);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if ((r = retain(&h, addr)) != CUDA_SUCCESS) {
        snprintf(why, why_len, "not memory made with cuMemCreate (%s); cudaMalloc's memory "
                 "cannot be mapped a second time", cu_error(r));
        return GSHMEM_ERR_INVALID_ARG;
    }
    int st = 0;
    const CUmemAllocationHandleType need =
        cm.fabric ? CU_MEM_HANDLE_TYPE_FABRIC : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    if ((r = props_of(&prop, h)) != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuMemGetAllocationPropertiesFromHandle: %s", cu_error(r));
        st = GSHMEM_ERR_CUDA;
    } else if (prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop.location.id != cm.device) {
        snprintf(why, why_len, "memory of another GPU than this PE's (GPU %d)", cm.device);
        st = GSHMEM_ERR_INVALID_ARG;
    } else if (share && (prop.requestedHandleTypes & need) == 0) {
        snprintf(why, why_len, "made without the %s handle type (CUmemAllocationProp's "
                 "requestedHandleTypes), which peers that map this PE's heap need",
                 cm.fabric ? "CU_MEM_HANDLE_TYPE_FABRIC" : "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
        st = GSHMEM_ERR_INVALID_ARG;
    }
    if (st != 0) {
        cm.release(h);
        return st;
    }
    mem->fd = -1;
    mem->handle = (uint64_t)h;
    mem->size = size;
    return 0;
}

static int cumem_dmabuf_fd(void *addr, size_t size, char *why, size_t why_len)
{
    int fd = -1, ok = 0;
    if (cm.range_handle == NULL) {
        snprintf(why, why_len, "the CUDA driver has no cuMemGetHandleForAddressRange");
        return -1;
    }
    if (cm.attribute(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, cm.device) != CUDA_SUCCESS || !ok) {
        snprintf(why, why_len, "GPU %d cannot export its memory as dma-buf (the kernel or "
                 "driver is too old)", cm.device);
        return -1;
    }
    CUresult r = cm.range_handle(&fd, (CUdeviceptr)(uintptr_t)addr, size,
                                 CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuMemGetHandleForAddressRange (dma-buf) of %zu bytes: %s", size,
                 cu_error(r));
        return -1;
    }
    return fd;
}

const struct gshmemi_heap_backend_ops gshmemi_cumem_ops = {
    .name = "cumem",
    .on_device = 1,
    .access = &cumem_access,
    .open = cumem_open,
    .plan = cumem_plan,
    .close = cumem_close,
    .reserve = cumem_reserve,
    .release = cumem_release,
    .create = cumem_create,
    .export_fd = cumem_export_fd,
    .import_fd = cumem_import_fd,
    .export_blob = cumem_export_blob,
    .import_blob = cumem_import_blob,
    .map = cumem_map,
    .unmap = cumem_unmap,
    .destroy = cumem_destroy,
    .adopt = cumem_adopt,
    .dmabuf_fd = cumem_dmabuf_fd,
};

#else /* !GSHMEM_HAVE_CUDA */

static int cumem_open(size_t *granularity, int *share_by_blob)
{
    (void)granularity;
    (void)share_by_blob;
    GSHMEMI_ERROR(HEAP, "the GPU heap needs a gshmem built with CUDA");
    return GSHMEM_ERR_NOT_SUPPORTED;
}

const struct gshmemi_heap_backend_ops gshmemi_cumem_ops = {
    .name = "cumem",
    .on_device = 1,
    .access = &cumem_access,
    .open = cumem_open,
};

#endif
