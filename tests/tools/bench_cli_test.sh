#!/bin/sh
# `heed bench` on real models: the aren translation model (synthetic sources and --input, greedy
# and beam, fixed-length decoding so the token count per pass is known exactly: sentences x
# length), llama2.c's stories260K (generation), the committed tiny BERT (embedding: sentences of
# exactly --source-len tokens, or text lines), the JSON report's fields, and usage errors.
# usage: bench_cli_test.sh "EMULATOR" HEED SHARED_DIR FOLDER BERT_FOLDER   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 shared=$3 dir=$4 bert=$5
rm -rf "$dir" && mkdir -p "$dir" || exit 1
aren=$shared/models/ct2/aren-transliteration
stories=$shared/models/llama2c/stories260k
for m in "$aren/model.bin" "$stories"; do
  [ -e "$m" ] || { echo "FAIL: missing $m (the shared models folder)"; exit 1; }
done
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# json_field FILE NAME: the value of "NAME": in a one-line JSON object.
json_field() { sed -n "s/.*\"$2\": *\"\{0,1\}\([^,\"}]*\).*/\1/p" "$1"; }

$emu "$heed" convert "$aren" -o "$dir/aren.heed" --quiet >/dev/null 2>&1 || { echo "FAIL: cannot convert $aren"; exit 1; }

for beam in 1 3; do
  $emu "$heed" bench -m "$dir/aren.heed" --sentences 5 --source-len 7 --length 9 --beam $beam --batch 2 \
    --repeat 2 --warmup 1 --json >"$dir/out" 2>"$dir/err" || fail "bench beam $beam: $(cat "$dir/err")"
  [ "$(json_field "$dir/out" tokens_per_pass)" = 45 ] || fail "beam $beam: tokens per pass is not 5 x 9: $(cat "$dir/out")"
  [ "$(json_field "$dir/out" family)" = TransformerEncoderDecoder ] || fail "family: $(cat "$dir/out")"
  [ "$(json_field "$dir/out" beam)" = $beam ] || fail "beam field: $(cat "$dir/out")"
  for f in open_ms first_result_ms tokens_per_s latency_ms_p50 latency_ms_p99 peak_rss_mib; do
    v=$(json_field "$dir/out" $f)
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "beam $beam: $f is not positive: $(cat "$dir/out")"
  done
done

# Two session threads: the same work per pass, the thread count reported.
$emu "$heed" bench -m "$dir/aren.heed" --sentences 3 --source-len 5 --length 6 --beam 2 --threads 2 \
  --repeat 1 --warmup 0 --json >"$dir/out" 2>"$dir/err" || fail "bench --threads 2: $(cat "$dir/err")"
[ "$(json_field "$dir/out" tokens_per_pass)" = 18 ] || fail "--threads 2: tokens per pass is not 3 x 6: $(cat "$dir/out")"
[ "$(json_field "$dir/out" threads)" = 2 ] || fail "--threads 2: threads field: $(cat "$dir/out")"

# The float32 GEMM backends (the aren model is float32): the same work per pass, the backend reported.
for backend in heed xnnpack auto; do
  $emu "$heed" bench -m "$dir/aren.heed" --sentences 3 --source-len 5 --length 6 --beam 2 --backend $backend \
    --repeat 1 --warmup 0 --json >"$dir/out" 2>"$dir/err" || fail "bench --backend $backend: $(cat "$dir/err")"
  [ "$(json_field "$dir/out" tokens_per_pass)" = 18 ] || fail "--backend $backend: tokens per pass: $(cat "$dir/out")"
  [ "$(json_field "$dir/out" backend)" = $backend ] || fail "--backend $backend: backend field: $(cat "$dir/out")"
done

# Sources from a file; --length 0 decodes until the end token (the known outputs: 6 + 1 and 4 + 1).
printf 'آ ت ز م و ن\nآ ز ا\n' >"$dir/in"
$emu "$heed" bench -m "$dir/aren.heed" --input "$dir/in" --length 0 --beam 4 --batch 2 --repeat 1 --json \
  >"$dir/out" 2>"$dir/err" || fail "bench --input: $(cat "$dir/err")"
[ "$(json_field "$dir/out" tokens_per_pass)" = 12 ] || fail "--input tokens per pass is not 7 + 5: $(cat "$dir/out")"

# The model's path is escaped as JSON needs (a quote and a backslash in its name).
cp "$dir/aren.heed" "$dir/we\"ird\\name.heed" || fail "cannot copy the model"
$emu "$heed" bench -m "$dir/we\"ird\\name.heed" --sentences 1 --length 2 --repeat 1 --json >"$dir/out" 2>"$dir/err" \
  || fail "bench of a quoted path: $(cat "$dir/err")"
grep -qF 'we\"ird\\name.heed"' "$dir/out" || fail "the path is not escaped: $(cat "$dir/out")"
[ "$(json_field "$dir/out" use_vmap)" = false ] || fail "use_vmap field: $(cat "$dir/out")"

# The table form names each figure.
$emu "$heed" bench -m "$dir/aren.heed" --sentences 2 --length 4 --repeat 1 >"$dir/table" 2>&1 || fail "table: $(cat "$dir/table")"
for word in open "first result" speed latency "peak memory"; do
  grep -q "^$word" "$dir/table" || fail "table lacks '$word': $(cat "$dir/table")"
done

# Generation: stories260K for exactly 20 tokens (its greedy story does not end that soon).
$emu "$heed" convert "$stories" -o "$dir/stories.heed" --quiet >/dev/null 2>&1 || fail "cannot convert $stories"
$emu "$heed" bench -m "$dir/stories.heed" --sentences 2 --length 20 --repeat 1 --json >"$dir/out" 2>"$dir/err" \
  || fail "bench stories: $(cat "$dir/err")"
[ "$(json_field "$dir/out" tokens_per_pass)" = 40 ] || fail "stories tokens per pass is not 2 x 20: $(cat "$dir/out")"

# Embedding: synthetic sentences of exactly --source-len tokens, 1 and 2 threads; text lines as
# `heed tokenize` cuts them, plus [CLS] and [SEP] (9 + 2 pieces + 4).
$emu "$heed" convert "$bert" -o "$dir/bert.heed" --quiet >/dev/null 2>&1 || fail "cannot convert $bert"
for threads in 1 2; do
  $emu "$heed" bench -m "$dir/bert.heed" --sentences 5 --source-len 9 --batch 2 --threads $threads --repeat 2 --json \
    >"$dir/out" 2>"$dir/err" || fail "bench embedding, $threads threads: $(cat "$dir/err")"
  [ "$(json_field "$dir/out" tokens_per_pass)" = 45 ] || fail "embedding tokens per pass is not 5 x 9: $(cat "$dir/out")"
  [ "$(json_field "$dir/out" sentences_per_pass)" = 5 ] || fail "embedding sentences per pass: $(cat "$dir/out")"
  [ "$(json_field "$dir/out" family)" = TransformerEncoderOnly ] || fail "embedding family: $(cat "$dir/out")"
  for f in tokens_per_s sentences_per_s latency_ms_p50; do
    v=$(json_field "$dir/out" $f)
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "embedding: $f is not positive: $(cat "$dir/out")"
  done
done
printf 'the cat sat on the mat\nhello\n' >"$dir/text"
$emu "$heed" bench -m "$dir/bert.heed" --input "$dir/text" --repeat 1 --json >"$dir/out" 2>"$dir/err" \
  || fail "bench embedding --input: $(cat "$dir/err")"
[ "$(json_field "$dir/out" tokens_per_pass)" = 15 ] || fail "embedding --input tokens per pass is not 11 + 4: $(cat "$dir/out")"
$emu "$heed" bench -m "$dir/bert.heed" --sentences 2 --repeat 1 >"$dir/table" 2>&1 || fail "embedding table: $(cat "$dir/table")"
grep -q "^speed .*embedded tokens/s, .* sentences/s" "$dir/table" || fail "embedding table's speed: $(cat "$dir/table")"
$emu "$heed" bench -m "$dir/bert.heed" --source-len 65 >/dev/null 2>"$dir/err"; [ $? -eq 1 ] || fail "--source-len past the positions: not exit 1"
grep -q "exceeds the model's 64" "$dir/err" || fail "--source-len past the positions: $(cat "$dir/err")"

# Usage errors exit 2, runtime errors 1, each with one line on stderr.
$emu "$heed" bench -m "$dir/bert.heed" --beam 2 >/dev/null 2>"$dir/err"; [ $? -eq 2 ] || fail "--beam on an embedding model: not exit 2"
$emu "$heed" bench >/dev/null 2>"$dir/err"; [ $? -eq 2 ] || fail "no --model: not exit 2"
$emu "$heed" bench -m "$dir/stories.heed" --beam 4 >/dev/null 2>"$dir/err"; [ $? -eq 2 ] || fail "--beam on a language model: not exit 2"
$emu "$heed" bench -m "$dir/aren.heed" --threads -1 >/dev/null 2>"$dir/err"; [ $? -eq 2 ] || fail "--threads -1: not exit 2"
$emu "$heed" bench -m "$dir/aren.heed" --backend gpu >/dev/null 2>"$dir/err"; [ $? -eq 2 ] || fail "--backend gpu: not exit 2"
$emu "$heed" bench -m "$dir/aren.heed" --repeat 0 >/dev/null 2>"$dir/err"; [ $? -eq 2 ] || fail "--repeat 0: not exit 2"
$emu "$heed" bench -m "$dir/missing.heed" >/dev/null 2>"$dir/err"; [ $? -eq 1 ] || fail "missing model: not exit 1"
[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "missing model: not one line: $(cat "$dir/err")"

[ $failures -eq 0 ] && echo "bench CLI: all checks passed"
exit $failures
