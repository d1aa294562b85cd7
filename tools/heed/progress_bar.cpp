#include "progress_bar.h"

#include <cstdio>
#include <string>
#include <unistd.h>

namespace heed::cli {

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), active_(enabled && ::isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(size_t done, size_t total) {
  if (!active_ || total == 0) return;
  if (done > total) done = total;
  const int permille = static_cast<int>(done * 1000 / total);
  if (permille == last_permille_) return;  // redraw only on visible change
  last_permille_ = permille;
  constexpr int kWidth = 30;
  const int filled = permille * kWidth / 1000;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r%s [%s] %3d%% (%zu/%zu)", label_.c_str(), bar.c_str(), permille / 10, done, total);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) {
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  drawn_ = false;
  last_permille_ = -1;
}

}  // namespace heed::cli
