// The NVSHMEM twin of bench/on_stream.cu: the same kernels and timing on
// NVSHMEM's public API (the source selects it with BENCH_NVSHMEM).  Built by
// meson where NVSHMEM is found (option nvshmem); run it with gshmrun.
#define BENCH_NVSHMEM
#include "../on_stream.cu"
