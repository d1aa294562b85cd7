#!/bin/sh
# `heed convert` on an Argos Translate package end to end: detected without --from, then plain text
# through `heed translate` (the package's SentencePiece model is in the file: CTranslate2's greedy
# output text from tests/fixtures/argos/reference.json); broken packages exit 1 with one line,
# write no output file and leave no temporary folder (TMPDIR points at a folder that must stay empty).
# usage: argos_cli_test.sh "EMULATOR" HEED SOURCE_DIR FOLDER   (EMULATOR may be empty)
set -u
emu=$1 heed=$2 src=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir/tmp" || exit 1
package=$src/tests/fixtures/argos/tiny-en-de.argosmodel
TMPDIR=$dir/tmp
export TMPDIR

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
tmp_empty() { [ -z "$(ls -A "$dir/tmp")" ] || fail "$1: left in TMPDIR: $(ls -A "$dir/tmp")"; }

$emu "$heed" convert "$package" -o "$dir/argos.heed" >"$dir/out" 2>"$dir/err" || fail "convert: $(cat "$dir/err")"
grep -q "from argos " "$dir/out" || fail "not detected as an Argos package: $(cat "$dir/out")"
tmp_empty "convert"
$emu "$heed" convert "$package" -o "$dir/f32.heed" --quantize float32 --quiet 2>"$dir/err" || fail "float32: $(cat "$dir/err")"
# CTranslate2's greedy output for "The weather is nice today." (12 steps at most), as text.
got=$(echo "The weather is nice today." | $emu "$heed" translate -m "$dir/f32.heed" --beam 1 --max-len 12 2>"$dir/err")
[ "$got" = "qCananan daCan da1Can" ] || fail "translate: got '$got' ($(cat "$dir/err"))"
echo "Hello world." | $emu "$heed" translate -m "$dir/argos.heed" >"$dir/text" 2>"$dir/err" || fail "int8 translate: $(cat "$dir/err")"
[ -s "$dir/text" ] || fail "int8 translate printed nothing"
$emu "$heed" inspect "$dir/argos.heed" | grep -q "source_language *en" || fail "inspect: no source_language en"

# The package's CTranslate2 folder with its SentencePiece model beside it as source.spm and
# target.spm (CTranslate2's OPUS-MT layout): `--from ct2` embeds them and translates the same text;
# --source-spm/--target-spm do the same from anywhere; one .spm without the other is refused.
python3 -m zipfile -e "$package" "$dir/unzipped" || fail "unzip"
ct2=$dir/unzipped/translate-en_de-1_0/model
spm=$dir/unzipped/translate-en_de-1_0/sentencepiece.model
$emu "$heed" convert --from ct2 "$ct2" -o "$dir/plain.heed" --quantize float32 --quiet 2>"$dir/err" || fail "ct2: $(cat "$dir/err")"
$emu "$heed" convert "$ct2" -o "$dir/flags.heed" --quantize float32 --source-spm "$spm" --target-spm "$spm" --quiet \
  2>"$dir/err" || fail "ct2 --source-spm: $(cat "$dir/err")"
cp "$spm" "$ct2/source.spm" && cp "$spm" "$ct2/target.spm"
$emu "$heed" convert "$ct2" -o "$dir/spm.heed" --quantize float32 --quiet 2>"$dir/err" || fail "ct2 + spm: $(cat "$dir/err")"
for m in spm flags; do
  got=$(echo "The weather is nice today." | $emu "$heed" translate -m "$dir/$m.heed" --beam 1 --max-len 12 2>"$dir/err")
  [ "$got" = "qCananan daCan da1Can" ] || fail "ct2 folder ($m): got '$got' ($(cat "$dir/err"))"
done
$emu "$heed" inspect "$dir/plain.heed" | grep -q "SentencePiece" && fail "ct2 without .spm files: SentencePiece inside"
$emu "$heed" inspect "$dir/spm.heed" | grep -q "SentencePiece" || fail "ct2 + spm: no SentencePiece inside"
rm "$ct2/target.spm"
$emu "$heed" convert "$ct2" -o "$dir/half.heed" --quiet 2>"$dir/err" && fail "source.spm alone was accepted"
grep -q "target.spm is not" "$dir/err" || fail "source.spm alone: message: $(cat "$dir/err")"
$emu "$heed" convert "$ct2" -o "$dir/half.heed" --source-spm "$spm" --quiet 2>"$dir/err"
[ $? -eq 2 ] || fail "--source-spm alone: not a usage error: $(cat "$dir/err")"
rm "$ct2/source.spm"
head -c 300 "$spm" >"$dir/cut.spm"
$emu "$heed" convert "$ct2" -o "$dir/half.heed" --source-spm "$dir/cut.spm" --target-spm "$spm" --quiet 2>"$dir/err"
[ $? -eq 1 ] && grep -q "cut.spm" "$dir/err" || fail "truncated --source-spm: $(cat "$dir/err")"

# Broken packages: exit 1, one line, no output, nothing left in TMPDIR.
printf 'not a zip\n' >"$dir/text.argosmodel"
head -c 20000 "$package" >"$dir/cut.argosmodel"
for bad in text cut; do
  $emu "$heed" convert "$dir/$bad.argosmodel" -o "$dir/$bad.heed" >"$dir/out" 2>"$dir/err"
  code=$?
  [ $code -eq 1 ] || fail "$bad: exit $code"
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$bad: stderr is not one line: $(cat "$dir/err")"
  grep -q "^heed convert: .*$bad.argosmodel" "$dir/err" || fail "$bad: message: $(cat "$dir/err")"
  [ -e "$dir/$bad.heed" ] && fail "$bad: an output file was written"
  tmp_empty "$bad"
done

[ $failures -eq 0 ] && echo "argos_cli_test: all passed"
exit $((failures > 0))
