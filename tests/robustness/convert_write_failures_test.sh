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

# 4. Outputs that are not regular files. A character device is written through (/dev/null stays a
#    device, as with cp); a symlink is followed (its target replaced atomically, the link kept); a
#    folder is refused with one line.
# shellcheck disable=SC2086
$emulator "$heed" convert --from ct2 "$src" -o /dev/null --quiet || fail "convert -o /dev/null failed"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
mkdir -p "$work/links/sub"
ln -s sub/real.heed "$work/links/link.heed"
# shellcheck disable=SC2086
$emulator "$heed" convert --from ct2 "$src" -o "$work/links/link.heed" --quiet || fail "convert -o symlink failed"
[ -L "$work/links/link.heed" ] || fail "the symlink was replaced"
[ -s "$work/links/sub/real.heed" ] || fail "the symlink's target was not written"
# shellcheck disable=SC2086
$emulator "$heed" convert --from ct2 "$src" -o "$work/links" --quiet 2>"$work/dir.stderr"
expect_one_error_line $? "$work/dir.stderr" "not a regular file"

# 5. A signal in the write window leaves no temporary file (the writer pauses there when
#    HEED_WRITE_TEST_DELAY_MS is set), and a leftover of a killed write is removed by the next.
mkdir -p "$work/signal"
for sig in TERM HUP; do  # (a background job of sh ignores SIGINT, as heed then does)
  # shellcheck disable=SC2086
  HEED_WRITE_TEST_DELAY_MS=20000 $emulator "$heed" convert --from ct2 "$src" -o "$work/signal/model.heed" --quiet &
  pid=$!
  waited=0
  while ! ls -A "$work/signal" | grep -q tmp- && [ $waited -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -$sig $pid
  wait $pid
  [ -z "$(ls -A "$work/signal")" ] || fail "SIG$sig in the write window left: $(ls -A "$work/signal")"
done
touch "$work/signal/.model.heed.tmp-ABC123"
# shellcheck disable=SC2086
$emulator "$heed" convert --from ct2 "$src" -o "$work/signal/model.heed" --quiet || fail "convert after a leftover failed"
[ "$(ls -A "$work/signal")" = "model.heed" ] || fail "the leftover temporary file stayed: $(ls -A "$work/signal")"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "convert write failures: all checks passed"
