// Text from a model file or a model's output, made safe for where the command line writes it:
// a crafted vocabulary or file cannot move the cursor, recolour or clear the terminal, fake extra
// report lines, or split one output line into two. (JSON: json_output.h.)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace heed::cli {

// The text report's form: control bytes (C0, DEL, C1), bytes that are not UTF-8 and the backslash
// itself become \xNN.
std::string text_escaped(std::string_view s);

// A vocabulary token as heed lists tokens (`inspect --vocab`, `tokenize`): text_escaped, and the
// space as \x20 too, so tokens joined by spaces or one per line read back unambiguously (pieces
// such as llama2.c's " the" begin with one) and a piece `tokenize` prints is a line of the list.
std::string token_escaped(std::string_view s);

// One output line's text: C0 controls but tab, and DEL, become \xNN (a newline inside a
// translation would break the one-output-line-per-input-line rule, ESC would reach the terminal);
// everything else, backslashes included, is kept.
std::string line_safe(std::string_view s);

// Length of the valid UTF-8 sequence at s[i] (text/utf8.h) of a code point past U+009F (neither
// ASCII nor a C1 control); 0 if none.
size_t printable_utf8_length(std::string_view s, size_t i);

}  // namespace heed::cli
