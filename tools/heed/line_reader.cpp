#include "line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace heed::cli {

bool LineReader::fill() {
  if (ended_) return false;
  if (pos_ > 0 && pos_ * 2 >= buffer_.size()) {  // drop what was returned before it piles up
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  char chunk[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error_ = std::strerror(errno);
    ended_ = true;
    return false;
  }
}

void LineReader::skip_line() {
  for (;;) {
    const size_t end = buffer_.find('\n', pos_);
    if (end != std::string::npos) {
      consumed_ += end + 1 - pos_;
      pos_ = end + 1;
      return;
    }
    consumed_ += buffer_.size() - pos_;
    pos_ = buffer_.size();
    if (!fill()) return;
  }
}

bool LineReader::next(std::string* line) {
  too_long_ = false;
  size_t scanned = 0;  // bytes after pos_ known to hold no '\n' (a long line is searched once)
  for (;;) {
    const size_t end = buffer_.find('\n', pos_ + scanned);
    if (end != std::string::npos) {
      too_long_ = end - pos_ > max_line_bytes_;
      if (too_long_) {
        line->clear();
      } else {
        line->assign(buffer_, pos_, end - pos_);
      }
      consumed_ += end + 1 - pos_;
      pos_ = end + 1;
      return true;
    }
    scanned = buffer_.size() - pos_;  // fill() may move the unread bytes to the front, not past pos_
    if (scanned > max_line_bytes_) {
      skip_line();
      line->clear();
      too_long_ = true;
      return true;
    }
    if (!fill()) {
      if (pos_ >= buffer_.size() || !error_.empty()) return false;
      too_long_ = buffer_.size() - pos_ > max_line_bytes_;
      if (too_long_) {
        line->clear();
      } else {
        line->assign(buffer_, pos_, std::string::npos);  // the last line has no '\n'
      }
      consumed_ += buffer_.size() - pos_;
      pos_ = buffer_.size();
      return true;
    }
  }
}

bool LineReader::ready() {
  if (ended_ || buffer_.find('\n', pos_) != std::string::npos) return true;
  pollfd p{fd_, POLLIN, 0};
  int r;
  do {
    r = ::poll(&p, 1, 0);
  } while (r < 0 && errno == EINTR);
  // Readable, closed or failed: next() will not wait. A partly typed line counts as ready too;
  // next() then waits for its end, which the person is about to type.
  return r != 0;
}

}  // namespace heed::cli
