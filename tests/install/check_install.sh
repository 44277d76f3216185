#!/bin/sh
# Installs the build into a scratch prefix and builds a program the way a
# user would (pkg-config), then runs it with the installed gshmrun.  It
# compiles and links api_calls.c, which calls every operation of the tables
# (and in C their _Generic forms), as strict C11 and as C++11.  With
# NVCC (the build's CUDA compiler; '-' for none) it also compiles and links,
# without running, a CUDA program against the installed gshmem_device.cuh,
# and checks that each header of include/gshmem/device/ refuses to be
# included on its own.
# NVSHMEM's build files: an NVSHMEM host program in C is built with
# pkg-config's nvshmem (NVSHMEM's library names) and run with nvshmrun; with
# NVCC, tests/compat/nvshmem_style.cu is compiled and linked, not run,
# NVSHMEM's documented way (-lnvshmem_host -lnvshmem_device) with and
# without -rdc=true.  With CMAKE ('-' for none), examples/hello.c is built
# through find_package(gshmem) and run, and with NVCC too nvshmem_style.cu
# through find_package(NVSHMEM) (tests/install/cmake_*).
# NVSHMEM's static link (src/compat/meson.build), where libnvshmem.a is
# installed: cc ... -lnvshmem links nvshmem_host.c, with NVCC nvcc
# [-rdc=true] ... -lnvshmem -lcuda (NVSHMEM's documented static line) links
# nvshmem_style.cu and nvshmem_host.c as CUDA, and with CMAKE too
# nvshmem::nvshmem links both in the same CMake build; no such program may
# need libgshmem or an NVSHMEM library at run time (readelf -d, ldd), the
# host ones run under nvshmrun.  Every link of NVSHMEM's build files must
# pass without a warning.  What is skipped is said in the last line.
# usage: check_install.sh BUILD_DIR SOURCE_DIR CC [NVCC|-] [CMAKE|-]
# (CC: the build's C compiler, its words in one argument)
set -eu
build=$1 src=$2 cc=$3 nvcc=${4:--} cmake=${5:--}
command -v "${cc%% *}" >/dev/null || { echo "no C compiler ($cc): skipped"; exit 77; }
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
# option NAME: the build's value (a list's items separated by spaces)
option() {
    meson introspect "$build" --buildoptions | python3 -c \
        'import json,sys; v=[o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]][0]; print(" ".join(v) if isinstance(v, list) else v)' "$1"
}
prefix=$(option prefix)
root="$dest$prefix"
# run LAUNCHER ARGS... PROGRAM: the job under a time limit; a hang fails
# the test, naming the program.
run() {
    eval "run_prog=\${$#}"
    rc=0
    timeout -k 10 120 "$@" || rc=$?
    case $rc in
    0) ;;
    124 | 137) echo "$run_prog: no end within 120 s under $1 (timeout)"; exit 1 ;;
    *) echo "$run_prog failed under $1 (exit $rc)"; exit 1 ;;
    esac
}
# nvcc's notice that an old GPU target is deprecated is no link warning.
# The build's own cuda_args too, so that these compile as the build's own
# do (scripts/test.sh without a GPU passes -Xcicc -O0; nothing here runs
# device code).  Items are split at spaces: an item holding a space
# (-Xcompiler="-O2 -g") is not supported.
nvcc_flags=-Wno-deprecated-gpu-targets
if [ "$nvcc" != - ]; then
    nvcc_flags="$nvcc_flags $(option cuda_args)"
fi
pc=$(dirname "$(find "$root" -name gshmem.pc | head -1)")
for f in gshmem.h gshmemx.h gshmem_types.h; do
    test -f "$root/include/$f" || { echo "not installed: include/$f"; exit 1; }
done
for f in gshmemi_device_state.h gshmemi_fifo.h; do # now in include/gshmem/internal/
    test ! -e "$root/include/$f" || { echo "installed at its old path: include/$f"; exit 1; }
done
ls "$root"/lib*/*/libgshmem.a "$root"/lib*/libgshmem.a 2>/dev/null | grep -q . ||
    { echo "static libgshmem not installed"; exit 1; }
test -x "$root/bin/gshmrun" && test -x "$root/bin/gshmem-info" || { echo "tools not installed"; exit 1; }
cflags=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$root" --cflags gshmem)
libs=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$root" --libs gshmem)
$cc -std=c11 -Wall -Werror $cflags -o "$dest/hello" "$src/examples/hello.c" $libs
libgshmem_so=$(find "$root" -name 'libgshmem.so' | head -1)
test -n "$libgshmem_so" || { echo "libgshmem.so not installed under $root"; exit 1; }
libdir=$(dirname "$libgshmem_so")
LD_LIBRARY_PATH=$libdir run "$root/bin/gshmrun" -n 3 "$dest/hello"
$cc -std=c11 -pedantic -Wall -Wextra -Werror $cflags -o "$dest/api_c" \
    "$src/tests/install/api_calls.c" $libs
cxx=
if command -v c++ >/dev/null; then
    c++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror $cflags -o "$dest/api_cxx" \
        "$src/tests/install/api_calls.c" $libs
    cxx=" and C++11"
fi
# OpenSHMEM programs: oshcc builds one against the installed compat
# headers, oshrun (gshmrun) runs it.
for f in shmem.h shmemx.h; do
    test -f "$root/include/gshmem/compat/$f" || { echo "not installed: include/gshmem/compat/$f"; exit 1; }
done
test -x "$root/bin/oshcc" && test -x "$root/bin/oshrun" || { echo "oshcc, oshrun not installed"; exit 1; }
"$root/bin/oshcc" -std=c11 -Wall -Werror -o "$dest/ex_rma" "$src/tests/compat/ex_rma.c"
GSHMEM_HEAP=host run "$root/bin/oshrun" -n 2 "$dest/ex_rma"
# shmem.h also compiles as C++ (and, below, as CUDA), the generic forms aside.
printf '%s\n' '#include <shmem.h>' '#include <shmemx.h>' \
    'int main() { shmem_init(); int *d = (int *)shmem_malloc(sizeof(int));' \
    '  shmem_ctx_t c; shmem_ctx_create(0, &c); shmem_ctx_int_p(c, d, 1, 0); shmem_ctx_quiet(c);' \
    '  shmem_finalize(); return 0; }' >"$dest/shmem_host.cpp"
if command -v c++ >/dev/null; then
    "$root/bin/oshcc" -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -c -o "$dest/shmem_host.o" \
        "$dest/shmem_host.cpp"
fi
LD_LIBRARY_PATH=$libdir "$root/bin/gshmem-info" | head -2
device=
arch=
if [ "$nvcc" != - ]; then
    arch=$(option gpu_arch)
    case $arch in # CMake's names: 90 for sm_90, 90-virtual for compute_90 (PTX only)
    compute_*) cmake_arch=${arch#compute_}-virtual ;;
    *) cmake_arch=${arch#sm_} ;;
    esac
    "$nvcc" $nvcc_flags -arch="$arch" -I"$root/include" -o "$dest/device_prog" \
        "$src/tests/install/device_prog.cu" -L"$libdir" -lgshmem
    cp "$dest/shmem_host.cpp" "$dest/shmem_host.cu"
    "$nvcc" $nvcc_flags -arch="$arch" -I"$root/include" -I"$root/include/gshmem/compat" -c \
        -o "$dest/shmem_host_cu.o" "$dest/shmem_host.cu"
    for h in "$root"/include/gshmem/device/*.cuh; do
        name=gshmem/device/$(basename "$h")
        printf '#include <%s>\n' "$name" >"$dest/alone.cu"
        # the #error is the preprocessor's: -E is enough, and quick
        if "$nvcc" $nvcc_flags -arch="$arch" -I"$root/include" -E -o "$dest/alone.ii" "$dest/alone.cu" \
            >"$dest/alone.log" 2>&1; then
            echo "<$name> compiled on its own: it should refuse to"
            exit 1
        fi
        grep -qF "include <gshmem_device.cuh>, not <$name>" "$dest/alone.log" || {
            cat "$dest/alone.log"
            echo "<$name> alone failed without its #error"
            exit 1
        }
    done
    device=", a CUDA program builds against gshmem_device.cuh, its sub-headers refuse to be included alone"
fi

# ---- NVSHMEM's build files -------------------------------------------------
# Its library names: libnvshmem_host.so a link to libgshmem's shared
# library, a static device library with no code, and NVSHMEM's static
# libnvshmem (src/compat/meson.build).
test "$(readlink "$libdir/libnvshmem_host.so")" = libgshmem.so.0 ||
    { echo "$libdir/libnvshmem_host.so is not a link to libgshmem.so.0"; exit 1; }
# libnvshmem.so: NVSHMEM's static -lnvshmem, an ld script naming libgshmem.a
# (the nvshmem-static test links with it), or without the static library
# the same link as libnvshmem_host.so.
if [ -e "$libdir/libnvshmem.a" ]; then
    grep -q 'INPUT ( libgshmem\.a ' "$libdir/libnvshmem.so" ||
        { echo "$libdir/libnvshmem.so is not the ld script"; exit 1; }
else
    test "$(readlink "$libdir/libnvshmem.so")" = libgshmem.so.0 ||
        { echo "$libdir/libnvshmem.so is not a link to libgshmem.so.0"; exit 1; }
fi
test -f "$libdir/libnvshmem_device.a" || { echo "not installed: libnvshmem_device.a"; exit 1; }
test -f "$pc/nvshmem.pc" || { echo "not installed: nvshmem.pc"; exit 1; }
test -x "$root/bin/nvshmrun" || { echo "nvshmrun not installed"; exit 1; }
# needs PROGRAM: its ELF dynamic section names libgshmem.so.0 (what a link
# to libnvshmem_host.so must leave) and no NVSHMEM library.
needs() {
    command -v readelf >/dev/null || return 0
    readelf -d "$1" >"$dest/needed.txt"
    grep -q 'NEEDED.*\[libgshmem\.so\.0\]' "$dest/needed.txt" && ! grep -q 'NEEDED.*nvshmem' "$dest/needed.txt" ||
        { cat "$dest/needed.txt"; echo "$1 does not need libgshmem.so.0 alone"; exit 1; }
}
# quiet LOG COMMAND...: runs it with its output in LOG; a failure or a
# warning (nvlink's "Skipping incompatible" among them) shows the log and
# fails the test.
quiet() {
    log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        cat "$log"
        echo "failed: $*"
        exit 1
    fi
    if grep -qi warning "$log"; then
        cat "$log"
        echo "warned: $*"
        exit 1
    fi
}
nvcflags=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$root" --cflags nvshmem)
nvlibs=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$root" --libs nvshmem)
case " $nvlibs " in
*" -lnvshmem_host -lnvshmem_device "*) ;;
*) echo "pkg-config --libs nvshmem: $nvlibs, not NVSHMEM's library names"; exit 1 ;;
esac
$cc -std=c11 -pedantic -Wall -Wextra -Werror $nvcflags -o "$dest/nvshmem_host" \
    "$src/tests/install/nvshmem_host.c" $nvlibs
needs "$dest/nvshmem_host"
LD_LIBRARY_PATH=$libdir GSHMEM_HEAP=host run "$root/bin/nvshmrun" -n 2 "$dest/nvshmem_host"
nvshmem="nvshmem.pc builds an NVSHMEM host program that nvshmrun runs"
# NVSHMEM's static link, where libnvshmem.a is installed: programs that
# need no gshmem library at run time (static PROGRAM, by readelf -d, and
# ldd where the loader lists it).  Without readelf it is not tried.
static_libs=
if [ -e "$libdir/libnvshmem.a" ]; then
    if command -v readelf >/dev/null; then
        static_libs=yes
    else
        static_note="; no readelf: NVSHMEM's static link not tried"
    fi
else
    static_note="; no libnvshmem.a (no static libgshmem): NVSHMEM's static link not tried"
fi
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
inc="$root/include/gshmem/compat"
if [ -n "$static_libs" ]; then
    test "$(readlink "$libdir/libnvshmem.a")" = libgshmem.a ||
        { echo "$libdir/libnvshmem.a is not a link to libgshmem.a"; exit 1; }
    # A cc link names the CUDA runtime's folder (README, "NVSHMEM
    # programs"); nvcc adds its own.
    cuda_l=
    if [ "$nvcc" != - ]; then
        cuda_l=-L$(dirname "$(dirname "$nvcc")")/lib64
    fi
    quiet "$dest/host_cc.log" $cc -std=c11 -Wall -I"$inc" -o "$dest/host_cc" \
        "$src/tests/install/nvshmem_host.c" -L"$libdir" $cuda_l -lnvshmem
    static "$dest/host_cc"
    # no LD_LIBRARY_PATH: nothing of gshmem is loaded
    GSHMEM_HEAP=host run "$root/bin/nvshmrun" -n 2 "$dest/host_cc"
    static_note="; cc -lnvshmem links nvshmem_host.c with no libgshmem at run time, it runs"
fi
if [ "$nvcc" != - ]; then
    # As NVSHMEM's installation guide builds, with the compat folder as
    # the include folder and gshmem's libdir as the library folder: each
    # mode compiled once, linked the shared way (-lnvshmem_host
    # -lnvshmem_device) and, with the static library, the static way
    # (-lnvshmem -lcuda); nvshmem_host.c as CUDA beside them.
    ccbin=
    if command -v g++ >/dev/null; then
        ccbin="-ccbin g++"
    fi
    nvcc_line="$nvcc $nvcc_flags $ccbin -arch=$arch"
    pids=
    for rdc in -rdc=true ""; do # side by side
        (
            quiet "$dest/nvcc$rdc.log" $nvcc_line $rdc -I"$inc" -c \
                "$src/tests/compat/nvshmem_style.cu" -o "$dest/nvshmem_style$rdc.o"
            quiet "$dest/nvcc$rdc.log" $nvcc_line $rdc "$dest/nvshmem_style$rdc.o" \
                -o "$dest/nvshmem_style$rdc" -L"$libdir" -lnvshmem_host -lnvshmem_device
            if [ -n "$static_libs" ]; then
                quiet "$dest/nvcc$rdc.log" $nvcc_line $rdc "$dest/nvshmem_style$rdc.o" \
                    -o "$dest/static_style$rdc" -L"$libdir" -lnvshmem -lcuda
            fi
        ) &
        pids="$pids $!"
    done
    for p in $pids; do
        wait "$p" || exit 1
    done
    for rdc in -rdc=true ""; do
        needs "$dest/nvshmem_style$rdc"
    done
    nvshmem="$nvshmem, nvcc [-rdc=true] ... -lnvshmem_host -lnvshmem_device links nvshmem_style.cu"
    if [ -n "$static_libs" ]; then
        cp "$src/tests/install/nvshmem_host.c" "$dest/nvshmem_host.cu"
        quiet "$dest/host_cu.log" $nvcc_line -rdc=true -I"$inc" "$dest/nvshmem_host.cu" \
            -o "$dest/host_cu" -L"$libdir" -lnvshmem -lcuda
        for prog in static_style-rdc=true static_style host_cu; do
            static "$dest/$prog"
        done
        GSHMEM_HEAP=host run "$root/bin/nvshmrun" -n 2 "$dest/host_cu"
        static_note="$static_note; nvcc [-rdc=true] ... -lnvshmem -lcuda links nvshmem_style.cu (not run: GPU) and nvshmem_host.c (runs)"
    fi
else
    nvshmem="$nvshmem; no nvcc: nvshmem_style.cu not built"
fi

# ---- CMake packages --------------------------------------------------------
if [ "$cmake" != - ]; then
    generator=
    if command -v ninja >/dev/null; then
        generator="-G Ninja"
    fi
    quiet "$dest/cmake_gshmem.log" "$cmake" $generator -S "$src/tests/install/cmake_gshmem" \
        -B "$dest/cmake_gshmem" -DCMAKE_PREFIX_PATH="$root"
    quiet "$dest/cmake_gshmem.log" "$cmake" --build "$dest/cmake_gshmem"
    needs "$dest/cmake_gshmem/hello"
    # No LD_LIBRARY_PATH: the imported target gives the program a run path.
    GSHMEM_HEAP=host run "$root/bin/gshmrun" -n 2 "$dest/cmake_gshmem/hello"
    cmake_note="; find_package(gshmem) builds hello.c, which gshmrun runs"
    if [ "$nvcc" != - ]; then
        # one CMake build for NVSHMEM's shared targets and, with
        # NVSHMEM_STATIC, its static nvshmem::nvshmem
        cmake_static=OFF
        if [ -n "$static_libs" ]; then
            cmake_static=ON
        fi
        quiet "$dest/cmake_nvshmem.log" "$cmake" $generator -S "$src/tests/install/cmake_nvshmem" \
            -B "$dest/cmake_nvshmem" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_CUDA_COMPILER="$nvcc" \
            -DCMAKE_CUDA_ARCHITECTURES="$cmake_arch" -DCMAKE_CUDA_FLAGS="$nvcc_flags" \
            -DNVSHMEM_STATIC=$cmake_static
        quiet "$dest/cmake_nvshmem.log" "$cmake" --build "$dest/cmake_nvshmem" --parallel 2
        needs "$dest/cmake_nvshmem/nvshmem_style_rdc"
        needs "$dest/cmake_nvshmem/nvshmem_style_whole"
        cmake_note="$cmake_note, find_package(NVSHMEM) links nvshmem_style.cu with and without separable compilation"
        if [ -n "$static_libs" ]; then
            static "$dest/cmake_nvshmem/nvshmem_style_static"
            static "$dest/cmake_nvshmem/nvshmem_host_static"
            GSHMEM_HEAP=host run "$root/bin/nvshmrun" -n 2 "$dest/cmake_nvshmem/nvshmem_host_static"
            static_note="$static_note; CMake's nvshmem::nvshmem links both (separable compilation), nvshmem_host runs"
        fi
    else
        cmake_note="$cmake_note; no nvcc: find_package(NVSHMEM) not tried"
    fi
else
    cmake_note="; no cmake: the CMake packages not tried"
fi

echo "install: headers, libraries, gshmem.pc, gshmrun, gshmem-info, oshcc and oshrun work from $prefix," \
    "every table's operation builds as strict C11$cxx$device; $nvshmem$cmake_note$static_note"
