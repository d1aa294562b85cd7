#!/bin/sh
# Installs the build to a temporary prefix and builds a C-only project outside the tree against it,
# with find_package(heed) and with pkg-config (both on the shared libheed.so.1); both programs
# translate a sentence of the Marian fixture as the transformers library does (first line of the
# data files), list its 2-best hypotheses, score a pair and stream a generation as the installed
# heed command does (consumer/check_consumer.sh).
# Cross builds (TOOLCHAIN given): the prefix is installed inside the toolchain's sysroot (DESTDIR),
# where find_package and pkg-config look for an ARM system's libraries, the consumer is cross-built
# with the same toolchain file, and it and the installed heed run under EMULATOR.
# usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR GENERATOR MODEL.heed DATA_DIR WORK_DIR FLAGS LM_SOURCE
#                        [TOOLCHAIN SYSROOT "EMULATOR"]
# LM_SOURCE: a llama2.c model folder (stories260K), converted by the installed heed.
# FLAGS: compiler and linker flags for the consumer (the sanitizers of a sanitizer build), may be "".
set -u
cmake=$1 build=$2 source=$3 generator=$4 model=$5 data=$6 dir=$7 flags=$8 lm_source=$9
shift 9
toolchain=${1:-} sysroot=${2:-} emu=${3:-}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
[ -f "$model" ] || { echo "FAIL: $model missing (the heed_c_api test converts it)"; exit 1; }
configure=""
if [ -n "$toolchain" ]; then
  # A prefix of this build's own inside the sysroot, as /opt/... on the ARM system.
  inside=/opt/heed-install-test-$(basename "$build")
  rm -rf "${sysroot:?}$inside"
  DESTDIR=$sysroot "$cmake" --install "$build" --prefix "$inside" >"$dir/install.log" 2>&1 ||
    { echo "FAIL: cmake --install: $(tail -5 "$dir/install.log")"; exit 1; }
  prefix=$sysroot$inside
  configure="-DCMAKE_TOOLCHAIN_FILE=$toolchain"
  search=$inside  # found through the toolchain's sysroot
else
  "$cmake" --install "$build" --prefix "$dir/prefix" >"$dir/install.log" 2>&1 ||
    { echo "FAIL: cmake --install: $(tail -5 "$dir/install.log")"; exit 1; }
  prefix=$dir/prefix
  search=$prefix
fi
for f in bin/heed include/heed/heed.h include/heed/kernels.h lib*/libheed_runtime.a lib*/libheed.so.1 lib*/libheed.so \
         lib*/cmake/heed/heedConfig.cmake lib*/pkgconfig/heed.pc lib*/pkgconfig/heed-static.pc; do
  ls "$prefix"/$f >/dev/null 2>&1 || { echo "FAIL: $f not installed"; exit 1; }
done
# The API headers stand alone: none includes the file format's generated FlatBuffers code.
if grep -l 'heed_generated' "$prefix"/include/heed/*.h; then echo "FAIL: an installed header includes heed_generated.h"; exit 1; fi
[ ! -e "$prefix/include/heed_generated.h" ] || { echo "FAIL: heed_generated.h is installed"; exit 1; }
lm=$dir/lm.heed
$emu "$prefix/bin/heed" convert "$lm_source" -o "$lm" --quiet || { echo "FAIL: the installed heed convert"; exit 1; }
pcdir=$(dirname "$(ls "$prefix"/lib*/pkgconfig/heed.pc)")
libdir=$(dirname "$(ls "$prefix"/lib*/libheed.so.1)")
# pkg-config gives -L only: on the host the installed library is found through LD_LIBRARY_PATH, as
# an installed system's would be; under the emulator through the programs' run path.
# The sanitizer flags only when given: setting the linker flags would drop the toolchain's own.
[ -z "$flags" ] || configure="$configure -DCMAKE_C_FLAGS=$flags -DCMAKE_EXE_LINKER_FLAGS=$flags"
# shellcheck disable=SC2086  # $configure: options without spaces inside
PKG_CONFIG_PATH=$pcdir "$cmake" -S "$source/tests/runtime/c_api/consumer" -B "$dir/consumer" -G "$generator" \
  $configure -DCMAKE_PREFIX_PATH="$search" -DCMAKE_BUILD_TYPE=Release -DCMAKE_BUILD_RPATH="$libdir" \
  >"$dir/configure.log" 2>&1 || { echo "FAIL: consumer configure: $(tail -20 "$dir/configure.log")"; exit 1; }
"$cmake" --build "$dir/consumer" -j 2 >"$dir/build.log" 2>&1 ||
  { echo "FAIL: consumer build: $(tail -20 "$dir/build.log")"; exit 1; }
text=$(head -1 "$data/source.txt")
expected=$(head -1 "$data/greedy.txt")
failures=0
for program in consumer_cmake consumer_pkgconfig; do
  LD_LIBRARY_PATH=$libdir HEED_EMULATOR=$emu sh "$source/tests/runtime/c_api/consumer/check_consumer.sh" \
    "$prefix/bin/heed" "$dir/consumer/$program" "$model" "$text" "$expected" "$lm" "Once upon a time" ||
    failures=$((failures + 1))
done
[ -z "$toolchain" ] || rm -rf "${sysroot:?}$inside"
[ $failures -eq 0 ] && echo "install_test: all passed"
[ $failures -eq 0 ]
