// The NVSHMEM twin of bench/device_bench.cu: the same kernels and timing,
// on NVSHMEM's public API (the source selects it with BENCH_NVSHMEM).
// Built where NVSHMEM is installed (scripts/gpu-session.sh):
//   nvcc -arch=sm_90 -rdc=true -I$NV/include device_bench_nvshmem.cu \
//        $NV/lib/libnvshmem_device.a -L$NV/lib -l:libnvshmem_host.so.3
//   gshmrun -n 2 ./device_bench_nvshmem /tmp/uid-file
#define BENCH_NVSHMEM
#include "../device_bench.cu"
