#include "api_keys.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "source_files.h"

namespace heed::cli::serve {

namespace {
constexpr uint64_t kMaxKeysFileBytes = uint64_t{1} << 20;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  const size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (size_t i = 0; i < n; ++i) {
    const unsigned x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0u;
    const unsigned y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0u;
    diff |= x ^ y;
  }
  return diff == 0;
}

Status ApiKeys::read_file(const std::string& path, std::vector<std::string>* keys) {
  std::string text;
  HEED_RETURN_IF_ERROR(convert::read_text(path, &text, kMaxKeysFileBytes));
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    keys->push_back(line);
  }
  if (keys->empty()) return Status(StatusCode::kInvalidArgument, path + ": no API key in the file");
  return Status::success();
}

// Every key is compared (no early exit), so the time does not tell which key came close.
bool ApiKeys::accepts(std::string_view key) const {
  bool found = false;
  for (const std::string& k : keys_) found |= constant_time_equal(key, k);
  return found;
}

}  // namespace heed::cli::serve
