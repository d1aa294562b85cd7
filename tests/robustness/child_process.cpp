#include "child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace heed::test {

namespace {

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

Status run_in_child(const std::function<Status()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return Status(StatusCode::kInternal, "pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) return Status(StatusCode::kInternal, "fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    const Status s = body();
    const int32_t code = static_cast<int32_t>(s.code());
    const uint32_t length = static_cast<uint32_t>(s.message().size());
    const bool ok = write_all(fds[1], &code, 4) && write_all(fds[1], &length, 4) &&
                    write_all(fds[1], s.message().data(), length);
    ::_exit(ok ? 0 : 3);  // no atexit handlers: they belong to the parent's test run
  }
  ::close(fds[1]);
  std::string data;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n <= 0) break;
    data.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || data.size() < 8) {
    return Status(StatusCode::kInternal, "the child process died (wait status " + std::to_string(wstatus) + ")");
  }
  int32_t code = 0;
  uint32_t length = 0;
  std::memcpy(&code, data.data(), 4);
  std::memcpy(&length, data.data() + 4, 4);
  if (data.size() != 8 + size_t{length}) return Status(StatusCode::kInternal, "truncated report from the child");
  return Status(static_cast<StatusCode>(code), data.substr(8));
}

}  // namespace heed::test
