#!/bin/sh
# BERT's task heads end to end on the committed tiny models (tests/fixtures/hf-bert/classifier and
# mlm): `heed convert` (float32 and int8), `heed classify` and `heed fill-mask` against
# transformers' pipelines (classify.jsonl, fill_mask.jsonl: the same JSON, labels and tokens
# exactly, numbers within 1e-5 in float32; int8 keeps the top label and top-1 token), the C API
# program heads_c (the same answers), `heed inspect` naming the head, and one-line errors: a model
# without the head, a line without [MASK], a bad --top-k.
# usage: heads_cli_test.sh "EMULATOR" HEED FIXTURE_DIR FOLDER C_PROGRAM   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 fixture=$3 dir=$4 cprog=$5
rm -rf "$dir" && mkdir -p "$dir" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for m in classifier mlm model; do
  $emu "$heed" convert --from hf-bert "$fixture/$m" -o "$dir/$m-f32.heed" -q float32 --quiet 2>"$dir/err" ||
    fail "convert $m float32: $(cat "$dir/err")"
done
for m in classifier mlm; do
  $emu "$heed" convert "$fixture/$m" -o "$dir/$m-i8.heed" --quiet 2>"$dir/err" || fail "convert $m int8: $(cat "$dir/err")"
done

# Every number of a file, one a line; the file without its numbers (labels, tokens, punctuation).
numbers() { grep -o -- '-\{0,1\}[0-9][0-9.e+-]*' "$1"; }
skeleton() { sed 's/-\{0,1\}[0-9][0-9.e+-]*/N/g' "$1"; }
# Largest absolute difference between the numbers of two files.
maxdiff() {
  numbers "$1" >"$dir/a" && numbers "$2" >"$dir/b"
  [ "$(wc -l <"$dir/a")" -eq "$(wc -l <"$dir/b")" ] || { echo 1; return; }
  paste "$dir/a" "$dir/b" | awk '{d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d} END {printf "%.3g", m + 0}'
}

check_task() {  # TASK INPUT EXPECTED [FLAGS]
  task=$1 in=$2 want=$3
  shift 3
  for w in f32 i8; do
    model=$dir/classifier-$w.heed
    [ "$task" = fill-mask ] && model=$dir/mlm-$w.heed
    $emu "$heed" "$task" -m "$model" "$@" <"$in" >"$dir/$task-$w.jsonl" 2>"$dir/err" || fail "$task $w: $(cat "$dir/err")"
    [ "$(wc -l <"$dir/$task-$w.jsonl")" -eq "$(wc -l <"$want")" ] || fail "$task $w: $(wc -l <"$dir/$task-$w.jsonl") lines"
  done
  skeleton "$dir/$task-f32.jsonl" >"$dir/got" && skeleton "$want" >"$dir/want"
  cmp -s "$dir/got" "$dir/want" || fail "$task: labels or tokens differ from transformers: $(diff "$dir/got" "$dir/want" | head -3)"
  d=$(maxdiff "$dir/$task-f32.jsonl" "$want")
  awk -v d="$d" 'BEGIN {exit !(d < 1e-5)}' || fail "$task float32 differs from transformers by $d"
}
check_task classify "$fixture/classify.txt" "$fixture/classify.jsonl"
check_task fill-mask "$fixture/fill_mask.txt" "$fixture/fill_mask.jsonl" --top-k 5

# int8: the same best label of every line, the same top-1 token of every mask.
cut -d, -f1 "$dir/classify-i8.jsonl" >"$dir/got" && cut -d, -f1 "$fixture/classify.jsonl" >"$dir/want"
cmp -s "$dir/got" "$dir/want" || fail "int8 changes a top label: $(diff "$dir/got" "$dir/want" | head -3)"
top1() { sed 's/\[\[*{"score":[^,]*,"token":\([0-9]*\)[^]]*\]/\1 /g; s/{"score":[^,]*,"token":\([0-9]*\)[^]]*\]/\1 /g' "$1"; }
top1 "$dir/fill-mask-i8.jsonl" >"$dir/got" && top1 "$fixture/fill_mask.jsonl" >"$dir/want"
cmp -s "$dir/got" "$dir/want" || fail "int8 changes a top-1 token: $(diff "$dir/got" "$dir/want" | head -3)"

# The C API gives the command line's best label and top-1 tokens.
$emu "$cprog" classify "$dir/classifier-f32.heed" <"$fixture/classify.txt" >"$dir/c-classify" 2>"$dir/err" ||
  fail "heads_c classify: $(cat "$dir/err")"
sed 's/^{"label":"\([^"]*\)","score":\([^,]*\),.*/\1 \2/' "$dir/classify-f32.jsonl" >"$dir/want"
d=$(maxdiff "$dir/c-classify" "$dir/want")
[ "$(cut -d' ' -f1 "$dir/c-classify")" = "$(cut -d' ' -f1 "$dir/want")" ] && awk -v d="$d" 'BEGIN {exit !(d < 1e-6)}' ||
  fail "the C API's labels differ from heed classify's"
$emu "$cprog" fill-mask "$dir/mlm-f32.heed" <"$fixture/fill_mask.txt" >"$dir/c-fill" 2>"$dir/err" ||
  fail "heads_c fill-mask: $(cat "$dir/err")"
grep -o '\[{"score":[^,]*,"token":[0-9]*' "$dir/fill-mask-f32.jsonl" | sed 's/.*"score":\(.*\),"token":\(.*\)/\2 \1/' >"$dir/want"
d=$(maxdiff "$dir/c-fill" "$dir/want")
[ "$(cut -d' ' -f1 "$dir/c-fill")" = "$(cut -d' ' -f1 "$dir/want")" ] && awk -v d="$d" 'BEGIN {exit !(d < 1e-6)}' ||
  fail "the C API's top-1 tokens differ from heed fill-mask's"

# inspect names the head and the labels.
$emu "$heed" inspect "$dir/classifier-i8.heed" >"$dir/inspect" 2>&1 || fail "inspect: $(head -1 "$dir/inspect")"
grep -q 'head *SequenceClassification' "$dir/inspect" || fail "inspect does not show the classification head"
grep -q 'label.2 *positive' "$dir/inspect" || fail "inspect does not list the labels"
$emu "$heed" inspect "$dir/mlm-f32.heed" | grep -q 'head *MaskedLM' || fail "inspect does not show the masked-LM head"

# The records are JSON a strict parser reads, whatever the labels and tokens hold: a classifier
# whose labels and a masked LM whose vocabulary hold quotes, a backslash, control characters, a C1
# control, non-ASCII and an emoji; every label and every token (--top-k the whole vocabulary) read
# back exactly, and no raw control byte in the output.
if command -v python3 >/dev/null 2>&1; then
  rm -rf "$dir/hostile" && mkdir -p "$dir/hostile" && cp -r "$fixture/classifier" "$fixture/mlm" "$dir/hostile/"
  python3 - "$dir/hostile" <<'EOF' || fail "could not write the hostile fixtures"
import json, sys
folder = sys.argv[1]
labels = ['say "no" \\', 'tab\tesc\x1b[2J del\x7f nel\x85', 'caf\u00e9 \U0001F600']
config = json.load(open(folder + "/classifier/config.json"))
config["id2label"] = {str(i): l for i, l in enumerate(labels)}
config["label2id"] = {l: i for i, l in enumerate(labels)}
json.dump(config, open(folder + "/classifier/config.json", "w"))
vocab = open(folder + "/mlm/vocab.txt", encoding="utf-8").read().split("\n")
vocab[-4:-1] = ['say"no"\\', 'esc\x1b[2Jdel\x7fnel\x85', '\U0001F600\u00e9']
open(folder + "/mlm/vocab.txt", "w", encoding="utf-8").write("\n".join(vocab))
EOF
  for m in classifier mlm; do
    $emu "$heed" convert --from hf-bert "$dir/hostile/$m" -o "$dir/hostile/$m.heed" -q float32 --quiet 2>"$dir/err" ||
      fail "convert hostile $m: $(cat "$dir/err")"
  done
  $emu "$heed" classify -m "$dir/hostile/classifier.heed" <"$fixture/classify.txt" >"$dir/hostile/classify.jsonl" 2>"$dir/err" ||
    fail "classify with hostile labels: $(cat "$dir/err")"
  printf '[MASK]\nParis [MASK] [MASK].\n' |
    $emu "$heed" fill-mask -m "$dir/hostile/mlm.heed" --top-k "$(wc -l <"$dir/hostile/mlm/vocab.txt")" \
    >"$dir/hostile/fill_mask.jsonl" 2>"$dir/err" || fail "fill-mask with hostile tokens: $(cat "$dir/err")"
  python3 - "$dir/hostile" <<'EOF' || fail "hostile labels or tokens do not read back from the JSON records"
import json, re, sys
folder = sys.argv[1]
labels = json.load(open(folder + "/classifier/config.json"))["id2label"]
vocab = open(folder + "/mlm/vocab.txt", encoding="utf-8").read().split("\n")[:-1]  # ends with a newline
for name in ("classify.jsonl", "fill_mask.jsonl"):
    raw = open(folder + "/" + name, "rb").read()
    assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", raw), name + ": a raw control byte"
lines = open(folder + "/classify.jsonl", encoding="utf-8").read().rstrip("\n").split("\n")
assert len(lines) > 0
for line in lines:
    record = json.loads(line)
    assert record["label"] == record["scores"][0]["label"]
    assert sorted(s["label"] for s in record["scores"]) == sorted(labels.values()), record
    assert all(isinstance(s["score"], (int, float)) for s in record["scores"])
masks = [json.loads(line) for line in open(folder + "/fill_mask.jsonl", encoding="utf-8").read().rstrip("\n").split("\n")]
assert len(masks) == 2 and len(masks[1]) == 2
for candidates in [masks[0]] + masks[1]:
    assert len(candidates) == len(vocab)
    for c in candidates:
        assert c["token_str"] == vocab[c["token"]], (c, vocab[c["token"]])
print("hostile labels and tokens read back")
EOF
  # Scores that are not numbers are refused, not written as nan: a classifier whose weights are
  # +-3e38 has infinite logits, so NaN probabilities; each line is {} with its reason on stderr.
  cp -r "$fixture/classifier" "$dir/hostile/nan-classifier"
  python3 - "$dir/hostile/nan-classifier/model.safetensors" <<'EOF' || fail "could not write the NaN classifier"
import json, struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
size = struct.unpack("<Q", data[:8])[0]
begin, end = json.loads(data[8:8 + size])["classifier.weight"]["data_offsets"]
begin, end = begin + 8 + size, end + 8 + size
values = struct.unpack("<%df" % ((end - begin) // 4), data[begin:end])
data[begin:end] = struct.pack("<%df" % len(values), *[3e38 if v >= 0 else -3e38 for v in values])
open(sys.argv[1], "wb").write(data)
EOF
  $emu "$heed" convert --from hf-bert "$dir/hostile/nan-classifier" -o "$dir/hostile/nan.heed" -q float32 --quiet 2>"$dir/err" ||
    fail "convert the NaN classifier: $(cat "$dir/err")"
  printf 'Paris is nice.\nok\n' | $emu "$heed" classify -m "$dir/hostile/nan.heed" >"$dir/out" 2>"$dir/err"
  rc=$?
  [ $rc -eq 1 ] && [ "$(cat "$dir/out")" = "$(printf '{}\n{}')" ] && [ "$(wc -l <"$dir/err")" -eq 2 ] &&
    grep -q '^heed classify: line 2: the number at /[a-z0-9/]* is NaN or infinite, which JSON cannot hold: written as an empty record$' \
      "$dir/err" || fail "NaN scores: exit $rc, $(head -c 200 "$dir/out"), $(cat "$dir/err")"
fi

# Errors: one line on stderr, exit 1; usage errors exit 2 (their message, then where help is).
expect() {  # CODE WHAT COMMAND...
  code=$1 what=$2
  shift 2
  echo "Paris is nice." | $emu "$@" >"$dir/out" 2>"$dir/err"
  rc=$?
  [ $rc -eq "$code" ] || fail "$what: exit $rc, expected $code"
  [ "$code" -eq 2 ] || [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$what: $(wc -l <"$dir/err") lines on stderr: $(cat "$dir/err")"
}
expect 1 "classify on an embedding model" "$heed" classify -m "$dir/model-f32.heed"
grep -q "no sequence classification head" "$dir/err" || fail "classify on an embedding model: $(cat "$dir/err")"
expect 1 "fill-mask on a classifier" "$heed" fill-mask -m "$dir/classifier-f32.heed"
expect 1 "a line without [MASK]" "$heed" fill-mask -m "$dir/mlm-f32.heed"
[ "$(cat "$dir/out")" = "[]" ] || fail "a line without [MASK] is not answered with []"
expect 2 "--top-k 0" "$heed" fill-mask -m "$dir/mlm-f32.heed" --top-k 0
expect 2 "--top-k above the vocabulary" "$heed" fill-mask -m "$dir/mlm-f32.heed" --top-k 100000
head -c 3000 "$dir/classifier-f32.heed" >"$dir/truncated.heed"
expect 1 "a truncated model" "$heed" classify -m "$dir/truncated.heed"
for task in classify fill-mask; do
  $emu "$heed" "$task" --help >"$dir/help" 2>&1 || fail "$task --help"
  grep -q "transformers" "$dir/help" || fail "$task --help does not explain the output"
done

[ $failures -eq 0 ] && echo "heads CLI: all checks passed"
exit $failures
