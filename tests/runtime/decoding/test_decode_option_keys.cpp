// set_decode_option (heed/decode_option_keys.h): every key from text and from a number lands in
// its field; bad text, NaN, infinity, values out of range and unknown keys are refused with a
// message naming the key; check_decode_options applies the same ranges to fields set directly.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "heed/decode_option_keys.h"

using namespace heed;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// The field each key sets, read back as a double.
double field(const DecodeOptions& o, const std::string& key) {
  if (key == "beam_size") return static_cast<double>(o.beam_size);
  if (key == "num_hypotheses") return static_cast<double>(o.n_best);
  if (key == "length_penalty") return o.length_penalty;
  if (key == "patience") return o.patience;
  if (key == "min_decoding_length") return static_cast<double>(o.min_length);
  if (key == "max_decoding_length") return static_cast<double>(o.max_length);
  if (key == "return_alternatives") return o.return_alternatives ? 1 : 0;
  if (key == "min_alternative_probability") return o.min_alternative_probability;
  if (key == "sampling_topk") return static_cast<double>(o.sampling_top_k);
  if (key == "sampling_topp") return o.sampling_top_p;
  if (key == "sampling_temperature") return o.sampling_temperature;
  if (key == "seed") return static_cast<double>(o.seed);
  if (key == "use_vmap") return o.use_vmap ? 1 : 0;
  if (key == "disable_unk") return o.controls.disable_unk ? 1 : 0;
  if (key == "repetition_penalty") return o.controls.repetition_penalty;
  if (key == "no_repeat_ngram_size") return static_cast<double>(o.controls.no_repeat_ngram_size);
  FAIL("no field known for " << key);
  return 0;
}

struct Case {
  const char* key;
  const char* text;  // a value in range, differing from the default
  double value;      // what the field then holds
  const char* bad;   // a value out of the key's range
};

const Case kCases[] = {
    {"beam_size", "4", 4, "0"},
    {"num_hypotheses", "3", 3, "0"},
    {"length_penalty", "-0.5", -0.5, "inf"},
    {"patience", "2.5", 2.5, "0"},
    {"min_decoding_length", "7", 7, "-1"},
    {"max_decoding_length", "100", 100, "1.5"},
    {"return_alternatives", "true", 1, "yes"},
    {"min_alternative_probability", "0.25", 0.25, "1.5"},
    {"sampling_topk", "0", 0, "-3"},
    {"sampling_topp", "0.75", 0.75, "0"},
    {"sampling_temperature", "0.5", 0.5, "-1"},
    {"seed", "18446744073709551615", 18446744073709551615.0, "18446744073709551616"},
    {"use_vmap", "1", 1, "2"},
    {"disable_unk", "true", 1, "TRUE"},
    {"repetition_penalty", "1.25", 1.25, "-1"},
    {"no_repeat_ngram_size", "3", 3, "x"},
};

}  // namespace

TEST_CASE("every key is in the table and every table key is tested") {
  std::set<std::string> tested, listed;
  for (const Case& c : kCases) tested.insert(c.key);
  for (size_t i = 0; i < num_decode_option_keys(); ++i) listed.insert(std::string(decode_option_key(i)));
  CHECK(listed == tested);
  CHECK(listed.size() == num_decode_option_keys());
}

TEST_CASE("each key from text lands in its field, others untouched") {
  for (const Case& c : kCases) {
    INFO(c.key);
    DecodeOptions o;
    REQUIRE(set_decode_option(&o, c.key, std::string(c.text)));
    CHECK(field(o, c.key) == Approx(c.value));
    const DecodeOptions defaults;
    for (const Case& other : kCases) {
      if (std::string(other.key) != c.key) CHECK(field(o, other.key) == field(defaults, other.key));
    }
  }
}

TEST_CASE("each key from a number lands in its field") {
  for (const Case& c : kCases) {
    INFO(c.key);
    if (std::string(c.key) == "seed") continue;  // 2^64 - 1 has no double; below
    DecodeOptions o;
    REQUIRE(set_decode_option(&o, c.key, c.value));
    CHECK(field(o, c.key) == Approx(c.value));
  }
  DecodeOptions o;
  REQUIRE(set_decode_option(&o, "seed", 1e15));
  CHECK(o.seed == 1000000000000000ull);
  CHECK(!set_decode_option(&o, "seed", 18446744073709551616.0));
}

TEST_CASE("values out of range are refused naming the key, the value and the range") {
  for (const Case& c : kCases) {
    INFO(c.key);
    DecodeOptions o;
    const Status st = set_decode_option(&o, c.key, std::string(c.bad));
    REQUIRE(!st);
    CHECK(st.code() == StatusCode::kInvalidArgument);
    CHECK(st.message().find(std::string(c.key) + " must be ") == 0);
    CHECK(st.message().find("(got '" + std::string(c.bad) + "')") != std::string::npos);
    CHECK(field(o, c.key) == field(DecodeOptions(), c.key));  // left as it was
  }
  DecodeOptions o;
  CHECK(set_decode_option(&o, "patience", std::string("0")).message() == "patience must be a finite number > 0 (got '0')");
  CHECK(set_decode_option(&o, "sampling_topp", 1.5).message().find("sampling_topp must be a number in (0, 1]") == 0);
}

TEST_CASE("NaN and infinity are refused for every number") {
  for (const Case& c : kCases) {
    INFO(c.key);
    DecodeOptions o;
    CHECK(!set_decode_option(&o, c.key, kNaN));
    CHECK(!set_decode_option(&o, c.key, std::string("nan")));
    CHECK(!set_decode_option(&o, c.key, kInf));
    CHECK(!set_decode_option(&o, c.key, std::string("-inf")));
  }
}

TEST_CASE("malformed text is refused") {
  DecodeOptions o;
  for (const char* text : {"", " 4", "4 ", "+4", "4x", "0x4", "4.0"}) {
    INFO(text);
    CHECK(!set_decode_option(&o, "beam_size", std::string(text)));
  }
  for (const char* text : {"", "1.5.2", "0.5 ", "1e"}) {
    INFO(text);
    CHECK(!set_decode_option(&o, "patience", std::string(text)));
  }
  CHECK(o.beam_size == 1);
  CHECK(set_decode_option(&o, "patience", std::string("1e1")));
  CHECK(o.patience == 10.0f);
  CHECK(!set_decode_option(&o, "beam_size", 2.5));
  CHECK(!set_decode_option(&o, "use_vmap", 0.5));
}

TEST_CASE("an unknown key is refused naming it") {
  DecodeOptions o;
  const Status st = set_decode_option(&o, "beam", std::string("4"));
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message() == "unknown decoding option 'beam'");
  CHECK(set_decode_option(&o, "Beam_Size", 4.0).message() == "unknown decoding option 'Beam_Size'");
}

TEST_CASE("check_decode_options applies the keys' ranges to fields set directly") {
  const StepModelLimits limits{1, 4, 16, 16};
  DecodeOptions o;
  REQUIRE(check_decode_options(o, limits));
  o.sampling_top_p = static_cast<float>(kNaN);
  CHECK(check_decode_options(o, limits).message() == "sampling_topp must be a number in (0, 1] (got 'nan')");
  o = DecodeOptions();
  o.controls.repetition_penalty = 0;
  CHECK(check_decode_option_ranges(o).message().find("repetition_penalty must be a finite number > 0") == 0);
  o = DecodeOptions();
  o.sampling_top_k = 0;  // sampling: the temperature must then be above 0, not only >= 0
  o.sampling_temperature = 0;
  CHECK(check_decode_option_ranges(o));
  CHECK(check_decode_options(o, limits).message() == "sampling temperature must be above 0 when sampling");
  o = DecodeOptions();
  o.beam_size = 0;  // the session's own wording and code for the beam
  CHECK(check_decode_options(o, limits).code() == StatusCode::kLimitExceeded);
}

TEST_CASE("get_decode_option reads back what was set, with its type") {
  for (const Case& c : kCases) {
    INFO(c.key);
    DecodeOptions o;
    REQUIRE(set_decode_option(&o, c.key, std::string(c.text)));
    DecodeOptionValue v;
    REQUIRE(get_decode_option(o, c.key, &v));
    const double read = v.type == DecodeOptionType::kReal ? v.real : static_cast<double>(v.whole);
    CHECK(read == Approx(c.value));
  }
  DecodeOptions o;
  REQUIRE(set_decode_option(&o, "seed", std::string("18446744073709551615")));
  DecodeOptionValue v;
  REQUIRE(get_decode_option(o, "seed", &v));
  CHECK(v.type == DecodeOptionType::kWhole);
  CHECK(v.whole == 18446744073709551615ull);  // exact: wholes do not go through a double
  REQUIRE(get_decode_option(o, "use_vmap", &v));
  CHECK(v.type == DecodeOptionType::kFlag);
  CHECK(get_decode_option(o, "beams", &v).message() == "unknown decoding option 'beams'");
  CHECK(set_decode_option(&o, "patience", kNaN).message() == "patience must be a finite number > 0 (got 'nan')");
}
