// Reading JSON config files (config.json, tokenizer_config.json, ...) for the converter readers,
// with the checks and error messages shared by every format.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "heed/status.h"

namespace heed::convert {

// Parses `path` as one JSON object; "cannot open '<path>'" or "<path>: not a JSON object" otherwise.
Status read_json(const std::string& path, nlohmann::json* out);

// A count (a size or dimension): a positive integer below 2^24, the loader's limit for every size.
// A missing or null key is "<where>: missing '<key>'" when `required`, else leaves *out unchanged.
Status get_count(const nlohmann::json& j, const std::string& where, const char* key, bool required, uint32_t* out);

}  // namespace heed::convert
