// A LibreTranslate request's fields, read as LibreTranslate (Flask) reads them: a JSON body as it
// is; any other request from its query string, then its form, `application/x-www-form-urlencoded`
// or `multipart/form-data` (the first value of a field wins, file parts are not fields), with the
// line breaks of `q` made LF as LibreTranslate does for forms. Bodies are read through httplib's
// content reader: its own read of form bodies refuses any above 8 KB, under heed's body limit.
#pragma once

#include <optional>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace heed::cli::serve {

// The fields as a JSON object (form fields as strings); on failure answers 400 and returns nullopt.
std::optional<nlohmann::json> read_libretranslate_body(const httplib::Request& req, const httplib::ContentReader& content,
                                                       httplib::Response& res);

// `text` with CR LF and CR line breaks as LF and one final line break dropped (Python's
// "\n".join(text.splitlines()) for these breaks, which LibreTranslate applies to form texts).
std::string lf_line_breaks(const std::string& text);

}  // namespace heed::cli::serve
