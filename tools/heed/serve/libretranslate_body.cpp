#include "libretranslate_body.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "http_json.h"
#include "heed/utf8.h"

namespace heed::cli::serve {

namespace {

enum class BodyKind { kJson, kForm, kMultipart };

std::string content_type(const httplib::Request& req) {
  std::string type = req.get_header_value("Content-Type");
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type;
}

// heed reads any body that is not a form as JSON (LibreTranslate wants the JSON type).
BodyKind kind_of(const std::string& type) {
  if (type.rfind("multipart/form-data", 0) == 0) return BodyKind::kMultipart;
  if (type.rfind("application/x-www-form-urlencoded", 0) == 0) return BodyKind::kForm;
  return BodyKind::kJson;
}

// Adds a field unless it is there already (Werkzeug's `values.get`: the first value wins).
bool add_field(const std::string& key, const std::string& value, nlohmann::json* fields) {
  if (!text::is_valid_utf8(key) || !text::is_valid_utf8(value)) return false;
  if (!fields->contains(key)) (*fields)[key] = value;
  return true;
}

bool add_fields(const httplib::Params& params, nlohmann::json* fields) {
  for (const auto& [key, value] : params) {
    if (!add_field(key, value, fields)) return false;
  }
  return true;
}

bool read_multipart(const httplib::ContentReader& content, nlohmann::json* fields) {
  std::vector<httplib::MultipartFormData> parts;
  const bool read = content([&](const httplib::MultipartFormData& part) { return parts.push_back(part), true; },
                            [&](const char* data, size_t size) {
                              return !parts.empty() && (parts.back().content.append(data, size), true);
                            });
  if (!read) return false;
  for (const auto& part : parts) {
    if (part.filename.empty() && !add_field(part.name, part.content, fields)) return false;
  }
  return true;
}

std::optional<nlohmann::json> fail(httplib::Response& res, const std::string& message) {
  send_error(res, 400, "Invalid request: " + message);
  return std::nullopt;
}

}  // namespace

std::string lf_line_breaks(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
    } else if (i + 1 == text.size() || text[i + 1] != '\n') {
      out += '\n';
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::optional<nlohmann::json> read_libretranslate_body(const httplib::Request& req, const httplib::ContentReader& content,
                                                       httplib::Response& res) {
  const std::string type = content_type(req);
  const BodyKind kind = kind_of(type);
  std::string body;
  if (kind != BodyKind::kMultipart && !content([&](const char* data, size_t size) { return body.append(data, size), true; })) {
    return fail(res, "the body could not be read");
  }
  // An empty body that does not claim to be JSON leaves the query string (LibreTranslate's
  // `request.values`: `POST /translate?q=...`).
  if (kind == BodyKind::kJson && (!body.empty() || type.rfind("application/json", 0) == 0)) {
    if (!text::is_valid_utf8(body)) return fail(res, "the body is not UTF-8");
    nlohmann::json fields = nlohmann::json::parse(body, nullptr, false);
    if (fields.is_discarded() || !fields.is_object()) return fail(res, "the body is not a JSON object");
    return fields;
  }
  nlohmann::json fields = nlohmann::json::object();
  if (!add_fields(req.params, &fields)) return fail(res, "a query field is not UTF-8");
  if (kind == BodyKind::kMultipart && !read_multipart(content, &fields)) {
    return fail(res, "a malformed multipart body, or a field that is not UTF-8");
  }
  if (kind == BodyKind::kForm) {
    httplib::Params params;
    httplib::detail::parse_query_text(body, params);
    if (!add_fields(params, &fields)) return fail(res, "a form field is not UTF-8");
  }
  if (fields.contains("q")) fields["q"] = lf_line_breaks(fields["q"].get<std::string>());
  return fields;
}

}  // namespace heed::cli::serve
