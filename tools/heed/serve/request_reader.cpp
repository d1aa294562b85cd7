#include "request_reader.h"

#include "chunked_body.h"

namespace heed::cli::serve {

namespace {

constexpr size_t kReceiveBytes = 16384;

bool fail(ReadOutcome* out, int status, std::string message) {
  out->kind = ReadOutcome::kRefused;
  out->refusal = Refusal{status, std::move(message)};
  return false;
}

// Why a read stopped: the peer left (close quietly) or the deadline passed (408).
bool stopped(Io io, ReadOutcome* out) {
  if (io == Io::kTimedOut) return fail(out, 408, "the request did not arrive within the read timeout");
  out->kind = ReadOutcome::kGone;
  return false;
}

}  // namespace

Io RequestReader::receive(SteadyClock::time_point deadline) {
  return receive_some(fd_, &buffer_, kReceiveBytes, deadline);
}

bool RequestReader::wait_for_request() {
  // Empty lines before a request are skipped (RFC 9112 2.2), and count as idle time.
  const auto deadline = SteadyClock::now() + limits_.keep_alive;
  for (;;) {
    const size_t skip = buffer_.find_first_not_of("\r\n");
    buffer_.erase(0, skip == std::string::npos ? buffer_.size() : skip);
    if (!buffer_.empty()) return true;
    if (receive(deadline) != Io::kOk) return false;
  }
}

size_t RequestReader::head_end(size_t from) const {
  const size_t at = buffer_.find("\r\n\r\n", from);
  return at == std::string::npos ? 0 : at + 4;
}

bool RequestReader::read_head(SteadyClock::time_point deadline, ReadOutcome* out, size_t* end) {
  size_t from = 0;  // searched already: a head sent a byte at a time is not searched again each time
  while ((*end = head_end(from)) == 0) {
    if (buffer_.size() > limits_.max_header_bytes) break;
    from = buffer_.size() < 3 ? 0 : buffer_.size() - 3;
    if (const Io io = receive(deadline); io != Io::kOk) return stopped(io, out);
  }
  if (*end == 0 || *end > limits_.max_header_bytes) {
    return fail(out, 431, "header section larger than " + std::to_string(limits_.max_header_bytes) + " bytes");
  }
  const Refusal r = parse_head(std::string_view(buffer_).substr(0, *end - 4), limits_.max_header_fields, &out->head);
  if (r.status != 0) return fail(out, r.status, r.message);
  return true;
}

bool RequestReader::read_chunked(SteadyClock::time_point deadline, ReadOutcome* out, std::string* body) {
  ChunkedBody chunked(limits_.max_body_bytes, limits_.max_header_bytes);
  for (;;) {
    size_t pos = 0;
    const ChunkedBody::Result r = chunked.feed(buffer_, &pos);
    buffer_.erase(0, pos);  // decoded: the raw chunks need not stay in memory
    if (r == ChunkedBody::Result::kDone) break;
    if (r == ChunkedBody::Result::kMalformed) return fail(out, 400, "malformed chunked body");
    if (r == ChunkedBody::Result::kTooLarge) return fail(out, 413, "Request body too large");
    if (const Io io = receive(deadline); io != Io::kOk) return stopped(io, out);
  }
  *body = std::move(chunked.body());
  return true;
}

bool RequestReader::read_body(SteadyClock::time_point deadline, ReadOutcome* out, std::string* body) {
  const RequestHead& head = out->head;
  if (!head.chunked && head.content_length > limits_.max_body_bytes) {
    return fail(out, 413, "Request body too large");  // refused before any of it is read
  }
  // The client waits for this before sending its body (curl does for large bodies).
  if (head.expect_continue && (head.chunked || buffer_.size() < head.content_length)) {
    static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    if (!send_all(fd_, kContinue, sizeof kContinue - 1, deadline)) return stopped(Io::kClosed, out);
  }
  if (head.chunked) return read_chunked(deadline, out, body);
  while (buffer_.size() < head.content_length) {
    if (const Io io = receive(deadline); io != Io::kOk) return stopped(io, out);
  }
  body->assign(buffer_, 0, head.content_length);
  buffer_.erase(0, head.content_length);
  return true;
}

ReadOutcome RequestReader::read() {
  ReadOutcome out;
  const auto deadline = SteadyClock::now() + limits_.read_timeout;
  size_t end = 0;
  if (!read_head(deadline, &out, &end)) return out;
  buffer_.erase(0, end);
  std::string body;
  if (!read_body(deadline, &out, &body)) return out;
  out.kind = ReadOutcome::kRequest;
  out.bytes = reframed_head(out.head, body.size()) + body;
  return out;
}

}  // namespace heed::cli::serve
