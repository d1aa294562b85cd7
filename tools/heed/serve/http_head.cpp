#include "http_head.h"

#include <strings.h>

#include <algorithm>

namespace heed::cli::serve {

namespace {

constexpr size_t kMaxTarget = 8192;  // as httplib's own CPPHTTPLIB_REQUEST_URI_MAX_LENGTH

bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool equals_nocase(std::string_view a, const char* b) {
  return a.size() == std::string_view(b).size() && strncasecmp(a.data(), b, a.size()) == 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Refusal refuse(int status, std::string message) { return Refusal{status, std::move(message)}; }

Refusal parse_request_line(std::string_view line, RequestHead* head) {
  const size_t a = line.find(' '), b = line.rfind(' ');
  if (a == std::string_view::npos || a == b || a == 0) return refuse(400, "malformed request line");
  head->method = std::string(line.substr(0, a));
  head->target = std::string(line.substr(a + 1, b - a - 1));
  head->version = std::string(line.substr(b + 1));
  for (char c : head->method) {
    if (!is_token_char(c)) return refuse(400, "malformed request method");
  }
  if (head->version != "HTTP/1.1" && head->version != "HTTP/1.0") return refuse(505, "HTTP version not supported");
  if (head->target.size() > kMaxTarget) return refuse(414, "request target longer than 8192 bytes");
  // Spaces or control bytes in the target would let two parsers split the line differently.
  if (head->target.empty() || std::any_of(head->target.begin(), head->target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
      })) {
    return refuse(400, "malformed request target");
  }
  return {};
}

// One Content-Length value (a list of equal values is one value, RFC 9110 8.6).
Refusal add_content_length(std::string_view value, bool* seen, RequestHead* head) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    const std::string_view item = trim(value.substr(0, comma));
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string_view::npos) {
      return refuse(400, "invalid Content-Length");
    }
    const uint64_t n = std::stoull(std::string(item));
    if (*seen && n != head->content_length) return refuse(400, "conflicting Content-Length headers");
    *seen = true;
    head->content_length = n;
  }
  return {};
}

// The framing of the body from the fields: Content-Length or chunked, never both.
Refusal read_framing(RequestHead* head) {
  bool length_seen = false, encoding_seen = false;
  for (const auto& [name, value] : head->fields) {
    if (equals_nocase(name, "Content-Length")) {
      if (Refusal r = add_content_length(value, &length_seen, head); r.status) return r;
    } else if (equals_nocase(name, "Transfer-Encoding")) {
      // Only "chunked", once: any other coding (or a list) is not something heed decodes.
      if (encoding_seen || !equals_nocase(value, "chunked")) return refuse(501, "unsupported Transfer-Encoding");
      encoding_seen = true;
    } else if (equals_nocase(name, "Expect")) {
      if (!equals_nocase(value, "100-continue")) return refuse(417, "unsupported Expect");
      head->expect_continue = true;
    }
  }
  if (encoding_seen && length_seen) return refuse(400, "Transfer-Encoding together with Content-Length");
  if (encoding_seen && head->version == "HTTP/1.0") return refuse(400, "Transfer-Encoding in an HTTP/1.0 request");
  head->chunked = encoding_seen;
  return {};
}

}  // namespace

Refusal parse_head(std::string_view text, size_t max_fields, RequestHead* head) {
  size_t end = text.find("\r\n");
  if (Refusal r = parse_request_line(text.substr(0, end), head); r.status) return r;
  while (end != std::string_view::npos && end + 2 < text.size()) {
    const size_t start = end + 2;
    end = text.find("\r\n", start);
    const std::string_view line = text.substr(start, end == std::string_view::npos ? end : end - start);
    const size_t colon = line.find(':');
    // No name, a space before the colon, or a folded line (obsolete, RFC 9112 5.2): refused.
    if (colon == 0 || colon == std::string_view::npos) return refuse(400, "malformed header field");
    for (char c : line.substr(0, colon)) {
      if (!is_token_char(c)) return refuse(400, "malformed header field name");
    }
    const std::string_view value = trim(line.substr(colon + 1));
    if (value.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos) {
      return refuse(400, "control byte in a header field");
    }
    if (head->fields.size() == max_fields) {
      return refuse(431, "more than " + std::to_string(max_fields) + " header fields");
    }
    head->fields.emplace_back(line.substr(0, colon), value);
  }
  return read_framing(head);
}

std::string reframed_head(const RequestHead& head, size_t body_size) {
  std::string out = head.method + " " + head.target + " " + head.version + "\r\n";
  for (const auto& [name, value] : head.fields) {
    if (equals_nocase(name, "Content-Length") || equals_nocase(name, "Transfer-Encoding") ||
        equals_nocase(name, "Expect")) {
      continue;
    }
    out += name + ": " + value + "\r\n";
  }
  return out + "Content-Length: " + std::to_string(body_size) + "\r\n\r\n";
}

}  // namespace heed::cli::serve
