#!/usr/bin/env bash
# Installs everything heed needs to build and test, from Debian's packages only.
# Idempotent: a second run finds everything present and only checks it.
#
#   scripts/install-deps.sh            host toolchain and libraries
#   scripts/install-deps.sh --cross    also ARM cross compilers, qemu-user and the ARM sysroots
#   scripts/install-deps.sh --fuzz     also clang and libFuzzer (scripts/fuzz.sh); combines with --cross
#
# ARM libraries are not installed as foreign-architecture packages (they are not Multi-Arch: same
# and apt would remove the host ones); their .debs are unpacked into build-deps/sysroot-<arch>.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cross=0
fuzz=0
for a in "$@"; do
  case "$a" in
    --cross) cross=1 ;;
    --fuzz) fuzz=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option '$a' (see --help)" >&2; exit 2 ;;
  esac
done

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

host_pkgs=(build-essential cmake ninja-build pkg-config libxnnpack-dev libpthreadpool-dev
  libcpuinfo-dev libflatbuffers-dev flatbuffers-compiler catch2 libsentencepiece-dev
  libbenchmark-dev nlohmann-json3-dev python3-numpy libminizip-dev)
# The JDK (javac, java, jni.h) builds and runs the Android JNI sample's host test (tests/samples/android/).
host_pkgs+=(default-jdk-headless)
host_pkgs+=(libutf8proc-dev)  # WordPiece (BERT) tokenizer: NFD, case folding, categories
host_pkgs+=(libicu-dev)  # sentence splitter: sentence boundaries, abbreviation lists per language
host_pkgs+=(chromium chromium-driver)  # heed serve's page and CORS, tested in a real browser
host_pkgs+=(libcli11-dev)  # the heed command line's option parser (header-only)
# The Python package and the Python tests: a virtual environment (scripts/python-venv.sh) and the
# interpreter's headers for the extension module.
host_pkgs+=(python3-venv python3-dev)
# libabigail's abidw/abidiff check libheed.so.1's ABI against tests/abi/; debootstrap makes the clean
# Debian root the packages are installed into (scripts/clean-root-install.sh).
host_pkgs+=(abigail-tools debootstrap)
host_pkgs+=(libcpp-httplib-dev curl)  # `heed serve`: HTTP/1.1 server library; curl for its shell test
host_pkgs+=(libssl-dev)  # heed convert: SHA-256 of chat templates (libcrypto)
host_pkgs+=(ccache)  # scripts/test-all.sh compiles through it: a rerun rebuilds only what changed
cross_pkgs=(g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user)
fuzz_pkgs=(clang libclang-rt-14-dev)

missing=()
want=("${host_pkgs[@]}")
if [ "$cross" -eq 1 ]; then want+=("${cross_pkgs[@]}"); fi
if [ "$fuzz" -eq 1 ]; then want+=("${fuzz_pkgs[@]}"); fi
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

apt_updated=0
apt_update() {
  if [ "$apt_updated" -eq 0 ]; then
    # A mirror caught mid-sync fails one index now and then: retry, then go on with what we have
    # (a package that is really missing makes the install step below fail with apt's message).
    local try
    for try in 1 2 3; do
      if "${sudo_cmd[@]}" apt-get update -qq; then break; fi
      echo "install-deps: apt-get update failed (try $try of 3)" >&2
      sleep $((try * 5))
    done
    apt_updated=1
  fi
}

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: host packages present"
fi

[ "$cross" -eq 1 ] || exit 0

# ARM sysroots: libraries heed links against, unpacked (not installed) per architecture.
sysroot_libs=(libxnnpack0 libxnnpack-dev libpthreadpool0 libpthreadpool-dev libcpuinfo0
  libcpuinfo-dev libflatbuffers2 libflatbuffers-dev libsentencepiece0 libsentencepiece-dev catch2
  libminizip1 libminizip-dev zlib1g zlib1g-dev)
# (zlib1g unpacks libz.so.1 into <sysroot>/lib/<triple>, not usr/lib: targets/cross-common.cmake
# adds that folder to the linker's and qemu's library paths.)
sysroot_libs+=(libutf8proc2 libutf8proc-dev)  # WordPiece (BERT) tokenizer
sysroot_libs+=(libicu72 libicu-dev)  # sentence splitter
# `heed serve`'s HTTP library; Debian builds it with TLS and compression, so linking it needs
# OpenSSL's and Brotli's libraries (and their .pc files, named by cpp-httplib.pc) too.
sysroot_libs+=(libcpp-httplib0.11 libcpp-httplib-dev libssl3 libssl-dev libbrotli1 libbrotli-dev)
sysroot_all=(nlohmann-json3-dev libcli11-dev)  # architecture-independent headers
# Each unpacked sysroot is also kept as a tar in HEED_CACHE_DIR (default /var/cache/heed, as the
# clean root's cache), keyed by the package list: a fresh clone unpacks it without apt, so it
# neither downloads the .debs again nor depends on the mirror's indexes being in sync.
cache=${HEED_CACHE_DIR:-/var/cache/heed}
packages="${sysroot_libs[*]} ${sysroot_all[*]}"
key=$(printf '%s' "$packages" | sha256sum | cut -c1-16)
for arch in arm64 armhf; do
  root="$here/build-deps/sysroot-$arch"
  stamp="$root/.complete"
  tarball="$cache/sysroot-$arch-$key.tar"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$packages" ]; then
    echo "install-deps: sysroot $arch present"
    continue
  fi
  if [ -f "$tarball" ]; then
    rm -rf "$root" && mkdir -p "$root"
    if tar -xf "$tarball" -C "$root"; then
      echo "$packages" > "$stamp"
      echo "install-deps: sysroot $arch unpacked from $tarball"
      continue
    fi
    echo "install-deps: $tarball is unreadable: downloading the packages again" >&2
  fi
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    "${sudo_cmd[@]}" dpkg --add-architecture "$arch"
    apt_updated=0
  fi
  apt_update
  rm -rf "$root" "$root.debs"
  mkdir -p "$root.debs" "$root"
  chmod 777 "$root.debs"   # apt downloads as the _apt user
  (cd "$root.debs" && apt-get download -qq $(printf "%s:$arch " "${sysroot_libs[@]}") "${sysroot_all[@]}")
  for deb in "$root.debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  rm -rf "$root.debs"
  echo "$packages" > "$stamp"
  echo "install-deps: sysroot $arch unpacked into $root"
  # Cached only where the cache folder is writable (a user without sudo simply downloads again).
  if mkdir -p "$cache" 2>/dev/null && tar -cf "$tarball.part" -C "$root" . 2>/dev/null; then
    mv "$tarball.part" "$tarball" && echo "install-deps: sysroot $arch cached as $tarball"
  else
    rm -f "$tarball.part" 2>/dev/null || true
  fi
done
