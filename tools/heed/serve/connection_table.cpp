#include "connection_table.h"

#include <sys/socket.h>

#include "http_json.h"
#include "request_log.h"

namespace heed::cli::serve {

bool ConnectionTable::displace_one() {
  Entry* oldest = nullptr;
  int oldest_fd = -1;
  for (const Phase phase : {Phase::kIdle, Phase::kReading}) {
    for (auto& [fd, e] : entries_) {
      if (!e.displaced && e.phase == phase && (oldest == nullptr || e.since < oldest->since)) {
        oldest = &e;
        oldest_fd = fd;
      }
    }
    if (oldest != nullptr) break;
  }
  if (oldest == nullptr) return false;
  oldest->displaced = true;
  --live_;
  shutdown(oldest_fd, SHUT_RDWR);  // its thread's wait ends and it closes the connection
  const char* phase = oldest->phase == Phase::kIdle ? "idle" : "reading";
  write_log(dump(json{{"event", "connection displaced"}, {"phase", phase}}));
  return true;
}

bool ConnectionTable::add(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || (live_ >= capacity_ && !displace_one())) return false;
  entries_[fd] = Entry{Phase::kIdle, std::chrono::steady_clock::now(), false};
  ++live_;
  return true;
}

bool ConnectionTable::enter(int fd, Phase phase) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(fd);
  if (it == entries_.end() || it->second.displaced || (stopping_ && phase != Phase::kAnswering)) return false;
  it->second.phase = phase;
  it->second.since = std::chrono::steady_clock::now();
  return true;
}

void ConnectionTable::remove(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(fd);
  if (it == entries_.end()) return;
  if (!it->second.displaced) --live_;
  entries_.erase(it);
  if (entries_.empty()) empty_.notify_all();
}

void ConnectionTable::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  for (auto& [fd, e] : entries_) {
    if (e.phase != Phase::kAnswering) shutdown(fd, SHUT_RDWR);
  }
}

bool ConnectionTable::stopping() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopping_;
}

void ConnectionTable::wait_empty() {
  std::unique_lock<std::mutex> lock(mutex_);
  empty_.wait(lock, [this] { return entries_.empty(); });
}

}  // namespace heed::cli::serve
