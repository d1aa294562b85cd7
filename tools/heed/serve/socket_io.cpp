#include "socket_io.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace heed::cli::serve {

namespace {

// poll() for `events` until `deadline`: > 0 ready, 0 timed out, < 0 failed.
int wait_for(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
    if (left <= 0) return 0;
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n != 0) return n;
  }
}

}  // namespace

bool wait_readable(int fd, SteadyClock::time_point deadline) { return wait_for(fd, POLLIN, deadline) > 0; }

Io receive_some(int fd, std::string* out, size_t max, SteadyClock::time_point deadline) {
  for (;;) {
    const int ready = wait_for(fd, POLLIN, deadline);
    if (ready == 0) return Io::kTimedOut;
    if (ready < 0) return Io::kClosed;
    const size_t old = out->size();
    out->resize(old + max);
    const ssize_t n = recv(fd, out->data() + old, max, MSG_DONTWAIT);
    out->resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n > 0) return Io::kOk;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return Io::kClosed;
  }
}

bool send_all(int fd, const char* data, size_t size, SteadyClock::time_point deadline) {
  while (size > 0) {
    if (wait_for(fd, POLLOUT, deadline) <= 0) return false;
    const ssize_t n = send(fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace heed::cli::serve
