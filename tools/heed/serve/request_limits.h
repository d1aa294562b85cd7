// `heed serve`'s per-request limits on work (--max-request-sentences, --max-request-chars,
// --max-request-tokens): a request over one is answered 413 before, or instead of, decoding, so
// one client cannot hold a session for minutes with a body that fits --max-request-bytes. Kept
// here, apart from cmd_serve.cpp, so that the command adds only a line for them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <httplib.h>

#include "args.h"
#include "heed/status.h"
#include "serve_options.h"

namespace heed::cli::serve {

std::vector<OptionSpec> request_limit_specs();
// Reads the flags into *o; false after a usage error was printed.
bool parse_request_limits(Args& args, ServeOptions* o);

// The flag a kLimitExceeded status of a request names ("max-request-tokens"), or "" when the
// status is no per-request limit.
std::string request_limit_of(const Status& status);

// Characters (UTF-8 code points) of all `texts`; "" or the message of a --max-request-chars 413.
std::string check_chars(const std::vector<std::string>& texts, const ServeOptions& options);
// "" or the message of a --max-request-tokens 413 for `tokens` tokens.
std::string check_tokens(size_t tokens, const ServeOptions& options);

// {"error": message, "limit": flag} with 413 (LibreTranslate's form, `limit` added), or OpenAI's
// {"error": {"message", "type", "param": flag, "code": "request_too_large"}}.
void send_limit_error(httplib::Response& res, const std::string& limit, const std::string& message);
void send_openai_limit_error(httplib::Response& res, const std::string& limit, const std::string& message);

}  // namespace heed::cli::serve
