// UTF-8 validation, once for the whole project (the tokenizers, the sentence splitter, the command
// line's escaping and heed serve's request bodies): UTF-8 as RFC 3629 defines it (no overlong forms,
// no surrogates, nothing past U+10FFFF, no truncated sequences), decided by utf8proc. Nothing here
// allocates.
#pragma once

#include <cstddef>
#include <string_view>

namespace heed::text {

// The length (1 to 4 bytes) of the valid UTF-8 sequence that starts at text[at], and its code point
// in *code_point when given; 0 when the bytes there are not one (at past the end included).
size_t utf8_sequence_length(std::string_view text, size_t at, char32_t* code_point = nullptr);

// The byte offset of the first byte of `text` that does not start a valid sequence, or npos.
size_t invalid_utf8_at(std::string_view text);

inline bool is_valid_utf8(std::string_view text) { return invalid_utf8_at(text) == std::string_view::npos; }

}  // namespace heed::text
