#!/bin/sh
# Runs the consumer program (consumer.c, built against an installed heed) and checks every line it
# prints against independent outputs: the greedy translation against the model authors' (EXPECTED),
# the 2-best hypotheses and their scores, the pair's score and the generated text against the heed
# command line on the same models.
# usage: check_consumer.sh HEED CONSUMER MODEL.heed TEXT EXPECTED [LM.heed PROMPT]
# HEED_EMULATOR in the environment (qemu-user and its options) runs both programs when set.
set -u
emu=${HEED_EMULATOR:-} heed=$1 consumer=$2 model=$3 text=$4 expected=$5
fail() { echo "FAIL: $(basename "$consumer"): $*"; exit 1; }
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
if [ $# -ge 7 ]; then out=$($emu "$consumer" "$model" "$text" "$6" "$7" 2>"$errors") || fail "$out $(cat "$errors")"
else out=$($emu "$consumer" "$model" "$text" 2>"$errors") || fail "$out $(cat "$errors")"; fi
line() { printf '%s\n' "$out" | sed -n "$1p"; }
[ "$(line 2)" = "$expected" ] || fail "greedy translation '$(line 2)', expected '$expected'"
# numbers_match A B: equal within the rounding of the consumer's 4 decimals
numbers_match() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 1e-3 && d > -1e-3) }'; }
nbest=$(printf '%s\n' "$text" | $emu "$heed" translate -m "$model" --beam 2 --n-best 2 --max-len 20 --max-source-len 64) ||
  fail "heed translate --n-best failed"
for rank in 0 1; do
  cli=$(printf '%s\n' "$nbest" | sed -n "$((rank + 1))p")
  cli_text=$(printf '%s\n' "$cli" | awk -F' \\|\\|\\| ' '{ print $2 }')
  cli_score=$(printf '%s\n' "$cli" | awk -F' \\|\\|\\| ' '{ print $3 }')
  ours=$(printf '%s\n' "$out" | grep "^nbest $rank ") || fail "no hypothesis $rank in: $out"
  ours_score=$(printf '%s\n' "$ours" | cut -d' ' -f3)
  ours_text=$(printf '%s\n' "$ours" | cut -d' ' -f4-)
  [ "$ours_text" = "$cli_text" ] || fail "hypothesis $rank '$ours_text', heed translate: '$cli_text'"
  numbers_match "$ours_score" "$cli_score" || fail "hypothesis $rank score $ours_score, heed translate: $cli_score"
done
# The pair's score: heed score reads tokens, so tokenize both sides with the model's tokenizers.
source_pieces=$(printf '%s\n' "$text" | $emu "$heed" tokenize -m "$model" --pieces-only) || fail "heed tokenize failed"
target_pieces=$(line 2 | $emu "$heed" tokenize -m "$model" --side target --pieces-only) || fail "heed tokenize failed"
cli_total=$(printf '%s ||| %s\n' "$source_pieces" "$target_pieces" | $emu "$heed" score -m "$model" --tokens --max-len 64 |
  awk '{ s = 0; for (i = 1; i <= NF; ++i) s += $i; printf "%.6f\n", s }') || fail "heed score failed"
ours_total=$(printf '%s\n' "$out" | sed -n 's/^score //p')
numbers_match "$ours_total" "$cli_total" || fail "pair score $ours_total, heed score: $cli_total"
if [ $# -ge 7 ]; then
  generated=$($emu "$heed" generate -m "$6" --prompt "$7" --max-len 32) || fail "heed generate failed"
  [ "$(printf '%s\n' "$out" | sed -n 's/^generated //p')" = "$generated" ] || fail "generated text differs from heed generate: $out"
  [ "$(printf '%s\n' "$out" | sed -n 's/^stream //p')" = "$generated" ] || fail "streamed pieces differ from the text: $out"
fi
echo "$(basename "$consumer"): translation, 2-best, scores$([ $# -ge 7 ] && echo ', streamed generation') as expected"
