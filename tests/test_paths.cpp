#include "test_paths.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace heed::test {
namespace fs = std::filesystem;

std::string shared_path(const std::string& relative) {
  const char* env = std::getenv("HEED_SHARED_DIR");
  fs::path root = env && *env ? fs::path(env) : fs::path(HEED_SHARED_DIR);
  fs::path p = root / relative;
  if (!fs::exists(p)) {
    FAIL("missing test input " << p.string()
         << ": these tests need the shared models and data folder beside the project (../shared),"
            " or HEED_SHARED_DIR pointing at it");
  }
  return p.string();
}

std::string source_path(const std::string& relative) {
  return (fs::path(HEED_SOURCE_DIR) / relative).string();
}

namespace {
struct TempRoot {
  fs::path path;
  TempRoot() {
    std::string tmpl = (fs::temp_directory_path() / "heed-test-XXXXXX").string();
    if (char* made = ::mkdtemp(tmpl.data())) path = made;
  }
  ~TempRoot() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};
}  // namespace

std::string temp_dir() {
  static TempRoot root;
  static int counter = 0;
  fs::path p = root.path / std::to_string(counter++);
  fs::create_directories(p);
  return p.string();
}

}  // namespace heed::test
