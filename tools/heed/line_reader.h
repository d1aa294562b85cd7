// Lines of a file descriptor, read through heed's own buffer so the caller can ask whether the next
// line is already here. `heed translate` reads ahead to batch sentences of similar length, but
// translates what it holds as soon as the next line would have to be waited for: a person typing
// at a terminal, or a program feeding a pipe line by line, gets each answer without sending more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace heed::cli {

class LineReader {
 public:
  // Lines longer than `max_line_bytes` are not kept (see too_long()), so one huge line cannot
  // take the memory of the machine.
  explicit LineReader(int fd, size_t max_line_bytes = static_cast<size_t>(-1))
      : fd_(fd), max_line_bytes_(max_line_bytes) {}

  // The next line without its '\n' (a last line without one counts too). false at the end of the
  // input or on a read error (error() then says which). A line over the limit comes back empty
  // with too_long() true; its bytes were read and dropped.
  bool next(std::string* line);
  bool too_long() const { return too_long_; }

  // True when next() returns without waiting: a whole line is buffered, the input has ended, or the
  // descriptor has bytes (or its end) to read right now.
  bool ready();

  // Bytes of the input the lines returned so far took, their '\n' included (progress through a
  // file: line_progress.h).
  uint64_t consumed() const { return consumed_; }

  // The read error that ended the input, empty if it ended normally.
  const std::string& error() const { return error_; }

 private:
  bool fill();  // one read(2) into the buffer; false at the end of the input

  // Drops the line under way up to its '\n' (or the end of the input).
  void skip_line();

  int fd_;
  size_t max_line_bytes_;
  bool too_long_ = false;
  std::string buffer_;  // bytes read and not yet returned start at buffer_[pos_]
  size_t pos_ = 0;
  uint64_t consumed_ = 0;
  bool ended_ = false;
  std::string error_;
};

}  // namespace heed::cli
