// Output paths that are not plain files (converter/atomic_file.h, the one writer behind
// `heed convert -o` and `translate --attention/--attention-json`): character devices are written
// through, symlinks (chains, dangling ones) are followed and stay links, every other kind of file
// is refused with one line and left as it was; temporary files of an interrupted write are removed
// by signals and by the next write, but never one a write under way holds.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "atomic_file.h"
#include "temporary_file.h"
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

std::vector<uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

void check_one_line_refusal(const Status& s, const std::string& path) {
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message().rfind(path + ": ", 0) == 0);
  CHECK(s.message().find('\n') == std::string::npos);
}

// A Unix socket bound at `path` (closed at once: the socket file stays).
void make_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  ::close(fd);
}

TEST_CASE("a character device is written through and stays a device", "[robustness][output]") {
  REQUIRE(convert::write_file_atomically("/dev/null", bytes_of("model")).is_ok());
  struct stat st {};
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  // Through a symlink too (what `-o /dev/stdout` is).
  const std::string link = temp_dir() + "/null-link";
  fs::create_symlink("/dev/null", link);
  REQUIRE(convert::write_file_atomically(link, bytes_of("model")).is_ok());
  CHECK(fs::is_symlink(link));
}

TEST_CASE("symlinks are followed to the file they lead to, and stay links", "[robustness][output]") {
  const std::string dir = temp_dir();
  fs::create_directories(dir + "/a/b");
  SECTION("a relative link into another folder, over an existing file") {
    std::ofstream(dir + "/a/b/real.heed") << "old";
    fs::create_symlink("a/b/real.heed", dir + "/link.heed");
    REQUIRE(convert::write_file_atomically(dir + "/link.heed", bytes_of("new")).is_ok());
    CHECK(fs::is_symlink(dir + "/link.heed"));
    CHECK(read_text(dir + "/a/b/real.heed") == "new");
    CHECK(files_in(dir + "/a/b") == std::vector<std::string>{"real.heed"});
  }
  SECTION("a chain ending at a name that does not exist yet") {
    fs::create_symlink("b/second", dir + "/a/first");
    fs::create_symlink("../../final.heed", dir + "/a/b/second");  // dir/final.heed
    fs::create_symlink("a/first", dir + "/link.heed");
    REQUIRE(convert::write_file_atomically(dir + "/link.heed", bytes_of("made")).is_ok());
    CHECK(fs::is_symlink(dir + "/link.heed"));
    CHECK(fs::is_symlink(dir + "/a/first"));
    CHECK(fs::is_symlink(dir + "/a/b/second"));
    CHECK(read_text(dir + "/final.heed") == "made");
    CHECK(!fs::is_symlink(dir + "/final.heed"));
  }
  SECTION("a loop is refused with one line") {
    fs::create_symlink("loop2", dir + "/loop1");
    fs::create_symlink("loop1", dir + "/loop2");
    check_one_line_refusal(convert::write_file_atomically(dir + "/loop1", bytes_of("x")), dir + "/loop1");
    CHECK(fs::is_symlink(dir + "/loop1"));
  }
}

TEST_CASE("other kinds of file are refused with one line and left as they were", "[robustness][output]") {
  const std::string dir = temp_dir();
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  make_socket(dir + "/socket");
  fs::create_directories(dir + "/folder");
  fs::create_symlink("fifo", dir + "/fifo-link");
  for (const char* name : {"fifo", "socket", "folder", "fifo-link"}) {
    INFO(name);
    const std::string path = dir + "/" + name;
    const Status s = convert::write_file_atomically(path, bytes_of("x"));
    check_one_line_refusal(s, path);
    CHECK(s.message().find("not a regular file") != std::string::npos);
  }
  CHECK(fs::is_fifo(dir + "/fifo"));
  CHECK(fs::is_socket(dir + "/socket"));
  CHECK(fs::is_directory(dir + "/folder"));
  CHECK(fs::is_symlink(dir + "/fifo-link"));
  CHECK(files_in(dir) == std::vector<std::string>{"fifo", "fifo-link", "folder", "socket"});
}

TEST_CASE("leftover temporary files: removed unless a write under way holds them", "[robustness][output]") {
  const std::string dir = temp_dir();
  for (const char* name : {".m.heed.tmp-AAAAAA", ".m.heed.tmp-BBBBBB", ".m.heed.tmp-long-name", ".other.tmp-CCCCCC"}) {
    std::ofstream(dir + "/" + name) << "partial";
  }
  // A concurrent write's file: locked as TemporaryFile locks its own.
  const int held = ::open((dir + "/.m.heed.tmp-BBBBBB").c_str(), O_RDONLY);
  REQUIRE(held >= 0);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  REQUIRE(convert::write_file_atomically(dir + "/m.heed", bytes_of("model")).is_ok());
  ::close(held);
  CHECK(files_in(dir) == std::vector<std::string>{".m.heed.tmp-BBBBBB", ".m.heed.tmp-long-name", ".other.tmp-CCCCCC",
                                                  "m.heed"});
  CHECK(read_text(dir + "/m.heed") == "model");
  // Unlocked now: the next write removes it.
  REQUIRE(convert::write_file_atomically(dir + "/m.heed", bytes_of("again")).is_ok());
  CHECK(files_in(dir) == std::vector<std::string>{".m.heed.tmp-long-name", ".other.tmp-CCCCCC", "m.heed"});
}

// Waits (up to 10 s) until `dir` holds a file whose name contains ".tmp-".
bool temporary_appears(const std::string& dir) {
  for (int i = 0; i < 1000; ++i) {
    for (const auto& name : files_in(dir)) {
      if (name.find(".tmp-") != std::string::npos) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST_CASE("SIGINT, SIGTERM and SIGHUP in the write window leave no temporary file", "[robustness][output]") {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    INFO("signal " << sig);
    const std::string dir = temp_dir();
    std::ofstream(dir + "/m.heed") << "old";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::signal(sig, SIG_DFL);  // as a process started from a shell in the foreground has it
      ::setenv("HEED_WRITE_TEST_DELAY_MS", "20000", 1);
      // The signal ends this process inside the write; reaching the exit means it did not.
      const Status written = convert::write_file_atomically(dir + "/m.heed", std::vector<uint8_t>(1 << 20, 7));
      ::_exit(written.ok() ? 3 : 4);
    }
    const bool appeared = temporary_appears(dir);
    ::kill(child, sig);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(appeared);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);  // the process still ends as the signal meant
    CHECK(files_in(dir) == std::vector<std::string>{"m.heed"});
    CHECK(read_text(dir + "/m.heed") == "old");
  }
}

}  // namespace
}  // namespace heed::test
