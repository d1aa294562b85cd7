#!/usr/bin/env bash
# scripts/clean-root-install.sh BUILD_DIR
# Installs the amd64 packages that `cpack -G DEB` made in BUILD_DIR (heed, libheed1, libheed-dev)
# into a minimal Debian bookworm root made by debootstrap, with `apt-get install ./*.deb` so that
# apt resolves their Depends from Debian's archive, then, inside that root:
#   - `heed` translates, lists n-best, scores and generates (tests/runtime/c_api/consumer/check_consumer.sh);
#   - a C-only CMake project (find_package(heed) and pkg-config heed) builds against libheed-dev
#     and its programs give the same lines as the installed `heed`.
# A dependency missing from a package's Depends fails here, where the build machine would hide it.
# Runs as root (chroot). The debootstrap root is cached as a tar in HEED_CACHE_DIR (default
# /var/cache/heed), keyed by its package list; the .debs apt fetches are cached there too.
# HEED_KEEP_CLEAN_ROOT=1 keeps the root (BUILD_DIR/clean-root) after the run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:?usage: clean-root-install.sh BUILD_DIR}" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "clean-root-install: needs root (debootstrap, chroot)" >&2; exit 1; }
suite=bookworm
mirror=${HEED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the root holds before heed's packages: a C toolchain, CMake and pkg-config for the consumer.
include=gcc,libc6-dev,make,cmake,pkg-config
cache=${HEED_CACHE_DIR:-/var/cache/heed}
key=$(printf '%s %s %s minbase 1\n' "$suite" "$mirror" "$include" | sha256sum | cut -c1-16)
tarball=$cache/debootstrap-$suite-$key.tar
root=$build/clean-root
mkdir -p "$cache/apt-archives"
rm -rf "$root"
mkdir -p "$root"

if [ -f "$tarball" ]; then
  tar -xf "$tarball" -C "$root"
else
  echo "clean-root-install: debootstrap $suite ($include) into $root (cached as $tarball)"
  debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" >"$build/debootstrap.log" 2>&1 ||
    { tail -20 "$build/debootstrap.log"; echo "clean-root-install: debootstrap failed" >&2; exit 1; }
  tar -cf "$tarball.part" -C "$root" . && mv "$tarball.part" "$tarball"
fi

# Debian's archive as the build machine reaches it: the suite, its updates and security updates.
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb ${HEED_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} $suite-security main
EOF
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
cp "$cache"/apt-archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true

# What the checks read: the packages, the consumer project, the models and the expected output.
check=$root/tmp/check
mkdir -p "$check/debs" "$check/consumer"
cp "$build"/heed_*_amd64.deb "$build"/libheed1_*_amd64.deb "$build"/libheed-dev_*_amd64.deb "$check/debs/"
cp tests/runtime/c_api/consumer/CMakeLists.txt tests/runtime/c_api/consumer/consumer.c \
  tests/runtime/c_api/consumer/check_consumer.sh "$check/consumer/"
# float32: the expected greedy translation is the transformers library's, which int8 only approaches.
"$build/tools/heed" convert tests/fixtures/marian/tiny-en-de -o "$check/translation.heed" --quantize float32 --quiet
"$build/tools/heed" convert "$HEED_SHARED_DIR/models/llama2c/stories260k" -o "$check/stories.heed" --quiet
head -1 "$build/tests/runtime/c_api/data/source.txt" >"$check/source.txt"
head -1 "$build/tests/runtime/c_api/data/greedy.txt" >"$check/greedy.txt"

cat >"$check/run.sh" <<'EOF'
set -eu
cd /tmp/check
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends ./debs/*.deb >apt.log 2>&1 || { tail -30 apt.log; exit 1; }
heed --version
cmake -S consumer -B build -DCMAKE_BUILD_TYPE=Release >cmake.log 2>&1 || { tail -30 cmake.log; exit 1; }
cmake --build build >>cmake.log 2>&1 || { tail -30 cmake.log; exit 1; }
for program in consumer_cmake consumer_pkgconfig; do
  sh consumer/check_consumer.sh heed "build/$program" translation.heed "$(cat source.txt)" "$(cat greedy.txt)" \
    stories.heed "Once upon a time"
done
EOF
# /proc as on an installed system (cpuinfo reads the CPU's features there); unmounted on any exit.
mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
status=0
chroot "$root" /bin/sh /tmp/check/run.sh || status=1
umount "$root/proc"
cp -n "$root"/var/cache/apt/archives/*.deb "$cache/apt-archives/" 2>/dev/null || true
[ -n "${HEED_KEEP_CLEAN_ROOT:-}" ] || rm -rf "$root"  # kept for a look inside when set
if [ "$status" -eq 0 ]; then echo "clean-root-install: ok"; else echo "FAIL: clean-root-install"; fi
exit "$status"
