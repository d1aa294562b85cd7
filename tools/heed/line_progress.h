// Progress of a command that works through many input lines while a person waits (`heed
// translate`, `generate`, `embed`, `classify`, `fill-mask` reading stdin): one line on stderr,
// redrawn in place, with the lines done and lines per second and, when the input is a regular
// file, the share of its bytes done and an estimate of the time left. A last line with the totals
// stays when the command ends.
//
// Drawn only when stderr is a terminal and stdin is not: logs and pipes get nothing, and a person
// typing lines sees each answer without a status line in between. --no-progress turns it off.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace heed::cli {

class LineProgress {
 public:
  // `command` names the line ("heed translate: ..."); enabled false: never draw (--no-progress).
  LineProgress(std::string command, bool enabled);
  ~LineProgress();  // finish()
  LineProgress(const LineProgress&) = delete;
  LineProgress& operator=(const LineProgress&) = delete;

  // Starts the clock and reads how much of `input_fd` is left when it is a regular file.
  void start(int input_fd);
  // After a batch of output: `lines` done so far, which took `bytes` of the input. Redraws at most
  // a few times a second.
  void update(size_t lines, uint64_t bytes);
  // Erases the line, so other text written to the terminal (output, warnings) starts clean; the
  // next update() draws it again.
  void clear();
  // Draws the totals on a line of their own (once; nothing when nothing was done).
  void finish();

  bool active() const { return active_; }

 private:
  void draw(bool final);

  std::string command_;
  bool active_ = false;
  bool shown_ = false;     // the line is on the terminal now
  bool finished_ = false;
  uint64_t total_bytes_ = 0;  // 0: unknown (a pipe)
  size_t lines_ = 0;
  uint64_t bytes_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// The line drawn: "COMMAND: 120 lines, 35.2 lines/s, 45%, 0:31 left". `seconds` is the time since
// start(); `total_bytes` 0 leaves out the share and the time left, as does `final` (the totals).
std::string progress_text(const std::string& command, size_t lines, double seconds, uint64_t bytes,
                          uint64_t total_bytes, bool final);

}  // namespace heed::cli
