#include "json_output.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace heed::cli {
namespace {

// Whether `v` holds a number that is not finite; *where becomes its JSON pointer ("/embedding/3").
template <typename Json>
bool find_non_finite(const Json& v, std::string* where) {
  if (v.is_number_float()) return !std::isfinite(v.template get<double>());
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!find_non_finite(it.value(), where)) continue;
      *where = "/" + it.key() + *where;
      return true;
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!find_non_finite(v[i], where)) continue;
      *where = "/" + std::to_string(i) + *where;
      return true;
    }
  }
  return false;
}

// C1 controls (UTF-8 C2 80 .. C2 9F: in valid UTF-8, C2 only leads a sequence) and DEL as \u
// escapes. They can only be inside strings, where the escape means the same character.
std::string escape_c1_and_del(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c == 0x7F || (c == 0xC2 && next >= 0x80 && next <= 0x9F)) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c == 0x7F ? 0x7Fu : static_cast<unsigned>(next));
      out += escape;
      i += c == 0xC2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

template <typename Json>
Status dump(const Json& value, std::string* out) {
  std::string where;
  if (find_non_finite(value, &where)) {
    return invalid_argument("the number at " + (where.empty() ? std::string("/") : where) +
                            " is NaN or infinite, which JSON cannot hold");
  }
  *out = escape_c1_and_del(value.dump(-1, ' ', false, Json::error_handler_t::replace));
  return Status::success();
}

}  // namespace

Status json_text(const nlohmann::json& value, std::string* out) { return dump(value, out); }
Status json_text(const OrderedJson& value, std::string* out) { return dump(value, out); }
Status json_text(const FloatJson& value, std::string* out) { return dump(value, out); }

FloatJson json_number(float v, int digits) {
  if (!std::isfinite(v)) return v;
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(v));
  char* end = nullptr;
  const long long whole = std::strtoll(text, &end, 10);
  if (*end == '\0') return whole;  // "%g" printed no fraction and no exponent
  const float rounded = std::strtof(text, nullptr);
  return std::isfinite(rounded) ? rounded : v;  // FLT_MAX to 4 digits is past FLT_MAX
}

}  // namespace heed::cli
