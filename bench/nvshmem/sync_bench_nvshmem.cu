// The NVSHMEM twin of bench/sync_bench.cu: the same kernels and timing on
// NVSHMEM's public API (the source selects it with BENCH_NVSHMEM).  Built by
// meson where NVSHMEM is found (option nvshmem); run it with gshmrun.
#define BENCH_NVSHMEM
#include "../sync_bench.cu"
