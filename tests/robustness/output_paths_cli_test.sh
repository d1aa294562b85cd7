#!/bin/sh
# Paths that are not plain files, end to end: every file heed writes (`convert -o`,
# `translate --attention`, `--attention-json`) follows symlinks and keeps them, writes character
# devices through and refuses FIFOs and folders with one line (exit 1); a FIFO given as the model
# is refused at once by every command that opens one (no command waits for a writer).
# usage: output_paths_cli_test.sh "EMULATOR" HEED SHARED_DIR FOLDER   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 shared=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir/sub" || exit 1
aren=$shared/models/ct2/aren-transliteration
[ -f "$aren/model.bin" ] || { echo "FAIL: missing $aren (the shared models folder)"; exit 1; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# Exit code 1 and exactly one line on stderr containing $3.
expect_one_line() {
  [ "$1" -eq 1 ] || fail "$3: exit code $1 (expected 1): $(cat "$2")"
  [ "$(wc -l <"$2")" -eq 1 ] || fail "$3: not one line: $(cat "$2")"
  grep -q "$3" "$2" || fail "expected '$3' in: $(cat "$2")"
}
# shellcheck disable=SC2086
run() { timeout 60 $emu "$heed" "$@"; }

model=$dir/aren.heed
run convert "$aren" -o "$model" --quantize float32 --quiet || { echo "FAIL: cannot convert $aren"; exit 1; }
printf 'آ ت ز م و ن\n' >"$dir/in"

# convert -o: a symlink to /dev/null (what /dev/stdout often is) stays a link to a device.
ln -s /dev/null "$dir/null-link"
run convert "$aren" -o "$dir/null-link" --quiet || fail "convert -o a symlink to /dev/null"
[ -L "$dir/null-link" ] && [ -c /dev/null ] || fail "convert -o a symlink to /dev/null replaced something"

# --attention and --attention-json: a relative symlink into another folder is followed (the link
# stays, its target is written), /dev/null is written through.
ln -s sub/heatmap.svg "$dir/att-link.svg"
run translate -m "$model" --tokens --attention "$dir/att-link.svg" --attention-json /dev/null <"$dir/in" \
  >"$dir/out" 2>"$dir/err" || fail "translate --attention to a symlink: $(cat "$dir/err")"
[ -L "$dir/att-link.svg" ] || fail "--attention replaced the symlink"
grep -q '<svg' "$dir/sub/heatmap.svg" || fail "--attention did not write the symlink's target"
[ -c /dev/null ] || fail "--attention-json /dev/null is no longer a device"
ln -s sub/attention.jsonl "$dir/json-link"
run translate -m "$model" --tokens --attention-json "$dir/json-link" <"$dir/in" >"$dir/out" 2>"$dir/err" ||
  fail "translate --attention-json to a symlink: $(cat "$dir/err")"
[ -L "$dir/json-link" ] && grep -q '"panels"' "$dir/sub/attention.jsonl" || fail "--attention-json through a symlink"
[ -z "$(ls -A "$dir/sub" | grep tmp-)" ] || fail "temporary files left: $(ls -A "$dir/sub")"

# A FIFO or a folder as an output is refused with one line, and stays what it was.
mkfifo "$dir/out.fifo" || fail "mkfifo"
run convert "$aren" -o "$dir/out.fifo" --quiet 2>"$dir/err"
expect_one_line $? "$dir/err" "not a regular file"
run translate -m "$model" --tokens --attention "$dir/out.fifo" <"$dir/in" >"$dir/out" 2>"$dir/err"
expect_one_line $? "$dir/err" "not a regular file"
run translate -m "$model" --tokens --attention-json "$dir/sub" <"$dir/in" >"$dir/out" 2>"$dir/err"
expect_one_line $? "$dir/err" "not a regular file"
[ -p "$dir/out.fifo" ] && [ -d "$dir/sub" ] || fail "a refused output was replaced"

# A FIFO as the model: refused at once (the timeout would answer 124 if open() waited).
mkfifo "$dir/model.fifo" || fail "mkfifo"
run inspect "$dir/model.fifo" >/dev/null 2>"$dir/err"
expect_one_line $? "$dir/err" "not a regular file"
run inspect --json --no-mmap "$dir/model.fifo" >/dev/null 2>"$dir/err"
expect_one_line $? "$dir/err" "not a regular file"
run translate -m "$dir/model.fifo" --no-mmap <"$dir/in" >/dev/null 2>"$dir/err"
expect_one_line $? "$dir/err" "not a regular file"
run score -m "$dir/model.fifo" </dev/null >/dev/null 2>"$dir/err"
expect_one_line $? "$dir/err" "not a regular file"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "output paths: all checks passed"
