#!/bin/sh
# `heed convert --from hf-bert` and `heed embed` end to end on the committed tiny BERT: one JSON
# line per input line, values within 1e-4 of transformers (reference.json), --pooling cls,
# --normalize (unit length), batching that does not change results, answers on an open pipe, usage errors (exit 2) and
# runtime errors (exit 1, one line), a bad line among good ones (its own empty record, the others
# answered), a translation model refused.
# The C API program (embed_c.c) embeds the same lines and must agree with the library too.
# usage: embed_cli_test.sh "EMULATOR" HEED FIXTURE_DIR FOLDER C_PROGRAM SHARED_DIR   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 fixture=$3 dir=$4 cprog=$5 shared=$6
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

$emu "$heed" convert --from hf-bert "$fixture/model" -o "$dir/f32.heed" -q float32 --quiet 2>"$dir/err" ||
  fail "convert float32: $(cat "$dir/err")"
$emu "$heed" convert "$fixture/model" -o "$dir/i8.heed" --quiet 2>"$dir/err" || fail "convert int8 (detected): $(cat "$dir/err")"

# The library's first vector of KEY in reference.json (sentence 0: "Hello, world!"), one number a line.
reference() { sed "s/.*\"$1\": \[\[\([^]]*\)\].*/\1/" "$fixture/reference.json" | tr ',' '\n' | tr -d ' '; }
# The numbers of output line N, one a line.
numbers() { sed -n "${1}p" "$2" | sed 's/^{"embedding":\[\(.*\)\]}$/\1/' | tr ',' '\n'; }
# Largest absolute difference between two files of numbers.
maxdiff() { paste "$1" "$2" | awk '{d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d} END {printf "%.3g", m + 0}'; }

printf 'Hello, world!\nThe quick brown fox jumps over the lazy dog.\n\n' >"$dir/in.txt"
$emu "$heed" embed -m "$dir/f32.heed" <"$dir/in.txt" >"$dir/mean.jsonl" 2>"$dir/err" || fail "embed: $(cat "$dir/err")"
[ "$(wc -l <"$dir/mean.jsonl")" -eq 3 ] || fail "expected 3 lines, got $(wc -l <"$dir/mean.jsonl")"
grep -qv '^{"embedding":\[[-0-9.e,]*\]}$' "$dir/mean.jsonl" && fail "malformed line: $(grep -v '^{"embedding":\[[-0-9.e,]*\]}$' "$dir/mean.jsonl" | head -1)"
# The records are JSON a strict parser reads: {"embedding": 64 numbers}, also for a line holding
# quotes, a backslash, control characters, non-ASCII and an emoji.
if command -v python3 >/dev/null 2>&1; then
  printf 'say "no" \\ tab\tesc\033[2J del\177 caf\303\251 \360\237\230\200\n' >"$dir/hostile.txt"
  $emu "$heed" embed -m "$dir/f32.heed" <"$dir/hostile.txt" >"$dir/hostile.jsonl" 2>"$dir/err" ||
    fail "embed a hostile line: $(cat "$dir/err")"
  python3 -c '
import json, math, sys
for name in sys.argv[1:]:
    for line in open(name, encoding="utf-8").read().rstrip("\n").split("\n"):
        record = json.loads(line)
        assert list(record) == ["embedding"] and len(record["embedding"]) == 64, line[:80]
        assert all(isinstance(x, (int, float)) and math.isfinite(x) for x in record["embedding"]), line[:80]
' "$dir/mean.jsonl" "$dir/hostile.jsonl" || fail "the embed records do not parse as JSON"
fi
numbers 1 "$dir/mean.jsonl" >"$dir/got"
[ "$(wc -l <"$dir/got")" -eq 64 ] || fail "expected 64 numbers, got $(wc -l <"$dir/got")"
reference mean >"$dir/want"
d=$(maxdiff "$dir/got" "$dir/want")
awk -v d="$d" 'BEGIN {exit !(d < 1e-4)}' || fail "mean pooling differs from transformers by $d"

$emu "$heed" embed -m "$dir/f32.heed" --pooling cls --normalize <"$dir/in.txt" >"$dir/cls.jsonl" 2>"$dir/err" ||
  fail "embed --pooling cls: $(cat "$dir/err")"
numbers 1 "$dir/cls.jsonl" >"$dir/got"
reference cls_normalized >"$dir/want"
d=$(maxdiff "$dir/got" "$dir/want")
awk -v d="$d" 'BEGIN {exit !(d < 1e-4)}' || fail "normalized cls pooling differs from transformers by $d"
norm=$(numbers 2 "$dir/cls.jsonl" | awk '{s += $1 * $1} END {printf "%.6f", sqrt(s)}')
[ "$norm" = "1.000000" ] || fail "--normalize gave length $norm"

# One sentence per call gives the same lines as batches of 8.
$emu "$heed" embed -m "$dir/f32.heed" --batch 1 <"$dir/in.txt" >"$dir/b1.jsonl" 2>"$dir/err" || fail "--batch 1: $(cat "$dir/err")"
numbers 2 "$dir/b1.jsonl" >"$dir/got"
numbers 2 "$dir/mean.jsonl" >"$dir/want"
d=$(maxdiff "$dir/got" "$dir/want")
awk -v d="$d" 'BEGIN {exit !(d < 1e-5)}' || fail "--batch 1 differs from batches of 8 by $d"

# A line written to a pipe that stays open gets its vector before more input comes (no waiting for
# a full batch), the same vector as from a file.
# The output file exists before the reader starts: the background job opens it only once the FIFO
# has a writer, and wc below must not race that.
rm -f "$dir/fifo" && mkfifo "$dir/fifo" || fail "mkfifo $dir/fifo"
: >"$dir/live.jsonl"
$emu "$heed" embed -m "$dir/f32.heed" <"$dir/fifo" >"$dir/live.jsonl" 2>&1 &
pid=$!
exec 3>"$dir/fifo"
printf 'Hello, world!\n' >&3
waited=0
while [ "$(wc -l <"$dir/live.jsonl")" -lt 1 ] && [ $waited -lt 300 ]; do sleep 0.2; waited=$((waited + 1)); done
[ "$(wc -l <"$dir/live.jsonl")" -eq 1 ] || fail "a line on an open pipe got no vector within 60 s"
exec 3>&-
wait $pid || fail "embed from a pipe: exit code $?"
head -1 "$dir/mean.jsonl" | cmp -s - "$dir/live.jsonl" || fail "embed from a pipe differs: $(cut -c1-80 "$dir/live.jsonl")"

# int8 weights run too (their precision is held by heed_embed_test).
$emu "$heed" embed -m "$dir/i8.heed" <"$dir/in.txt" >"$dir/i8.jsonl" 2>"$dir/err" || fail "embed int8: $(cat "$dir/err")"
[ "$(wc -l <"$dir/i8.jsonl")" -eq 3 ] || fail "int8: expected 3 lines"

# The C API: same values as the library, and its own error checks (exit 0).
$emu "$cprog" "$dir/f32.heed" <"$dir/in.txt" >"$dir/c.jsonl" 2>"$dir/err" || fail "C API: $(cat "$dir/err")"
numbers 1 "$dir/c.jsonl" >"$dir/got"
reference mean >"$dir/want"
d=$(maxdiff "$dir/got" "$dir/want")
awk -v d="$d" 'BEGIN {exit !(d < 1e-4)}' || fail "C API mean pooling differs from transformers by $d"
[ "$(wc -l <"$dir/c.jsonl")" -eq 3 ] || fail "C API: expected 3 lines"

# A translation model is refused with a clear message.
$emu "$heed" convert "$shared/models/ct2/aren-transliteration" -o "$dir/aren.heed" --quiet 2>"$dir/err" ||
  fail "convert aren: $(cat "$dir/err")"
$emu "$heed" embed -m "$dir/aren.heed" <"$dir/in.txt" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'not an encoder-only' "$dir/err" || fail "translation model: exit $rc, $(cat "$dir/err")"

# Outlier channels (docs/quantization.md): the default int8 conversion keeps 8 input channels of
# every linear layer in float32, chosen on the built-in lines or on --calibration FILE; the
# summary says so and `heed inspect` lists the float32 columns; wrong uses are refused.
$emu "$heed" convert "$fixture/model" -o "$dir/cal.heed" --calibration "$dir/in.txt" --outlier-channels 4 >"$dir/out" 2>"$dir/err" ||
  fail "convert --calibration: $(cat "$dir/err")"
grep -q '4 outlier input channels of 8 layers in float32' "$dir/out" || fail "outlier summary: $(cat "$dir/out")"
grep -q 'self-check on 2 calibration lines: cosine similarity to the float32 model 0\.99[0-9]* lowest' "$dir/out" ||
  fail "self-check line: $(cat "$dir/out")"
$emu "$heed" inspect "$dir/i8.heed" | grep -q 'encoder.layers.1.ffn.out.weight.outliers *F32 .*\[8, 64\]' ||
  fail "inspect: no [8, 64] float32 outlier columns for ffn.out"
$emu "$heed" embed -m "$dir/cal.heed" <"$dir/in.txt" >"$dir/cal.jsonl" 2>"$dir/err" || fail "embed with 4 outlier channels: $(cat "$dir/err")"
$emu "$heed" convert "$fixture/model" -o "$dir/x.heed" --calibration "$dir/missing.txt" --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot read the calibration file" "$dir/err" && [ ! -e "$dir/x.heed" ] ||
  fail "missing calibration file: exit $rc, $(cat "$dir/err")"
$emu "$heed" convert "$fixture/model" -o "$dir/x.heed" --calibration /dev/zero --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q "is not a regular file" "$dir/err" || fail "--calibration /dev/zero: exit $rc, $(cat "$dir/err")"
$emu "$heed" convert "$fixture/model" -o "$dir/x.heed" --outlier-channels 65 --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "--outlier-channels 65: exit $rc"
$emu "$heed" convert "$fixture/model" -o "$dir/x.heed" --outlier-channels 0 --calibration "$dir/in.txt" --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'needs --outlier-channels above 0' "$dir/err" || fail "--calibration without channels: exit $rc"
$emu "$heed" convert "$fixture/model" -o "$dir/x.heed" -q float32 --outlier-channels 4 --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "--outlier-channels with float32 weights: exit $rc"
$emu "$heed" convert "$shared/models/ct2/aren-transliteration" -o "$dir/x.heed" --outlier-channels 4 --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'needs an encoder' "$dir/err" || fail "--outlier-channels on a translation model: exit $rc, $(cat "$dir/err")"

# Errors: usage (exit 2), runtime (exit 1, one line).
$emu "$heed" embed <"$dir/in.txt" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "missing --model: exit $rc"
$emu "$heed" embed -m "$dir/f32.heed" --pooling max <"$dir/in.txt" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "--pooling max: exit $rc"
$emu "$heed" embed -m "$dir/f32.heed" --max-source-len 65 <"$dir/in.txt" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^heed embed: ' "$dir/err" || fail "--max-source-len 65: exit $rc, $(cat "$dir/err")"
printf 'caf\303\n' | $emu "$heed" embed -m "$dir/f32.heed" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'UTF-8' "$dir/err" || fail "invalid UTF-8: exit $rc, $(cat "$dir/err")"
# Line by line, as heed translate: 40 lines with invalid UTF-8 in line 21 (batches of 8: its batch is
# lines 17-24) give 40 records, line 21's empty ({}) and reported with its own number, the others
# each the embedding of that line alone; exit status 1 at the end.
i=1
while [ $i -le 40 ]; do
  if [ $i -eq 21 ]; then printf 'caf\303 line %d\n' $i; else printf 'Sentence number %d.\n' $i; fi
  i=$((i + 1))
done >"$dir/forty.txt"
$emu "$heed" embed -m "$dir/f32.heed" <"$dir/forty.txt" >"$dir/forty.jsonl" 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "40 lines with a bad one: exit $rc"
[ "$(wc -l <"$dir/forty.jsonl")" -eq 40 ] || fail "40 lines with a bad one: $(wc -l <"$dir/forty.jsonl") records"
[ "$(sed -n 21p "$dir/forty.jsonl")" = "{}" ] || fail "line 21's record: $(sed -n 21p "$dir/forty.jsonl" | cut -c1-40)"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^heed embed: line 21: .*UTF-8.*: written as an empty record$' "$dir/err" ||
  fail "40 lines with a bad one, message: $(cat "$dir/err")"
for n in 1 20 22 24 40; do
  sed -n "${n}p" "$dir/forty.txt" | $emu "$heed" embed -m "$dir/f32.heed" >"$dir/one.jsonl" 2>"$dir/err" ||
    fail "line $n alone: $(cat "$dir/err")"
  [ "$(sed -n "${n}p" "$dir/forty.jsonl")" = "$(cat "$dir/one.jsonl")" ] || fail "line $n differs from its embedding alone"
done
$emu "$heed" embed -m "$dir/missing.heed" <"$dir/in.txt" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "missing model: exit $rc"
$emu "$heed" embed --help >"$dir/help" 2>&1 || fail "--help failed"
grep -q 'pooling' "$dir/help" || fail "--help does not explain pooling"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "heed embed: all checks passed"
