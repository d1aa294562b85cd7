#include "text_escape.h"

#include <cstdint>
#include <cstdio>

namespace heed::cli {

namespace {

void append_byte_escape(unsigned char c, std::string* out) {
  char esc[8];
  std::snprintf(esc, sizeof esc, "\\x%02X", c);
  *out += esc;
}

}  // namespace

size_t printable_utf8_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (byte(i + k) & 0x3F);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp <= 0x9F) return 0;
  return n;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (const size_t n = printable_utf8_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  return out + "\"";
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
