#include "connection_watchdog.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <iterator>

#include "http_json.h"
#include "request_log.h"

namespace heed::cli::serve {

namespace {

// "address port" of the peer of `fd` when it is a connection accepted on `port`; empty otherwise.
std::string peer_of(int fd, int port) {
  sockaddr_storage local{}, peer{};
  socklen_t local_len = sizeof local, peer_len = sizeof peer;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0) return "";
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) return "";
  char address[INET6_ADDRSTRLEN] = {};
  int local_port = 0, peer_port = 0;
  if (local.ss_family == AF_INET) {
    local_port = ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    const auto* p = reinterpret_cast<sockaddr_in*>(&peer);
    peer_port = ntohs(p->sin_port);
    inet_ntop(AF_INET, &p->sin_addr, address, sizeof address);
  } else if (local.ss_family == AF_INET6) {
    local_port = ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
    const auto* p = reinterpret_cast<sockaddr_in6*>(&peer);
    peer_port = ntohs(p->sin6_port);
    inet_ntop(AF_INET6, &p->sin6_addr, address, sizeof address);
  }
  if (local_port != port) return "";
  return std::string(address) + " " + std::to_string(peer_port);
}

}  // namespace

ConnectionWatchdog::ConnectionWatchdog(int port, std::chrono::milliseconds limit)
    : port_(port), limit_(limit), thread_([this] { run(); }) {}

ConnectionWatchdog::~ConnectionWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ConnectionWatchdog::answering(const std::string& address, int port) {
  std::lock_guard<std::mutex> lock(mutex_);
  Connection& c = connections_[address + " " + std::to_string(port)];
  c.answering = true;
}

void ConnectionWatchdog::reading(const std::string& address, int port) {
  std::lock_guard<std::mutex> lock(mutex_);
  Connection& c = connections_[address + " " + std::to_string(port)];
  c.answering = false;
  c.since = std::chrono::steady_clock::now();
}

void ConnectionWatchdog::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(200));
    if (!stop_) scan();
  }
}

// Called with the mutex held. Every open file of the process is looked at: connections seen for
// the first time start their clock now (they were accepted within the last scan).
void ConnectionWatchdog::scan() {
  const auto now = std::chrono::steady_clock::now();
  for (auto& [key, c] : connections_) c.seen = false;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (entry->d_name[0] == '.' || fd == dirfd(dir)) continue;
    const std::string key = peer_of(fd, port_);
    if (key.empty()) continue;
    auto [it, added] = connections_.try_emplace(key, Connection{now});
    it->second.seen = true;
    if (!it->second.answering && now - it->second.since > limit_) {
      shutdown(fd, SHUT_RDWR);  // httplib's read fails and it closes the connection
      write_log(dump(json{{"event", "request read timed out"}, {"peer", key}}));
      it->second.since = now;
    }
  }
  closedir(dir);
  for (auto it = connections_.begin(); it != connections_.end();) {
    it = it->second.seen ? std::next(it) : connections_.erase(it);
  }
}

}  // namespace heed::cli::serve
