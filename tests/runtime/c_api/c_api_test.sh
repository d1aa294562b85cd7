#!/bin/sh
# Converts the tiny Marian fixture with the heed CLI, then checks `heed translate` on plain text and
# the C API program against the transformers library's greedy outputs (files made from the
# fixture's reference.json by CMakeLists.txt).
# usage: c_api_test.sh "EMULATOR" HEED C_PROGRAM FIXTURE DATA_DIR WORK_DIR MAX_NEW_TOKENS EOS_ID
set -u
emu=$1 heed=$2 program=$3 fixture=$4 data=$5 dir=$6 max_new=$7 eos=$8
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

model=$dir/tiny-en-de.heed
$emu "$heed" convert --from hf-marian "$fixture" -o "$model" --quantize float32 >"$dir/convert.log" 2>&1 ||
  { echo "FAIL: cannot convert $fixture: $(cat "$dir/convert.log")"; exit 1; }

# Plain text through the embedded SentencePiece models, greedy and with no minimum length, as
# generate() ran: one output line per input line.
$emu "$heed" translate -m "$model" --beam 1 --min-len 0 --max-source-len 64 --max-len "$max_new" \
  <"$data/source.txt" >"$dir/out" 2>"$dir/err" || fail "translate: $(cat "$dir/err")"
cmp -s "$data/greedy.txt" "$dir/out" || fail "translate output differs: $(diff "$data/greedy.txt" "$dir/out")"
# Same with one sentence per batch.
$emu "$heed" translate -m "$model" --beam 1 --min-len 0 --batch 1 --max-source-len 64 --max-len "$max_new" \
  <"$data/source.txt" >"$dir/out1" 2>&1
cmp -s "$data/greedy.txt" "$dir/out1" || fail "--batch 1 differs: $(cat "$dir/out1")"
# --tokens reads and writes pieces (MarianTokenizer's pieces here); joined back the SentencePiece
# way (remove spaces, U+2581 becomes a space, no leading space) they give the same text.
$emu "$heed" translate -m "$model" --tokens --beam 1 --min-len 0 --max-source-len 64 --max-len "$max_new" \
  <"$data/source_pieces.txt" >"$dir/pieces" 2>"$dir/err" || fail "--tokens: $(cat "$dir/err")"
LC_ALL=C sed 's/ //g; s/\xe2\x96\x81/ /g; s/^ //' "$dir/pieces" | cmp -s "$data/greedy.txt" - ||
  fail "--tokens output, joined: $(cat "$dir/pieces")"
# With --on-long-input error, a line above the source limit is an error naming the line.
printf 'Hello\nToday, the parliament dismissed the motion.\n' |
  $emu "$heed" translate -m "$model" --beam 1 --min-len 0 --max-source-len 5 --max-len "$max_new" --on-long-input error \
  >/dev/null 2>"$dir/err"
code=$?
[ $code -eq 1 ] && grep -q '^heed translate: line 2: ' "$dir/err" || fail "long line: exit $code: $(cat "$dir/err")"

$emu "$program" "$model" "$data" "$max_new" "$eos" || fail "the C API program"

[ $failures -eq 0 ] && echo "c_api_test: all passed"
[ $failures -eq 0 ]
