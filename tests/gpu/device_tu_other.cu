// The second translation unit of device_tu (and, built alone, the plugin
// that device_tu opens with dlopen after gshmem_init): its kernels read
// their own copy of the device state.
#include <gshmem_device.cuh>

#ifndef TU_SLOT
#define TU_SLOT 1
#endif
#ifndef TU_ENTRY
#define TU_ENTRY other_tu_put
#endif

__global__ void tu_put_kernel(int *buf, int slot)
{
    const int to = (gshmem_my_pe() + 1) % gshmem_n_pes();
    gshmem_int_p(&buf[slot], 1000 * slot + gshmem_my_pe(), to);
    gshmem_quiet();
}

// Puts 1000 * TU_SLOT + my pe into the next PE's buf[TU_SLOT]; 0 or a CUDA error.
extern "C" __attribute__((visibility("default"))) int TU_ENTRY(int *buf)
{
    tu_put_kernel<<<1, 1>>>(buf, TU_SLOT);
    return static_cast<int>(cudaDeviceSynchronize());
}
