// Reading JSON config files (config.json, tokenizer_config.json, ...) for the converter readers,
// with the checks and error messages shared by every format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heed/status.h"

namespace heed::convert {

// Parses `path` as one JSON object; "cannot open '<path>'" or "<path>: not a JSON object" otherwise.
Status read_json(const std::string& path, nlohmann::json* out);
// Any JSON value (a list, for modules.json), through the same checked reader.
Status read_json_value(const std::string& path, nlohmann::json* out);

// A count (a size or dimension): a positive integer below 2^24, the loader's limit for every size.
// A missing or null key is "<where>: missing '<key>'" when `required`, else leaves *out unchanged.
// vocab.json as Hugging Face tokenizers write it: {"piece": id, ...} with ids exactly 0..n-1,
// the pieces in id order. `expected` pieces; `expected_from` says where that count comes from
// (for the message when the file has another count).
Status read_vocab_json(const std::string& path, uint32_t expected, const std::string& expected_from,
                       std::vector<std::string>* out);

Status get_count(const nlohmann::json& j, const std::string& where, const char* key, bool required, uint32_t* out);

}  // namespace heed::convert
