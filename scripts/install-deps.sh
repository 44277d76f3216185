#!/bin/sh
# Installs what building and testing gshmem needs, from the distribution's
# packages (Debian/Ubuntu), if it is not there yet.
set -eu
pkgs="gcc meson ninja-build pkg-config python3 libpmix-dev openmpi-bin libibverbs-dev libnuma-dev
      clang libclang-rt-dev mpich"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
