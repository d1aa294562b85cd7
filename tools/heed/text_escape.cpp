#include "text_escape.h"

#include <cstdio>

#include "heed/utf8.h"

namespace heed::cli {

namespace {

void append_byte_escape(unsigned char c, std::string* out) {
  char esc[8];
  std::snprintf(esc, sizeof esc, "\\x%02X", c);
  *out += esc;
}

}  // namespace

size_t printable_utf8_length(std::string_view s, size_t i) {
  char32_t cp = 0;
  const size_t n = text::utf8_sequence_length(s, i, &cp);
  return n > 0 && cp > 0x9F ? n : 0;
}

std::string text_escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
      ++i;
    } else if (const size_t n = c >= 0x80 ? printable_utf8_length(s, i) : 0; n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      append_byte_escape(c, &out);
      ++i;
    }
  }
  return out;
}

std::string token_escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t start = 0;
  for (size_t space = s.find(' '); space != std::string_view::npos; space = s.find(' ', start)) {
    out += text_escaped(s.substr(start, space - start));
    append_byte_escape(' ', &out);
    start = space + 1;
  }
  return out + text_escaped(s.substr(start));
}

std::string line_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7F) {
      append_byte_escape(c, &out);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace heed::cli
