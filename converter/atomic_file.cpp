#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "temporary_file.h"

namespace heed::convert {

namespace {

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
  return Status::success();
}

// A character device (/dev/null, a terminal) is written through, as cp does.
Status write_through(const std::string& path, const std::vector<uint8_t>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return os_error(path, "open");
  Status s = write_all(fd, path, bytes);
  if (::close(fd) != 0 && s.is_ok()) s = os_error(path, "close");
  return s;
}

// Tests pause the write here (HEED_WRITE_TEST_DELAY_MS) to send signals inside the window.
void test_delay() {
  if (const char* ms = std::getenv("HEED_WRITE_TEST_DELAY_MS")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atol(ms)));
  }
}

// `path` names the output in messages; `target` (path, or where its symlinks lead) is replaced.
Status write_replacing(const std::string& path, const std::string& target, const std::string& dir,
                       const std::string& base, const std::vector<uint8_t>& bytes) {
  TemporaryFile temp;
  HEED_RETURN_IF_ERROR(temp.create(dir, base, path));
  HEED_RETURN_IF_ERROR(write_all(temp.fd(), path, bytes));
  test_delay();
  // mkstemp makes the file private (0600); a model file is meant to be shared like any output.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(temp.fd(), 0666 & ~mask) != 0) return os_error(path, "set permissions");
  if (::fsync(temp.fd()) != 0) return os_error(path, "flush to disk");
  HEED_RETURN_IF_ERROR(temp.close(path));
  HEED_RETURN_IF_ERROR(temp.rename_to(target, path));
  // Make the rename itself durable; failing here does not lose data, so it is not an error.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::success();
}

// Where the symlink `path` finally leads, following every link of a chain (also one that ends at a
// name that does not exist yet: the file is created there). Relative link texts are taken from the
// link's own folder, as the kernel does. The result is not a symlink, so renaming onto it replaces
// the file and keeps every link.
Status resolve_symlinks(const std::string& path, std::string* target) {
  *target = path;
  for (int hops = 0; hops < 40; ++hops) {  // 40: Linux's own limit (ELOOP)
    struct stat st {};
    if (::lstat(target->c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return Status::success();
    char text[PATH_MAX];
    const ssize_t n = ::readlink(target->c_str(), text, sizeof text - 1);
    if (n <= 0) return io_error(path + ": cannot read the symlink: " + std::strerror(errno));
    const std::string link(text, static_cast<size_t>(n));
    const size_t slash = target->find_last_of('/');
    *target = link[0] == '/' || slash == std::string::npos ? link : target->substr(0, slash + 1) + link;
  }
  return io_error(path + ": too many levels of symbolic links");
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::string target;
  HEED_RETURN_IF_ERROR(resolve_symlinks(path, &target));
  struct stat st {};
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
