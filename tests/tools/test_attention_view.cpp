// translate --attention / --attention-json labels are tokens from the user's input (--tokens takes
// any bytes) and from the model's vocabulary: the JSON lines must stay valid UTF-8 JSON and the SVG
// well-formed UTF-8 XML whatever those bytes are.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <limits>
#include <string>

#include "attention_view.h"

namespace heed::cli {
namespace {

// True when `text` is valid UTF-8 (nlohmann's strict serializer refuses anything else).
bool valid_utf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

AttentionRecord hostile_record() {
  AttentionRecord r;
  r.source = {"\xff\xfe", "caf\xc3\xa9", "\x1b[31m", "a\"b\\c", "\xc2\x85", "\xe2\x82", "\xf0\x9f\x98\x80"};
  r.target = {"x\ny", "\xed\xa0\x80", "</s>"};
  r.weights.assign(r.target.size() * r.source.size(), 0.5f);
  return r;
}

TEST_CASE("attention JSON lines are valid UTF-8 JSON for any token bytes", "[cli][attention]") {
  const std::string line = attention_json_line(hostile_record());
  REQUIRE(valid_utf8(line));
  CHECK(line.find('\n') == std::string::npos);
  const auto j = nlohmann::json::parse(line);  // throws on invalid JSON
  CHECK(j["source"][0] == "\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(j["source"][1] == "caf\xc3\xa9");  // valid UTF-8 is kept
  CHECK(j["source"][2] == "\x1b[31m");     // as a \u001b escape in the line itself
  CHECK(j["source"][3] == "a\"b\\c");
  CHECK(j["source"][4] == "\xc2\x85");      // a C1 control, as a \u0085 escape
  CHECK(j["source"][5] == "\xef\xbf\xbd");  // a truncated sequence
  CHECK(j["source"][6] == "\xf0\x9f\x98\x80");
  CHECK(j["target"][0] == "x\ny");
  CHECK(j["target"][1] == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate, each byte
  CHECK(j["panels"][0]["weights"].size() == 3);
  CHECK(j["panels"][0]["weights"][0][0] == 0.5);
  for (const char c : line) CHECK(static_cast<unsigned char>(c) >= 0x20);
  CHECK(line.find("\xc2\x85") == std::string::npos);
}

TEST_CASE("attention JSON lines write weights that are not finite as null", "[cli][attention]") {
  AttentionRecord r = hostile_record();
  r.weights[1] = std::numeric_limits<float>::quiet_NaN();
  r.weights[2] = 0.123456789f;
  const auto j = nlohmann::json::parse(attention_json_line(r));
  CHECK(j["panels"][0]["weights"][0][1].is_null());
  CHECK(attention_json_line(r).find("0.123457,") != std::string::npos);  // 6 significant digits
}

TEST_CASE("the attention SVG is UTF-8 with no raw control bytes for any token bytes", "[cli][attention]") {
  const std::string svg = attention_svg({hostile_record()});
  CHECK(valid_utf8(svg));
  CHECK(svg.find('\x1b') == std::string::npos);
  CHECK(xml_escape("\xff<caf\xc3\xa9>\x1b") == "\xef\xbf\xbd&lt;caf\xc3\xa9&gt;\xef\xbf\xbd");
  CHECK(xml_escape("\xc2\x85") == "\xef\xbf\xbd\xef\xbf\xbd");  // a C1 control: each byte
}

}  // namespace
}  // namespace heed::cli
