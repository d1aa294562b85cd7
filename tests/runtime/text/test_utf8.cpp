// The one UTF-8 validator (runtime/src/text/utf8.h, on utf8proc): the cases RFC 3629 excludes,
// the same answers as the hand-written validators it replaced for every short byte string, and
// no allocation.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

#include "allocation_counter.h"
#include "heed/utf8.h"

using heed::text::invalid_utf8_at;
using heed::text::is_valid_utf8;
using heed::text::utf8_sequence_length;

namespace {

constexpr size_t npos = std::string_view::npos;

// The validator heed serve had (tools/heed/serve/http_json.cpp before utf8proc), kept as the
// reference: lead byte, continuation bytes, then overlongs, surrogates and past U+10FFFF refused.
bool reference_valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && c < 0xc2)) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += n;
  }
  return true;
}

}  // namespace

TEST_CASE("valid UTF-8 is accepted with its code points", "[utf8]") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain ASCII \t\n\x7f"));
  CHECK(is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é, €, 😀
  CHECK(is_valid_utf8("\xef\xbf\xbe"));                                 // U+FFFE: a noncharacter, still UTF-8
  CHECK(is_valid_utf8("\xf4\x8f\xbf\xbf"));                             // U+10FFFF, the last code point
  char32_t cp = 0;
  CHECK(utf8_sequence_length("a\xf0\x9f\x98\x80", 1, &cp) == 4);
  CHECK(cp == 0x1F600);
  CHECK(utf8_sequence_length("\xc3\xa9", 0, &cp) == 2);
  CHECK(cp == 0xE9);
  CHECK(utf8_sequence_length("a", 0, &cp) == 1);
  CHECK(cp == 'a');
  CHECK(utf8_sequence_length("a", 1) == 0);  // past the end
}

TEST_CASE("overlongs, surrogates, truncated sequences and code points past U+10FFFF are refused at their byte",
          "[utf8]") {
  CHECK(invalid_utf8_at("ab\xc0\x80") == 2);              // overlong NUL
  CHECK(invalid_utf8_at("\xc1\xbf") == 0);                // overlong 2-byte
  CHECK(invalid_utf8_at("x\xe0\x80\x80") == 1);           // overlong 3-byte
  CHECK(invalid_utf8_at("\xe0\x9f\xbf") == 0);            // overlong U+07FF
  CHECK(invalid_utf8_at("\xf0\x80\x80\x80") == 0);        // overlong 4-byte
  CHECK(invalid_utf8_at("\xf0\x8f\xbf\xbf") == 0);        // overlong U+FFFF
  CHECK(invalid_utf8_at("ok\xed\xa0\x80") == 2);          // U+D800, a surrogate
  CHECK(invalid_utf8_at("\xed\xbf\xbf") == 0);            // U+DFFF
  CHECK(is_valid_utf8("\xed\x9f\xbf"));                   // U+D7FF, just before them
  CHECK(invalid_utf8_at("\xf4\x90\x80\x80") == 0);        // U+110000
  CHECK(invalid_utf8_at("\xf5\x80\x80\x80") == 0);        // lead bytes F5..FF
  CHECK(invalid_utf8_at("\xff") == 0);
  CHECK(invalid_utf8_at("caf\xc3") == 3);                 // truncated 2-byte
  CHECK(invalid_utf8_at("\xe2\x82") == 0);                // truncated 3-byte
  CHECK(invalid_utf8_at("\xf0\x9f\x98 ") == 0);           // truncated 4-byte, then a space
  CHECK(invalid_utf8_at("a\x80") == 1);                   // a lone continuation byte
  CHECK(invalid_utf8_at("\xc3\xa9\xc3(") == 2);           // a lead byte followed by ASCII
  CHECK(utf8_sequence_length("\xed\xa0\x80", 0) == 0);
  CHECK(utf8_sequence_length("\xc3", 0) == 0);
}

TEST_CASE("the validator agrees with the hand-written one it replaced", "[utf8]") {
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string s{static_cast<char>(a), static_cast<char>(b)};
      REQUIRE(is_valid_utf8(s) == reference_valid(s));
      REQUIRE(is_valid_utf8(s.substr(0, 1)) == reference_valid(s.substr(0, 1)));
    }
  }
  // Every 3- and 4-byte string from lead bytes E0..F7 and bytes around the continuation range.
  const unsigned char edges[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
  for (int lead = 0xe0; lead <= 0xf7; ++lead) {
    for (unsigned char b : edges) {
      for (unsigned char c : edges) {
        for (unsigned char d : edges) {
          const std::string s{static_cast<char>(lead), static_cast<char>(b), static_cast<char>(c), static_cast<char>(d)};
          REQUIRE(is_valid_utf8(s) == reference_valid(s));
          REQUIRE(is_valid_utf8(s.substr(0, 3)) == reference_valid(s.substr(0, 3)));
        }
      }
    }
  }
  std::mt19937 random(39);
  for (int i = 0; i < 200000; ++i) {
    std::string s(1 + random() % 8, '\0');
    for (char& c : s) c = static_cast<char>(0x7f + random() % 0x81);  // mostly non-ASCII
    REQUIRE(is_valid_utf8(s) == reference_valid(s));
  }
}

TEST_CASE("validation does not allocate", "[utf8][alloc]") {
  if (!HEED_COUNT_ALLOCATIONS || !heed::test::allocation_counter_works()) {
    SUCCEED("allocation counting is off in this build");
    return;
  }
  const std::string text = std::string(1000, 'a') + "caf\xc3\xa9 \xf0\x9f\x98\x80" + "\xed\xa0\x80";
  const size_t before = heed::test::allocation_count();
  size_t at = 0;
  for (int i = 0; i < 100; ++i) at += invalid_utf8_at(text);
  CHECK(heed::test::allocation_count() == before);
  CHECK(at == 100 * (text.size() - 3));
}
