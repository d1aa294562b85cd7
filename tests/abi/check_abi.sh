#!/usr/bin/env bash
# check_abi.sh LIBHEED HEADERS_DIR BASELINE [--update]
# Compares libheed.so.1's ABI (the exported heed_* functions and every type of heed.h they reach,
# read from the C API's debug information) with the committed baseline (libabigail XML, gzipped)
# using libabigail's abidiff:
#   - functions added and nothing else changed: passes and says so; commit the new baseline (this
#     script with --update) with the change;
#   - anything else (a function removed, a struct of heed.h resized or reordered, a parameter's type
#     changed): fails, since programs built against the baseline would break.
# abi.suppr leaves out the opaque handles (callers only hold pointers to them) and fields added at
# the end of an options struct (the library reads a caller's struct up to its struct_size).
# libabigail comes from Debian's abigail-tools (scripts/install-deps.sh installs it).
set -euo pipefail
lib=$1 headers=$2 baseline=$3 mode=${4:-check}
here=$(cd "$(dirname "$0")" && pwd)
for tool in abidw abidiff gzip; do
  command -v "$tool" >/dev/null || { echo "check_abi: $tool is missing: install abigail-tools (bash scripts/install-deps.sh)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The library's ABI as libabigail XML, without the paths that differ between machines.
abidw --headers-dir "$headers" --drop-private-types --drop-undefined-syms --no-corpus-path --no-comp-dir-path \
  --no-show-locs --type-id-style hash --out-file "$work/current.abi" "$lib"
grep -q "<function-decl name='heed_" "$work/current.abi" ||
  { echo "check_abi: no heed_* function with debug information in $lib (is the C API built with -g?)" >&2; exit 1; }
if [ "$mode" = --update ]; then
  gzip -9n <"$work/current.abi" >"$baseline"
  echo "check_abi: baseline written to $baseline"
  exit 0
fi
[ -f "$baseline" ] || { echo "check_abi: the baseline $baseline is missing (create it with --update)" >&2; exit 1; }
gzip -dc "$baseline" >"$work/baseline.abi"
diff_abi() { abidiff --no-default-suppression --suppressions "$here/abi.suppr" "$@" "$work/baseline.abi" "$work/current.abi"; }
set +e
diff_abi >"$work/report" 2>&1
rc=$?
set -e
cat "$work/report"
# abidiff's exit status is a bit field: 1 error, 2 usage error, 4 ABI change, 8 incompatible change.
if [ $((rc & 3)) -ne 0 ]; then echo "check_abi: FAIL: abidiff could not compare (status $rc)"; exit 1; fi
if [ "$rc" -eq 0 ]; then echo "check_abi: libheed.so.1's ABI equals the baseline"; exit 0; fi
# A change: acceptable only when it is additions alone (the same comparison without them is clean).
if [ $((rc & 8)) -eq 0 ] && diff_abi --no-added-syms >/dev/null 2>&1; then
  echo "check_abi: functions were added and nothing else changed: update the baseline with --update and commit it"
  exit 0
fi
echo "check_abi: FAIL: libheed.so.1's ABI changed against $baseline (report above): programs built against it"
echo "check_abi: would break. Keep the old layout (add fields at the end of a struct_size struct), or raise the"
echo "check_abi: SONAME (runtime/CMakeLists.txt) and update the baseline."
exit 1
