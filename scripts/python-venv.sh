#!/usr/bin/env bash
# scripts/python-venv.sh [DIR]: the Python virtual environment the tests use (default build/venv),
# with tests/requirements.txt (and tests/requirements-nodeps.txt, without dependencies) installed
# from the Python package index. Idempotent: the packages are
# installed again only when the requirements file changed. Prints the environment's python.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/venv}
req=tests/requirements.txt
req_nodeps=tests/requirements-nodeps.txt  # installed without their dependencies (see the file)
python=${HEED_PYTHON:-python3}
if [ ! -x "$dir/bin/python" ]; then
  "$python" -m venv "$dir" >&2
fi
stamp="$dir/.requirements.sha256"
want=$(cat "$req" "$req_nodeps" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  "$dir/bin/python" -m pip install -q --upgrade pip >&2
  "$dir/bin/python" -m pip install -q -r "$req" >&2
  "$dir/bin/python" -m pip install -q --no-deps -r "$req_nodeps" >&2
  echo "$want" >"$stamp"
fi
echo "$(cd "$dir" && pwd)/bin/python"
