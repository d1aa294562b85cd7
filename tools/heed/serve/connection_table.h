// The connections `heed serve` holds, each in one phase: idle (waiting for its next request),
// reading a request, or being answered. At most --max-connections are held: a new connection
// displaces the oldest idle one, else the one that has been reading its request longest (a slow
// client, since a whole request must arrive within the read timeout anyway); connections being
// answered are never displaced, and when all are, the new one is refused. Stopping shuts down
// every idle and reading connection at once, so SIGTERM does not wait for slow clients.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>

namespace heed::cli::serve {

enum class Phase { kIdle, kReading, kAnswering };

class ConnectionTable {
 public:
  explicit ConnectionTable(size_t capacity) : capacity_(capacity) {}

  // Registers `fd`, displacing one connection if the table is full; false: it cannot be taken.
  bool add(int fd);
  // Moves `fd` to `phase`; false when the server is stopping and `phase` is not kAnswering.
  bool enter(int fd, Phase phase);
  // Forgets `fd` (before it is closed, so it is never shut down once its number is reused).
  void remove(int fd);
  // Shuts down idle and reading connections; the others close after their answer.
  void stop();
  bool stopping() const;
  // Waits until every connection has been removed.
  void wait_empty();

 private:
  struct Entry {
    Phase phase = Phase::kIdle;
    std::chrono::steady_clock::time_point since;
    bool displaced = false;
  };
  bool displace_one();  // with the mutex held

  size_t capacity_;
  size_t live_ = 0;  // entries not displaced
  bool stopping_ = false;
  std::map<int, Entry> entries_;
  mutable std::mutex mutex_;
  std::condition_variable empty_;
};

}  // namespace heed::cli::serve
