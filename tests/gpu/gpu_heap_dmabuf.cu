// The GPU heap as a NIC would be given it (ibrc registers each heap chunk
// with ibv_reg_dmabuf_mr): every chunk, the first and one made by growth,
// and a part of one, exports as a dma-buf fd of the asked length.  Where
// the GPU or its driver has no dma-buf export, the test says so and is
// skipped (77), as it is without a GPU.  No RDMA device is needed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime.h>
#include <gshmem.h>

#include "gpu/gpu.h"
#include "heap/backend.h"
#include "heap/heap.h"

#include "gpu_check.h"

static int me;

// Exports [p, p + len) and checks the fd stands for that many bytes.
static bool exports(const char *what, char *p, size_t len)
{
    char why[200] = "";
    int fd = gshmemi_heap.ops->dmabuf_fd(p, len, why, sizeof(why));
    if (fd < 0) {
        std::printf("pe %d: %s: no dma-buf: %s\n", me, what, why);
        return false;
    }
    struct stat st;
    CHECK(fstat(fd, &st) == 0, "fstat of the dma-buf fd of %s", what);
    CHECK((size_t)st.st_size == len, "%s: the dma-buf has %lld bytes, asked %zu", what,
          (long long)st.st_size, len);
    close(fd);
    return true;
}

int main()
{
    if (gpu_count() == 0)
        return 77;
    gshmem_init();
    me = gshmem_my_pe();
    CHECK(gshmemi_heap.on_device, "the heap is not in GPU memory (GSHMEM_HEAP=device?)");
    CHECK(gshmemi_heap.ops->dmabuf_fd != nullptr, "the GPU heap's backend has no dma-buf export");
    int dev, ok = 0;
    CUDA(cudaGetDevice(&dev));
    auto attribute = (CUresult(*)(int *, CUdevice_attribute, CUdevice))gshmemi_gpu_driver_symbol(
        "cuDeviceGetAttribute");
    CHECK(attribute != nullptr && attribute(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) ==
                                      CUDA_SUCCESS, "cuDeviceGetAttribute");
    if (!ok) {
        std::printf("pe %d: GPU %d has no dma-buf export: skipped\n", me, dev);
        gshmem_finalize();
        return 77;
    }
    const size_t first = gshmemi_heap.size;
    CHECK(exports("the first chunk", gshmemi_heap.my_base, first), "export failed");
    // Growth: more than the heap holds, so a new chunk is made.
    void *big = gshmem_malloc(first + (64u << 20));
    CHECK(big != nullptr, "gshmem_malloc of %zu bytes", first + (64u << 20));
    CHECK(gshmemi_heap.size > first, "the heap did not grow (%zu bytes)", gshmemi_heap.size);
    CHECK(exports("the grown chunk", gshmemi_heap.my_base + first, gshmemi_heap.size - first),
          "export failed");
    // A part of a chunk, at a granularity boundary inside it.
    const size_t gran = gshmemi_heap.granularity;
    if (first >= 3 * gran)
        CHECK(exports("two granules inside the first chunk", gshmemi_heap.my_base + gran,
                      2 * gran), "export failed");
    gshmem_free(big);
    gshmem_barrier_all();
    if (me == 0)
        std::printf("dma-buf export of the GPU heap: first chunk %zu bytes, grown chunk, a part: ok\n",
                    first);
    gshmem_finalize();
    return 0;
}
