// A GPU buffer of the program's own made symmetric
// (gshmemx_buffer_register_symmetric, NVSHMEM's
// nvshmemx_buffer_register_symmetric): each PE makes its buffer with
// cuMemCreate and fills it; the returned address then reaches the same
// memory from every call: host get and put, atomics, a broadcast, and puts
// from a kernel; what peers write is seen in the program's own mapping.
// Unregistered and released, the memory is the GPU's again.  A second
// registration shares the heap with a gshmem_malloc made after it.  The
// misuses (cudaMalloc'd memory, a size off the granularity, sizes that
// differ between PEs, a wrong size at unregister) fail on every PE.
// Exit 77 without a GPU.
//
//   gshmrun -n 2 ./register_symmetric
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>
#include <gshmem_device.cuh>
#include <gshmemx.h>

#include "gpu_check.h"

static int me;

struct user_buffer {
    CUdeviceptr va;
    CUmemGenericAllocationHandle h;
    size_t size;
};

static CUmemAllocationProp buffer_prop()
{
    int dev;
    cudaGetDevice(&dev);
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
}

// As an application makes one: create, reserve, map, grant access.
static user_buffer make_buffer(size_t size)
{
    static auto create = DRIVER(cuMemCreate);
    static auto reserve = DRIVER(cuMemAddressReserve);
    static auto map = DRIVER(cuMemMap);
    static auto set_access = DRIVER(cuMemSetAccess);
    CHECK(create && reserve && map && set_access, "a driver entry point is missing");
    user_buffer b = {0, 0, size};
    CUmemAllocationProp prop = buffer_prop();
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(create(&b.h, size, &prop, 0) == CUDA_SUCCESS, "cuMemCreate");
    CHECK(reserve(&b.va, size, 0, 0, 0) == CUDA_SUCCESS, "cuMemAddressReserve");
    CHECK(map(b.va, size, 0, b.h, 0) == CUDA_SUCCESS, "cuMemMap");
    CHECK(set_access(b.va, size, &access, 1) == CUDA_SUCCESS, "cuMemSetAccess");
    return b;
}

static void free_buffer(user_buffer &b)
{
    static auto unmap = DRIVER(cuMemUnmap);
    static auto release = DRIVER(cuMemRelease);
    static auto address_free = DRIVER(cuMemAddressFree);
    CHECK(unmap(b.va, b.size) == CUDA_SUCCESS, "cuMemUnmap");
    CHECK(release(b.h) == CUDA_SUCCESS, "cuMemRelease");
    CHECK(address_free(b.va, b.size) == CUDA_SUCCESS, "cuMemAddressFree");
}

static int value(int pe, size_t i) { return pe * 1000003 + static_cast<int>(i * 7919 % 1000000); }

// Every thread puts its stripe of ints into the next PE's copy.
__global__ void put_next(int *sym, size_t n, int tag)
{
    const int next = (gshmem_my_pe() + 1) % gshmem_n_pes();
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        gshmem_int_p(&sym[i], tag + static_cast<int>(i), next);
    gshmem_quiet();
}

int main()
{
    if (gpu_count() == 0)
        return 77;
    int n, next, prev;
    init_ring(&me, &n, &next, &prev);
    auto granularity = DRIVER(cuMemGetAllocationGranularity);
    CUmemAllocationProp prop = buffer_prop();
    size_t gran = 0;
    CHECK(granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) == CUDA_SUCCESS,
          "granularity");
    const size_t size = 16 * gran, ints = size / sizeof(int);
    int checks = 0;
    srand(12345 + me);

    // ---- misuse, each refused on every PE
    int refused = 0;
    void *plain;
    CUDA(cudaMalloc(&plain, size));
    CHECK(gshmemx_buffer_register_symmetric(plain, size, 0) == nullptr, "cudaMalloc'd memory");
    CUDA(cudaFree(plain));
    user_buffer odd = make_buffer(2 * gran);
    void *odd_va = reinterpret_cast<void *>(odd.va);
    CHECK(gshmemx_buffer_register_symmetric(odd_va, gran + 4096, 0) == nullptr,
          "a size off the granularity");
    CHECK(gshmemx_buffer_register_symmetric(odd_va, gran, 0) == nullptr,
          "a part of an allocation");
    CHECK(gshmemx_buffer_register_symmetric(odd_va, 2 * gran, 1) == nullptr, "flags other than 0");
    free_buffer(odd);
    refused += 4;
    if (n > 1) { // each PE's buffer whole, of a size that differs between PEs
        user_buffer own = make_buffer(me == 0 ? gran : 2 * gran);
        CHECK(gshmemx_buffer_register_symmetric(reinterpret_cast<void *>(own.va), own.size, 0) ==
                  nullptr, "sizes that differ between PEs");
        free_buffer(own);
        refused++;
    }

    // ---- a registered buffer: every kind of access
    size_t free0, total;
    CUDA(cudaDeviceSynchronize());
    gshmem_barrier_all();
    CUDA(cudaMemGetInfo(&free0, &total));
    gshmem_barrier_all(); // every PE's free0 before any PE makes its buffer
    user_buffer ub = make_buffer(size);
    std::vector<int> mine(ints), got(ints);
    for (size_t i = 0; i < ints; i++)
        mine[i] = value(me, i);
    CUDA(cudaMemcpy(reinterpret_cast<void *>(ub.va), mine.data(), size, cudaMemcpyHostToDevice));
    int *sym = static_cast<int *>(gshmemx_buffer_register_symmetric(reinterpret_cast<void *>(ub.va),
                                                                    size, 0));
    CHECK(sym != nullptr, "registration");
    CHECK(reinterpret_cast<CUdeviceptr>(sym) != ub.va, "the symmetric address is the heap's");
    // the program's data, at the symmetric address, here and from the previous PE
    gshmem_getmem(got.data(), sym, size, me);
    for (size_t i = 0; i < ints; i++)
        CHECK(got[i] == mine[i], "own copy, int %zu: %d, expected %d", i, got[i], mine[i]);
    for (int k = 0; k < 64; k++) {
        const size_t at = static_cast<size_t>(rand()) % (ints - 64), len = 1 + rand() % 64;
        gshmem_getmem(got.data(), sym + at, len * sizeof(int), prev);
        for (size_t i = 0; i < len; i++)
            CHECK(got[i] == value(prev, at + i), "get from pe %d, int %zu: %d, expected %d", prev,
                  at + i, got[i], value(prev, at + i));
    }
    checks += 65;
    // a kernel's puts into the next PE's copy; seen through the program's own mapping
    gshmem_barrier_all();
    put_next<<<8, 256>>>(sym, ints, 7 * (me + 1));
    CUDA(cudaDeviceSynchronize());
    gshmem_barrier_all();
    CUDA(cudaMemcpy(got.data(), reinterpret_cast<void *>(ub.va), size, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < ints; i++)
        CHECK(got[i] == 7 * (prev + 1) + static_cast<int>(i), "kernel put, int %zu: %d", i, got[i]);
    checks++;
    // host put, atomics into the registered memory, and a broadcast into it
    const int word = static_cast<int>(ints - 1);
    gshmem_barrier_all();
    gshmem_int_p(&sym[word], -me, next);
    long *ctr = reinterpret_cast<long *>(sym); // the first 8 bytes, on pe 0
    if (me == 0)
        gshmem_long_p(ctr, 0, 0);
    gshmem_barrier_all();
    for (int i = 0; i < 100; i++)
        gshmem_long_atomic_add(ctr, me + 1, 0);
    gshmem_barrier_all();
    CHECK(gshmem_int_g(&sym[word], me) == -prev, "host put: %d", gshmem_int_g(&sym[word], me));
    if (me == 0)
        CHECK(gshmem_long_g(ctr, 0) == 100L * n * (n + 1) / 2, "atomics: %ld",
              gshmem_long_g(ctr, 0));
    gshmem_broadcastmem(GSHMEM_TEAM_WORLD, sym + 1024, sym + 2048, 4096, n - 1);
    gshmem_getmem(got.data(), sym + 1024, 4096, me);
    for (int i = 0; i < 1024; i++) // pe n-1's ints 2048.. after the kernel's puts
        CHECK(got[i] == 7 * ((n - 2 + n) % n + 1) + 2048 + i, "broadcast, int %d: %d", i, got[i]);
    checks += 3;
    // unregistering: a wrong size is refused, the right one lets the memory go
    gshmem_barrier_all();
    CHECK(gshmemx_buffer_unregister_symmetric(sym, size / 2) == GSHMEM_ERR_INVALID_ARG,
          "unregister with another size");
    CHECK(gshmemx_buffer_unregister_symmetric(sym, size) == 0, "unregister");
    CHECK(gshmemx_buffer_unregister_symmetric(sym, size) == GSHMEM_ERR_INVALID_ARG,
          "unregister twice");
    refused += 2;
    free_buffer(ub);
    CUDA(cudaDeviceSynchronize());
    gshmem_barrier_all();
    size_t free1;
    CUDA(cudaMemGetInfo(&free1, &total));
    CHECK(free1 + 4 * gran >= free0, "the memory is not the GPU's again: %zu MiB free, %zu before",
          free1 >> 20, free0 >> 20);
    checks++;

    // ---- a second buffer, and an allocation after it
    user_buffer ub2 = make_buffer(3 * gran);
    int *sym2 = static_cast<int *>(
        gshmemx_buffer_register_symmetric(reinterpret_cast<void *>(ub2.va), 3 * gran, 0));
    CHECK(sym2 != nullptr && sym2 != sym, "second registration");
    char *after = static_cast<char *>(gshmem_malloc(gran));
    CHECK(after != nullptr && (after >= reinterpret_cast<char *>(sym2) + 3 * gran ||
                               after + gran <= reinterpret_cast<char *>(sym2)),
          "gshmem_malloc overlaps the registered buffer");
    gshmem_int_p(sym2 + 5, 99 + me, next);
    gshmem_int_p(reinterpret_cast<int *>(after), 77 + me, next);
    gshmem_barrier_all();
    int v2;
    CUDA(cudaMemcpy(&v2, reinterpret_cast<int *>(ub2.va) + 5, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(v2 == 99 + prev, "second buffer: %d", v2);
    CHECK(gshmem_int_g(reinterpret_cast<int *>(after), me) == 77 + prev, "the block after it");
    checks += 3;
    gshmem_free(after);
    CHECK(gshmemx_buffer_unregister_symmetric(sym2, 3 * gran) == 0, "unregister the second");
    free_buffer(ub2);
    gshmem_finalize();
    if (me == 0)
        std::printf("register_symmetric: %d PEs: buffers of %zu and %zu MiB made symmetric, %d "
                    "checks, %d misuses refused, the memory returned at unregister\n", n,
                    size >> 20, (3 * gran) >> 20, checks, refused);
    return 0;
}
