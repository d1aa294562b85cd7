// The header section of an HTTP/1.1 request, parsed strictly before httplib sees it: limits on the
// number of header fields, and one unambiguous body framing (RFC 9112 section 6). Two different
// Content-Length values, or Transfer-Encoding beside Content-Length, are how requests are
// smuggled past a proxy that reads them differently: both are refused, not guessed at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace heed::cli::serve {

struct RequestHead {
  std::string method, target, version;
  std::vector<std::pair<std::string, std::string>> fields;  // name, value (trimmed), in order
  bool chunked = false;                                     // Transfer-Encoding: chunked
  uint64_t content_length = 0;                              // 0 when absent: no body (RFC 9112 6.3)
  bool expect_continue = false;
};

// A refused request: the status to answer with and why.
struct Refusal {
  int status = 0;
  std::string message;
};

// Parses `text`, the request line and header lines, each ending in CRLF, without the empty line.
// Returns a Refusal with status 0 when the head is acceptable.
Refusal parse_head(std::string_view text, size_t max_fields, RequestHead* head);

// The head httplib is given: the request line and fields without Transfer-Encoding,
// Content-Length and Expect (the body has been read and de-chunked already), then the body's length.
std::string reframed_head(const RequestHead& head, size_t body_size);

}  // namespace heed::cli::serve
