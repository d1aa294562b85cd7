#include "json_fields.h"

#include "source_files.h"

#include <fstream>
#include <sstream>

namespace heed::convert {

Status read_json(const std::string& path, nlohmann::json* out) {
  HEED_RETURN_IF_ERROR(read_json_value(path, out));
  if (!out->is_object()) return invalid_file(path + ": not a JSON object");
  return Status::success();
}

Status read_json_value(const std::string& path, nlohmann::json* out) {
  std::string text;
  HEED_RETURN_IF_ERROR(read_text(path, &text));
  *out = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) return invalid_file(path + ": not JSON");
  return Status::success();
}

Status read_vocab_json(const std::string& path, uint32_t expected, const std::string& expected_from,
                       std::vector<std::string>* out) {
  std::string text;
  HEED_RETURN_IF_ERROR(read_text(path, &text));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return invalid_file(path + ": not a JSON object of piece -> id");
  if (j.size() != expected) {
    return invalid_file(path + ": " + std::to_string(j.size()) + " entries, but " + expected_from);
  }
  std::vector<std::string> tokens(expected);
  std::vector<bool> seen(expected, false);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= static_cast<int64_t>(expected)) {
      return invalid_file(path + ": piece '" + it.key() + "' has an id outside 0.." + std::to_string(expected - 1));
    }
    const size_t id = static_cast<size_t>(it->get<int64_t>());
    if (seen[id]) return invalid_file(path + ": id " + std::to_string(id) + " is given to two pieces");
    seen[id] = true;
    tokens[id] = it.key();
  }
  *out = std::move(tokens);
  return Status::success();
}

Status get_count(const nlohmann::json& j, const std::string& where, const char* key, bool required, uint32_t* out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) return invalid_file(where + ": missing '" + key + "'");
    return Status::success();
  }
  if (!it->is_number_unsigned() || it->get<uint64_t>() == 0 || it->get<uint64_t>() >= (1u << 24)) {
    return invalid_file(where + ": '" + key + "' must be a positive integer below 2^24");
  }
  *out = static_cast<uint32_t>(it->get<uint64_t>());
  return Status::success();
}

}  // namespace heed::convert
