// Answers of `heed serve`'s endpoints: JSON that stays valid whatever bytes a model produced, errors
// as {"error": "..."}, and integer fields read from JSON or form bodies.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace heed::cli::serve {

using nlohmann::json;

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
