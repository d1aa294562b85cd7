#!/bin/sh
# Builds heed's libFuzzer targets with clang (AddressSanitizer + UndefinedBehaviorSanitizer, the
# libraries instrumented for coverage), builds seed corpora from ../shared, then runs each target
# for SECONDS, one after another, at low priority. Prints executions and coverage per target and
# exits non-zero when any target crashed (the reproducer is left in build/fuzz-corpus/crashes/).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 60, scripts/fuzz.sh 600 fuzz_ct2_convert
#
# Environment: HEED_FUZZ_BUILD (build folder, default build/fuzz), HEED_SHARED_DIR (default ../shared),
# HEED_FUZZ_STRICT=1 (fuzz_ct2_convert also stops on models the reader accepts but the writer refuses),
# HEED_FUZZ_NO_BUILD=1 (run the fuzzers already built, e.g. while other parts of the tree are mid-edit),
# HEED_FUZZ_SEED=N (libFuzzer's -seed: the same mutations every run, as the CI wants; default random).
# Replay one input: build/fuzz/fuzz_ct2_convert FILE (any fuzzer runs the files it is given).
set -eu

seconds=${1:-60}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HEED_FUZZ_BUILD:-$root/build/fuzz}
shared=${HEED_SHARED_DIR:-$root/../shared}
corpus=$root/build/fuzz-corpus
all_targets="fuzz_heed_loader fuzz_heed_inspect fuzz_ct2_model_bin fuzz_ct2_text_files fuzz_ct2_convert
  fuzz_safetensors fuzz_llama2c_convert fuzz_torch_seq2seq_convert fuzz_sentencepiece_model fuzz_text_input
  fuzz_argos_convert fuzz_hf_folder_convert"
targets=${*:-$all_targets}

case $seconds in
  ''|*[!0-9]*) echo "scripts/fuzz.sh: SECONDS must be a number, not '$seconds'" >&2; exit 2 ;;
esac
command -v clang++ >/dev/null || { echo "scripts/fuzz.sh: clang++ is not installed" >&2; exit 2; }
[ -d "$shared/models" ] || { echo "scripts/fuzz.sh: no shared data at $shared (set HEED_SHARED_DIR)" >&2; exit 2; }

# Configure once (HEED_BUILD_FUZZ adds fuzz/); through ccache when the machine has it.
launcher=""
command -v ccache >/dev/null && launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086  # $launcher is empty or two words
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug $launcher \
    -DHEED_SANITIZE=ON -DHEED_BUILD_TESTS=OFF -DHEED_BUILD_FUZZ=ON \
    "-DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -O1" "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -O1" >/dev/null
fi
if [ "${HEED_FUZZ_NO_BUILD:-0}" != 1 ]; then
  nice -n 19 ninja -C "$build" -j2 heed_fuzz_convert_seed $targets >"$build/fuzz-build.log" 2>&1 ||
    { tail -20 "$build/fuzz-build.log" >&2; echo "scripts/fuzz.sh: build failed (full log: $build/fuzz-build.log)" >&2; exit 2; }
fi

/usr/bin/python3 "$root/fuzz/make_seeds.py" --shared "$shared" --convert "$build/heed_fuzz_convert_seed" --out "$corpus/seeds"

status=0
summary=""
mkdir -p "$corpus/crashes"
for t in $targets; do
  work=$corpus/work/$t
  log=$corpus/$t.log
  mkdir -p "$work"
  # Inputs the size of the tiny seeds mutate fastest; the real models' .heed files (up to 3 MB)
  # only serve as dictionaries of valid structure there.
  case $t in
    fuzz_heed_*) max_len=65536 ;;
    fuzz_ct2_text_files|fuzz_safetensors|fuzz_sentencepiece_model) max_len=262144 ;;
    *) max_len=1048576 ;;
  esac
  echo "scripts/fuzz.sh: $t for ${seconds}s (log: $log)"
  rc=0
  # New inputs go to the first folder (kept between runs); the seeds are read only.
  ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1} HEED_FUZZ_MODELS=$corpus/seeds/models \
    nice -n 19 "$build/$t" "$work" "$corpus/seeds/$t" -max_total_time="$seconds" -max_len=$max_len -timeout=30 \
    -rss_limit_mb=2048 ${HEED_FUZZ_SEED:+-seed=$HEED_FUZZ_SEED} -print_final_stats=1 -artifact_prefix="$corpus/crashes/$t-" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus_size=$(ls "$work" | wc -l)
  if [ "$rc" -ne 0 ]; then
    status=1
    verdict="CRASH (exit $rc; see $log and $corpus/crashes/)"
    # What libFuzzer said (the finding, its stack top, the reproducer's path), for logs seen remotely.
    grep -E '==ERROR|ERROR: libFuzzer|invariant broken|terminate called|what\(\):|SUMMARY|runtime error|out-of-memory|timeout after|Test unit written|^ +#[0-9] ' "$log" |
      head -30 | sed "s/^/$t: /"
    # Small reproducers go into the log as base64, so a finding on a remote machine can be replayed
    # here: base64 -d > input && build/fuzz/TARGET input.
    for f in "$corpus/crashes/$t-"*; do
      [ -f "$f" ] && [ "$(wc -c <"$f")" -le 16384 ] && echo "$t: reproducer $(basename "$f") base64: $(base64 -w0 "$f")"
    done
  else
    verdict="ok"
  fi
  summary="$summary$(printf '%-20s %6ss %12s execs  cov %6s  ft %6s  corpus %5s  %s' \
    "$t" "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus_size" "$verdict")
"
done
echo
printf '%s' "$summary"
exit $status
