#include "json_fields.h"

#include <fstream>
#include <sstream>

namespace heed::convert {

Status read_json(const std::string& path, nlohmann::json* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  *out = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded() || !out->is_object()) return invalid_file(path + ": not a JSON object");
  return Status::ok();
}

Status get_count(const nlohmann::json& j, const std::string& where, const char* key, bool required, uint32_t* out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) return invalid_file(where + ": missing '" + key + "'");
    return Status::ok();
  }
  if (!it->is_number_unsigned() || it->get<uint64_t>() == 0 || it->get<uint64_t>() >= (1u << 24)) {
    return invalid_file(where + ": '" + key + "' must be a positive integer below 2^24");
  }
  *out = static_cast<uint32_t>(it->get<uint64_t>());
  return Status::ok();
}

}  // namespace heed::convert
