#include "heed/utf8.h"

#include <utf8proc.h>

namespace heed::text {

size_t utf8_sequence_length(std::string_view text, size_t at, char32_t* code_point) {
  if (at >= text.size()) return 0;
  utf8proc_int32_t cp = -1;
  const utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + at),
                                               static_cast<utf8proc_ssize_t>(text.size() - at), &cp);
  if (n <= 0 || cp < 0) return 0;
  if (code_point != nullptr) *code_point = static_cast<char32_t>(cp);
  return static_cast<size_t>(n);
}

size_t invalid_utf8_at(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII, most text: no call
      ++i;
      continue;
    }
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

}  // namespace heed::text
