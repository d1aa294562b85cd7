#include "atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace heed::convert {

namespace {

// The temporary file of the write under way, for the signal handler (async-signal-safe: it only
// reads this buffer, unlinks and re-raises).
char g_temp_path[PATH_MAX + 1];
volatile sig_atomic_t g_temp_active = 0;

extern "C" void remove_temp_and_reraise(int sig) {
  if (g_temp_active) ::unlink(g_temp_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// While alive: the temporary file is removed if SIGINT, SIGTERM or SIGHUP ends the process.
class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& temp) {
    if (temp.size() > PATH_MAX) return;
    std::memcpy(g_temp_path, temp.c_str(), temp.size() + 1);
    g_temp_active = 1;
    struct sigaction action {};
    action.sa_handler = remove_temp_and_reraise;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) {
      // A signal the process was started ignoring (nohup, a background job's SIGINT) stays ignored.
      ::sigaction(kSignals[i], nullptr, &previous_[i]);
      if (previous_[i].sa_handler != SIG_IGN) ::sigaction(kSignals[i], &action, nullptr);
    }
  }
  ~TempFileGuard() {
    if (!g_temp_active) return;
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
    g_temp_active = 0;
  }
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3] {};
};

Status os_error(const std::string& path, const char* what) {
  return io_error(path + ": cannot " + what + ": " + std::strerror(errno));
}

Status write_all(int fd, const std::string& path, const std::vector<uint8_t>& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error(path, "write");
    done += static_cast<size_t>(n);
  }
  return Status::ok();
}

// A character device (/dev/null, a terminal) is written through, as cp does.
Status write_through(const std::string& path, const std::vector<uint8_t>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return os_error(path, "open");
  Status s = write_all(fd, path, bytes);
  if (::close(fd) != 0 && s.is_ok()) s = os_error(path, "close");
  return s;
}

// Leftovers of this naming in `dir` (a write that SIGKILL ended): ".NAME.tmp-" + 6 characters.
void remove_stale_temporaries(const std::string& dir, const std::string& base) {
  const std::string prefix = "." + base + ".tmp-";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0) {
      ::unlink((dir + "/" + name).c_str());
    }
  }
  ::closedir(d);
}

// Tests pause the write here (HEED_WRITE_TEST_DELAY_MS) to send signals inside the window.
void test_delay() {
  if (const char* ms = std::getenv("HEED_WRITE_TEST_DELAY_MS")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atol(ms)));
  }
}

// `path` names the output in messages; `target` (path, or where its symlink points) is replaced.
Status write_replacing(const std::string& path, const std::string& target, const std::string& dir,
                       const std::string& base, const std::vector<uint8_t>& bytes) {
  remove_stale_temporaries(dir, base);
  std::string temp = (dir == "/" ? "" : dir) + "/." + base + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    const int err = errno;
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return io_error(path + ": cannot write: folder '" + dir + "' does not exist");
    return io_error(path + ": cannot create a file in '" + dir + "': " + std::strerror(err));
  }
  TempFileGuard guard(temp);
  const auto fail = [&](Status s) {
    ::close(fd);
    ::unlink(temp.c_str());
    return s;
  };
  const Status written = write_all(fd, path, bytes);
  if (!written.is_ok()) return fail(written);
  test_delay();
  // mkstemp makes the file private (0600); a model file is meant to be shared like any output.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) return fail(os_error(path, "set permissions"));
  if (::fsync(fd) != 0) return fail(os_error(path, "flush to disk"));
  if (::close(fd) != 0) {
    const Status s = os_error(path, "close");
    ::unlink(temp.c_str());
    return s;
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const Status s = io_error(path + ": cannot rename the temporary file into place: " + std::strerror(errno));
    ::unlink(temp.c_str());
    return s;
  }
  // Make the rename itself durable; failing here does not lose data, so it is not an error.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::ok();
}

// Where the symlink `path` points: its resolved path, or for a link to a file that does not exist
// yet, the link's text (relative to the link's folder).
Status symlink_target(const std::string& path, std::string* target) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) != nullptr) {
    *target = resolved;
    return Status::ok();
  }
  char text[PATH_MAX];
  const ssize_t n = ::readlink(path.c_str(), text, sizeof text - 1);
  if (errno != ENOENT || n <= 0) return io_error(path + ": cannot resolve the symlink: " + std::strerror(errno));
  *target = std::string(text, static_cast<size_t>(n));
  const size_t slash = path.find_last_of('/');
  if ((*target)[0] != '/' && slash != std::string::npos) *target = path.substr(0, slash + 1) + *target;
  return Status::ok();
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::string target = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    HEED_RETURN_IF_ERROR(symlink_target(path, &target));
  }
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode)) return write_through(target, bytes);
    if (!S_ISREG(st.st_mode)) return io_error(path + ": exists and is not a regular file (refusing to replace it)");
  }
  const size_t slash = target.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  if (base.empty()) return io_error(path + ": not a file name");
  return write_replacing(path, target, dir, base, bytes);
}

}  // namespace heed::convert
