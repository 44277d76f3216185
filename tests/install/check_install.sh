#!/bin/sh
# Installs the build into a scratch prefix and builds a program the way a
# user would (pkg-config), then runs it with the installed gshmrun.
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
prefix=$(meson introspect "$build" --buildoptions | python3 -c \
    'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root="$dest$prefix"
pc=$(dirname "$(find "$root" -name gshmem.pc | head -1)")
for f in gshmem.h gshmemx.h gshmem_types.h; do
    test -f "$root/include/$f" || { echo "not installed: include/$f"; exit 1; }
done
ls "$root"/lib*/*/libgshmem.a "$root"/lib*/libgshmem.a 2>/dev/null | grep -q . ||
    { echo "static libgshmem not installed"; exit 1; }
test -x "$root/bin/gshmrun" && test -x "$root/bin/gshmem-info" || { echo "tools not installed"; exit 1; }
cflags=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$root" --cflags gshmem)
libs=$(PKG_CONFIG_PATH=$pc pkg-config --define-variable=prefix="$root" --libs gshmem)
cc -std=c11 -Wall -Werror $cflags -o "$dest/hello" "$src/examples/hello.c" $libs
libdir=$(dirname "$(find "$root" -name 'libgshmem.so' | head -1)")
LD_LIBRARY_PATH=$libdir "$root/bin/gshmrun" -n 3 "$dest/hello"
LD_LIBRARY_PATH=$libdir "$root/bin/gshmem-info" | head -2
echo "install: headers, libraries, gshmem.pc, gshmrun and gshmem-info work from $prefix"
