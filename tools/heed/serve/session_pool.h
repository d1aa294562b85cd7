// A fixed set of sessions of one model shared by the server's connection threads: a request
// borrows one for its computation and gives it back. Waiting requests are served first come, first
// served (each waits on its own turn, so none is overtaken), their number is capped (the request
// beyond the cap is refused at once: HTTP 429) and each waits until its deadline at most.
// (SIGTERM needs nothing here: the server stops accepting and lets the waiting requests finish.)
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace heed::cli::serve {

using Clock = std::chrono::steady_clock;

enum class Borrow { kOk, kQueueFull, kTimedOut };

template <typename Session>
class SessionPool {
 public:
  // A borrowed session, given back when the lease is destroyed.
  class Lease {
   public:
    Lease() = default;
    Lease(SessionPool* pool, Session* session) : pool_(pool), session_(session) {}
    Lease(Lease&& o) noexcept : pool_(o.pool_), session_(o.session_) { o.session_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease() {
      if (session_ != nullptr) pool_->give_back(session_);
    }
    Session* operator->() const { return session_; }
    Session& operator*() const { return *session_; }

   private:
    SessionPool* pool_ = nullptr;
    Session* session_ = nullptr;
  };

  SessionPool(std::vector<std::unique_ptr<Session>> sessions, size_t max_waiting)
      : sessions_(std::move(sessions)), max_waiting_(max_waiting) {
    for (auto& s : sessions_) free_.push_back(s.get());
  }

  // Borrows a session, waiting in line until `deadline` at most.
  Borrow borrow(Clock::time_point deadline, std::unique_ptr<Lease>* out) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (waiting_.empty() && !free_.empty()) return take(out);
    if (waiting_.size() >= max_waiting_) return Borrow::kQueueFull;
    Turn turn;
    waiting_.push_back(&turn);
    if (!turn.ready.wait_until(lock, deadline, [&] { return turn.session != nullptr; })) {
      waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &turn));
      return Borrow::kTimedOut;
    }
    *out = std::make_unique<Lease>(this, turn.session);
    return Borrow::kOk;
  }

  size_t size() const { return sessions_.size(); }

 private:
  struct Turn {
    std::condition_variable ready;
    Session* session = nullptr;
  };

  Borrow take(std::unique_ptr<Lease>* out) {
    *out = std::make_unique<Lease>(this, free_.back());
    free_.pop_back();
    return Borrow::kOk;
  }

  // The first in line gets the session directly, so a newcomer cannot take it first.
  void give_back(Session* session) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!waiting_.empty()) {
      Turn* first = waiting_.front();
      waiting_.pop_front();
      first->session = session;
      first->ready.notify_one();
      return;
    }
    free_.push_back(session);
  }

  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<Session*> free_;
  std::deque<Turn*> waiting_;
  size_t max_waiting_;
  std::mutex mutex_;
};

}  // namespace heed::cli::serve
