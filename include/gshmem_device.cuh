/*
 * gshmem device API: the OpenSHMEM / NVSHMEM families called from CUDA
 * kernels, header-only.  Include it in each .cu file whose kernels use
 * gshmem and build without relocatable device code:
 *
 *     nvcc -arch=sm_90 app.cu -lgshmem
 *
 * (-rdc=true works too.)  Each translation unit has its own copy of the
 * device state (a static __constant__ object) and registers, from a static
 * initialiser, a callback the library runs at gshmem_init, on heap growth
 * and at gshmem_finalize; a library loaded with dlopen after init is
 * brought up to date when it registers.
 *
 * Memory model (DESIGN.md section 5): puts to mapped PEs are weak stores;
 * gshmem_fence orders them per PE; gshmem_quiet completes all; signals are
 * release operations at system scope; waits spin with acquire loads
 * (docs/device-api.md says why).  Kernels reach mapped PEs (same GPU or P2P)
 * with loads and stores, and every other PE through the proxy: requests in
 * a FIFO that a CPU thread carries out on the network transport.  Without
 * a proxy (a single-node job with some pair unmapped and no transport) a
 * call on an unmapped PE stops the job with a message naming the call, the
 * PE and the block/thread.
 */
#ifndef GSHMEM_DEVICE_CUH
#define GSHMEM_DEVICE_CUH

#ifndef __CUDACC__
#error "gshmem_device.cuh is CUDA C++: compile this file with nvcc"
#endif

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "gshmem.h"
#include "gshmem/internal/device_state.h"
#include "gshmem/internal/partitioned.h"
#include "gshmemx.h"

/* The families, one header each, in an order where each uses only those
 * before it; each refuses to be included on its own. */
#define GSHMEMI_DEVICE_UMBRELLA
#include "gshmem/device/state.cuh"
#include "gshmem/device/checks.cuh"
#include "gshmem/device/proxy.cuh"
#include "gshmem/device/copy.cuh"
#include "gshmem/device/rma.cuh"
#include "gshmem/device/sync.cuh"
#include "gshmem/device/amo.cuh"
#include "gshmem/device/barrier.cuh"
#include "gshmem/device/partitioned.cuh"
#include "gshmem/device/coll/team.cuh"
#include "gshmem/device/coll/ll.cuh"
#include "gshmem/device/coll/collectives.cuh"
#include "gshmem/device/launch.cuh"

#endif /* GSHMEM_DEVICE_CUH */
