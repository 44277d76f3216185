// The build model of the device API: kernels in two translation units of
// one program (built with and without -rdc=true) and in a shared library
// opened with dlopen after gshmem_init each put to the next PE, and every
// value is checked.  Exit 77 without a GPU.
//
//   gshmrun -n 2 ./device_tu [PLUGIN.so]
#include <cstdio>
#include <dlfcn.h>

#include <gshmem_device.cuh>

#include "gpu_check.h"

extern "C" int other_tu_put(int *buf);

__global__ void main_put_kernel(int *buf)
{
    const int to = (gshmem_my_pe() + 1) % gshmem_n_pes();
    gshmem_int_p(&buf[0], gshmem_my_pe(), to);
    gshmem_quiet();
}

int main(int argc, char **argv)
{
    const int ngpu = gpu_count();
    if (ngpu == 0)
        return 77;
    gshmem_init();
    const int me = gshmem_my_pe(), n = gshmem_n_pes(), prev = (me + n - 1) % n;
    int *buf = static_cast<int *>(gshmem_calloc(4, sizeof(int)));
    int want[3] = {prev, 1000 + prev, 2000 + prev}, slots = 2;
    gshmem_barrier_all();
    main_put_kernel<<<1, 1>>>(buf);
    int err = static_cast<int>(cudaDeviceSynchronize());
    if (err == 0)
        err = other_tu_put(buf);
    if (err == 0 && argc > 1) {
        void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL); // after init: registers now
        int (*plugin_put)(int *) =
            lib != nullptr ? reinterpret_cast<int (*)(int *)>(dlsym(lib, "plugin_put")) : nullptr;
        if (plugin_put == nullptr) {
            std::fprintf(stderr, "pe %d: dlopen %s: %s\n", me, argv[1], dlerror());
            gshmem_global_exit(1);
        }
        err = plugin_put(buf);
        slots = 3;
    }
    if (err != 0) {
        std::fprintf(stderr, "pe %d: a kernel failed: %s\n", me,
                     cudaGetErrorString(static_cast<cudaError_t>(err)));
        gshmem_global_exit(1);
    }
    gshmem_barrier_all();
    int got[3];
    gshmem_getmem(got, buf, sizeof(got), me);
    for (int i = 0; i < slots; i++) {
        if (got[i] != want[i]) {
            std::fprintf(stderr, "pe %d: buf[%d] is %d, expected %d\n", me, i, got[i], want[i]);
            gshmem_global_exit(1);
        }
    }
    gshmem_barrier_all();
    if (me == 0)
        std::printf("device_tu: %d PEs: kernels of %d translation units%s put and were checked\n",
                    n, slots, slots == 3 ? " (one a library opened after init)" : "");
    gshmem_finalize();
    return 0;
}
