#!/bin/sh
# `heed translate` and `heed score` end to end on the real aren-transliteration model: the known
# outputs of the model's own test suite, line order and empty lines, n-best format, batching
# (results independent of --batch), prefixes, scores consistent between the two commands, usage
# errors (exit 2) and runtime errors (exit 1, one line "heed translate: ..." naming the line).
# usage: translate_cli_test.sh "EMULATOR" HEED SHARED_DIR FOLDER   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 shared=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
aren=$shared/models/ct2/aren-transliteration
[ -f "$aren/model.bin" ] || { echo "FAIL: missing $aren (the shared models folder)"; exit 1; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

model=$dir/aren.heed
$emu "$heed" convert "$aren" -o "$model" --quantize float32 >/dev/null 2>&1 || { echo "FAIL: cannot convert $aren"; exit 1; }

printf 'آ ت ز م و ن\n\nآ ز ا\n' >"$dir/in"
$emu "$heed" translate -m "$model" --tokens <"$dir/in" >"$dir/out" 2>"$dir/err"
[ $? -eq 0 ] || fail "translate: exit code $?: $(cat "$dir/err")"
printf 'a t z m o n\n\na z z a\n' | cmp -s - "$dir/out" || fail "translate output: $(cat "$dir/out")"

# The known outputs for both published models (fp32 and int8 sources) in every stored precision,
# greedy and beam 4.
for src in aren-transliteration aren-transliteration-i8; do
  [ -f "$shared/models/ct2/$src/model.bin" ] || { fail "missing $shared/models/ct2/$src"; continue; }
  for q in int8 float16 float32; do
    m=$dir/$src-$q.heed
    $emu "$heed" convert "$shared/models/ct2/$src" -o "$m" --quantize $q --quiet >/dev/null 2>&1 || { fail "convert $src --quantize $q"; continue; }
    for b in 1 4; do
      $emu "$heed" translate -m "$m" --tokens --beam $b <"$dir/in" >"$dir/known" 2>&1
      printf 'a t z m o n\n\na z z a\n' | cmp -s - "$dir/known" || fail "$src $q beam $b: $(cat "$dir/known")"
    done
  done
done

# Decoding controls from the command line, against CTranslate2's outputs for the same options
# (fixtures/aren_ct2_controls.txt): the engine's own test covers every control in depth.
printf 'آ ت ز م و ن\nم ح م د\n' >"$dir/names"
out=$($emu "$heed" translate -m "$model" --tokens --beam 1 --suppress a <"$dir/names" | tr '\n' '|')
[ "$out" = "e t z m o n|m u h m|" ] || fail "--suppress a: '$out'"
out=$($emu "$heed" translate -m "$model" --tokens --beam 4 --repetition-penalty 1.5 <"$dir/names" | tr '\n' '|')
[ "$out" = "a t z m o n|m u h a m e d|" ] || fail "--repetition-penalty 1.5: '$out'"
out=$($emu "$heed" translate -m "$model" --tokens --beam 1 --end-token m --max-len 20 <"$dir/names" | tr '\n' '|')
[ "$out" = "a t z|a|" ] || fail "--end-token m: '$out'"
printf 'a z\nm\n' >"$dir/suppress"
out=$($emu "$heed" translate -m "$model" --tokens --beam 4 --suppress-file "$dir/suppress" <"$dir/names" | tr '\n' '|')
[ "$out" = "a t z u e h o u n|a l h a h a d|" ] || fail "--suppress-file: '$out'"
# CTranslate2's sampling names are aliases of --top-k, --top-p and --temperature.
a=$($emu "$heed" translate -m "$model" --tokens --beam 1 --sampling-topk 3 --sampling-temperature 0.7 --seed 4 <"$dir/names")
b=$($emu "$heed" translate -m "$model" --tokens --beam 1 --top-k 3 --temperature 0.7 --seed 4 <"$dir/names")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "sampling aliases: '$a' vs '$b'"
$emu "$heed" translate -m "$model" --tokens --suppress zzz-not-a-token <"$dir/names" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q "zzz-not-a-token" "$dir/err" || fail "unknown --suppress token: exit $rc: $(cat "$dir/err")"

# A prefix file that is not a regular file is refused at once: /dev/zero does not fill memory, a
# FIFO does not block.
mkfifo "$dir/prefix.fifo"
for p in /dev/zero "$dir/prefix.fifo"; do
  timeout 60 $emu "$heed" translate -m "$model" --tokens --prefix-file "$p" <"$dir/names" >/dev/null 2>"$dir/err"; rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q -- '--prefix-file: ' "$dir/err" ||
    fail "--prefix-file $p: exit $rc: $(cat "$dir/err")"
done

# Same results whatever the batch size and with greedy search.
$emu "$heed" translate -m "$model" --batch 1 --beam 1 <"$dir/in" >"$dir/out1" 2>&1
cmp -s "$dir/out" "$dir/out1" || fail "--batch 1 --beam 1 differs: $(cat "$dir/out1")"

# Reading ahead: --read-ahead 1 (batches in input order) gives the same output, and reading ahead
# never waits: a line written to a pipe that stays open is answered before more input comes (the
# default --batch 16 reads up to 128 sentences ahead when they are there).
$emu "$heed" translate -m "$model" --tokens --read-ahead 1 --batch 1 <"$dir/in" >"$dir/out2" 2>&1
cmp -s "$dir/out" "$dir/out2" || fail "--read-ahead 1 differs: $(cat "$dir/out2")"
rm -f "$dir/fifo" && mkfifo "$dir/fifo" || fail "mkfifo $dir/fifo"
# The output exists before the reader starts: heed's shell opens it only once the FIFO has a writer,
# and the loop below may look before that.
: >"$dir/live"
$emu "$heed" translate -m "$model" --tokens <"$dir/fifo" >"$dir/live" 2>&1 &
pid=$!
exec 3>"$dir/fifo"
printf 'آ ت ز م و ن\n' >&3
waited=0
while [ "$(wc -l <"$dir/live")" -lt 1 ] && [ $waited -lt 300 ]; do sleep 0.2; waited=$((waited + 1)); done
printf 'a t z m o n\n' | cmp -s - "$dir/live" || fail "a line on an open pipe got no answer within 60 s: $(cat "$dir/live")"
printf 'آ ز ا\n' >&3
exec 3>&-
wait $pid || fail "translate from a pipe: exit code $?"
printf 'a t z m o n\na z z a\n' | cmp -s - "$dir/live" || fail "translate from a pipe: $(cat "$dir/live")"

# --threads: the same n-best lists, scores included (bitwise the same arithmetic), for 2 and 3
# threads and one per core; score too. Usage errors for a bad count.
$emu "$heed" translate -m "$model" --beam 4 --n-best 3 --with-scores <"$dir/in" >"$dir/t1" 2>&1
for t in 2 3 0; do
  $emu "$heed" translate -m "$model" --beam 4 --n-best 3 --with-scores --threads $t <"$dir/in" >"$dir/tn" 2>&1
  cmp -s "$dir/t1" "$dir/tn" || fail "--threads $t differs: $(cat "$dir/tn")"
done
# The same options in every spelling CLI11 accepts: -t2, -t 2, --threads=2, --model=FILE, --beam=4.
for forms in "-t2 --model=$model" "-t 2 -m $model" "--threads=2 --model $model"; do
  # shellcheck disable=SC2086  # the forms are split on purpose (no spaces in $model: a test folder)
  $emu "$heed" translate $forms --beam=4 --n-best 3 --with-scores <"$dir/in" >"$dir/tn" 2>&1
  cmp -s "$dir/t1" "$dir/tn" || fail "'$forms' differs: $(cat "$dir/tn")"
done
# --spin-us: workers that sleep at once, or spin long, change nothing but speed.
for spin in 0 5000; do
  $emu "$heed" translate -m "$model" --beam 4 --n-best 3 --with-scores --threads 2 --spin-us $spin <"$dir/in" >"$dir/tn" 2>&1
  cmp -s "$dir/t1" "$dir/tn" || fail "--spin-us $spin differs: $(cat "$dir/tn")"
done
$emu "$heed" translate -m "$model" --spin-us 1000001 </dev/null >"$dir/err" 2>&1; [ $? -eq 2 ] || fail "--spin-us 1000001: not exit 2"
grep -q "spin-us" "$dir/err" || fail "--spin-us 1000001: the error does not name the option: $(cat "$dir/err")"
printf 'آ ت ز م و ن ||| a t z m o n\n' | $emu "$heed" score -m "$model" --tokens >"$dir/s1" 2>&1
printf 'آ ت ز م و ن ||| a t z m o n\n' | $emu "$heed" score -m "$model" --tokens --threads 2 >"$dir/s2" 2>&1
cmp -s "$dir/s1" "$dir/s2" || fail "score --threads 2 differs: $(cat "$dir/s2")"
$emu "$heed" translate -m "$model" --threads 257 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "--threads 257: not exit 2"
$emu "$heed" translate -m "$model" --threads -1 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "--threads -1: not exit 2"

# n-best lines: index ||| hypothesis ||| score, n per non-empty input, best first.
$emu "$heed" translate -m "$model" --beam 4 --n-best 3 <"$dir/in" >"$dir/nbest" 2>&1
[ "$(grep -c '^0 ||| ' "$dir/nbest")" -eq 3 ] || fail "n-best for line 0: $(cat "$dir/nbest")"
[ "$(grep -c '^2 ||| ' "$dir/nbest")" -eq 3 ] || fail "n-best for line 2: $(cat "$dir/nbest")"
grep -q '^1 |||  ||| 0$' "$dir/nbest" || fail "n-best for the empty line: $(cat "$dir/nbest")"
head -1 "$dir/nbest" | grep -q '^0 ||| a t z m o n ||| -0\.15167' || fail "best score: $(head -1 "$dir/nbest")"

# The score of a translation is its length-normalized log-prob: heed score agrees.
printf 'آ ت ز م و ن ||| a t z m o n\n' | $emu "$heed" score -m "$model" --tokens >"$dir/score" 2>&1
[ "$(wc -w <"$dir/score")" -eq 7 ] || fail "score: expected 7 log-probs: $(cat "$dir/score")"
awk '{s=0; for(i=1;i<=NF;i++) s+=$i; d=s/NF+0.151679; if (d<-1e-5||d>1e-5) exit 1}' "$dir/score" ||
  fail "score total / 7 differs from the translation score: $(cat "$dir/score")"

# A forced prefix starts the translation.
printf 'e\n' >"$dir/prefix"
printf 'آ ت ز م و ن\n' | $emu "$heed" translate -m "$model" --prefix-file "$dir/prefix" >"$dir/pre" 2>&1
grep -q '^e ' "$dir/pre" || fail "prefix not kept: $(cat "$dir/pre")"

# --no-mmap reads the model into memory: the same n-best lists and scores; score takes it too.
$emu "$heed" translate -m "$model" --beam 4 --n-best 3 --with-scores --no-mmap <"$dir/in" >"$dir/nommap" 2>&1
cmp -s "$dir/t1" "$dir/nommap" || fail "--no-mmap differs: $(cat "$dir/nommap")"
printf 'آ ت ز م و ن ||| a t z m o n\n' | $emu "$heed" score -m "$model" --tokens --no-mmap >"$dir/s3" 2>&1
cmp -s "$dir/s1" "$dir/s3" || fail "score --no-mmap differs: $(cat "$dir/s3")"

# A line over --max-line-bytes is reported (one line on stderr), written as an empty line, and the
# lines after it are translated; the exit status is 1.
{ printf 'آ ت ز م و ن\n'; head -c 3000 /dev/zero | tr '\0' x; printf '\nآ ز ا\n'; } >"$dir/long"
$emu "$heed" translate -m "$model" --tokens --max-line-bytes 1000 <"$dir/long" >"$dir/long.out" 2>"$dir/err"; code=$?
[ $code -eq 1 ] || fail "--max-line-bytes: exit $code"
printf 'a t z m o n\n\na z z a\n' | cmp -s - "$dir/long.out" || fail "--max-line-bytes output: $(cat "$dir/long.out")"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q 'line 2 has more than --max-line-bytes' "$dir/err" || fail "--max-line-bytes message: $(cat "$dir/err")"

# A FIFO given as the model is refused at once (open() does not wait for a writer).
rm -f "$dir/model.fifo" && mkfifo "$dir/model.fifo" || fail "mkfifo $dir/model.fifo"
timeout 20 $emu "$heed" translate -m "$dir/model.fifo" </dev/null >/dev/null 2>"$dir/err"; code=$?
[ $code -eq 1 ] && grep -q 'not a regular file' "$dir/err" || fail "FIFO model: exit $code: $(cat "$dir/err")"

# Errors.
$emu "$heed" translate --tokens </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing --model: not exit 2"
$emu "$heed" translate -m "$model" --beam 2 --n-best 3 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "n-best > beam: not exit 2"
$emu "$heed" translate -m "$model" --beam 0 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "--beam 0: not exit 2"
$emu "$heed" translate -m "$model" --beam 2 --n-best 2 --patience 0.5 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] ||
  fail "n-best > round(beam x patience): not exit 2"
$emu "$heed" translate -m "$model" --patience 0 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "--patience 0: not exit 2"
$emu "$heed" translate -m "$model" --read-ahead 0 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "--read-ahead 0: not exit 2"
$emu "$heed" translate -m "$dir/missing.heed" </dev/null >/dev/null 2>"$dir/err"; code=$?
[ $code -eq 1 ] || fail "missing model: exit $code"
grep -q '^heed translate: ' "$dir/err" || fail "missing model message: $(cat "$dir/err")"
# A line above --max-source-len with --on-long-input error: reported, written empty, exit 1 (the
# default, truncation, is tests/runtime/text/long_input_test.sh's).
printf 'آ\nآ ت ز م و ن\n' | $emu "$heed" translate -m "$model" --max-source-len 3 --on-long-input error >"$dir/out" 2>"$dir/err"
code=$?
[ $code -eq 1 ] || fail "long line: exit $code"
[ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^heed translate: line 2: ' "$dir/err" || fail "long line message: $(cat "$dir/err")"
[ "$(wc -l <"$dir/out")" -eq 2 ] && [ -n "$(sed -n 1p "$dir/out")" ] && [ -z "$(sed -n 2p "$dir/out")" ] ||
  fail "long line output: $(cat "$dir/out")"
printf 'no separator\n' | $emu "$heed" score -m "$model" >/dev/null 2>"$dir/err"; code=$?
[ $code -eq 1 ] && grep -q '^heed score: line 1 ' "$dir/err" || fail "score without |||: exit $code: $(cat "$dir/err")"

[ $failures -eq 0 ] && echo "translate_cli_test: all passed"
[ $failures -eq 0 ]
