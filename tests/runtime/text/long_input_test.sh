#!/bin/sh
# `heed translate`'s length limits never lose work: the tiny Marian fixture (64 learned positions)
# translates with the default options; an over-long line in the middle of a file is truncated with
# one warning (or, with --on-long-input error, reported and written empty, exit 1), and every line
# still gets its output line, the others' equal to translating them alone; lengths above the
# model's positions are refused naming the flag. On aren-transliteration (space-separated tokens):
# the truncated tokens translate as the first tokens do, an end token written last stays last, and
# plain text gets one warning that its words are not in the vocabulary.
# usage: long_input_test.sh "EMULATOR" HEED MARIAN_FIXTURE SHARED_DIR WORK_DIR
set -u
emu=$1 heed=$2 fixture=$3 shared=$4 dir=$5
rm -rf "$dir" && mkdir -p "$dir" || exit 1
aren_src=$shared/models/ct2/aren-transliteration
[ -f "$aren_src/model.bin" ] || { echo "FAIL: missing $aren_src (the shared models folder)"; exit 1; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

marian=$dir/tiny-en-de.heed
aren=$dir/aren.heed
$emu "$heed" convert --from hf-marian "$fixture" -o "$marian" --quiet >"$dir/convert.log" 2>&1 ||
  { echo "FAIL: cannot convert $fixture: $(cat "$dir/convert.log")"; exit 1; }
$emu "$heed" convert "$aren_src" -o "$aren" --quantize float32 --quiet >"$dir/convert.log" 2>&1 ||
  { echo "FAIL: cannot convert $aren_src: $(cat "$dir/convert.log")"; exit 1; }

# Runs heed translate ARGS... on stdin; sets $code; output in $dir/out, messages in $dir/err.
translate() { $emu "$heed" translate "$@" >"$dir/out" 2>"$dir/err"; code=$?; }

# Default options: --max-source-len and --max-len are the model's 64 positions, not 256.
printf 'Hello world.\nToday, the parliament dismissed the motion.\n' >"$dir/short"
translate -m "$marian" <"$dir/short"
[ $code -eq 0 ] && [ ! -s "$dir/err" ] || fail "default options: exit $code: $(cat "$dir/err")"
[ "$(wc -l <"$dir/out")" -eq 2 ] || fail "default options: not one line per input line: $(cat "$dir/out")"

# heed score takes the same defaults and names the same flags.
printf '\342\226\201Hello \342\226\201world . ||| \342\226\201Hallo \342\226\201Welt .\n' |
  $emu "$heed" score -m "$marian" --tokens >"$dir/score" 2>"$dir/err" && [ "$(wc -w <"$dir/score")" -eq 4 ] ||
  fail "score with default options: $(cat "$dir/err")"
echo 'a ||| b' | $emu "$heed" score -m "$marian" --tokens --max-len 100 >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^heed score: --max-len 100 exceeds the model's 64 target positions$" "$dir/err" ||
  fail "score --max-len 100: exit $rc: $(cat "$dir/err")"

# Above the model's positions: a usage error naming the flag as typed.
translate -m "$marian" --max-source-len 300 </dev/null
[ $code -eq 2 ] && grep -q "^heed translate: --max-source-len 300 exceeds the model's 64 source positions$" "$dir/err" ||
  fail "--max-source-len 300: exit $code: $(cat "$dir/err")"
translate -m "$marian" --max-len 65 </dev/null
[ $code -eq 2 ] && grep -q "^heed translate: --max-len 65 exceeds the model's 64 target positions$" "$dir/err" ||
  fail "--max-len 65: exit $code: $(cat "$dir/err")"
translate -m "$marian" --on-long-input drop </dev/null
[ $code -eq 2 ] || fail "--on-long-input drop: exit $code"

# One line of 320 pieces (no sentence end: one sentence) between two short ones.
long=$(i=0; while [ $i -lt 40 ]; do printf 'parliament motion '; i=$((i + 1)); done)
printf 'Hello world.\n%s\nToday, the parliament dismissed the motion.\n' "$long" >"$dir/mixed"
# Each short line alone, greedy and n-best.
for opts in "--beam 1" "--beam 2 --n-best 2"; do
  tag=$(echo "$opts" | tr -d ' -')
  for n in 1 3; do
    sed -n ${n}p "$dir/mixed" | $emu "$heed" translate -m "$marian" $opts >"$dir/alone$n.$tag" 2>"$dir/err" ||
      fail "line $n alone ($opts): $(cat "$dir/err")"
  done
  # truncate (the default): line 2 translated from its first 63 pieces (</s> added), one warning.
  translate -m "$marian" $opts <"$dir/mixed"
  [ $code -eq 0 ] || fail "truncate ($opts): exit $code: $(cat "$dir/err")"
  [ "$(wc -l <"$dir/err")" -eq 1 ] &&
    grep -Eq '^heed translate: line 2: (a sentence of )?320 tokens, more than --max-source-len allows \(63\): truncated to 63 tokens$' "$dir/err" ||
    fail "truncate ($opts) warning: $(cat "$dir/err")"
  cp "$dir/out" "$dir/truncate.$tag"
  # error: line 2 reported and written empty, the others translated, exit 1.
  translate -m "$marian" $opts --on-long-input error <"$dir/mixed"
  [ $code -eq 1 ] || fail "error ($opts): exit $code"
  [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^heed translate: line 2: .* tokens, more than --max-source-len allows (63): written as an empty line$' "$dir/err" ||
    fail "error ($opts) message: $(cat "$dir/err")"
  cp "$dir/out" "$dir/error.$tag"
done
# Greedy: one output line per input line, lines 1 and 3 as alone.
for mode in truncate error; do
  out=$dir/$mode.beam1
  [ "$(wc -l <"$out")" -eq 3 ] || fail "$mode: not 3 output lines: $(cat "$out")"
  sed -n 1p "$out" | cmp -s - "$dir/alone1.beam1" || fail "$mode: line 1 differs from alone: $(sed -n 1p "$out")"
  sed -n 3p "$out" | cmp -s - "$dir/alone3.beam1" || fail "$mode: line 3 differs from alone: $(sed -n 3p "$out")"
done
[ -n "$(sed -n 2p "$dir/truncate.beam1")" ] || fail "truncate: line 2 has no translation"
[ -z "$(sed -n 2p "$dir/error.beam1")" ] || fail "error: line 2 is not empty: $(sed -n 2p "$dir/error.beam1")"
# n-best: line i's hypotheses are 'i ||| ...' lines, equal to translating it alone (index 0 there).
for mode in truncate error; do
  out=$dir/$mode.beam2nbest2
  grep '^0 ||| ' "$out" | cmp -s - "$dir/alone1.beam2nbest2" || fail "$mode n-best: line 1 differs from alone: $(cat "$out")"
  grep '^2 ||| ' "$out" | sed 's/^2 /0 /' | cmp -s - "$dir/alone3.beam2nbest2" || fail "$mode n-best: line 3 differs from alone: $(cat "$out")"
done
[ "$(grep -c '^1 ||| ' "$dir/truncate.beam2nbest2")" -eq 2 ] || fail "truncate n-best: line 2 has not 2 hypotheses"
[ "$(grep '^1 ||| ' "$dir/error.beam2nbest2")" = "1 |||  ||| 0" ] || fail "error n-best: line 2 is not one empty hypothesis"

# A split paragraph: its long sentence fails the whole line with --on-long-input error, and is cut
# with a warning by default.
printf 'Hello.\nHi. %s\nBye.\n' "$long" >"$dir/paragraph"
translate -m "$marian" --beam 1 --on-long-input error <"$dir/paragraph"
[ $code -eq 1 ] && [ "$(wc -l <"$dir/out")" -eq 3 ] && [ -z "$(sed -n 2p "$dir/out")" ] && [ -n "$(sed -n 3p "$dir/out")" ] ||
  fail "paragraph, error: exit $code: $(cat "$dir/out")"
grep -q '^heed translate: line 2: a sentence of ' "$dir/err" || fail "paragraph, error message: $(cat "$dir/err")"
translate -m "$marian" --beam 1 <"$dir/paragraph"
[ $code -eq 0 ] && [ "$(wc -l <"$dir/out")" -eq 3 ] || fail "paragraph, truncate: exit $code: $(cat "$dir/out")"

# Tokens: a cut source translates as its first tokens do; an end token written last stays last.
printf 'آ ت ز م و ن ز ا\n' | $emu "$heed" translate -m "$aren" --tokens --max-source-len 6 >"$dir/cut" 2>"$dir/err"
printf 'آ ت ز م و ن\n' | $emu "$heed" translate -m "$aren" --tokens >"$dir/first" 2>&1
cmp -s "$dir/cut" "$dir/first" || fail "a cut source differs from its first tokens: $(cat "$dir/cut") / $(cat "$dir/first")"
grep -q '^heed translate: line 1: 8 tokens, more than --max-source-len allows (6): truncated to 6 tokens$' "$dir/err" ||
  fail "tokens warning: $(cat "$dir/err")"
printf 'آ ت ز م و ن ز ا </s>\n' | $emu "$heed" translate -m "$aren" --tokens --max-source-len 6 >"$dir/cut" 2>/dev/null
printf 'آ ت ز م و </s>\n' | $emu "$heed" translate -m "$aren" --tokens >"$dir/first" 2>&1
cmp -s "$dir/cut" "$dir/first" || fail "a cut source lost its end token: $(cat "$dir/cut") / $(cat "$dir/first")"

# Plain text into a model of space-separated tokens: one warning per run, output as before.
printf 'Hello world.\nfoo bar\n' >"$dir/prose"
translate -m "$aren" <"$dir/prose"
[ $code -eq 0 ] && [ "$(wc -l <"$dir/out")" -eq 2 ] || fail "prose: exit $code: $(cat "$dir/out")"
[ "$(wc -l <"$dir/err")" -eq 1 ] &&
  grep -q "^heed translate: line 1: 2 of 2 words are not in the model's source vocabulary (this model reads space-separated tokens: see --help)$" "$dir/err" ||
  fail "prose warning: $(cat "$dir/err")"
printf 'آ ت ز م و ن\n' >"$dir/tokens"
translate -m "$aren" <"$dir/tokens"
[ $code -eq 0 ] && [ ! -s "$dir/err" ] || fail "tokens got a warning: $(cat "$dir/err")"
printf 'a t z m o n\n' | cmp -s - "$dir/out" || fail "tokens: $(cat "$dir/out")"
translate -m "$aren" --tokens <"$dir/prose"
[ ! -s "$dir/err" ] || fail "--tokens got a warning: $(cat "$dir/err")"

[ $failures -eq 0 ] && echo "long_input_test: all passed"
[ $failures -eq 0 ]
