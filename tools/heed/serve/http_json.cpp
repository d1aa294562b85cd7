#include "http_json.h"

#include <cstdlib>

namespace heed::cli::serve {

namespace {

bool is_form(const httplib::Request& req) {
  return req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && c < 0xc2)) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong forms, surrogates and code points beyond U+10FFFF are not UTF-8.
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += n;
  }
  return true;
}

std::optional<json> parse_body(const httplib::Request& req, httplib::Response& res) {
  if (!valid_utf8(req.body) && !is_form(req)) {
    send_error(res, 400, "Invalid request: the body is not UTF-8");
    return std::nullopt;
  }
  if (is_form(req)) {
    httplib::Params params;
    httplib::detail::parse_query_text(req.body, params);
    json body = json::object();
    for (const auto& [key, value] : params) {
      if (!valid_utf8(key) || !valid_utf8(value)) {
        send_error(res, 400, "Invalid request: a form field is not UTF-8");
        return std::nullopt;
      }
      body[key] = value;
    }
    return body;
  }
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    send_error(res, 400, "Invalid request: the body is not a JSON object");
    return std::nullopt;
  }
  return body;
}

std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

void send_json(httplib::Response& res, const json& value, int status) {
  res.status = status;
  res.set_content(dump(value), "application/json");
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
