#!/usr/bin/env bash
# Counted, not timed: heed's aarch64 build against CTranslate2's aarch64 wheel under qemu-user with
# an instruction-counting plugin (../shared/tools/armproxy, its README says what it counts), on
# the tool's OPUS-MT-size int8 model and inputs. Builds what it needs first: the rpi-arm64 heed
# (measured) and the host heed (converts the model).
#
#   bench/armproxy.sh                      # cortex-a72 (Pi 4) and cortex-a76 (Pi 5), beam 1x1 and 4x4
#   CPUS="cortex-a72 cortex-a76 max" bench/armproxy.sh
#   bench/armproxy.sh analyze              # only the tables again
#
# Results: build/armproxy/out/results.md (tables per CPU: instructions per decoded token, the
# classes, bytes, top functions). docs/benchmarks.md ("ARM, counted") keeps the current table.
# Environment: HEED_SHARED_DIR (default ../shared), ARMPROXY_WORK (default build/armproxy: the
# tool's venv, arm64 root and model, made once by its setup.sh), OUT, CPUS, CONFIGS, N, LEN (run.sh's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${HEED_SHARED_DIR:-$root/../shared}
tool=$shared/tools/armproxy
if [ ! -x "$tool/run.sh" ]; then
  echo "armproxy.sh: the counting tool is missing: expected $tool/run.sh (../shared beside the clone, or HEED_SHARED_DIR)" >&2
  exit 1
fi
export ARMPROXY_WORK=${ARMPROXY_WORK:-$root/build/armproxy}
export OUT=${OUT:-$ARMPROXY_WORK/out}
mkdir -p "$ARMPROXY_WORK"
if [ "${1:-}" != analyze ]; then
  for preset in host rpi-arm64; do
    [ -f "$root/build/$preset/build.ninja" ] || (cd "$root" && cmake --preset "$preset" >/dev/null)
    cmake --build "$root/build/$preset" --target heed -- -j"$(nproc)"
  done
  # The model is converted by the heed being measured: a stale one may predate a format change.
  rm -f "$ARMPROXY_WORK/model/base.heed"
fi
export HEED_BIN=$root/build/rpi-arm64/tools/heed SYSROOT=$root/build-deps/sysroot-arm64
export HEED_X86=$root/build/host/tools/heed
exec "$tool/run.sh" "$@"
