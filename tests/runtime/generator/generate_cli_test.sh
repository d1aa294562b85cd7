#!/bin/sh
# `heed convert --from llama2c` and `heed generate` end to end: stories260K (float32 and int8) and
# the CTranslate2 onmt-lm give their authors' expected outputs; text streams, --ids, --echo,
# sampling reproducibility, usage errors (exit 2) and runtime errors (exit 1, one line).
# usage: generate_cli_test.sh "EMULATOR" HEED SHARED_DIR FOLDER   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 shared=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
stories=$shared/models/llama2c/stories260k/stories260K.bin
lm=$shared/models/ct2/onmt-lm
[ -f "$stories" ] || { echo "FAIL: missing $stories (the shared models folder)"; exit 1; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
story='Once upon a time, there was a little girl named Lily. She loved to play outside in the park.'

# Conversion: --from given, and detected from the file.
$emu "$heed" convert --from llama2c "$stories" -o "$dir/f32.heed" -q float32 --quiet 2>"$dir/err" ||
  fail "convert float32: $(cat "$dir/err")"
$emu "$heed" convert "$stories" -o "$dir/i8.heed" --quiet 2>"$dir/err" || fail "convert int8 (detected): $(cat "$dir/err")"
$emu "$heed" convert "$lm" -o "$dir/lm.heed" --quiet 2>"$dir/err" || fail "convert onmt-lm: $(cat "$dir/err")"

for m in f32 i8; do
  $emu "$heed" generate -m "$dir/$m.heed" --prompt "" --max-len 40 >"$dir/$m.out" 2>"$dir/err" || fail "generate $m: $(cat "$dir/err")"
  case "$(cat "$dir/$m.out")" in "$story"*) ;; *) fail "generate $m: $(cat "$dir/$m.out")" ;; esac
done

# A prompt: only the continuation is printed, or the whole text with --echo.
out=$($emu "$heed" generate -m "$dir/f32.heed" --prompt "Once upon a time" --max-len 10)
[ "$out" = ", there was a little girl named Lily" ] || fail "prompt continuation: '$out'"
out=$($emu "$heed" generate -m "$dir/f32.heed" --prompt "Once upon a time" --max-len 10 --echo)
[ "$out" = "Once upon a time, there was a little girl named Lily" ] || fail "--echo: '$out'"
out=$($emu "$heed" generate -m "$dir/f32.heed" --prompt-ids 403,407 --max-len 3 --ids)
[ "$out" = "261 378 432" ] || fail "--prompt-ids / --ids: '$out'"
# --echo with --ids: the prompt's ids, then the continuation's (streamed and from stdin lines).
out=$($emu "$heed" generate -m "$dir/f32.heed" --prompt-ids 403,407 --max-len 3 --ids --echo)
[ "$out" = "403 407 261 378 432" ] || fail "--prompt-ids --ids --echo: '$out'"
prompt_ids=$(echo "Once upon a time" | $emu "$heed" tokenize -m "$dir/f32.heed" | cut -f2)
continuation=$(echo "Once upon a time" | $emu "$heed" generate -m "$dir/f32.heed" --ids --max-len 4)
out=$(echo "Once upon a time" | $emu "$heed" generate -m "$dir/f32.heed" --ids --echo --max-len 4)
[ -n "$prompt_ids" ] && [ "$out" = "$prompt_ids $continuation" ] || fail "stdin --ids --echo: '$out'"

# Sampling: the same seed gives the same text.
a=$($emu "$heed" generate -m "$dir/f32.heed" --prompt "" --max-len 40 --temperature 0.9 --top-k 40 --seed 5)
b=$($emu "$heed" generate -m "$dir/f32.heed" --prompt "" --max-len 40 --temperature 0.9 --top-k 40 --seed 5)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "sampling is not reproducible: '$a' vs '$b'"

# onmt-lm: the first prompt of src-gen.txt continues with "you !".
out=$($emu "$heed" generate -m "$dir/lm.heed" --prompt "$(head -1 "$shared/data/lm-prompts/src-gen.txt")" --max-len 20)
[ "$out" = "you !" ] || fail "onmt-lm: '$out'"

# The older spelling of --max-len still works, with a note on stderr.
out=$($emu "$heed" generate -m "$dir/f32.heed" --prompt "Once upon a time" --tokens 10 2>"$dir/err")
[ "$out" = ", there was a little girl named Lily" ] && grep -q -- "'--tokens' is now '--max-len'" "$dir/err" ||
  fail "--tokens alias: '$out' / $(cat "$dir/err")"

# Stop strings: the text stops before the first one and leaves it out.
out=$($emu "$heed" generate -m "$dir/f32.heed" --prompt "Once upon a time" --max-len 40 --stop "Lily" --stop "park")
[ "$out" = ", there was a little girl named " ] || fail "--stop: '$out'"

# onmt-lm with --disable-unk (OpenNMT-py's own generation test bans the unknown token): every
# prompt of src-gen.txt continues without <unk>, where some do produce it by default.
unk_default=0
while IFS= read -r prompt || [ -n "$prompt" ]; do
  [ -n "$prompt" ] || continue
  plain=$($emu "$heed" generate -m "$dir/lm.heed" --prompt "$prompt" --max-len 20)
  case "$plain" in *"<unk>"*) unk_default=$((unk_default + 1)) ;; esac
  out=$($emu "$heed" generate -m "$dir/lm.heed" --prompt "$prompt" --max-len 20 --disable-unk) ||
    fail "onmt-lm --disable-unk: exit $?"
  [ -n "$out" ] || fail "onmt-lm --disable-unk: empty continuation of '$prompt'"
  case "$out" in *"<unk>"*) fail "onmt-lm --disable-unk produced <unk>: '$out'" ;; esac
done <"$shared/data/lm-prompts/src-gen.txt"
[ $unk_default -gt 0 ] || fail "onmt-lm: no prompt produced <unk> without --disable-unk (the check above proves nothing)"

# Decoding-control usage errors.
$emu "$heed" generate -m "$dir/lm.heed" --prompt "a" --repetition-penalty 0 >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "--repetition-penalty 0: exit $rc"
$emu "$heed" generate -m "$dir/lm.heed" --prompt "a" --end-token no-such-token >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no-such-token" "$dir/err" || fail "unknown --end-token: exit $rc: $(cat "$dir/err")"

# Prompts from stdin, one per line, in batches: each line's output is what --prompt gives alone
# (greedy), whatever the batch size; an empty line generates from the start token.
printf 'Once upon a time\n\nThe dog\nLily went to\nOne day, a little\n' >"$dir/prompts"
for b in 1 3 8; do
  $emu "$heed" generate -m "$dir/i8.heed" --max-len 24 --batch $b <"$dir/prompts" >"$dir/batch$b" 2>"$dir/err" ||
    fail "stdin --batch $b: exit $?: $(cat "$dir/err")"
  [ "$(wc -l <"$dir/batch$b")" -eq 5 ] || fail "stdin --batch $b: $(wc -l <"$dir/batch$b") lines for 5 prompts"
done
cmp -s "$dir/batch1" "$dir/batch3" && cmp -s "$dir/batch1" "$dir/batch8" || fail "stdin: the batch size changed the output"
head -1 "$dir/batch8" | grep -q '^, there was a little girl named Lily' || fail "stdin first line: $(head -1 "$dir/batch8")"
[ "$(sed -n 3p "$dir/batch8")" = "$($emu "$heed" generate -m "$dir/i8.heed" --prompt "The dog" --max-len 24)" ] ||
  fail "stdin line 3 differs from --prompt: $(sed -n 3p "$dir/batch8")"
# A line that cannot be generated (a model without a start token, an empty line) is an empty
# output line and a message naming it; the lines after it are generated.
printf '%s\n\n%s\n' "$(sed -n 1p "$shared/data/lm-prompts/src-gen.txt")" "$(sed -n 2p "$shared/data/lm-prompts/src-gen.txt")" |
  $emu "$heed" generate -m "$dir/lm.heed" --max-len 20 >"$dir/lm.lines" 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q '^heed generate: line 2: ' "$dir/err" && [ "$(wc -l <"$dir/lm.lines")" -eq 3 ] &&
  [ "$(sed -n 1p "$dir/lm.lines")" = "you !" ] && [ -z "$(sed -n 2p "$dir/lm.lines")" ] && [ -n "$(sed -n 3p "$dir/lm.lines")" ] ||
  fail "stdin with a bad line: exit $rc: $(cat "$dir/lm.lines") / $(cat "$dir/err")"

# Errors: usage (exit 2), runtime (exit 1, one line).
$emu "$heed" generate --max-len 3 >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "missing --model: exit $rc"
$emu "$heed" generate -m "$dir/f32.heed" --prompt-ids 1,x >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "bad --prompt-ids: exit $rc"
$emu "$heed" generate -m "$dir/f32.heed" --prompt-ids 9999 >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^heed generate: ' "$dir/err" ||
  fail "out-of-vocabulary prompt id: exit $rc: $(cat "$dir/err")"
$emu "$heed" generate -m "$dir/missing.heed" >/dev/null 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] || fail "missing model: exit $rc"
$emu "$heed" generate --help >"$dir/help" 2>&1 || fail "--help: exit $?"
grep -q -- '--temperature' "$dir/help" || fail "--help does not explain --temperature"

[ $failures -eq 0 ] && echo "generate CLI: all checks passed"
exit $failures
