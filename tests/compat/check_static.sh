#!/bin/sh
# NVSHMEM's static link on gshmem (src/compat/meson.build): installs the
# build into a scratch prefix and links programs as against NVSHMEM's
# libnvshmem.a, with nothing but the paths changed:
# - cc ... -lnvshmem: tests/install/nvshmem_host.c, run under nvshmrun on
#   the host heap;
# - with NVCC, nvcc -rdc=true ... -lnvshmem -lcuda (NVSHMEM's documented
#   static line): nvshmem_host.c as CUDA, run the same way, and
#   tests/compat/nvshmem_style.cu with and without -rdc=true, linked only
#   (it needs a GPU);
# - with NVCC and CMAKE, the same two through find_package(NVSHMEM)'s
#   nvshmem::nvshmem with CUDA_SEPARABLE_COMPILATION (tests/compat/
#   nvshmem_static), the host program run.
# Each program's ELF dynamic section must name no libgshmem and no
# NVSHMEM library, and every link must pass without a warning.  Exit 77
# (skipped) where gshmem's static library is not built.
# usage: check_static.sh BUILD_DIR SOURCE_DIR [NVCC|-] [CMAKE|-]
set -eu
build=$1 src=$2 nvcc=${3:--} cmake=${4:--}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
option() {
    meson introspect "$build" --buildoptions | python3 -c \
        'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]][0])' "$1"
}
root="$dest$(option prefix)"
libdir=$(dirname "$(find "$root" -name 'libnvshmem_host.so' | head -1)")
if [ ! -e "$libdir/libnvshmem.a" ]; then
    echo "no libnvshmem.a installed (default_library=shared): skipped"
    exit 77
fi
test "$(readlink "$libdir/libnvshmem.a")" = libgshmem.a ||
    { echo "$libdir/libnvshmem.a is not a link to libgshmem.a"; exit 1; }
grep -q 'INPUT ( libgshmem\.a ' "$libdir/libnvshmem.so" ||
    { cat "$libdir/libnvshmem.so"; echo "$libdir/libnvshmem.so is not the ld script"; exit 1; }
inc="$root/include/gshmem/compat"
# quiet LOG COMMAND...: runs it with its output in LOG; a failure or a
# warning shows the log and fails the test.
quiet() {
    log=$1
    shift
    if ! "$@" >"$log" 2>&1 || grep -qi warning "$log"; then
        cat "$log"
        echo "failed or warned: $*"
        exit 1
    fi
}
# static PROGRAM: it needs neither libgshmem nor an NVSHMEM library at run
# time (readelf -d, and ldd where the loader can list it).
static() {
    readelf -d "$1" >"$dest/needed.txt"
    if grep -q 'NEEDED.*\(gshmem\|nvshmem\)' "$dest/needed.txt"; then
        cat "$dest/needed.txt"
        echo "$1 needs a shared gshmem library"
        exit 1
    fi
    if ldd "$1" >"$dest/ldd.txt" 2>&1 && grep -q 'gshmem\|nvshmem' "$dest/ldd.txt"; then
        cat "$dest/ldd.txt"
        echo "$1 loads a shared gshmem library"
        exit 1
    fi
}
# run PROGRAM: 2 PEs on the host heap, without LD_LIBRARY_PATH.
run() {
    GSHMEM_HEAP=host "$root/bin/nvshmrun" -n 2 "$1"
}
quiet "$dest/cc.log" cc -std=c11 -Wall -I"$inc" -o "$dest/host_cc" \
    "$src/tests/install/nvshmem_host.c" -L"$libdir" -lnvshmem
static "$dest/host_cc"
run "$dest/host_cc"
done_list="cc -lnvshmem links nvshmem_host.c, which runs"
if [ "$nvcc" != - ]; then
    arch=$(option gpu_arch)
    ccbin=
    if command -v g++ >/dev/null; then
        ccbin="-ccbin g++"
    fi
    cp "$src/tests/install/nvshmem_host.c" "$dest/nvshmem_host.cu"
    pids=
    for rdc in -rdc=true ""; do # side by side, as the install test does
        (quiet "$dest/style$rdc.log" "$nvcc" $rdc $ccbin -arch="$arch" -I"$inc" \
            "$src/tests/compat/nvshmem_style.cu" -o "$dest/style$rdc" -L"$libdir" -lnvshmem -lcuda) &
        pids="$pids $!"
    done
    quiet "$dest/host_cu.log" "$nvcc" -rdc=true $ccbin -arch="$arch" -I"$inc" \
        "$dest/nvshmem_host.cu" -o "$dest/host_cu" -L"$libdir" -lnvshmem -lcuda
    for p in $pids; do
        wait "$p" || exit 1
    done
    for prog in style-rdc=true style host_cu; do
        static "$dest/$prog"
    done
    run "$dest/host_cu"
    done_list="$done_list; nvcc [-rdc=true] ... -lnvshmem -lcuda links nvshmem_style.cu (not run: GPU) and nvshmem_host.c (run)"
    if [ "$cmake" != - ]; then
        case $arch in # CMake's names: 90 for sm_90, 90-virtual for compute_90
        compute_*) cmake_arch=${arch#compute_}-virtual ;;
        *) cmake_arch=${arch#sm_} ;;
        esac
        generator=
        if command -v ninja >/dev/null; then
            generator="-G Ninja"
        fi
        quiet "$dest/cmake.log" "$cmake" $generator -S "$src/tests/compat/nvshmem_static" \
            -B "$dest/cmake" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_CUDA_COMPILER="$nvcc" \
            -DCMAKE_CUDA_ARCHITECTURES="$cmake_arch"
        quiet "$dest/cmake.log" "$cmake" --build "$dest/cmake" --parallel 2
        static "$dest/cmake/nvshmem_style"
        static "$dest/cmake/nvshmem_host"
        run "$dest/cmake/nvshmem_host"
        done_list="$done_list; CMake's nvshmem::nvshmem links both (separable compilation), nvshmem_host runs"
    else
        done_list="$done_list; no cmake: nvshmem::nvshmem not tried"
    fi
else
    done_list="$done_list; no nvcc: nvcc and CMake links not tried"
fi
echo "nvshmem-static: no libgshmem at run time; $done_list"
