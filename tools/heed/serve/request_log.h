// One JSON line per request on stderr: {"time", "endpoint", "status", "tokens", "ms"} (and "model"
// when one served it), the request's text only with --log-text. httplib runs a connection's
// request, its handler, a streamed answer and the logger on one thread, so what the handler learns
// (tokens, model, text) travels to the log line in a thread-local record.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include <httplib.h>

namespace heed::cli::serve {

struct RequestRecord {
  std::chrono::steady_clock::time_point start;
  size_t tokens = 0;
  std::string model;
  std::string text;  // kept only with --log-text
};

// The record of the request this thread is serving.
RequestRecord& current_request();
// A new request begins on this thread (its headers have been read).
void begin_request();
// The request's log line (without the newline).
std::string log_line(const httplib::Request& req, const httplib::Response& res);
// Writes one line to stderr (whole: lines of concurrent requests do not interleave).
void write_log(const std::string& line);

}  // namespace heed::cli::serve
