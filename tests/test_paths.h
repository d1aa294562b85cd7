// Where tests find their inputs: ../shared (real models and data, never committed) and the
// project's own source tree (committed fixtures). A missing ../shared fails the test loudly.
#pragma once

#include <string>

namespace heed::test {

// Path of `relative` under ../shared (HEED_SHARED_DIR overrides it). FAILs the current test with a
// clear message when the file is missing, so CI never skips silently.
std::string shared_path(const std::string& relative);
// Path of `relative` in the source tree.
std::string source_path(const std::string& relative);
// A fresh, empty temporary folder for this test program (removed at exit).
std::string temp_dir();

}  // namespace heed::test
