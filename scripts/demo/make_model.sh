#!/usr/bin/env bash
# Rebuilds demo/numbers-en-de from nothing: generates the data, trains the PyTorch model, exports
# it as a CTranslate2 model directory and checks that CTranslate2 translates the validation set
# exactly. Not part of the build or of CI: the exported directory is committed.
#
#   scripts/demo/make_model.sh [WORK_DIR]     (default /tmp/heed-demo-model)
#
# Needs Debian's python3-torch for /usr/bin/python3 (apt-get install python3-torch) and the
# `ctranslate2` Python package, which is installed into a virtual environment in WORK_DIR.
# Debian's torch uses the reference BLAS; with libopenblas0-pthread's library on the library
# path training is about ten times faster, so it is used when found.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-/tmp/heed-demo-model}
out="$root/demo/numbers-en-de"
mkdir -p "$work"

/usr/bin/python3 -c "import torch" 2>/dev/null ||
  { echo "make_model: /usr/bin/python3 has no torch: apt-get install python3-torch" >&2; exit 1; }
if [ ! -x "$work/venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$work/venv"
  "$work/venv/bin/pip" install -q ctranslate2
fi

openblas=/usr/lib/x86_64-linux-gnu/openblas-pthread
if [ -f "$openblas/libblas.so.3" ]; then
  export LD_LIBRARY_PATH="$openblas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OPENBLAS_NUM_THREADS=1
fi

cd "$here"
/usr/bin/python3 train.py --out "$work/numbers-en-de.pt" --threads 1
"$work/venv/bin/python" export_ct2.py --checkpoint "$work/numbers-en-de.pt" --out "$out"
# Greedy decoding must be exact, in float32 and int8; beam search is reported only (see
# demo/numbers-en-de/README.md for why it is not exact with this model).
"$work/venv/bin/python" check_ct2.py "$out"
"$work/venv/bin/python" check_ct2.py "$out" --quantization int8
for beam in 2 4; do
  "$work/venv/bin/python" check_ct2.py "$out" --beam "$beam" --min-accuracy 0
done
