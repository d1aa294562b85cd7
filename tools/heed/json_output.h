// Every JSON text heed writes goes through json_text: the records of `heed embed`, `classify`,
// `fill-mask`, `inspect --json`, `bench --json` and `translate --attention-json`, and `heed serve`'s
// answers and log lines. One policy, on nlohmann-json's serializer: compact (no spaces, no newline);
// bytes that are not UTF-8 become U+FFFD; C1 controls and DEL are written as \u escapes (a terminal
// showing the output would act on them raw); a number that is not finite is refused with an error
// naming where it is (JSON has no NaN or infinity; nlohmann would silently write null).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heed/status.h"

namespace heed::cli {

// Objects keep their members in the order they were added.
using OrderedJson = nlohmann::ordered_json;
// The command line's records: ordered, and numbers that are float32, written as the shortest
// decimal that reads back as the same float32 (nlohmann's Grisu2 at float precision).
using FloatJson = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t,
                                       std::uint64_t, float>;

// `value` as JSON text in *out; an error (and *out unchanged) when it holds a NaN or an infinity.
Status json_text(const nlohmann::json& value, std::string* out);
Status json_text(const OrderedJson& value, std::string* out);
Status json_text(const FloatJson& value, std::string* out);

// `v` as the command line prints numbers: rounded to `digits` significant digits (at 9 the same
// float32), a whole number without a fraction ("1", not "1.0"). NaN and infinities stay as they
// are, for json_text to refuse.
FloatJson json_number(float v, int digits = 9);

}  // namespace heed::cli
