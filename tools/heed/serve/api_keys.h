// The API keys `heed serve` accepts (--api-key KEY, --api-keys FILE). A key is compared with every
// configured key in time that does not depend on where they differ, so response times do not let
// a client guess a key byte by byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "heed/status.h"

namespace heed::cli::serve {

class ApiKeys {
 public:
  ApiKeys() = default;
  explicit ApiKeys(std::vector<std::string> keys) : keys_(std::move(keys)) {}
  // One key a line; empty lines and lines starting with '#' are skipped. An empty list is an error
  // (a server meant to need keys would otherwise answer everyone).
  static Status read_file(const std::string& path, std::vector<std::string>* keys);

  bool required() const { return !keys_.empty(); }
  bool accepts(std::string_view key) const;

 private:
  std::vector<std::string> keys_;
};

// Whether a and b are equal, in time that depends on their lengths only.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace heed::cli::serve
