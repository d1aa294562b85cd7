#include "ct2/one_line.h"

namespace heed::convert::ct2 {

std::string one_line(std::string_view text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() < kMaxMessageBytes ? text.size() : kMaxMessageBytes);
  for (unsigned char c : text) {
    if (out.size() >= kMaxMessageBytes) {
      out += "...";
      break;
    }
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Status one_line(const Status& status) {
  if (status.is_ok()) return status;
  return Status(status.code(), one_line(status.message()));
}

}  // namespace heed::convert::ct2
