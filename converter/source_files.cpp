#include "source_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace heed::convert {

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

namespace {

Status os_error(const std::string& path, const char* what) {
  return io_error("cannot " + std::string(what) + " '" + path + "': " + std::strerror(errno));
}

// Opens `path` for reading without blocking (a FIFO would block in open()) and checks that it is
// a regular file within the cap; returns its size.
Status open_checked(const std::string& path, uint64_t max_bytes, int* fd, uint64_t* size) {
  *fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) return os_error(path, "open");
  struct stat st {};
  if (::fstat(*fd, &st) != 0) return os_error(path, "inspect");
  if (!S_ISREG(st.st_mode)) return invalid_argument("'" + path + "' is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return invalid_argument("'" + path + "' has " + std::to_string(st.st_size) + " bytes, more than the " +
                            std::to_string(max_bytes) + " this kind of file may have");
  }
  *size = static_cast<uint64_t>(st.st_size);
  return Status::success();
}

Status read_all(int fd, const std::string& path, uint64_t size, uint8_t* dst) {
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, dst + done, static_cast<size_t>(size - done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error(path, "read");
    if (n == 0) return io_error("'" + path + "' shrank while it was read");
    done += static_cast<uint64_t>(n);
  }
  return Status::success();
}

// Opens, checks and reads `path` into out (any byte container).
template <typename Container>
Status read_checked(const std::string& path, uint64_t max_bytes, Container* out) {
  int fd = -1;
  uint64_t size = 0;
  Status s = open_checked(path, max_bytes, &fd, &size);
  if (s.is_ok()) {
    out->resize(static_cast<size_t>(size));
    s = read_all(fd, path, size, reinterpret_cast<uint8_t*>(out->data()));
  }
  if (fd >= 0) ::close(fd);
  return s;
}

}  // namespace

Status read_bytes(const std::string& path, std::vector<uint8_t>* out, uint64_t max_bytes) {
  return read_checked(path, max_bytes, out);
}

Status read_text(const std::string& path, std::string* out, uint64_t max_bytes) {
  return read_checked(path, max_bytes, out);
}

Status read_nonempty_bytes(const std::string& path, std::vector<uint8_t>* out) {
  HEED_RETURN_IF_ERROR(read_bytes(path, out));
  if (out->empty()) return invalid_file(path + ": empty file");
  return Status::success();
}

}  // namespace heed::convert
