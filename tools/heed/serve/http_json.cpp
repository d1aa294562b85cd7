#include "http_json.h"

#include <cstdlib>

#include "json_output.h"
#include "heed/utf8.h"

namespace heed::cli::serve {

namespace {

bool is_form(const httplib::Request& req) {
  return req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0;
}

}  // namespace

std::optional<json> parse_body(const httplib::Request& req, httplib::Response& res) {
  if (!text::is_valid_utf8(req.body) && !is_form(req)) {
    send_error(res, 400, "Invalid request: the body is not UTF-8");
    return std::nullopt;
  }
  if (is_form(req)) {
    httplib::Params params;
    httplib::detail::parse_query_text(req.body, params);
    json body = json::object();
    for (const auto& [key, value] : params) {
      if (!text::is_valid_utf8(key) || !text::is_valid_utf8(value)) {
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
