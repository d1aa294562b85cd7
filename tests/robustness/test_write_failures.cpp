// Converter output that cannot be written: a full disk (a file-size limit everywhere, a real full
// tmpfs where the test may mount one) and read-only locations. Each gives one io_error line naming
// the path, keeps any previous file, and leaves no temporary file behind.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "child_process.h"
#include "heed_writer.h"
#include "sample_model.h"
#include "test_paths.h"

namespace heed::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7);
  return bytes;
}

// In the child: files may grow to `limit` bytes, and exceeding it makes write() fail with EFBIG
// instead of killing the process (what a full disk looks like to the writer, minus the errno).
Status with_file_size_limit(rlim_t limit, const std::function<Status()>& body) {
  return run_in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit rl = {limit, limit};
    if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) return Status(StatusCode::kInternal, "setrlimit failed");
    return body();
  });
}

// A tmpfs mounted for the test and unmounted when it ends; mounted() is false where the test may not
// mount (not root, or no CAP_SYS_ADMIN in a container).
class TmpfsMount {
 public:
  TmpfsMount(const std::string& dir, const char* options, unsigned long flags = 0) : dir_(dir) {
    fs::create_directories(dir);
    mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", flags, options) == 0;
    error_ = errno;
  }
  ~TmpfsMount() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  std::string why_not() const { return std::strerror(error_); }

 private:
  std::string dir_;
  bool mounted_ = false;
  int error_ = 0;
};

}  // namespace

TEST_CASE("a full disk (file size limit): write error, old file kept, no temporary file", "[robustness][write]") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/model.heed";
  std::ofstream(path) << "old model";
  const std::vector<uint8_t> bytes = pattern(256 * 1024);

  const Status s = with_file_size_limit(64 * 1024, [&] { return convert::write_file_atomically(path, bytes); });
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == path + ": cannot write: " + std::strerror(EFBIG));
  CHECK(read_text(path) == "old model");
  CHECK(files_in(dir) == std::vector<std::string>{"model.heed"});
}

TEST_CASE("a full disk while writing a whole model: nothing is left where the model should be", "[robustness][write]") {
  const std::string dir = temp_dir();
  const std::string path = dir + "/sample.heed";
  const convert::NeutralModel model = make_sample_model();
  std::vector<uint8_t> bytes;
  REQUIRE(convert::serialize_heed(model, &bytes).is_ok());
  REQUIRE(bytes.size() > 1024);

  // Limits below the file size, including one that cuts the FlatBuffer index itself.
  for (rlim_t limit : {rlim_t{512}, static_cast<rlim_t>(bytes.size() / 2), static_cast<rlim_t>(bytes.size() - 1)}) {
    INFO("limit " << limit << " of " << bytes.size() << " bytes");
    const Status s = with_file_size_limit(limit, [&] { return convert::write_heed(model, path); });
    CHECK(s.code() == StatusCode::kIoError);
    CHECK(s.message().rfind(path + ": cannot write: ", 0) == 0);
    CHECK(s.message().find('\n') == std::string::npos);
    CHECK(files_in(dir).empty());
  }
  // With room for exactly the file it succeeds, so the limit above was what failed.
  const Status s = with_file_size_limit(bytes.size(), [&] { return convert::write_heed(model, path); });
  CHECK(s.is_ok());
  CHECK(fs::file_size(path) == bytes.size());
}

TEST_CASE("a real full file system (a 64 KiB tmpfs)", "[robustness][write]") {
  const std::string dir = temp_dir() + "/small-disk";
  TmpfsMount disk(dir, "size=64k,mode=0755");
  if (!disk.mounted()) {
    WARN("cannot mount a tmpfs here (" << disk.why_not() << "); the file-size-limit tests cover this case");
    return;
  }
  const std::string path = dir + "/model.heed";
  REQUIRE(convert::write_file_atomically(path, pattern(1000)).is_ok());

  const Status s = convert::write_file_atomically(path, pattern(1 << 20));
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == path + ": cannot write: " + std::strerror(ENOSPC));
  CHECK(files_in(dir) == std::vector<std::string>{"model.heed"});
  CHECK(fs::file_size(path) == 1000);
  // The space of the removed temporary file is free again: a file that fits still fits.
  CHECK(convert::write_file_atomically(path, pattern(48 * 1024)).is_ok());
}

TEST_CASE("read-only locations give one error line and no file", "[robustness][write]") {
  const std::vector<uint8_t> bytes = pattern(4096);
  // /proc accepts no new files, for root too.
  {
    const std::string path = "/proc/heed-robustness-test.heed";
    const Status s = convert::write_file_atomically(path, bytes);
    CHECK(s.code() == StatusCode::kIoError);
    CHECK(s.message().rfind(path + ": cannot create a file in '/proc': ", 0) == 0);
    CHECK(s.message().find('\n') == std::string::npos);
    CHECK(!fs::exists(path));
  }
  // A file system mounted read-only: EROFS even for root.
  const std::string dir = temp_dir() + "/read-only";
  TmpfsMount ro(dir, "size=64k", MS_RDONLY);
  if (!ro.mounted()) {
    WARN("cannot mount a read-only tmpfs here (" << ro.why_not() << ")");
    return;
  }
  const std::string path = dir + "/model.heed";
  const Status s = convert::write_file_atomically(path, bytes);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == path + ": cannot create a file in '" + dir + "': " + std::strerror(EROFS));
  CHECK(files_in(dir).empty());
}

}  // namespace heed::test
