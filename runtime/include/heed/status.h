// Error reporting shared by every heed library: a code for programs, a one-line message for people.
#pragma once

#include <string>
#include <utility>

namespace heed {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     // a caller passed something unusable (options, sizes, token ids)
  kIoError = 2,             // the operating system refused (open, read, write, rename, mmap)
  kInvalidFile = 3,         // a model file is corrupt or inconsistent
  kUnsupportedVersion = 4,  // a .heed file written by a newer format version
  kUnsupportedModel = 5,    // a source model heed cannot convert or run
  kLimitExceeded = 6,       // input larger than the session's limits
  kOutOfMemory = 7,
  kInternal = 8,
  kCancelled = 9,            // the caller's cancel flag was set (DecodeOptions::cancel)
  kDeadlineExceeded = 10,    // the caller's deadline passed (DecodeOptions::deadline)
};

const char* status_code_name(StatusCode code);

// [[nodiscard]]: a Status a function returns is its result and must be looked at.
class [[nodiscard]] Status {
 public:
  Status() = default;
  // Messages quote names and text from the user's files, which may hold any byte: control bytes
  // (< 0x20 and 0x7f: a newline in a tensor name, a terminal escape) are written as \xNN and text
  // beyond kMaxMessageBytes is cut (at a UTF-8 boundary) and "..." appended, so every message is
  // one bounded line. Printable text and UTF-8 pass unchanged.
  static constexpr size_t kMaxMessageBytes = 1000;
  Status(StatusCode code, std::string message) : code_(code), message_(one_line(std::move(message))) {}
  static Status success() { return Status(); }

  // The check: `if (!s.ok())`. (The success factory is success(): a static ok() could be called
  // on an object and read as a check that never fails.)
  bool ok() const { return code_ == StatusCode::kOk; }
  bool is_ok() const { return ok(); }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  static std::string one_line(std::string message);

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_file(std::string m) { return Status(StatusCode::kInvalidFile, std::move(m)); }
inline Status invalid_argument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status io_error(std::string m) { return Status(StatusCode::kIoError, std::move(m)); }
inline Status unsupported_model(std::string m) { return Status(StatusCode::kUnsupportedModel, std::move(m)); }

}  // namespace heed

#define HEED_RETURN_IF_ERROR(expr)         \
  do {                                     \
    ::heed::Status heed_status_ = (expr);  \
    if (!heed_status_.is_ok()) return heed_status_; \
  } while (0)
