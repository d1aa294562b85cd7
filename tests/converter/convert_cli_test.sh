#!/bin/sh
# `heed convert` end to end: the three weight types on the real CTranslate2 models, the summary
# line, --report, --layout, --vmap, usage errors (exit 2), conversion errors (exit 1, one line "heed convert: ..."),
# and atomic output (nothing written on failure, an existing output kept until success).
# usage: convert_cli_test.sh "EMULATOR" HEED SHARED_DIR FOLDER   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 shared=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
aren=$shared/models/ct2/aren-transliteration
aren8=$shared/models/ct2/aren-transliteration-i8
lm=$shared/models/ct2/onmt-lm
[ -f "$aren/model.bin" ] || { echo "FAIL: missing $aren (the shared models folder)"; exit 1; }

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs heed convert ARGS...; sets $code; output in $dir/out and $dir/err.
run() { $emu "$heed" convert "$@" >"$dir/out" 2>"$dir/err"; code=$?; }

one_error_line() {  # $1 = what
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$1: stderr is not one line: $(cat "$dir/err")"
  grep -q "^heed convert: " "$dir/err" || fail "$1: stderr does not start with 'heed convert: ': $(cat "$dir/err")"
}

for q in int8 float16 float32; do
  for m in "$aren" "$aren8" "$lm"; do
    out=$dir/$(basename "$m")-$q.heed
    run "$m" -o "$out" --quantize "$q"
    [ $code -eq 0 ] || fail "$m $q: exit $code: $(cat "$dir/err")"
    [ -s "$out" ] || fail "$m $q: no output file"
    grep -q "^heed convert: wrote $out: [0-9]* tensors, [0-9]* parameters, .* $q" "$dir/out" ||
      fail "$m $q: summary line: $(cat "$dir/out")"
    [ -s "$dir/err" ] && fail "$m $q: stderr not empty (not a terminal, so no progress bar): $(cat "$dir/err")"
    $emu "$heed" inspect "$out" >/dev/null 2>&1 || fail "$m $q: heed inspect refuses the output"
  done
done

run --from ct2 "$aren" -o "$dir/g.heed" --group-size 16 --report
[ $code -eq 0 ] || fail "--group-size 16 --report: exit $code"
grep -q "^encoder.layers.0.ffn.in.weight *int8 per-group 16 " "$dir/err" || fail "--report table: $(head -3 "$dir/err")"
grep -q "per group of 16" "$dir/out" || fail "group summary: $(cat "$dir/out")"

# Weight layout: auto (the default) packs the int8 per-row linear weights 16x4, row-major none;
# embeddings stay row-major; inspect shows the layout; --report marks packed tensors.
run "$aren8" -o "$dir/auto.heed" --report
[ $code -eq 0 ] || fail "default layout: exit $code"
grep -q "matrices packed 16x4" "$dir/out" || fail "auto summary: $(cat "$dir/out")"
grep -q "^encoder.layers.0.ffn.in.weight *int8 kept from the source, packed 16x4 " "$dir/err" ||
  fail "--report packed: $(grep ffn.in.weight "$dir/err" | head -1)"
$emu "$heed" inspect "$dir/auto.heed" >"$dir/out" 2>&1 || fail "inspect auto.heed"
grep -q "encoder.layers.0.ffn.in.weight *I8 *PerRow *Packed16x4 *\[128, 32\]" "$dir/out" ||
  fail "inspect does not show the packed layout: $(grep ffn.in.weight "$dir/out" | head -1)"
grep -q "encoder.layers.0.ffn.in.weight.row_sums *I32 .*RowMajor *\[128\]" "$dir/out" || fail "inspect: no row sums"
grep -q "encoder.embeddings *I8 *PerRow *RowMajor" "$dir/out" || fail "inspect: embeddings not row-major"
run "$aren8" -o "$dir/rm.heed" --layout row-major
[ $code -eq 0 ] || fail "--layout row-major: exit $code"
grep -q "(row-major)" "$dir/out" || fail "row-major summary: $(cat "$dir/out")"
$emu "$heed" inspect "$dir/rm.heed" | grep -q Packed16x4 && fail "--layout row-major packed something"
run "$aren" -o "$dir/p.heed" --layout packed16x4
[ $code -eq 0 ] || fail "--layout packed16x4: exit $code"
grep -q "matrices packed 16x4" "$dir/out" || fail "packed16x4 summary: $(cat "$dir/out")"
run "$aren" -o "$dir/g2.heed" --group-size 16
$emu "$heed" inspect "$dir/g2.heed" | grep -q Packed16x4 && fail "auto packed per-group weights"

# Blocks along K (--activation-block): the linear weights per group of the block, packed, and the
# known transliterations still exact in int8 (the model's tests: docs in ../shared/README.md).
for block in 16 32; do
  run "$aren" -o "$dir/b$block.heed" --activation-block $block
  [ $code -eq 0 ] || fail "--activation-block $block: exit $code $(cat "$dir/err")"
  grep -q "int8 in blocks of $block weights (.*matrices packed 16x4), activations quantized in the same blocks" \
    "$dir/out" || fail "blocks summary: $(cat "$dir/out")"
  $emu "$heed" inspect "$dir/b$block.heed" | grep -q "encoder.layers.0.ffn.out.weight *I8 *PerGroup($block) *Packed16x4" ||
    fail "--activation-block $block: ffn.out not packed per group"
  got=$(printf 'آ ت ز م و ن\nآ ز ا\n' | $emu "$heed" translate -m "$dir/b$block.heed" --tokens 2>&1)
  [ "$got" = "$(printf 'a t z m o n\na z z a')" ] || fail "--activation-block $block translates: $got"
done

# Usage errors: exit 2.
run; [ $code -eq 2 ] || fail "no arguments: exit $code"
run "$aren"; [ $code -eq 2 ] || fail "no -o: exit $code"
run "$aren" -o "$dir/x.heed" --quantize int4; [ $code -eq 2 ] || fail "--quantize int4: exit $code"
run "$aren" -o "$dir/x.heed" --group-size 6; [ $code -eq 2 ] || fail "--group-size 6: exit $code"
run "$aren" -o "$dir/x.heed" --quantize float16 --group-size 8; [ $code -eq 2 ] || fail "group with float16: exit $code"
run "$aren" -o "$dir/x.heed" --from onnx; [ $code -eq 2 ] || fail "--from onnx: exit $code"
run "$aren" "$aren8" -o "$dir/x.heed"; [ $code -eq 2 ] || fail "two sources: exit $code"
run "$aren" -o "$dir/x.heed" --layout columns; [ $code -eq 2 ] || fail "--layout columns: exit $code"
run "$aren" -o "$dir/x.heed" --layout packed16x4 --quantize float16; [ $code -eq 2 ] || fail "packed float16: exit $code"
run "$aren" -o "$dir/x.heed" --layout packed16x4 --group-size 8; [ $code -eq 2 ] || fail "packed per group: exit $code"
run "$aren" -o "$dir/x.heed" --activation-block 24; [ $code -eq 2 ] || fail "--activation-block 24: exit $code"
grep -q "multiple of 16" "$dir/err" || fail "--activation-block 24: $(cat "$dir/err")"
run "$aren" -o "$dir/x.heed" --activation-block 32 --group-size 8; [ $code -eq 2 ] || fail "blocks with groups: exit $code"
run "$aren" -o "$dir/x.heed" --activation-block 32 --layout row-major; [ $code -eq 2 ] || fail "blocks row-major: exit $code"
run "$aren" -o "$dir/x.heed" --activation-block 32 --quantize float16; [ $code -eq 2 ] || fail "blocks float16: exit $code"
[ -e "$dir/x.heed" ] && fail "a usage error wrote a file"
$emu "$heed" convert --help >"$dir/out" 2>&1 || fail "--help: exit $?"
for word in --quantize --group-size --layout --report int8 float16 float32 row-major packed16x4 ct2 atomically; do
  grep -q -- "$word" "$dir/out" || fail "--help does not mention $word"
done

# Conversion errors: exit 1, one line, no file.
run "$dir/nowhere" -o "$dir/x.heed"; [ $code -eq 1 ] || fail "missing source: exit $code"; one_error_line "missing source"
mkdir -p "$dir/empty"
run --from ct2 "$dir/empty" -o "$dir/x.heed"; [ $code -eq 1 ] || fail "no model.bin: exit $code"; one_error_line "no model.bin"
grep -q "model.bin" "$dir/err" || fail "no model.bin: message does not say so"
run "$aren" -o "$dir/missing/dir/x.heed"; [ $code -eq 1 ] || fail "missing output dir: exit $code"; one_error_line "missing output dir"
[ -e "$dir/missing" ] && fail "missing output dir was created"
touch "$dir/plain"
run "$aren" -o "$dir/plain/x.heed"; [ $code -eq 1 ] || fail "output under a file: exit $code"; one_error_line "output under a file"
if [ "$(id -u)" != 0 ]; then  # root ignores permissions
  mkdir -p "$dir/ro" && chmod 555 "$dir/ro"
  run "$aren" -o "$dir/ro/x.heed"; [ $code -eq 1 ] || fail "read-only dir: exit $code"
  [ -z "$(ls -A "$dir/ro")" ] || fail "read-only dir: something was left: $(ls -A "$dir/ro")"
  chmod 755 "$dir/ro"
fi
[ -e "$dir/x.heed" ] && fail "a failed conversion wrote a file"

# An existing output survives a failed conversion and is replaced by a successful one.
echo old >"$dir/keep.heed"
run "$dir/empty" --from ct2 -o "$dir/keep.heed"
[ "$(cat "$dir/keep.heed")" = old ] || fail "a failed conversion touched the existing output"
run "$aren" -o "$dir/keep.heed"
[ $code -eq 0 ] || fail "replacing an existing output: exit $code"
$emu "$heed" inspect "$dir/keep.heed" >/dev/null 2>&1 || fail "the replaced output does not load"
# --vmap: the summary line counts the map and heed inspect shows its size; a line without a tab
# and a language model are refused (exit 1, one line, no file).
printf 'م\tm\nم ح\tm h a\n\ta e\nZZ\ta\n' >"$dir/vmap.txt"
run "$aren" -o "$dir/vmap.heed" --vmap "$dir/vmap.txt"
[ $code -eq 0 ] || fail "--vmap: exit $code: $(cat "$dir/err")"
grep -q "^heed convert: vmap: 2 keys (n-grams of 1-2 tokens), 4 candidates, 2 always; 1 source n-grams dropped" \
  "$dir/out" || fail "--vmap summary line: $(cat "$dir/out")"
$emu "$heed" inspect "$dir/vmap.heed" | grep -A1 '^vocab_map' | grep -q 'keys  *2$' || fail "--vmap: no vocab_map in inspect"
# translate --use-vmap: only the candidates of "م ح" (m h a, always a e, the special tokens) come out;
# a model without a map refuses it (exit 1).
got=$(printf 'م ح\n' | $emu "$heed" translate -m "$dir/vmap.heed" --tokens --use-vmap --beam 1 2>"$dir/err")
[ -n "$got" ] || fail "translate --use-vmap: no output: $(cat "$dir/err")"
for token in $got; do
  case "$token" in m | h | a | e | "<unk>") ;; *) fail "translate --use-vmap produced '$token', not a candidate" ;; esac
done
printf 'م ح\n' | $emu "$heed" translate -m "$dir/keep.heed" --tokens --use-vmap >/dev/null 2>"$dir/err"
[ $? -eq 1 ] && grep -q "no vocabulary map" "$dir/err" || fail "translate --use-vmap without a map: $(cat "$dir/err")"
printf 'a b\n' >"$dir/vmap.txt"
run "$aren" -o "$dir/novmap.heed" --vmap "$dir/vmap.txt"
[ $code -eq 1 ] || fail "--vmap line without a tab: exit $code"; one_error_line "--vmap line without a tab"
grep -q "vmap.txt:1: no tab between the source n-gram and its target tokens" "$dir/err" || fail "--vmap: $(cat "$dir/err")"
run "$lm" -o "$dir/novmap.heed" --vmap "$dir/vmap.txt"
[ $code -eq 1 ] || fail "--vmap on a language model: exit $code"; one_error_line "--vmap on a language model"
grep -q "needs a translation model" "$dir/err" || fail "--vmap on a language model: $(cat "$dir/err")"
[ -e "$dir/novmap.heed" ] && fail "a refused --vmap wrote a file"
rm -f "$dir/vmap.txt"

# Auto-detection that fails says what it found and what heed reads instead (one line, exit 1).
detect_error() {  # $1 = what, $2 = path, $3 = text the message must hold
  run "$2" -o "$dir/undetected.heed"
  [ $code -eq 1 ] || fail "$1: exit $code"; one_error_line "$1"
  grep -q "cannot tell the format: .*$3.*--from names a format (ct2, " "$dir/err" || fail "$1: $(cat "$dir/err")"
  [ -e "$dir/undetected.heed" ] && fail "$1: a file was written"
}
hf=$dir/hf && mkdir -p "$hf"
detect_error "a missing path" "$dir/nowhere" "'$dir/nowhere' does not exist"
detect_error "an empty folder" "$dir/empty" "without model.bin (CTranslate2) or config.json (Hugging Face)"
printf '{"model_type": "deberta-v2"}' >"$hf/config.json"
detect_error "an unsupported model_type" "$hf" "model_type 'deberta-v2', which heed does not convert (it converts bert, gpt2, llama, marian, mpnet, xlm-roberta)"
printf '{"model_type": "mpnet"}' >"$hf/config.json"
detect_error "an MPNet without a vocabulary" "$hf" "mpnet folder (hf-mpnet) without vocab.txt or tokenizer.json"
printf '{"model_type": "bert"}' >"$hf/config.json"
detect_error "a BERT without a vocabulary" "$hf" "bert folder (hf-bert) without vocab.txt or tokenizer.json"
printf '{"model_type": "llama"}' >"$hf/config.json" && : >"$hf/pytorch_model.bin"
detect_error "a Llama without safetensors" "$hf" "llama folder (hf-llama) without model.safetensors (it has pytorch_model.bin"
printf '{"hidden_size": 8}' >"$hf/config.json"
detect_error "a config.json without model_type" "$hf" "names no model_type"
detect_error "a plain file" "$dir/plain" "is a file but neither an Argos package (zip) nor a llama2.c checkpoint"
rm -rf "$hf"

leftovers=$(ls -A "$dir" | grep -v -e '\.heed$' -e '^out$' -e '^err$' -e '^empty$' -e '^plain$' -e '^ro$')
[ -z "$leftovers" ] && true || fail "temporary files left behind: $leftovers"

if [ $failures -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "heed convert CLI: all checks passed"
