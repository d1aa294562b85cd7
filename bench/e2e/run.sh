#!/usr/bin/env bash
# One command for the end-to-end table heed vs CTranslate2 (docs/benchmarks.md):
#   bench/e2e/run.sh [run.py options, e.g. --repetitions 5 --scenarios ab]
# 1. a Python venv with ctranslate2, numpy and matplotlib from the package index (not in the repo);
# 2. heed's host build (preset "host"), unless HEED_BIN names a heed binary already built;
# 3. the random OPUS-MT-sized model in CTranslate2 format (float32 and int8) + the inputs;
# 4. `heed convert` of both (int8 twice: the default packed layout and --layout row-major); 5. the benchmark: build/e2e-results/{table.md,results.csv,results.json},
#    docs/e2e-tokens-per-second.png and the table block in docs/benchmarks.md.
# Environment: VENV (default build/e2e-venv), WORK (default build/e2e-work), HEED_BIN, PYTHON (the
# interpreter that creates the venv, default /usr/bin/python3 or python3), CT2_VERSION (pin the
# ctranslate2 release, e.g. 4.8.5; default: the newest).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${VENV:-$ROOT/build/e2e-venv}"
WORK="${WORK:-$ROOT/build/e2e-work}"
RESULTS="$ROOT/build/e2e-results"
PYTHON="${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}"

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "== creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
CT2_REQ="ctranslate2${CT2_VERSION:+==$CT2_VERSION}"
if ! "$VENV/bin/python" -c "import ctranslate2, numpy, matplotlib, sys; v = sys.argv[1]; assert not v or ctranslate2.__version__ == v" \
     "${CT2_VERSION:-}" 2>/dev/null; then
  echo "== installing $CT2_REQ, numpy, matplotlib into $VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet "$CT2_REQ" numpy matplotlib
fi

if [[ -z "${HEED_BIN:-}" ]]; then
  HEED_BIN="$ROOT/build/host/tools/heed"
  echo "== building heed (preset host)"
  if [[ ! -f "$ROOT/build/host/build.ninja" ]]; then
    (cd "$ROOT" && cmake --preset host >/dev/null)
  fi
  cmake --build "$ROOT/build/host" --target heed -- -j"$(nproc)"
fi
[[ -x "$HEED_BIN" ]] || { echo "run.sh: no heed binary at $HEED_BIN" >&2; exit 1; }

if [[ ! -f "$WORK/model/inputs.txt" || ! -f "$WORK/model/ct2-int8/model.bin" || ! -f "$WORK/model/ct2-float32/model.bin" ]]; then
  echo "== making the model (CTranslate2 format) in $WORK/model"
  "$VENV/bin/python" "$ROOT/bench/e2e/make_model.py" "$WORK/model"
fi
# Converted on every run: the .heed files must come from the heed being measured.
echo "== heed convert"
"$HEED_BIN" convert --from ct2 "$WORK/model/ct2-int8" -o "$WORK/model/int8.heed" --quantize int8 --quiet
"$HEED_BIN" convert --from ct2 "$WORK/model/ct2-int8" -o "$WORK/model/int8-row-major.heed" --quantize int8 \
  --layout row-major --quiet
"$HEED_BIN" convert --from ct2 "$WORK/model/ct2-float32" -o "$WORK/model/fp32.heed" --quantize float32 --quiet

echo "== load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (other work on the machine skews the figures)"
exec "$VENV/bin/python" "$ROOT/bench/e2e/run.py" --heed "$HEED_BIN" --work "$WORK/model" --python "$VENV/bin/python" \
  --out "$RESULTS" --plot "$ROOT/docs/e2e-tokens-per-second.png" --doc "$ROOT/docs/benchmarks.md" "$@"
