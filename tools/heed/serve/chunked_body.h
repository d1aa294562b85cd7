// Decodes a chunked request body (RFC 9112 section 7.1) as its bytes arrive, counting the decoded
// bytes against the body limit: httplib's own chunked reader has no limit at all. It keeps its
// place, so a body sent in many small pieces costs time linear in its size.
#pragma once

#include <cstddef>
#include <string>

namespace heed::cli::serve {

class ChunkedBody {
 public:
  enum class Result { kNeedMore, kDone, kMalformed, kTooLarge };

  // `max_body`: decoded bytes allowed; `max_trailer`: bytes of trailer fields allowed.
  ChunkedBody(size_t max_body, size_t max_trailer) : max_body_(max_body), max_trailer_(max_trailer) {}

  // Decodes `in` from *pos on into body(); *pos ends past what was used (the end of the body when
  // kDone: bytes after it belong to the connection's next request).
  Result feed(const std::string& in, size_t* pos);
  std::string& body() { return body_; }

 private:
  enum class State { kSize, kData, kDataEnd, kTrailer };
  Result size_line(const std::string& in, size_t* pos);
  Result trailer_line(const std::string& in, size_t* pos);

  size_t max_body_, max_trailer_;
  State state_ = State::kSize;
  size_t remaining_ = 0;  // bytes of the current chunk still to come
  size_t trailer_bytes_ = 0;
  std::string body_;
};

}  // namespace heed::cli::serve
