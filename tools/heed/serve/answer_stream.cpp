#include "answer_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "socket_io.h"

namespace heed::cli::serve {

namespace {

void address_of(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

}  // namespace

// Writable, and the peer has not gone: a streamed completion stops when its client leaves.
bool AnswerStream::is_writable() const {
  pollfd p{fd_, POLLOUT, 0};
  const int n = poll(&p, 1, static_cast<int>(write_timeout_.count()));
  return n > 0 && (p.revents & (POLLERR | POLLHUP)) == 0;
}

ssize_t AnswerStream::read(char* ptr, size_t size) {
  const size_t n = std::min(size, request_.size() - read_);
  std::memcpy(ptr, request_.data() + read_, n);
  read_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t AnswerStream::write(const char* ptr, size_t size) {
  return send_all(fd_, ptr, size, SteadyClock::now() + write_timeout_) ? static_cast<ssize_t>(size) : -1;
}

void AnswerStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) address_of(a, ip, port);
}

void AnswerStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) address_of(a, ip, port);
}

}  // namespace heed::cli::serve
