#!/bin/sh
# `heed inspect` on the valid sample model exits 0 and prints its tensors; on every crafted corrupt
# file it exits 1 with exactly one line on stderr, "heed inspect: FILE: message".
# usage: inspect_cli_test.sh "EMULATOR" MAKE_CORRUPT_HEED HEED FOLDER   (EMULATOR may be empty)
set -u
emu=$1 maker=$2 heed=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
$emu "$maker" "$dir" || { echo "make_corrupt_heed failed"; exit 1; }

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

$emu "$heed" inspect "$dir/valid.heed" >"$dir/out" 2>"$dir/err"
code=$?
[ $code -eq 0 ] || fail "valid.heed: exit $code, stderr: $(cat "$dir/err")"
[ -s "$dir/err" ] && fail "valid.heed: unexpected stderr: $(cat "$dir/err")"
grep -q "decoder.layers.0.ffn.out.weight" "$dir/out" || fail "valid.heed: tensor table missing from output"
grep -q "TransformerEncoderDecoder" "$dir/out" || fail "valid.heed: family missing from output"

$emu "$heed" inspect --json "$dir/valid.heed" >"$dir/json" 2>"$dir/err"
[ $? -eq 0 ] || fail "--json valid.heed: exit code, stderr: $(cat "$dir/err")"
grep -q '^    {"name":"decoder.layers.0.ffn.out.weight","dtype":"I8","quantization":"PerGroup","group_size":5,' "$dir/json" ||
  fail "--json: tensor entry missing (one line per tensor)"
# JSON a strict parser reads, when a Python is at hand: the valid file's report, and the hostile
# names' (control bytes, a lone C1 byte, a C1 control, a backslash, non-ASCII) read back as the
# file holds them (bytes that are not UTF-8 as U+FFFD), with no raw control byte in the output.
if command -v python3 >/dev/null 2>&1; then
  $emu "$heed" inspect --json "$dir/hostile_names.heed" >"$dir/hostile.json" 2>"$dir/err" ||
    fail "--json hostile_names.heed: $(cat "$dir/err")"
  python3 - "$dir/json" "$dir/hostile.json" <<'EOF' || fail "--json output does not read back as JSON"
import json, re, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
assert report["family"]["type"] == "TransformerEncoderDecoder"
assert any(t["name"] == "decoder.layers.0.ffn.out.weight" and t["shape"] for t in report["tensors"])
assert report["totals"]["tensors"] == len(report["tensors"])
raw = open(sys.argv[2], "rb").read()
assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", raw), "a raw control byte"
hostile = json.loads(raw.decode("utf-8"))
assert hostile["producer"]["source_name"] == "evil\x1b[2J\rname\n", hostile["producer"]
assert hostile["metadata"]["note\x1b]0;title\x07"] == "fake\nline \ufffd31m \x9b \\ caf\u00e9", hostile["metadata"]
EOF
fi

# Control bytes from the file never reach the terminal raw in the text report: the only control
# byte left is the newline ending each line, and each hostile string shows escaped.
$emu "$heed" inspect "$dir/hostile_names.heed" >"$dir/out" 2>"$dir/err"
[ $? -eq 0 ] || fail "hostile_names.heed: exit code, stderr: $(cat "$dir/err")"
LC_ALL=C tr -d '\n' <"$dir/out" | LC_ALL=C grep -q '[[:cntrl:]]' && fail "hostile_names.heed: raw control bytes in the report"
LC_ALL=C grep -q "$(printf '\233')" "$dir/out" && fail "hostile_names.heed: a raw C1 control (alone or UTF-8) in the report"
for want in 'source_name              evil\x1B[2J\x0Dname\x0A' 'note\x1B]0;title\x07' \
            'fake\x0Aline \x9B31m \xC2\x9B \x5C café' 'zz.\x1B[31mred\x7F '; do
  grep -qF "$want" "$dir/out" || fail "hostile_names.heed: '$want' missing from the report"
done
[ "$(grep -c 'fake' "$dir/out")" -eq 1 ] || fail "hostile_names.heed: the metadata value spans several lines"

count=0
for f in "$dir"/corrupt_*.heed; do
  count=$((count + 1))
  $emu "$heed" inspect "$f" >"$dir/out" 2>"$dir/err"
  code=$?
  lines=$(wc -l <"$dir/err")
  [ $code -eq 1 ] || fail "$f: exit $code (want 1)"
  [ "$lines" -eq 1 ] || fail "$f: $lines lines on stderr (want 1): $(cat "$dir/err")"
  grep -q "^heed inspect: $f: " "$dir/err" || fail "$f: stderr does not start with 'heed inspect: FILE: ': $(cat "$dir/err")"
  [ -s "$dir/out" ] && fail "$f: printed to stdout on error"
done
[ $count -gt 30 ] || fail "only $count corrupt files were made"

$emu "$heed" inspect "$dir/does-not-exist.heed" >/dev/null 2>"$dir/err"
[ $? -eq 1 ] || fail "missing file: exit code"
[ "$(wc -l <"$dir/err")" -eq 1 ] || fail "missing file: stderr not one line"
$emu "$heed" inspect >/dev/null 2>&1
[ $? -eq 2 ] || fail "no FILE: want usage exit 2"
$emu "$heed" inspect --bogus "$dir/valid.heed" >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option: want usage exit 2"
$emu "$heed" inspect --help >"$dir/out" 2>&1
[ $? -eq 0 ] || fail "--help: want exit 0"

echo "checked valid.heed and $count corrupt files: $failures failures"
[ $failures -eq 0 ]
