#include "request_limits.h"

#include "http_json.h"

namespace heed::cli::serve {

std::vector<OptionSpec> request_limit_specs() {
  return {
      {"max-request-sentences", 0, true, "N", "sentences per /translate request, all texts (default 1000; more: 413)"},
      {"max-request-chars", 0, true, "N", "characters per request, all texts, inputs or the prompt (default 100000)"},
      {"max-request-tokens", 0, true, "N", "source, input or prompt tokens per request (default 20000; more: 413)"},
  };
}

bool parse_request_limits(Args& args, ServeOptions* o) {
  const auto sentences = args.get_int("max-request-sentences", 1000, 1, int64_t{1} << 31);
  const auto chars = args.get_int("max-request-chars", 100000, 1, int64_t{1} << 31);
  const auto tokens = args.get_int("max-request-tokens", 20000, 1, int64_t{1} << 31);
  if (!sentences || !chars || !tokens) return false;
  o->max_request_sentences = static_cast<size_t>(*sentences);
  o->max_request_chars = static_cast<size_t>(*chars);
  o->max_request_tokens = static_cast<size_t>(*tokens);
  return true;
}

// TranslationSession names the limits by their flags in kLimitExceeded messages.
std::string request_limit_of(const Status& status) {
  if (status.code() != StatusCode::kLimitExceeded) return "";
  for (const char* flag : {"max-request-sentences", "max-request-tokens"}) {
    if (status.message().find(std::string("--") + flag) != std::string::npos) return flag;
  }
  return "";
}

std::string check_chars(const std::vector<std::string>& texts, const ServeOptions& options) {
  size_t chars = 0;
  for (const std::string& text : texts) {
    for (unsigned char c : text) chars += (c & 0xC0) != 0x80 ? 1 : 0;  // continuation bytes are no characters
  }
  if (chars <= options.max_request_chars) return "";
  return "Request too large: " + std::to_string(chars) + " characters, more than --max-request-chars allows (" +
         std::to_string(options.max_request_chars) + ")";
}

std::string check_tokens(size_t tokens, const ServeOptions& options) {
  if (tokens <= options.max_request_tokens) return "";
  return "Request too large: " + std::to_string(tokens) + " tokens, more than --max-request-tokens allows (" +
         std::to_string(options.max_request_tokens) + ")";
}

void send_limit_error(httplib::Response& res, const std::string& limit, const std::string& message) {
  send_json(res, json{{"error", message}, {"limit", limit}}, 413);
}

void send_openai_limit_error(httplib::Response& res, const std::string& limit, const std::string& message) {
  send_json(res, json{{"error", {{"message", message}, {"type", "invalid_request_error"}, {"param", limit},
                                 {"code", "request_too_large"}}}}, 413);
}

}  // namespace heed::cli::serve
