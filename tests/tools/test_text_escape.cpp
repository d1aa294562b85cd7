// The command line's escaping of text that comes from model files and model outputs (JSON:
// test_json_output.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "text_escape.h"

using heed::cli::line_safe;
using heed::cli::text_escaped;
using heed::cli::token_escaped;

TEST_CASE("line_safe keeps one output line whatever a token holds", "[cli]") {
  CHECK(line_safe("a t z m o n") == "a t z m o n");
  CHECK(line_safe("tab\tkept, back\\slash kept, ünïcode kept") == "tab\tkept, back\\slash kept, ünïcode kept");
  CHECK(line_safe(std::string("a\nb\rc\x1b[2Jd\x7f", 11)) == "a\\x0Ab\\x0Dc\\x1B[2Jd\\x7F");
  CHECK(line_safe(std::string("nul\0end", 7)) == "nul\\x00end");
  CHECK(line_safe("two\nlines").find('\n') == std::string::npos);
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
