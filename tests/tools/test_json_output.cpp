// The one JSON writer of the command line and heed serve (tools/heed/json_output.h): any bytes give
// valid UTF-8 JSON that a strict parser reads back, no raw control characters, numbers that are
// not finite refused, numbers printed as %.9g prints them.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "json_output.h"

namespace heed::cli {
namespace {

std::string text_of(const FloatJson& value) {
  std::string text;
  const Status st = json_text(value, &text);
  REQUIRE(st.is_ok());
  return text;
}

// No byte a terminal acts on: C0 controls, DEL, and C1 controls (C2 80..C2 9F in UTF-8).
bool has_raw_controls(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c < 0x20 || c == 0x7f || (c == 0xc2 && next >= 0x80 && next <= 0x9f)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("json_text writes compact JSON in the order members were added", "[cli][json]") {
  CHECK(text_of({{"label", "b"}, {"score", 0.5}, {"scores", {1, 2}}}) == R"({"label":"b","score":0.5,"scores":[1,2]})");
  CHECK(text_of(FloatJson::array()) == "[]");
  CHECK(text_of({{"embedding", FloatJson::array()}}) == R"({"embedding":[]})");
}

TEST_CASE("json_text keeps quotes, controls, non-ASCII and emoji, and reads back", "[cli][json]") {
  const std::string hostile = "say \"no\" \\ tab\t nl\n esc\x1b[2J del\x7f nel\xc2\x85 caf\xc3\xa9 \xf0\x9f\x98\x80";
  const std::string text = text_of({{"label", hostile}});
  CHECK(text == "{\"label\":\"say \\\"no\\\" \\\\ tab\\t nl\\n esc\\u001b[2J del\\u007f nel\\u0085 caf\xc3\xa9 "
                "\xf0\x9f\x98\x80\"}");
  CHECK_FALSE(has_raw_controls(text));
  CHECK(nlohmann::json::parse(text)["label"] == hostile);  // strict: throws on invalid UTF-8
}

TEST_CASE("bytes that are not UTF-8 become U+FFFD", "[cli][json]") {
  CHECK(text_of(FloatJson("a\xff" "b")) == "\"a\xef\xbf\xbd" "b\"");
  CHECK(text_of(FloatJson("\xed\xa0\x80")) == "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // a surrogate
  CHECK(text_of(FloatJson("\xc3")) == "\"\xef\xbf\xbd\"");                                   // truncated
  // Every one- and two-byte string comes out as JSON a strict parser reads, with no raw controls.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string text = text_of(FloatJson(std::string{static_cast<char>(a), static_cast<char>(b)}));
      REQUIRE_FALSE(has_raw_controls(text));
      REQUIRE(nlohmann::json::parse(text).is_string());
    }
  }
}

TEST_CASE("numbers that are not finite are refused, with where they are", "[cli][json]") {
  std::string text = "unchanged";
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Status st = json_text(OrderedJson{{"embedding", {0.5, nan}}}, &text);
  CHECK_FALSE(st.is_ok());
  CHECK(st.message() == "the number at /embedding/1 is NaN or infinite, which JSON cannot hold");
  CHECK(text == "unchanged");
  st = json_text(OrderedJson{{"label", "x"}, {"scores", {{{"score", -inf}}}}}, &text);
  CHECK(st.message() == "the number at /scores/0/score is NaN or infinite, which JSON cannot hold");
  CHECK_FALSE(json_text(OrderedJson(inf), &text).is_ok());
  CHECK_FALSE(json_text(nlohmann::json{{"x", nan}}, &text).is_ok());  // heed serve's json too
  CHECK_FALSE(json_text(FloatJson{{"x", json_number(std::nanf(""))}}, &text).is_ok());
  CHECK(json_text(OrderedJson{{"x", nullptr}, {"y", 1e300}}, &text).is_ok());
  CHECK(text == R"({"x":null,"y":1e+300})");
}

TEST_CASE("json_number prints the shortest decimal that reads back as the same float", "[cli][json]") {
  CHECK(text_of(json_number(0.91f)) == "0.91");
  CHECK(text_of(json_number(0.1f)) == "0.1");
  CHECK(text_of(json_number(1.0f)) == "1");
  CHECK(text_of(json_number(-3.0f)) == "-3");
  CHECK(text_of(json_number(0.0f)) == "0");
  CHECK(text_of(json_number(1e-5f)) == "1e-05");
  CHECK(text_of(json_number(-2.5e-7f)) == "-2.5e-07");
  CHECK(text_of(json_number(3.4028235e38f)) == "3.4028235e+38");
  CHECK(text_of(json_number(0.123456789f, 6)) == "0.123457");
  CHECK(text_of(json_number(std::numeric_limits<float>::max(), 4)) == "3.4028235e+38");  // 3.403e+38 is no float
  std::mt19937 random(39);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(random());
    float v = 0;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    const std::string text = text_of(json_number(v));
    REQUIRE(std::strtof(text.c_str(), nullptr) == v);
    REQUIRE(static_cast<float>(nlohmann::json::parse(text).get<double>()) == v);
    char printed[32];
    std::snprintf(printed, sizeof printed, "%.9g", static_cast<double>(v));
    // Never much longer than %.9g: 1234567.5 (a float between 1e6 and 2^23) is 1.2345675e+06.
    REQUIRE(text.size() <= std::string(printed).size() + 4);
  }
}

}  // namespace heed::cli
