#!/usr/bin/env bash
# heed from a fresh clone in one command: installs the build dependencies (Debian packages),
# builds the `heed` tool, converts the small demo translation model that ships with heed
# (demo/numbers-en-de: English number words -> German number words) to an int8 .heed file, and
# translates a few examples with it.
#
#   scripts/demo.sh              everything
#   scripts/demo.sh --no-deps    skip scripts/install-deps.sh (dependencies already installed)
#
# Environment: HEED_BUILD_PRESET (default host) picks the CMake preset to build with;
# HEED_BUILD_DIR (default build/<preset>) the folder it builds in.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
preset=${HEED_BUILD_PRESET:-host}
build_dir=${HEED_BUILD_DIR:-$root/build/$preset}
model_name=numbers-en-de
model_dir="$root/demo/$model_name"
out_dir="$root/build/demo"
heed_file="$out_dir/$model_name.heed"

install_deps=1
for a in "$@"; do
  case "$a" in
    --no-deps) install_deps=0 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "demo: unknown option '$a' (see --help)" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*"; }
fail() { echo "demo: $*" >&2; exit 1; }

[ -f "$model_dir/model.bin" ] || fail "the demo model is missing: $model_dir/model.bin"

if [ "$install_deps" -eq 1 ]; then
  step "Installing build dependencies (Debian packages)"
  "$root/scripts/install-deps.sh"
fi

step "Building heed (CMake preset '$preset' in ${build_dir#"$root"/})"
cd "$root"
cmake --preset "$preset" -B "$build_dir" >/dev/null
cmake --build "$build_dir" --target heed
heed="$build_dir/tools/heed"
[ -x "$heed" ] || fail "the build did not produce $heed"

step "Converting $model_name (CTranslate2 format) to int8: ${heed_file#"$root"/}"
mkdir -p "$out_dir"
"$heed" convert --from ct2 "$model_dir" -o "$heed_file" --quantize int8

step "What the file holds (heed inspect, in short)"
# The full listing names every tensor; here only the family, the sizes and the totals.
"$heed" inspect "$heed_file" > "$out_dir/$model_name.inspect.txt"
grep -E '^(family|encoder|decoder|tokenizer|totals)$|^  (type|num_layers|d_model|num_heads|ffn_dim|activation|pre_norm|position_encoding|kind|source_vocabulary_size|target_vocabulary_size|parameters|file_bytes) ' \
  "$out_dir/$model_name.inspect.txt" || true
echo "    ... full listing in ${out_dir#"$root"/}/$model_name.inspect.txt"

step "Translating English number words to German (one sentence per line, space-separated tokens)"
examples=(
  "three hundred forty two"
  "twenty one"
  "one thousand one"
  "seventeen thousand four hundred ninety five"
  "nine hundred ninety nine thousand nine hundred ninety nine"
  "one hundred one thousand one hundred one"
)
# Greedy decoding (--beam 1): the model was trained and measured for it
# (demo/numbers-en-de/README.md says why beam search is not exact with it).
translations=$(printf '%s\n' "${examples[@]}" | "$heed" translate -m "$heed_file" --tokens --beam 1)
mapfile -t outputs <<< "$translations"
[ "${#outputs[@]}" -eq "${#examples[@]}" ] ||
  fail "heed translate returned ${#outputs[@]} lines for ${#examples[@]} inputs"
for i in "${!examples[@]}"; do
  # German writes a number as one word: the model's parts joined give the spelling.
  printf '  %-60s -> %s  (%s)\n' "${examples[$i]}" "${outputs[$i]}" "${outputs[$i]// /}"
done

step "Your turn"
cat <<EOF
  Any number from zero to nine hundred ninety nine thousand nine hundred ninety nine, written in
  English words separated by spaces (no "and", no hyphens), one per line:

    echo "two thousand twenty four" | ${heed#"$root"/} translate -m ${heed_file#"$root"/} --tokens --beam 1

  What the model is and how it was trained: demo/$model_name/README.md
EOF
