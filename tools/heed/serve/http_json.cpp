#include "http_json.h"

#include <cstdlib>

#include "json_output.h"

namespace heed::cli::serve {

std::string dump(const json& value) {
  std::string text;
  const Status st = json_text(value, &text);
  if (!st) (void)json_text(json{{"error", "Internal error: " + st.message()}}, &text);
  return text;
}

void send_json(httplib::Response& res, const json& value, int status) {
  std::string text;
  const Status st = json_text(value, &text);
  res.status = st ? status : 500;
  res.set_content(st ? text : dump(json{{"error", "Internal error: " + st.message()}}), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, json{{"error", message}}, status);
}

bool get_integer(const json& body, const char* key, long long min, long long max, std::optional<long long>* out) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return true;
  long long v = 0;
  if (it->is_number_integer()) {
    v = it->get<long long>();
  } else if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    char* end = nullptr;
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    v = std::strtoll(s.c_str(), &end, 10);
  } else {
    return false;
  }
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

}  // namespace heed::cli::serve
