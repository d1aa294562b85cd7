#!/usr/bin/env bash
# README's test command: installs what heed needs (Debian packages, ARM sysroots, clang for the
# fuzzers), builds every configuration and runs the whole test suite on each:
#   host (release), host with ASan+UBSan (debug), the multi-threaded tests with ThreadSanitizer,
#   every libFuzzer target for HEED_FUZZ_SECONDS (default 15) each, aarch64 under qemu as three
#   CPUs (max: dotprod+i8mm, cortex-a76: dotprod, cortex-a72: neither; the last two without the
#   tests that do not depend on the CPU's kernels) and armv7 under qemu
#   (cortex-a7); then the amd64, arm64 and armhf Debian packages (cpack) of those builds, the amd64
#   ones installed with apt into a clean debootstrap root where heed and a C program run; and the
#   Python package (pip install . into build/venv, pytest tests/python).
# Exits non-zero when any test fails; the last line sums the tests of every run (a fuzz target
# counts as one test).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${HEED_JOBS:-$(nproc)}
shared=${HEED_SHARED_DIR:-$(pwd)/../shared}
if [ ! -f "$shared/README.md" ]; then
  echo "test-all: the shared models and data folder is missing: expected at $shared" >&2
  echo "test-all: clone heed beside it (../shared) or set HEED_SHARED_DIR" >&2
  exit 1
fi
export HEED_SHARED_DIR=$(cd "$shared" && pwd)

bash scripts/install-deps.sh --cross --fuzz

total_pass=0
total_fail=0
failed_runs=()
log_dir=build/test-logs
mkdir -p "$log_dir"

# Tests whose outcome does not depend on which kernels the CPU runs (command-line behaviour,
# conversion, packaging, the C API's plumbing, servers, concurrency stress): run on one emulated
# CPU of an architecture, left out on its other CPUs (--isa-only), whose runs keep every kernel,
# model-output, allocation and thread-count test.
isa_independent='_cli$|^heed_c_api|^heed_install$|^heed_serve_|^heed_concurrency_test$|^heed_converter_test$|^heed_robustness_test$|^heed_translate_(long_input|paragraphs)$|^heed_shared_exports$|^heed_abi$'

# run_ctest LABEL PRESET [--isa-only] [ENV=VALUE...]: runs ctest for a built preset, adds its counts.
run_ctest() {
  local label=$1 preset=$2 select=()
  shift 2
  if [ "${1:-}" = --isa-only ]; then select=(-E "$isa_independent"); shift; fi
  echo "=== ctest: $label ==="
  local log="$log_dir/$label.log" rc=0
  set +e
  env "$@" ctest --preset "$preset" -j "$jobs" "${select[@]}" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local line pass=0 fail=0
  line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1 || true)
  if [ -n "$line" ]; then
    fail=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")
    local all
    all=$(sed -E 's/.* tests failed out of ([0-9]+).*/\1/' <<<"$line")
    pass=$((all - fail))
  else
    rc=1
  fi
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
  if [ "$rc" -ne 0 ] || [ "$fail" -ne 0 ]; then failed_runs+=("$label"); fi
}

# run_fuzz: every fuzz target, time-boxed (scripts/fuzz.sh); each target is one test in the sums.
run_fuzz() {
  local seconds=${HEED_FUZZ_SECONDS:-15} log="$log_dir/fuzz.log" rc=0
  echo "=== fuzz: ${seconds}s per target ==="
  set +e
  # A fixed seed: a CI run fails on what the change did, not on which mutations chance picked.
  HEED_FUZZ_SEED=${HEED_FUZZ_SEED:-1} HEED_SHARED_DIR="$HEED_SHARED_DIR" sh scripts/fuzz.sh "$seconds" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local ok crashed
  ok=$(grep -cE '^fuzz_[a-z0-9_]+ +[0-9]+s .* ok$' "$log" || true)
  crashed=$(grep -cE '^fuzz_[a-z0-9_]+ +[0-9]+s .* CRASH' "$log" || true)
  total_pass=$((total_pass + ok))
  total_fail=$((total_fail + crashed))
  if [ "$rc" -ne 0 ] || [ "$ok" -eq 0 ]; then failed_runs+=("fuzz"); fi
}

# The version the packages carry (CMakeLists.txt's project version).
HEED_VERSION=$(sed -n 's/^project(heed VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)

# check_deb DEB ARCH FILES...: one package's architecture, files (each a pattern of its contents),
# versioned Depends and no Recommends. Prints what is wrong; returns 1 then.
check_deb() {
  local deb=$1 arch=$2 info contents ok=0 f
  shift 2
  info=$(dpkg-deb --info "$deb" 2>&1) contents=$(dpkg-deb --contents "$deb" 2>&1)
  printf '%s\n%s\n' "$info" "$contents" >>"$log"
  printf '%s\n' "$info" | grep -q "^ Architecture: $arch$" || { echo "FAIL: $deb: architecture is not $arch"; ok=1; }
  printf '%s\n' "$info" | grep -q '^ Recommends:' && { echo "FAIL: $deb recommends packages"; ok=1; }
  printf '%s\n' "$info" | grep '^ Depends:' | grep -q '(' || { echo "FAIL: $deb: Depends without versions"; ok=1; }
  for f in "$@"; do
    printf '%s\n' "$contents" | grep -q -- "$f" || { echo "FAIL: $deb lacks $f"; ok=1; }
  done
  return $ok
}

# run_package PRESET ARCH: the built preset's Debian packages (cpack): heed (the command line),
# libheed1 (libheed.so.1) and libheed-dev, each with its license, versioned Depends and no
# Recommends. Counts as one test.
run_package() {
  local preset=$1 arch=$2 log="$log_dir/package-$1.log" ok=1 dir=build/$1
  echo "=== package: $preset ($arch .debs) ==="
  rm -f "$dir"/*.deb
  if (cd "$dir" && cpack -G DEB) >"$log" 2>&1; then
    check_deb "$dir/heed_${HEED_VERSION}_$arch.deb" "$arch" ./usr/bin/heed ./usr/share/doc/heed/copyright | tee -a "$log" | grep -q FAIL && ok=0
    check_deb "$dir/libheed1_${HEED_VERSION}_$arch.deb" "$arch" 'libheed.so.1 ->' ./usr/share/doc/libheed1/copyright |
      tee -a "$log" | grep -q FAIL && ok=0
    check_deb "$dir/libheed-dev_${HEED_VERSION}_$arch.deb" "$arch" ./usr/include/heed/heed.h libheed_runtime.a 'libheed.so ->' \
      heed.pc ./usr/share/doc/libheed-dev/copyright | tee -a "$log" | grep -q FAIL && ok=0
    [ "$ok" -eq 1 ] && echo "packages of $preset: ok"
  else
    tail -5 "$log"; echo "FAIL: cpack -G DEB failed in $dir" | tee -a "$log"; ok=0
  fi
  if [ "$ok" -eq 1 ]; then total_pass=$((total_pass + 1)); else total_fail=$((total_fail + 1)); failed_runs+=("package-$preset"); fi
}

# run_python: the Python package built with `pip install .` into the tests' environment
# (scripts/python-venv.sh; the build is incremental in build/python) and its pytest suite; every
# pytest test counts.
run_python() {
  local log="$log_dir/python.log" python rc=0 pass=0 fail=0 line
  echo "=== python: pip install . and pytest tests/python ==="
  python=$(bash scripts/python-venv.sh)
  set +e
  {
    CMAKE_ARGS="${launcher[*]}" "$python" -m pip install -q . &&
      HEED_CLI="$PWD/build/host/tools/heed" "$python" -m pytest -q -p no:cacheprovider tests/python
  } 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  line=$(grep -E "[0-9]+ (passed|failed)" "$log" | tail -1 || true)
  pass=$(grep -oE "[0-9]+ passed" <<<"$line" | cut -d' ' -f1 || true)
  for n in $(grep -oE "[0-9]+ (failed|errors?)" <<<"$line" | cut -d' ' -f1 || true); do fail=$((fail + n)); done
  total_pass=$((total_pass + ${pass:-0}))
  total_fail=$((total_fail + fail))
  if [ "$rc" -ne 0 ] || [ -z "$pass" ]; then
    failed_runs+=("python")
    [ "$fail" -gt 0 ] || total_fail=$((total_fail + 1))  # the install itself failed
  fi
}

# run_clean_root: the host's packages installed into a minimal Debian root with apt, and heed and a
# C program built against libheed-dev run inside it (scripts/clean-root-install.sh). One test.
run_clean_root() {
  local log="$log_dir/clean-root.log"
  echo "=== clean root: apt-get install ./*.deb in a debootstrap root ==="
  if bash scripts/clean-root-install.sh build/host 2>&1 | tee "$log" | tail -5 && grep -q '^clean-root-install: ok' "$log"; then
    total_pass=$((total_pass + 1))
  else
    total_fail=$((total_fail + 1)); failed_runs+=("clean-root")
  fi
}

# ccache makes a rebuild of unchanged sources nearly free: its cache lives beside the clean root's
# (HEED_CACHE_DIR, kept between runs), and paths are taken relative to the clone's parent folder so
# that a fresh clone anywhere hits what an earlier one compiled.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_DIR=${CCACHE_DIR:-${HEED_CACHE_DIR:-/var/cache/heed}/ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")} CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  mkdir -p "$CCACHE_DIR" 2>/dev/null || unset CCACHE_DIR
fi

build() {
  local preset=$1 python=()
  echo "=== build: $preset ==="
  # The host builds' `heed serve` tests run real clients from the tests' Python environment.
  case "$preset" in host*) python=(-DHEED_TEST_PYTHON="$(bash scripts/python-venv.sh)") ;; esac
  cmake --preset "$preset" -DHEED_SHARED_DIR="$HEED_SHARED_DIR" "${launcher[@]}" "${python[@]}" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
}

# timed COMMAND...: runs a stage and notes how long it took (printed at the end: CI shows the tail).
timings=()
timed() {
  local start=$SECONDS
  "$@"
  timings+=("$(printf '%5ds  %s' $((SECONDS - start)) "$*")")
}

timed build host
timed run_ctest host host
timed run_package host "$(dpkg --print-architecture)"
timed run_clean_root
timed run_python
timed build host-asan
timed run_ctest host-asan host-asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
timed build host-tsan
timed run_ctest host-tsan host-tsan TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
timed run_fuzz
timed build rpi-arm64
timed run_ctest aarch64-max rpi-arm64 QEMU_CPU=max
timed run_ctest aarch64-cortex-a76 rpi-arm64 --isa-only QEMU_CPU=cortex-a76
timed run_ctest aarch64-cortex-a72 rpi-arm64 --isa-only QEMU_CPU=cortex-a72
timed run_package rpi-arm64 arm64
timed build rpi-armv7
timed run_ctest armv7-cortex-a7 rpi-armv7 QEMU_CPU=cortex-a7
timed run_package rpi-armv7 armhf

echo
if [ "${#failed_runs[@]}" -ne 0 ]; then
  # CI shows only the end of this output: repeat what each failed run said about its failures.
  for run in "${failed_runs[@]}"; do
    echo "--- $run: failure lines from $log_dir/$run.log ---"
    # fuzz.sh prefixes its finding lines (message, stack, reproducer) with the target's name.
    grep -E 'FAIL|Failed|\*\*\*|CRASH|ERROR|error:|SUMMARY|WARNING: ThreadSanitizer|runtime error|==[0-9]+==|^fuzz_[a-z0-9_]+: ' \
      "$log_dir/$run.log" | head -40 || true
  done
  echo "test-all: failures in: ${failed_runs[*]} (logs in $log_dir)"
fi
echo "time per stage:"
printf '  %s\n' "${timings[@]}"
echo "total: $total_pass passed, $total_fail failed (${SECONDS}s)"
[ "${#failed_runs[@]}" -eq 0 ]
