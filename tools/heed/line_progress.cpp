#include "line_progress.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace heed::cli {

namespace {

// Redraws closer together than this only flicker; the last state is drawn by finish() anyway.
constexpr std::chrono::milliseconds kRedrawEvery{200};

// "0:07", "12:34", "1:02:03".
std::string duration_text(double seconds) {
  const auto s = static_cast<unsigned long long>(seconds + 0.5);
  char text[48];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%llu:%02llu", s / 60, s % 60);
  }
  return text;
}

// The bytes of `fd` from its offset to its end when it is a regular file, else 0 (not known).
uint64_t bytes_left(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  const off_t offset = ::lseek(fd, 0, SEEK_CUR);
  if (offset < 0 || offset >= st.st_size) return 0;
  return static_cast<uint64_t>(st.st_size - offset);
}

}  // namespace

std::string progress_text(const std::string& command, size_t lines, double seconds, uint64_t bytes,
                          uint64_t total_bytes, bool final) {
  const double rate = seconds > 0 ? static_cast<double>(lines) / seconds : 0.0;
  char text[160];
  std::snprintf(text, sizeof text, "%s: %zu %s%s%s, %.1f lines/s", command.c_str(), lines,
                lines == 1 ? "line" : "lines", final ? " in " : "", final ? duration_text(seconds).c_str() : "",
                rate);
  std::string line = text;
  if (final || total_bytes == 0) return line;
  const uint64_t done = bytes < total_bytes ? bytes : total_bytes;  // a file that grew: at most all
  std::snprintf(text, sizeof text, ", %d%%", static_cast<int>(done * 100 / total_bytes));
  line += text;
  if (done > 0) {
    const double left = seconds * static_cast<double>(total_bytes - done) / static_cast<double>(done);
    line += ", " + duration_text(left) + " left";
  }
  return line;
}

LineProgress::LineProgress(std::string command, bool enabled)
    : command_(std::move(command)), active_(enabled && ::isatty(STDERR_FILENO) == 1) {}

LineProgress::~LineProgress() { finish(); }

void LineProgress::start(int input_fd) {
  if (::isatty(input_fd) == 1) active_ = false;  // a person typing: each answer, no status line
  if (!active_) return;
  total_bytes_ = bytes_left(input_fd);
  start_ = std::chrono::steady_clock::now();
}

void LineProgress::update(size_t lines, uint64_t bytes) {
  lines_ = lines;
  bytes_ = bytes;
  if (!active_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (shown_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  draw(false);
}

void LineProgress::clear() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", stderr);  // back to the start of the line, erased to its end
  std::fflush(stderr);
  shown_ = false;
}

void LineProgress::finish() {
  if (!active_ || finished_ || lines_ == 0) return;
  draw(true);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  finished_ = true;
  shown_ = false;
}

void LineProgress::draw(bool final) {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  const std::string text = progress_text(command_, lines_, elapsed.count(), bytes_, total_bytes_, final);
  std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace heed::cli
