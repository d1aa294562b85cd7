#!/bin/sh
# Host test of the Android JNI sample: compiles org.heed.Translator and TranslatorTest with javac,
# converts the tiny Marian fixture, translates text with the C API program (heed_paragraph_c) and
# checks that the Java class, through libheed_jni.so, gives the same translations.
# Then org.heed.Generator (GeneratorTest, beside TEST_JAVA) on stories260K from SHARED_DIR against
# `heed generate`, and Translator's n-best list against `heed translate --n-best`.
# usage: jni_test.sh JAVAC JAVA JAVA_SOURCES TEST_JAVA JNI_LIB_DIR HEED C_PROGRAM FIXTURE TEXT_TESTS WORK_DIR SHARED_DIR [PRELOAD]
set -u
javac=$1 java=$2 sources=$3 test_java=$4 libdir=$5 heed=$6 program=$7 fixture=$8 texts=$9
shift 9
dir=$1 shared=$2 preload=${3:-}
rm -rf "$dir" && mkdir -p "$dir/classes" || exit 1

"$javac" -encoding UTF-8 -d "$dir/classes" "$sources/org/heed/Translator.java" "$sources/org/heed/Generator.java" \
  "$sources/org/heed/HeedException.java" "$test_java" "$(dirname "$test_java")/GeneratorTest.java" >"$dir/javac.log" 2>&1 ||
  { echo "FAIL: javac: $(cat "$dir/javac.log")"; exit 1; }
model=$dir/tiny-en-de.heed
"$heed" convert --from hf-marian "$fixture" -o "$model" >"$dir/convert.log" 2>&1 ||
  { echo "FAIL: cannot convert $fixture: $(cat "$dir/convert.log")"; exit 1; }

# The text: the paragraphs of tests/runtime/text plus characters outside the BMP (surrogate pairs in Java).
{ cat "$texts/paragraphs.txt"; printf 'Smile \360\237\230\200 please. Ok \360\235\204\236 then!\n'; } >"$dir/text.txt"
cut -f2 "$texts/paragraph_sentences.tsv" >"$dir/lines.txt"
"$program" "$model" "$dir/text.txt" 20 8 text >"$dir/expected_text.txt" 2>"$dir/err" ||
  { echo "FAIL: C API text: $(cat "$dir/err")"; exit 1; }
"$program" "$model" "$dir/lines.txt" 20 8 lines >"$dir/expected_lines.txt" 2>"$dir/err" ||
  { echo "FAIL: C API lines: $(cat "$dir/err")"; exit 1; }

if [ -n "$preload" ]; then
  # The JVM handles SIGSEGV itself and keeps memory until exit: let it, under AddressSanitizer.
  export LD_PRELOAD="$preload"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:allow_user_segv_handler=1:detect_leaks=0"
fi
"$java" -Xcheck:jni -Djava.library.path="$libdir" -cp "$dir/classes" TranslatorTest "$model" "$dir/text.txt" \
  "$dir/expected_text.txt" "$dir/lines.txt" "$dir/expected_lines.txt" || exit 1

stories=$shared/models/llama2c/stories260k/stories260K.bin
[ -f "$stories" ] || { echo "FAIL: missing $stories (the shared models folder)"; exit 1; }
"$heed" convert "$stories" -o "$dir/stories.heed" -q float32 --quiet 2>"$dir/err" || { echo "FAIL: convert: $(cat "$dir/err")"; exit 1; }
expected=$("$heed" generate -m "$dir/stories.heed" --prompt "Once upon a time" --max-len 10)
sentence="Today, the parliament dismissed the motion."
echo "$sentence" | "$heed" translate -m "$model" --beam 4 --n-best 3 --no-split >"$dir/nbest.txt" 2>"$dir/err" ||
  { echo "FAIL: n-best: $(cat "$dir/err")"; exit 1; }
"$java" -Xcheck:jni -Djava.library.path="$libdir" -cp "$dir/classes" GeneratorTest "$dir/stories.heed" "Once upon a time" \
  "$expected" "$model" "$sentence" "$dir/nbest.txt"
