#!/bin/sh
# `heed convert` when the output cannot be written: a file-size limit (a full disk as the writer
# sees it) and a location nobody may create files in. Expect exit code 1, exactly one line on
# stderr naming the output, the previous file untouched and no temporary file left.
#   convert_write_failures_test.sh "EMULATOR" HEED SHARED_DIR WORK_DIR
set -u
emulator=$1 heed=$2 shared=$3 work=$4
src=$shared/models/ct2/aren-transliteration
[ -f "$src/model.bin" ] || { echo "missing $src (the shared models folder)"; exit 1; }
rm -rf "$work"
mkdir -p "$work/out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_one_error_line() {  # RC STDERR_FILE PATTERN
  [ "$1" -eq 1 ] || fail "exit code $1, expected 1"
  lines=$(wc -l <"$2")
  [ "$lines" -eq 1 ] || fail "$lines lines on stderr, expected 1: $(cat "$2")"
  grep -q "$3" "$2" || fail "stderr does not match '$3': $(cat "$2")"
}

# 1. Full disk: the float32 model is about 700 KiB; files may reach 64 KiB (ulimit -f counts
#    512-byte blocks in sh). SIGXFSZ ignored, so write() fails with EFBIG instead of killing heed.
echo "old model" >"$work/out/model.heed"
(
  trap '' XFSZ
  ulimit -f 128
  # shellcheck disable=SC2086
  exec $emulator "$heed" convert --from ct2 "$src" -o "$work/out/model.heed" -q float32 --quiet
) 2>"$work/full.stderr"
expect_one_error_line $? "$work/full.stderr" "heed convert: $work/out/model.heed: cannot write: File too large"
[ "$(cat "$work/out/model.heed")" = "old model" ] || fail "the previous model.heed was changed"
[ "$(ls -A "$work/out")" = "model.heed" ] || fail "files left behind: $(ls -A "$work/out")"

# 2. A read-only location (/proc takes no new files, root included).
# shellcheck disable=SC2086
$emulator "$heed" convert --from ct2 "$src" -o /proc/heed-robustness.heed --quiet 2>"$work/proc.stderr"
expect_one_error_line $? "$work/proc.stderr" "heed convert: /proc/heed-robustness.heed: cannot create a file in '/proc'"
[ ! -e /proc/heed-robustness.heed ] || fail "/proc/heed-robustness.heed exists"

# 3. The same conversion without a limit succeeds (so the limit was what failed above).
# shellcheck disable=SC2086
$emulator "$heed" convert --from ct2 "$src" -o "$work/out/model.heed" -q float32 --quiet || fail "unlimited conversion failed"
[ "$(ls -A "$work/out")" = "model.heed" ] || fail "files after success: $(ls -A "$work/out")"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "convert write failures: all checks passed"
