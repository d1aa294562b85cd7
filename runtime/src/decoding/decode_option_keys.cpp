// set_decode_option: the one table of decoding options by name (heed/decode_option_keys.h).
#include "heed/decode_option_keys.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace heed {

namespace {

enum class Kind { kWhole, kReal, kFlag };

constexpr double kHuge = std::numeric_limits<double>::max();
constexpr double kTwoTo64 = 18446744073709551616.0;  // the first whole number a uint64_t cannot hold

// One option: its name, kind, accepted range (min excluded when min_open) and field.
struct Key {
  const char* name;
  Kind kind;
  double min, max;
  bool min_open;
  const char* range;  // the range in words, for messages
  void (*set)(DecodeOptions&, double real, uint64_t whole);
  double (*get)(const DecodeOptions&);
};

#define HEED_WHOLE(field) [](DecodeOptions& o, double, uint64_t v) { o.field = static_cast<decltype(o.field)>(v); }, \
                          [](const DecodeOptions& o) { return static_cast<double>(o.field); }
#define HEED_REAL(field) [](DecodeOptions& o, double v, uint64_t) { o.field = static_cast<float>(v); }, \
                         [](const DecodeOptions& o) { return static_cast<double>(o.field); }
#define HEED_FLAG(field) [](DecodeOptions& o, double, uint64_t v) { o.field = v != 0; }, \
                         [](const DecodeOptions& o) { return o.field ? 1.0 : 0.0; }

const Key kKeys[] = {
    {"beam_size", Kind::kWhole, 1, kTwoTo64, false, "a whole number >= 1", HEED_WHOLE(beam_size)},
    {"num_hypotheses", Kind::kWhole, 1, kTwoTo64, false, "a whole number >= 1", HEED_WHOLE(n_best)},
    {"length_penalty", Kind::kReal, -kHuge, kHuge, false, "a finite number", HEED_REAL(length_penalty)},
    {"patience", Kind::kReal, 0, kHuge, true, "a finite number > 0", HEED_REAL(patience)},
    {"min_decoding_length", Kind::kWhole, 0, kTwoTo64, false, "a whole number >= 0", HEED_WHOLE(min_length)},
    {"max_decoding_length", Kind::kWhole, 0, kTwoTo64, false, "a whole number >= 0 (0: the session's)",
     HEED_WHOLE(max_length)},
    {"return_alternatives", Kind::kFlag, 0, 1, false, "true or false", HEED_FLAG(return_alternatives)},
    {"min_alternative_probability", Kind::kReal, 0, 1, false, "a number in [0, 1]",
     HEED_REAL(min_alternative_probability)},
    {"sampling_topk", Kind::kWhole, 0, kTwoTo64, false, "a whole number >= 0 (0: all tokens)",
     HEED_WHOLE(sampling_top_k)},
    {"sampling_topp", Kind::kReal, 0, 1, true, "a number in (0, 1]", HEED_REAL(sampling_top_p)},
    {"sampling_temperature", Kind::kReal, 0, kHuge, false, "a finite number >= 0", HEED_REAL(sampling_temperature)},
    {"seed", Kind::kWhole, 0, kTwoTo64, false, "a whole number >= 0", HEED_WHOLE(seed)},
    {"use_vmap", Kind::kFlag, 0, 1, false, "true or false", HEED_FLAG(use_vmap)},
    {"disable_unk", Kind::kFlag, 0, 1, false, "true or false", HEED_FLAG(controls.disable_unk)},
    {"repetition_penalty", Kind::kReal, 0, kHuge, true, "a finite number > 0 (1: off)",
     HEED_REAL(controls.repetition_penalty)},
    {"no_repeat_ngram_size", Kind::kWhole, 0, kTwoTo64, false, "a whole number >= 0 (0: off)",
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

// Reals: within [min, max] or (min, max]; NaN fails both comparisons. Wholes also below 2^64.
bool in_range(const Key& k, double v) {
  const bool above_min = k.min_open ? v > k.min : v >= k.min;
  const bool whole_ok = k.kind == Kind::kReal || (std::floor(v) == v && v < kTwoTo64);
  return above_min && v <= k.max && whole_ok;
}

// "nan", "inf", "0.500000": enough to recognize the value.
std::string shown(double v) { return std::to_string(v); }

// Text as a number of the key's kind; false when it is not one (the caller names the range).
bool parse(const Key& k, std::string_view text, double* real, uint64_t* whole) {
  const char* end = text.data() + text.size();
  if (k.kind == Kind::kFlag) {
    *whole = text == "true" || text == "1" ? 1 : 0;
    *real = static_cast<double>(*whole);
    return *whole == 1 || text == "false" || text == "0";
  }
  if (k.kind == Kind::kWhole) {
    const auto r = std::from_chars(text.data(), end, *whole);
    *real = static_cast<double>(*whole);
    return !text.empty() && r.ec == std::errc() && r.ptr == end;
  }
  const auto r = std::from_chars(text.data(), end, *real);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

}  // namespace

Status set_decode_option(DecodeOptions* options, std::string_view key, std::string_view value) {
  const Key* k = find_key(key);
  if (k == nullptr) return unknown_key(key);
  double real = 0;
  uint64_t whole = 0;
  if (!parse(*k, value, &real, &whole)) return out_of_range(*k, value);
  // A whole number parsed is below 2^64 already (its double may round up to 2^64).
  const bool ok = k->kind == Kind::kWhole ? real >= k->min : in_range(*k, real);
  if (!ok) return out_of_range(*k, value);
  k->set(*options, real, whole);
  return Status::success();
}

Status set_decode_option(DecodeOptions* options, std::string_view key, double value) {
  const Key* k = find_key(key);
  if (k == nullptr) return unknown_key(key);
  if (!in_range(*k, value)) return out_of_range(*k, shown(value));
  k->set(*options, value, k->kind == Kind::kReal ? 0 : static_cast<uint64_t>(value));
  return Status::success();
}

size_t num_decode_option_keys() { return sizeof(kKeys) / sizeof(kKeys[0]); }

std::string_view decode_option_key(size_t index) { return kKeys[index].name; }

Status check_decode_option_ranges(const DecodeOptions& options) {
  for (const Key& k : kKeys) {
    const double v = k.get(options);
    if (!in_range(k, v)) return out_of_range(k, shown(v));
  }
  return Status::success();
}

}  // namespace heed
