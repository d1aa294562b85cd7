// Request bodies and answers of `heed serve`'s endpoints: a body as a JSON object (JSON, or a
// form-encoded body whose fields become strings, as LibreTranslate accepts both), answers as JSON
// that stays valid whatever bytes a model produced, and errors as {"error": "..."}.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace heed::cli::serve {

using nlohmann::json;

// The body of `req` as a JSON object; on failure answers 400 with the reason and returns nullopt.
std::optional<json> parse_body(const httplib::Request& req, httplib::Response& res);

// `value` as JSON text (json_output.h: bytes that are not UTF-8 become U+FFFD instead of failing
// the answer); a value holding NaN or an infinity gives {"error": "Internal error: ..."} instead.
std::string dump(const json& value);
// `value` with `status`; a value holding NaN or an infinity answers 500 with the reason.
void send_json(httplib::Response& res, const json& value, int status = 200);
// {"error": message} with `status`.
void send_error(httplib::Response& res, int status, const std::string& message);

// A field read as an integer: JSON numbers, and strings of digits (form bodies carry strings).
// nullopt when absent; false when present but not a whole number in [min, max].
bool get_integer(const json& body, const char* key, long long min, long long max, std::optional<long long>* out);

}  // namespace heed::cli::serve
