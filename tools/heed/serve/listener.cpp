#include "listener.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace heed::cli::serve {

namespace {

int bound_port_of(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return -1;
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
}

// One address of getaddrinfo's list: a listening socket, or -1 with errno set.
int listen_on(const addrinfo& ai) {
  const int fd = socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0) return -1;
  const int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (ai.ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof yes);
  if (bind(fd, ai.ai_addr, ai.ai_addrlen) != 0 || listen(fd, kListenBacklog) != 0) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

}  // namespace

int open_listener(const std::string& host, int port, int* bound_port, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* list = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &list); rc != 0) {
    *error = "cannot listen on " + host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1, failure = 0;
  for (const addrinfo* ai = list; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = listen_on(*ai);
    if (fd < 0 && failure != EADDRINUSE) failure = errno;
  }
  freeaddrinfo(list);
  if (fd < 0) {
    *error = "cannot listen on " + host + " port " + service + ": " +
             (failure == EADDRINUSE ? std::string("the address is already in use (is another server on port ") +
                                          service + "?)"
                                    : std::string(std::strerror(failure)));
    return -1;
  }
  *bound_port = bound_port_of(fd);
  return fd;
}

bool is_local_address(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    const uint32_t a = ntohl(v4.s_addr);
    return (a >> 24) == 127 || (a >> 16) == 0xa9fe;
  }
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&v6) || IN6_IS_ADDR_LINKLOCAL(&v6);
  }
  return false;
}

}  // namespace heed::cli::serve
