// StopStrings (heed/generator.h): text-level stop strings over streamed pieces.
#include <algorithm>

#include "heed/generator.h"

namespace heed {

StopStrings::StopStrings(std::vector<std::string> stops) {
  for (std::string& s : stops) {
    if (!s.empty()) stops_.push_back(std::move(s));  // an empty stop string would stop at once
  }
}

bool StopStrings::feed(std::string_view piece, std::string* ready) {
  pending_.append(piece.data(), piece.size());
  if (stops_.empty()) {
    ready->append(pending_);
    pending_.clear();
    return false;
  }
  // The earliest complete stop string ends the text.
  size_t first = std::string::npos;
  for (const std::string& s : stops_) first = std::min(first, pending_.find(s));
  if (first != std::string::npos) {
    ready->append(pending_, 0, first);
    pending_.clear();
    return true;
  }
  // Hold back the longest end of the text that may still grow into a stop string.
  size_t keep = 0;
  for (const std::string& s : stops_) {
    for (size_t n = std::min(s.size() - 1, pending_.size()); n > keep; --n) {
      if (pending_.compare(pending_.size() - n, n, s, 0, n) == 0) {
        keep = n;
        break;
      }
    }
  }
  ready->append(pending_, 0, pending_.size() - keep);
  pending_.erase(0, pending_.size() - keep);
  return false;
}

void StopStrings::flush(std::string* ready) {
  ready->append(pending_);
  pending_.clear();
}

}  // namespace heed
