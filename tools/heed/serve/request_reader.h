// Reads each request of a connection completely, headers and body, before httplib sees it, within
// `heed serve`'s limits: the whole request must arrive within the read deadline (however slowly its
// bytes trickle in), the header section within its byte and field limits, the body within the body
// limit whether it is framed by Content-Length or chunked, and the framing must be unambiguous
// (http_head.h). A request that breaks a limit is answered here (413, 431, 400, 408...) and its
// connection closed. httplib then parses the request from memory (answer_stream.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "http_head.h"
#include "socket_io.h"

namespace heed::cli::serve {

struct RequestLimits {
  size_t max_header_bytes = 16384;  // request line and header fields
  size_t max_header_fields = 64;
  size_t max_body_bytes = size_t{1} << 20;
  std::chrono::milliseconds read_timeout{10000};  // from the first byte of a request to its last
  std::chrono::milliseconds keep_alive{5000};     // an idle connection's wait for its next request
};

struct ReadOutcome {
  enum Kind { kRequest, kRefused, kGone } kind = kGone;  // kGone: closed, reset or idle: close quietly
  std::string bytes;  // kRequest: the request re-framed with a Content-Length (http_head.h)
  RequestHead head;   // as far as it was read (method and target name the request in the log)
  Refusal refusal;    // kRefused: the status and message to answer with
};

class RequestReader {
 public:
  RequestReader(int fd, const RequestLimits& limits) : fd_(fd), limits_(limits) {}

  // Waits for the first byte of the next request, at most the keep-alive time.
  bool wait_for_request();
  // Reads that request.
  ReadOutcome read();

 private:
  // The end of the header section in buffer_ (past its empty line), or 0 while it is incomplete.
  size_t head_end(size_t from) const;
  Io receive(SteadyClock::time_point deadline);
  bool read_head(SteadyClock::time_point deadline, ReadOutcome* out, size_t* end);
  bool read_body(SteadyClock::time_point deadline, ReadOutcome* out, std::string* body);
  bool read_chunked(SteadyClock::time_point deadline, ReadOutcome* out, std::string* body);

  int fd_;
  RequestLimits limits_;
  std::string buffer_;  // bytes received and not used yet (a pipelined next request)
};

}  // namespace heed::cli::serve
