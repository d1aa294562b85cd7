// A one-line progress bar on stderr for `heed convert`'s stages (the converter reports them through
// ConvertOptions::progress). Drawn only when stderr is a terminal, so logs and pipes stay clean.
#pragma once

#include <cstddef>
#include <string>

namespace heed::cli {

class ProgressBar {
 public:
  // enabled: draw at all (callers pass false for --quiet); it is also off when stderr is no tty.
  explicit ProgressBar(std::string label, bool enabled = true);
  ~ProgressBar();  // finishes the line if something was drawn

  void update(size_t done, size_t total);
  void finish();
  bool active() const { return active_; }

 private:
  std::string label_;
  bool active_ = false;
  bool drawn_ = false;
  int last_permille_ = -1;
};

}  // namespace heed::cli
