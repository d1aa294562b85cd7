// set_decode_option: the one table of decoding options by name (heed/decode_option_keys.h).
#include "heed/decode_option_keys.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace heed {

namespace {

using Type = DecodeOptionType;

constexpr double kHuge = std::numeric_limits<double>::max();
constexpr double kTwoTo64 = 18446744073709551616.0;  // the first whole number a uint64_t cannot hold

// One option: its name, type, accepted range (reals: min excluded when min_open; wholes: min
// only, sessions bound them from above) and field.
struct Key {
  const char* name;
  Type type;
  double min, max;
  bool min_open;
  const char* range;  // the range in words, for messages
  void (*set)(DecodeOptions&, const DecodeOptionValue&);
  DecodeOptionValue (*get)(const DecodeOptions&);
};

// Field accessors of each type, for the table below.
#define HEED_WHOLE(f) [](DecodeOptions& o, const DecodeOptionValue& v) { o.f = static_cast<decltype(o.f)>(v.whole); }, \
                      [](const DecodeOptions& o) { return DecodeOptionValue{Type::kWhole, o.f, 0}; }
#define HEED_REAL(f) [](DecodeOptions& o, const DecodeOptionValue& v) { o.f = static_cast<float>(v.real); }, \
                     [](const DecodeOptions& o) { return DecodeOptionValue{Type::kReal, 0, o.f}; }
#define HEED_FLAG(f) [](DecodeOptions& o, const DecodeOptionValue& v) { o.f = v.whole != 0; }, \
                     [](const DecodeOptions& o) { return DecodeOptionValue{Type::kFlag, o.f ? 1u : 0u, 0}; }

const Key kKeys[] = {
    {"beam_size", Type::kWhole, 1, 0, false, "a whole number >= 1", HEED_WHOLE(beam_size)},
    {"num_hypotheses", Type::kWhole, 1, 0, false, "a whole number >= 1", HEED_WHOLE(n_best)},
    {"length_penalty", Type::kReal, -kHuge, kHuge, false, "a finite number", HEED_REAL(length_penalty)},
    {"patience", Type::kReal, 0, kHuge, true, "a finite number > 0", HEED_REAL(patience)},
    {"min_decoding_length", Type::kWhole, 0, 0, false, "a whole number >= 0", HEED_WHOLE(min_length)},
    {"max_decoding_length", Type::kWhole, 0, 0, false, "a whole number >= 0 (0: the session's)", HEED_WHOLE(max_length)},
    {"return_alternatives", Type::kFlag, 0, 1, false, "true or false", HEED_FLAG(return_alternatives)},
    {"min_alternative_probability", Type::kReal, 0, 1, false, "a number in [0, 1]",
     HEED_REAL(min_alternative_probability)},
    {"sampling_topk", Type::kWhole, 0, 0, false, "a whole number >= 0 (0: all tokens)", HEED_WHOLE(sampling_top_k)},
    {"sampling_topp", Type::kReal, 0, 1, true, "a number in (0, 1]", HEED_REAL(sampling_top_p)},
    {"sampling_temperature", Type::kReal, 0, kHuge, false, "a finite number >= 0", HEED_REAL(sampling_temperature)},
    {"seed", Type::kWhole, 0, 0, false, "a whole number >= 0", HEED_WHOLE(seed)},
    {"use_vmap", Type::kFlag, 0, 1, false, "true or false", HEED_FLAG(use_vmap)},
    {"disable_unk", Type::kFlag, 0, 1, false, "true or false", HEED_FLAG(controls.disable_unk)},
    {"repetition_penalty", Type::kReal, 0, kHuge, true, "a finite number > 0 (1: off)",
     HEED_REAL(controls.repetition_penalty)},
    {"no_repeat_ngram_size", Type::kWhole, 0, 0, false, "a whole number >= 0 (0: off)",
     HEED_WHOLE(controls.no_repeat_ngram_size)},
};

#undef HEED_WHOLE
#undef HEED_REAL
#undef HEED_FLAG

const Key* find_key(std::string_view name) {
  for (const Key& k : kKeys) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

Status unknown_key(std::string_view name) {
  return invalid_argument("unknown decoding option '" + std::string(name) + "'");
}

Status out_of_range(const Key& k, std::string_view shown) {
  return invalid_argument(std::string(k.name) + " must be " + k.range + " (got '" + std::string(shown) + "')");
}

// The shortest text that reads back as `v` ("nan", "inf", "0.5", "4").
std::string shown(double v) {
  char text[32];
  const auto r = std::to_chars(text, text + sizeof(text), v);
  return std::string(text, r.ptr);
}

// Reals within [min, max] or (min, max] (NaN fails both comparisons); wholes from min on; flags 0/1.
bool in_range(const Key& k, const DecodeOptionValue& v) {
  if (k.type == Type::kReal) return (k.min_open ? v.real > k.min : v.real >= k.min) && v.real <= k.max;
  return static_cast<double>(v.whole) >= k.min && (k.type == Type::kWhole || v.whole <= 1);
}

// Text as a value of the key's type; false when it is not one (the caller names the range).
bool parse(const Key& k, std::string_view text, DecodeOptionValue* v) {
  const char* end = text.data() + text.size();
  if (k.type == Type::kFlag) {
    v->whole = text == "true" || text == "1" ? 1 : 0;
    return v->whole == 1 || text == "false" || text == "0";
  }
  const auto r = k.type == Type::kWhole ? std::from_chars(text.data(), end, v->whole)
                                         : std::from_chars(text.data(), end, v->real);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

// A number as a value of the key's type: wholes and flags must be whole numbers below 2^64.
bool from_number(const Key& k, double number, DecodeOptionValue* v) {
  v->real = number;
  if (k.type == Type::kReal) return true;
  if (!(number >= 0 && number < kTwoTo64) || std::floor(number) != number) return false;
  v->whole = static_cast<uint64_t>(number);
  return true;
}

}  // namespace

Status set_decode_option(DecodeOptions* options, std::string_view key, std::string_view value) {
  const Key* k = find_key(key);
  if (k == nullptr) return unknown_key(key);
  DecodeOptionValue v{k->type};
  if (!parse(*k, value, &v) || !in_range(*k, v)) return out_of_range(*k, value);
  k->set(*options, v);
  return Status::success();
}

Status set_decode_option(DecodeOptions* options, std::string_view key, double value) {
  const Key* k = find_key(key);
  if (k == nullptr) return unknown_key(key);
  DecodeOptionValue v{k->type};
  if (!from_number(*k, value, &v) || !in_range(*k, v)) return out_of_range(*k, shown(value));
  k->set(*options, v);
  return Status::success();
}

Status get_decode_option(const DecodeOptions& options, std::string_view key, DecodeOptionValue* value) {
  const Key* k = find_key(key);
  if (k == nullptr) return unknown_key(key);
  *value = k->get(options);
  return Status::success();
}

size_t num_decode_option_keys() { return sizeof(kKeys) / sizeof(kKeys[0]); }

std::string_view decode_option_key(size_t index) { return kKeys[index].name; }

Status check_decode_option_ranges(const DecodeOptions& options) {
  for (const Key& k : kKeys) {
    const DecodeOptionValue v = k.get(options);
    if (!in_range(k, v)) return out_of_range(k, k.type == Type::kReal ? shown(v.real) : std::to_string(v.whole));
  }
  return Status::success();
}

}  // namespace heed
