#include "chunked_body.h"

#include <algorithm>
#include <cctype>

namespace heed::cli::serve {

namespace {
constexpr size_t kMaxSizeLine = 1024;  // a chunk size and its extensions
}

ChunkedBody::Result ChunkedBody::size_line(const std::string& in, size_t* pos) {
  const size_t end = in.find("\r\n", *pos);
  if (end == std::string::npos) return in.size() - *pos > kMaxSizeLine ? Result::kMalformed : Result::kNeedMore;
  if (end - *pos > kMaxSizeLine) return Result::kMalformed;
  size_t digits = 0;
  unsigned long long size = 0;
  for (size_t i = *pos; i < end && std::isxdigit(static_cast<unsigned char>(in[i])); ++i, ++digits) {
    if (digits == 15) return Result::kTooLarge;  // beyond any limit heed accepts
    const char c = in[i];
    size = size * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  // Digits, then nothing or chunk extensions (';...'), which carry nothing heed uses.
  if (digits == 0 || (*pos + digits != end && in[*pos + digits] != ';')) return Result::kMalformed;
  *pos = end + 2;
  if (size > max_body_ - body_.size()) return Result::kTooLarge;  // before a byte of it is read
  remaining_ = size;
  state_ = size == 0 ? State::kTrailer : State::kData;
  return Result::kNeedMore;
}

// Trailer fields are read and dropped, up to the empty line that ends the body.
ChunkedBody::Result ChunkedBody::trailer_line(const std::string& in, size_t* pos) {
  const size_t end = in.find("\r\n", *pos);
  const size_t length = (end == std::string::npos ? in.size() : end) - *pos;
  if (trailer_bytes_ + length > max_trailer_) return Result::kMalformed;
  if (end == std::string::npos) return Result::kNeedMore;
  trailer_bytes_ += length + 2;
  *pos = end + 2;
  return length == 0 ? Result::kDone : Result::kNeedMore;
}

ChunkedBody::Result ChunkedBody::feed(const std::string& in, size_t* pos) {
  for (;;) {
    const size_t before = *pos;
    Result r = Result::kNeedMore;
    if (state_ == State::kSize) {
      r = size_line(in, pos);
    } else if (state_ == State::kData) {
      const size_t n = std::min(remaining_, in.size() - *pos);
      body_.append(in, *pos, n);
      *pos += n;
      remaining_ -= n;
      if (remaining_ == 0) state_ = State::kDataEnd;
    } else if (state_ == State::kDataEnd) {
      if (in.size() - *pos < 2) return Result::kNeedMore;
      if (in.compare(*pos, 2, "\r\n") != 0) return Result::kMalformed;
      *pos += 2;
      state_ = State::kSize;
    } else {
      r = trailer_line(in, pos);
    }
    if (r != Result::kNeedMore) return r;
    if (*pos == before) return Result::kNeedMore;  // nothing more to decode until more bytes come
  }
}

}  // namespace heed::cli::serve
