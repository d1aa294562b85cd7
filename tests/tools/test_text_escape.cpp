// The command line's escaping of text that comes from model files and model outputs.
#include <catch2/catch.hpp>

#include <string>

#include "text_escape.h"

using heed::cli::json_string;
using heed::cli::line_safe;
using heed::cli::text_escaped;
using heed::cli::token_escaped;

namespace {

// True when s is well-formed UTF-8 (RFC 3629: no overlongs, surrogates or code points past U+10FFFF).
bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3F);
    }
    const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

}  // namespace

TEST_CASE("line_safe keeps one output line whatever a token holds", "[cli]") {
  CHECK(line_safe("a t z m o n") == "a t z m o n");
  CHECK(line_safe("tab\tkept, back\\slash kept, ünïcode kept") == "tab\tkept, back\\slash kept, ünïcode kept");
  CHECK(line_safe(std::string("a\nb\rc\x1b[2Jd\x7f", 11)) == "a\\x0Ab\\x0Dc\\x1B[2Jd\\x7F");
  CHECK(line_safe(std::string("nul\0end", 7)) == "nul\\x00end");
  CHECK(line_safe("two\nlines").find('\n') == std::string::npos);
}

TEST_CASE("json_string is valid UTF-8 JSON for any bytes", "[cli]") {
  CHECK(json_string("plain") == "\"plain\"");
  CHECK(json_string("q\"b\\") == "\"q\\\"b\\\\\"");
  CHECK(json_string("\n") == "\"\\u000a\"");
  CHECK(json_string("é") == "\"é\"");
  CHECK(json_string("\xff") == "\"\\ufffd\"");
  CHECK(json_string("\xc3") == "\"\\ufffd\"");          // a truncated sequence
  CHECK(json_string("\xe0\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\"");  // overlong
  // Every single byte and every pair of bytes comes out as valid UTF-8.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string s{static_cast<char>(a), static_cast<char>(b)};
      REQUIRE(valid_utf8(json_string(s)));
    }
  }
}

TEST_CASE("text_escaped shows control bytes and broken UTF-8 as \\xNN", "[cli]") {
  CHECK(text_escaped("ok é") == "ok é");
  CHECK(text_escaped("\x1b[31mred") == "\\x1B[31mred");
  CHECK(text_escaped("a\\b") == "a\\x5Cb");
  CHECK(text_escaped("\xc2\x85") == "\\xC2\\x85");  // C1 control NEL
  CHECK(text_escaped("\xff") == "\\xFF");
}

TEST_CASE("token_escaped keeps a token one space-free word", "[cli]") {
  CHECK(token_escaped("\xE2\x96\x81Hello") == "\xE2\x96\x81Hello");  // SentencePiece's mark is kept
  CHECK(token_escaped(" the") == "\\x20the");
  CHECK(token_escaped("a b  c ") == "a\\x20b\\x20\\x20c\\x20");
  CHECK(token_escaped("") == "");
  CHECK(token_escaped("\n\\ \xff") == "\\x0A\\x5C\\x20\\xFF");
  // Every token of one or two bytes comes out without a space, a control byte or a line break.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string escaped = token_escaped(std::string{static_cast<char>(a), static_cast<char>(b)});
      for (const char c : escaped) REQUIRE(static_cast<unsigned char>(c) > 0x20);
      REQUIRE(escaped.find('\x7f') == std::string::npos);
    }
  }
}
