// The NVSHMEM twin of bench/coll.cu: the same kernels and timing on
// NVSHMEM's public API (the source selects it with BENCH_NVSHMEM).  Built by
// meson where NVSHMEM is found (option nvshmem); run it with gshmrun, once
// as it is (NVSHMEM hands most on-stream collectives to NCCL) and once with
// NVSHMEM_DISABLE_NCCL=1 (its own kernels; the lines say sys=nvshmem-own).
#define BENCH_NVSHMEM
#include "../coll.cu"
