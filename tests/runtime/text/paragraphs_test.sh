#!/bin/sh
# Paragraphs through `heed translate` and heed_translate_text, on the tiny Marian fixture (converted
# here with the heed CLI). The expected output is computed independently of the splitter: the
# sentences of each paragraph (listed by hand in paragraph_sentences.tsv) are translated one per
# line with --no-split and joined with one space per paragraph.
# usage: paragraphs_test.sh "EMULATOR" HEED C_PROGRAM FIXTURE TEST_DIR WORK_DIR
set -u
emu=$1 heed=$2 program=$3 fixture=$4 here=$5 dir=$6
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

model=$dir/tiny-en-de.heed
$emu "$heed" convert --from hf-marian "$fixture" -o "$model" >"$dir/convert.log" 2>&1 ||
  { echo "FAIL: cannot convert $fixture: $(cat "$dir/convert.log")"; exit 1; }
# Greedy with no minimum length: the settings heed_translate_text uses.
opts="--beam 1 --min-len 0 --max-source-len 64 --max-len 20"
paragraphs=$here/paragraphs.txt
lines=$(wc -l <"$paragraphs")

# Expected: each sentence alone, joined per paragraph (paragraphs without sentences stay empty).
cut -f2 "$here/paragraph_sentences.tsv" >"$dir/sentences.txt"
$emu "$heed" translate -m "$model" $opts --no-split <"$dir/sentences.txt" >"$dir/sentences.out" 2>"$dir/err" ||
  fail "sentences: $(cat "$dir/err")"
cut -f1 "$here/paragraph_sentences.tsv" | paste - "$dir/sentences.out" |
  awk -F '\t' -v n="$lines" '{ if ($2 != "") out[$1] = ($1 in out && out[$1] != "") ? out[$1] " " $2 : $2 }
                             END { for (i = 1; i <= n; ++i) print ((i in out) ? out[i] : "") }' >"$dir/expected"
[ "$(wc -l <"$dir/expected")" -eq "$lines" ] || fail "expected file has the wrong number of lines"

# Split paragraphs, with the default batch (all sentences in one length-sorted window), one sentence
# per batch, and batches of 3 (several batches of mixed lengths): all the same as the expected lines.
for batch in 16 1 3; do
  $emu "$heed" translate -m "$model" $opts --batch "$batch" <"$paragraphs" >"$dir/out$batch" 2>"$dir/err" ||
    fail "translate --batch $batch: $(cat "$dir/err")"
  cmp -s "$dir/expected" "$dir/out$batch" || fail "--batch $batch differs from the sentences joined:
$(diff "$dir/expected" "$dir/out$batch")"
done
# Beam search too: --batch 1 and --batch 3 give the same lines.
$emu "$heed" translate -m "$model" $opts --beam 3 --min-len 1 --batch 1 <"$paragraphs" >"$dir/beam1" 2>"$dir/err" ||
  fail "beam --batch 1: $(cat "$dir/err")"
$emu "$heed" translate -m "$model" $opts --beam 3 --min-len 1 --batch 3 <"$paragraphs" >"$dir/beam3" 2>"$dir/err" ||
  fail "beam --batch 3: $(cat "$dir/err")"
cmp -s "$dir/beam1" "$dir/beam3" || fail "beam 3: --batch 3 differs from --batch 1: $(diff "$dir/beam1" "$dir/beam3")"
[ "$(wc -l <"$dir/beam3")" -eq "$lines" ] || fail "beam 3: not one output line per input line"

# --no-split translates a whole line as one sentence: a different translation for multi-sentence
# lines (paragraph 6 here; the first one is too long for the fixture as one sentence).
sed -n 2,6p "$paragraphs" >"$dir/short_paragraphs.txt"
$emu "$heed" translate -m "$model" $opts --no-split <"$dir/short_paragraphs.txt" >"$dir/nosplit" 2>"$dir/err" ||
  fail "--no-split: $(cat "$dir/err")"
[ "$(wc -l <"$dir/nosplit")" -eq 5 ] || fail "--no-split: not one output line per input line"
[ "$(sed -n 5p "$dir/nosplit")" != "$(sed -n 6p "$dir/expected")" ] || fail "--no-split gave the split translation"
# With --on-long-input error, a sentence above the limit is an error naming its line, even when the
# line has short sentences.
printf 'Hello\nHi. Today, the parliament dismissed the motion.\n' |
  $emu "$heed" translate -m "$model" --beam 1 --max-source-len 5 --max-len 20 --on-long-input error >/dev/null 2>"$dir/err"
code=$?
[ $code -eq 1 ] && grep -q '^heed translate: line 2: a sentence of ' "$dir/err" ||
  fail "long sentence: exit $code: $(cat "$dir/err")"

# The C API: the whole file as one text keeps its lines, with batches of 2 and of 16.
for batch in 2 16; do
  $emu "$program" "$model" "$paragraphs" 20 "$batch" text >"$dir/c$batch" 2>"$dir/err" ||
    fail "C API text, max_batch $batch: $(cat "$dir/err")"
  cmp -s "$dir/expected" "$dir/c$batch" || fail "C API text, max_batch $batch: $(diff "$dir/expected" "$dir/c$batch")"
done
# no_sentence_split: each text is one sentence, as `translate --no-split`.
$emu "$program" "$model" "$dir/sentences.txt" 20 4 lines >"$dir/clines" 2>"$dir/err" || fail "C API lines: $(cat "$dir/err")"
cmp -s "$dir/sentences.out" "$dir/clines" || fail "C API no_sentence_split: $(diff "$dir/sentences.out" "$dir/clines")"
$emu "$program" "$model" "$dir/short_paragraphs.txt" 20 4 lines >"$dir/clines" 2>"$dir/err" || fail "C API lines: $(cat "$dir/err")"
cmp -s "$dir/nosplit" "$dir/clines" || fail "C API no_sentence_split, paragraphs: $(diff "$dir/nosplit" "$dir/clines")"

[ $failures -eq 0 ] && echo "paragraphs_test: all passed"
[ $failures -eq 0 ]
