#include "client_watch.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace heed::cli::serve {

namespace {

// The port of a socket address, and its address as text (inet_ntop, as httplib writes remote_addr).
int port_of(const sockaddr_storage& a, std::string* address) {
  char text[INET6_ADDRSTRLEN] = {};
  int port = -1;
  if (a.ss_family == AF_INET) {
    const auto* p = reinterpret_cast<const sockaddr_in*>(&a);
    port = ntohs(p->sin_port);
    inet_ntop(AF_INET, &p->sin_addr, text, sizeof text);
  } else if (a.ss_family == AF_INET6) {
    const auto* p = reinterpret_cast<const sockaddr_in6*>(&a);
    port = ntohs(p->sin6_port);
    inet_ntop(AF_INET6, &p->sin6_addr, text, sizeof text);
  }
  if (address != nullptr) *address = text;
  return port;
}

// The connection `req` arrived on: the socket with its peer and local port. httplib keeps it open
// until the handler returns, so the descriptor cannot be reused while the watch lives. -1: none.
int find_socket(const httplib::Request& req) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const int fd = std::atoi(entry->d_name);
    sockaddr_storage local{}, peer{};
    socklen_t local_len = sizeof local, peer_len = sizeof peer;
    if (fd == dirfd(dir) || getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) {
      continue;
    }
    std::string address;
    if (port_of(local, nullptr) == req.local_port && port_of(peer, &address) == req.remote_port &&
        address == req.remote_addr) {
      found = fd;
      break;
    }
  }
  closedir(dir);
  return found;
}

}  // namespace

ClientWatch::ClientWatch(const httplib::Request& req) {
  const int socket = find_socket(req);
  wake_ = eventfd(0, EFD_CLOEXEC);
  if (socket < 0 || wake_ < 0) return;  // not watched: the request runs to its end or deadline
  thread_ = std::thread([this, socket] { run(socket); });
}

ClientWatch::~ClientWatch() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    (void)!write(wake_, &one, sizeof one);
    thread_.join();
  }
  if (wake_ >= 0) close(wake_);
}

// Waits for the peer to close (POLLRDHUP: its end of the stream; POLLHUP, POLLERR: the
// connection) or for the destructor. POLLIN is not asked for: a pipelined next request is data
// for httplib, not a reason to wake.
void ClientWatch::run(int socket) {
  pollfd fds[2] = {{socket, POLLRDHUP, 0}, {wake_, POLLIN, 0}};
  int ready = 0;
  do {
    ready = poll(fds, 2, -1);
  } while (ready < 0 && errno == EINTR);
  if (ready > 0 && fds[0].revents != 0) gone_.store(true);
}

}  // namespace heed::cli::serve
