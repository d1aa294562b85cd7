#!/bin/sh
# sentence-transformers folders: the converter reads modules.json (Transformer, Pooling, Normalize;
# anything else, such as Dense, is refused) and sentence_bert_config.json (max_seq_length), and
# `heed embed` then truncates to that length and normalizes by default, as the library does: the
# result equals embedding the plain BERT folder with --max-source-len and --normalize given.
# usage: sentence_transformers_test.sh "EMULATOR" HEED FIXTURE_DIR FOLDER   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 fixture=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The fixture as a sentence-transformers folder: mean pooling, Normalize, max_seq_length 8.
st=$dir/st
cp -r "$fixture/model" "$st" && mkdir -p "$st/1_Pooling" || exit 1
printf '{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": false}\n' >"$st/1_Pooling/config.json"
printf '{"max_seq_length": 8, "do_lower_case": false}\n' >"$st/sentence_bert_config.json"
printf '[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
 {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
 {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]\n' >"$st/modules.json"

$emu "$heed" convert --from hf-bert "$st" -o "$dir/st.heed" -q float32 --quiet 2>"$dir/err" || fail "convert: $(cat "$dir/err")"
$emu "$heed" convert --from hf-bert "$fixture/model" -o "$dir/plain.heed" -q float32 --quiet 2>"$dir/err" ||
  fail "convert plain: $(cat "$dir/err")"
$emu "$heed" inspect "$dir/st.heed" >"$dir/inspect" 2>&1
grep -q 'embedding.max_length *8' "$dir/inspect" && grep -q 'embedding.normalize *true' "$dir/inspect" ||
  fail "metadata: $(grep embedding "$dir/inspect")"

# A sentence longer than 8 tokens and a short one.
printf 'The quick brown fox jumps over the lazy dog near the river bank.\nHello, world!\n' >"$dir/in.txt"
$emu "$heed" embed -m "$dir/st.heed" <"$dir/in.txt" >"$dir/st.jsonl" 2>"$dir/err" || fail "embed: $(cat "$dir/err")"
$emu "$heed" embed -m "$dir/plain.heed" --max-source-len 8 --normalize <"$dir/in.txt" >"$dir/asked.jsonl" 2>&1
cmp -s "$dir/st.jsonl" "$dir/asked.jsonl" || fail "defaults differ from --max-source-len 8 --normalize"
$emu "$heed" embed -m "$dir/plain.heed" <"$dir/in.txt" >"$dir/plain.jsonl" 2>&1
cmp -s "$dir/st.jsonl" "$dir/plain.jsonl" && fail "the sentence-transformers defaults changed nothing"
$emu "$heed" embed -m "$dir/st.heed" --no-normalize <"$dir/in.txt" >"$dir/raw.jsonl" 2>&1
$emu "$heed" embed -m "$dir/plain.heed" --max-source-len 8 <"$dir/in.txt" >"$dir/raw_asked.jsonl" 2>&1
cmp -s "$dir/raw.jsonl" "$dir/raw_asked.jsonl" || fail "--no-normalize differs from --max-source-len 8"
$emu "$heed" embed -m "$dir/st.heed" --normalize --no-normalize </dev/null >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--normalize --no-normalize: exit $rc"

# A module heed does not run is refused, naming it; so is a max_seq_length that is not a length.
sed 's/sentence_transformers.models.Normalize/sentence_transformers.models.Dense/' "$st/modules.json" >"$dir/m" &&
  cp "$dir/m" "$st/modules.json"
$emu "$heed" convert --from hf-bert "$st" -o "$dir/dense.heed" --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'sentence_transformers.models.Dense' "$dir/err" && [ ! -e "$dir/dense.heed" ] ||
  fail "Dense module: exit $rc: $(cat "$dir/err")"
printf '[]\n' >"$st/modules.json"
printf '{"max_seq_length": "long"}\n' >"$st/sentence_bert_config.json"
$emu "$heed" convert --from hf-bert "$st" -o "$dir/bad.heed" --quiet 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'max_seq_length' "$dir/err" || fail "bad max_seq_length: exit $rc: $(cat "$dir/err")"

[ $failures -eq 0 ] && echo "sentence-transformers: all checks passed"
exit $failures
