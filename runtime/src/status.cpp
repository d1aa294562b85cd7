// Names of status codes, for logs and the command line ("invalid_file: model.heed: ..."), and the
// one-line rule for messages.
#include "heed/status.h"

namespace heed {

std::string Status::one_line(std::string message) {
  const auto is_control = [](unsigned char c) { return c < 0x20 || c == 0x7f; };
  bool clean = message.size() <= kMaxMessageBytes;
  for (size_t i = 0; clean && i < message.size(); ++i) clean = !is_control(static_cast<unsigned char>(message[i]));
  if (clean) return message;  // the common case: no copy

  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(kMaxMessageBytes + 4);
  for (unsigned char c : message) {
    // Cut before a byte that starts a character (never inside a UTF-8 sequence).
    if (out.size() >= kMaxMessageBytes && (c & 0xC0) != 0x80) {
      out += "...";
      break;
    }
    if (is_control(c)) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kIoError: return "io_error";
    case StatusCode::kInvalidFile: return "invalid_file";
    case StatusCode::kUnsupportedVersion: return "unsupported_version";
    case StatusCode::kUnsupportedModel: return "unsupported_model";
    case StatusCode::kLimitExceeded: return "limit_exceeded";
    case StatusCode::kOutOfMemory: return "out_of_memory";
    case StatusCode::kInternal: return "internal";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kDeadlineExceeded: return "deadline_exceeded";
  }
  return "unknown";
}

}  // namespace heed
