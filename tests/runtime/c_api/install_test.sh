#!/bin/sh
# Installs the build to a temporary prefix and builds a C-only project outside the tree against it,
# with find_package(heed) and with pkg-config (both on the shared libheed.so.1); both programs
# translate a sentence of the Marian fixture as the transformers library does (first line of the
# data files), and list its 2-best hypotheses and score a pair as the installed heed command does
# (consumer/check_consumer.sh).
# usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR GENERATOR MODEL.heed DATA_DIR WORK_DIR [FLAGS]
# FLAGS: compiler and linker flags for the consumer (the sanitizers of a sanitizer build).
set -u
cmake=$1 build=$2 source=$3 generator=$4 model=$5 data=$6 dir=$7 flags=${8:-}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
[ -f "$model" ] || { echo "FAIL: $model missing (the heed_c_api test converts it)"; exit 1; }
"$cmake" --install "$build" --prefix "$dir/prefix" >"$dir/install.log" 2>&1 ||
  { echo "FAIL: cmake --install: $(tail -5 "$dir/install.log")"; exit 1; }
for f in bin/heed include/heed/heed.h include/heed/kernels.h lib*/libheed_runtime.a lib*/libheed.so.1 lib*/libheed.so \
         lib*/cmake/heed/heedConfig.cmake lib*/pkgconfig/heed.pc lib*/pkgconfig/heed-static.pc; do
  ls "$dir/prefix"/$f >/dev/null 2>&1 || { echo "FAIL: $f not installed"; exit 1; }
done
# The API headers stand alone: none includes the file format's generated FlatBuffers code.
if grep -l 'heed_generated' "$dir"/prefix/include/heed/*.h; then echo "FAIL: an installed header includes heed_generated.h"; exit 1; fi
[ ! -e "$dir/prefix/include/heed_generated.h" ] || { echo "FAIL: heed_generated.h is installed"; exit 1; }
pcdir=$(dirname "$(ls "$dir"/prefix/lib*/pkgconfig/heed.pc)")
PKG_CONFIG_PATH=$pcdir "$cmake" -S "$source/tests/runtime/c_api/consumer" -B "$dir/consumer" -G "$generator" \
  -DCMAKE_PREFIX_PATH="$dir/prefix" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$dir/configure.log" 2>&1 ||
  { echo "FAIL: consumer configure: $(tail -20 "$dir/configure.log")"; exit 1; }
"$cmake" --build "$dir/consumer" -j 2 >"$dir/build.log" 2>&1 ||
  { echo "FAIL: consumer build: $(tail -20 "$dir/build.log")"; exit 1; }
text=$(head -1 "$data/source.txt")
expected=$(head -1 "$data/greedy.txt")
failures=0
# pkg-config gives -L only: the installed library is found as an installed system's would be.
libdir=$(dirname "$(ls "$dir"/prefix/lib*/libheed.so.1)")
for program in consumer_cmake consumer_pkgconfig; do
  LD_LIBRARY_PATH=$libdir sh "$source/tests/runtime/c_api/consumer/check_consumer.sh" "$dir/prefix/bin/heed" \
    "$dir/consumer/$program" "$model" "$text" "$expected" || failures=$((failures + 1))
done
[ $failures -eq 0 ] && echo "install_test: all passed"
[ $failures -eq 0 ]
