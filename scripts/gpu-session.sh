#!/bin/sh
# Runs the GPU suite and the GPU benchmarks from a build folder made on
# another machine (meson's test list holds that machine's absolute paths,
# so this calls the programs directly).  For the device machine:
#   sh scripts/gpu-session.sh            tests at 1, 2, 4 PEs, leak cycles, benchmarks
#   NPS="1 2" QUICK=1 sh scripts/gpu-session.sh   tests only
#   PROXY_ONLY=1 sh scripts/gpu-session.sh        the proxy path: tests and benchmarks
#   NOBENCH=1 PROXY_ONLY=1 sh scripts/gpu-session.sh   the proxy path's tests only
#   FAULT_ONLY=1 sh scripts/gpu-session.sh       the fault matrix's GPU rows
#   (FAULT_FULL=1: all of them); the whole session runs the subset too
# Every program runs under a timeout (T seconds, default 120).
# Logs go to $OUT (or /tmp): gpu.log, bench.log.  Never changes GPU settings.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
R=$(cd "$(dirname "$0")/.." && pwd)
cd "$R"
OUT=${OUT:-/tmp}
export GSHMRUN=$R/build/tools/gshmrun TEST_GSHMEM_INFO=$R/build/tools/gshmem-info
export GSHMEM_TIMEOUT=60 TEST_JOB_TIMEOUT=300
log=$OUT/gpu.log
b=$OUT/bench.log
T=${T:-120}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$b"
proxy_path() {
    export GSHMEM_DISABLE_P2P=1
    for p in spmd_rma spmd_amo spmd_sync spmd_heap spmd_generic spmd_team spmd_static gpu_on_stream; do
        echo "=== $p tcp 2" >>"$log"
        GSHMEM_SYMMETRIC_SIZE=4m timeout "$T" sh tests/gpu/run_on_gpu.sh 2 "build/tests/$p" >>"$log" 2>&1
        echo "$p tcp np=2 rc=$? $(tail -1 "$log" | cut -c1-120)"
    done
    for np in 2 4; do
        for p in device_proxy device_api device_coll gpu_on_stream coll_algos; do
            [ $p = gpu_on_stream ] && [ $np = 2 ] && continue # above
            echo "=== $p tcp $np" >>"$log"
            timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" "build/tests/$p" >>"$log" 2>&1
            echo "$p tcp np=$np rc=$? $(tail -1 "$log" | cut -c1-150)"
        done
    done
    echo "=== cumodule tcp 2" >>"$log"
    timeout "$T" sh tests/gpu/run_on_gpu.sh 2 build/tests/cumodule "$R/build/tests" >>"$log" 2>&1
    echo "cumodule tcp np=2 rc=$? $(tail -1 "$log" | cut -c1-150)"
    timeout "$T" sh tests/gpu/run_on_gpu.sh 2 build/tests/register_symmetric >>"$log" 2>&1
    echo "register_symmetric tcp np=2 rc=$? $(tail -1 "$log" | cut -c1-150)"
    # gshmrun loads kernels eagerly; lazily, gshmem_init warns once (pe 0)
    n=$(CUDA_MODULE_LOADING=LAZY timeout 60 ./build/tools/gshmrun -n 2 ./build/bench/fifo_rtt 100 2>&1 |
        grep -c "CUDA loads kernels lazily")
    echo "lazy-loading warning under CUDA_MODULE_LOADING=LAZY: $n line(s) (want 1)"
    timeout 120 sh tests/gpu/run_on_gpu.sh --raw python3 tests/spmd/check_negative.py build/tools/gshmrun \
        build/tests/device_api --device dev-proxy-timeout on-stream-proxy-pageable 2>&1 | tail -1
    # the proxy's and the tcp target's buffers, made and freed every cycle
    GSHMEM_SYMMETRIC_SIZE=4m timeout "$T" sh tests/gpu/run_on_gpu.sh 2 build/tests/lifecycle leaks 300 2>&1 |
        tail -1
    # Fetching atomics at 4 PEs put two PEs' contexts on each GPU: the GPU
    # time-slices between them while both grids spin, and each batch of
    # atomics the target applies waits for its slice.  Two PEs only.
    for mode in "" "amo"; do
        for np in 2 4; do
            [ "$mode" = amo ] && [ $np = 4 ] && continue
            echo "=== gpu_fifo $mode $np" >>"$log"
            timeout "$T" ./build/tools/gshmrun -n $np ./build/tests/gpu_fifo $mode >>"$log" 2>&1
            echo "gpu_fifo $mode np=$np rc=$? $(tail -1 "$log" | cut -c1-150)"
        done
    done
    if [ -n "${NOBENCH:-}" ]; then
        unset GSHMEM_DISABLE_P2P
        return
    fi
    echo "== fifo_rtt, proxy_rate, tcp_bw (GSHMEM_DISABLE_P2P=1)" | tee -a "$b"
    timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/fifo_rtt 2>&1 | tee -a "$b"
    timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/fifo_rtt 20000 parts 2>&1 | tee -a "$b"
    timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/fifo_rtt 20000 floor 2>&1 | tee -a "$b"
    for bytes in 8 48 256 4096; do
        timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/proxy_rate 1024 64 $bytes 2>&1 | tee -a "$b"
    done
    for warps in 8 64; do # GPU-memory sources with few producers: is it contention?
        timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/proxy_rate $warps 64 256 2>&1 | tee -a "$b"
    done
    timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/tcp_bw 2>&1 | tee -a "$b"
    timeout "$T" ./build/bench/socket_to_gpu 2>&1 | tee -a "$b" # the floor of tcp_bw's puts, no gshmem
    timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/proxy_idle 2>&1 | tee -a "$b"
    unset GSHMEM_DISABLE_P2P
}
# The fault matrix's GPU rows (tests/fault/run_matrix.py --gpu): its table.
fault_rows() {
    timeout 1200 python3 tests/fault/run_matrix.py build/tools/gshmrun build/tests/fault/fault_gpu - \
        --gpu ${FAULT_FULL:+--full} 2>&1 | tee "$OUT/fault-gpu.txt" | tail -3
}
if [ -n "${PROXY_ONLY:-}" ]; then
    proxy_path
    exit 0
fi
if [ -n "${FAULT_ONLY:-}" ]; then
    fault_rows
    exit 0
fi
./build/tools/gshmem-info | sed -n '3,16p'
for np in ${NPS:-1 2 4}; do
    for p in spmd_rma spmd_amo spmd_sync spmd_heap spmd_generic spmd_team spmd_static gpu_on_stream; do
        echo "=== $p $np" >>"$log"
        GSHMEM_SYMMETRIC_SIZE=4m timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" "build/tests/$p" >>"$log" 2>&1
        echo "$p np=$np rc=$? $(tail -1 "$log" | cut -c1-120)"
    done
done
for np in ${NPS:-1 2 4}; do
    timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" build/tests/device_api >>"$log" 2>&1
    echo "device_api np=$np rc=$? $(tail -1 "$log" | cut -c1-120)"
done
for np in ${NPS:-1 2 4}; do
    timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" build/tests/device_coll >>"$log" 2>&1
    echo "device_coll np=$np rc=$? $(tail -1 "$log" | cut -c1-120)"
done
for algo in auto simple ll grid; do
    for np in ${NPS:-1 2 4}; do
        GSHMEM_COLL_ALGO=$algo timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" build/tests/coll_algos >>"$log" 2>&1
        echo "coll_algos $algo np=$np rc=$? $(tail -1 "$log" | cut -c1-120)"
    done
done
for p in device_coll coll_algos; do # teams mixing mapped and proxy members
    GSHMEM_TEST_SIM_NODES=2 timeout "$T" sh tests/gpu/run_on_gpu.sh 4 "build/tests/$p" >>"$log" 2>&1
    echo "$p sim-nodes 2 np=4 rc=$? $(tail -1 "$log" | cut -c1-120)"
done
for p in device_tu device_tu_rdc; do
    timeout "$T" sh tests/gpu/run_on_gpu.sh 2 "build/tests/$p" "$R/build/tests/libdevice_plugin.so" >>"$log" 2>&1
    echo "$p rc=$? $(tail -1 "$log" | cut -c1-120)"
done
for np in ${NPS:-1 2 4}; do # modules the program loads, buffers it makes
    timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" build/tests/cumodule "$R/build/tests" >>"$log" 2>&1
    echo "cumodule np=$np rc=$? $(tail -1 "$log" | cut -c1-150)"
    timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" build/tests/register_symmetric >>"$log" 2>&1
    echo "register_symmetric np=$np rc=$? $(tail -1 "$log" | cut -c1-150)"
done
timeout "$T" sh tests/gpu/run_on_gpu.sh 2 build/tests/gpu_heap_dmabuf >>"$log" 2>&1
echo "gpu_heap_dmabuf rc=$? $(tail -1 "$log" | cut -c1-150)"
timeout 300 sh tests/gpu/run_on_gpu.sh --raw python3 tests/spmd/check_negative.py build/tools/gshmrun \
    build/tests/device_api --device 2>&1 | tail -1
for ex in ring jacobi; do
    for np in 2 4; do
        timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" "build/examples/$ex" >>"$log" 2>&1
        echo "example $ex np=$np rc=$? $(tail -1 "$log" | cut -c1-160)"
    done
done
GSHMEM_HEAP=host ./build/tests/gpu_host_heap | tail -1
# NVSHMEM- and OpenSHMEM-style programs (the latter with GSHMEM_HEAP unset:
# shmem_init keeps their heap in host memory)
for np in ${NPS:-1 2 4}; do
    timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" build/tests/nvshmem_style >>"$log" 2>&1
    echo "nvshmem_style np=$np rc=$? $(tail -1 "$log" | cut -c1-120)"
done
# the same source started by unique id, under gshmem and built against NVSHMEM
for np in 1 2; do
    timeout "$T" sh tests/gpu/run_on_gpu.sh "$np" build/tests/nvshmem_style uid >>"$log" 2>&1
    echo "nvshmem_style uid np=$np rc=$? $(tail -1 "$log" | cut -c1-120)"
    if [ -x build/bench/nvshmem_style_nvshmem ]; then
        timeout "$T" ./build/tools/gshmrun -n "$np" build/bench/nvshmem_style_nvshmem uid >>"$log" 2>&1
        echo "nvshmem_style built against NVSHMEM, uid np=$np rc=$? $(tail -1 "$log" | cut -c1-120)"
    fi
done
for np in ${NPS:-1 2 4}; do # an OpenSHMEM program of calls alone, on the GPU heap
    GSHMEM_HEAP=device timeout "$T" sh tests/spmd/launch.sh gshmrun "$np" \
        build/tests/compat/compat_calls_only >>"$log" 2>&1
    echo "OpenSHMEM calls_only np=$np, GSHMEM_HEAP=device: rc=$? $(tail -1 "$log" | cut -c1-120)"
done
for p in compat_all ex_static; do
    env -u GSHMEM_HEAP timeout "$T" sh tests/spmd/launch.sh gshmrun 2 "build/tests/compat/compat_$p" \
        >>"$log" 2>&1
    echo "OpenSHMEM $p np=2, GSHMEM_HEAP unset: rc=$? $(tail -1 "$log" | cut -c1-120)"
done
sh tests/gpu/run_on_gpu.sh --raw python3 tests/spmd/check_negative.py build/tools/gshmrun \
    build/tests/negative put-pe-range put-not-heap atomic-misaligned bad-cmp \
    malloc-asymmetric free-not-heap free-interior free-twice 2>&1 | tail -1
GSHMEM_HEAP=device timeout "$T" sh tests/spmd/check_info_peers.sh build/tools/gshmrun \
    build/tools/gshmem-info GPU 2>&1 | tail -1
fault_rows
[ -n "${QUICK:-}" ] && exit 0
GSHMEM_SYMMETRIC_SIZE=4m sh tests/gpu/run_on_gpu.sh 2 build/tests/lifecycle leaks 1000 2>&1 | tail -3
echo "== sync_floor (raw PTX: what the ordering costs on this hardware)" | tee -a "$b"
timeout "$T" ./build/tools/gshmrun -n 2 ./build/bench/sync_floor 2>&1 | tee -a "$b"
# gshmem next to NVSHMEM, NCCL and the hardware: tables, CSV, plots and the report
python3 bench/run --out "$OUT/bench" --report docs/performance.md 2>&1 | tee -a "$b"
