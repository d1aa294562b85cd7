// Keeps every core of the machine busy with spinning threads for the guard's lifetime: the
// condition of a phone or a Raspberry Pi running other programs, where a session's worker may be
// descheduled at any moment.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace heed::test {

class BusyCores {
 public:
  BusyCores() {
    const unsigned cores = std::thread::hardware_concurrency();
    for (unsigned i = 0; i < (cores == 0 ? 1 : cores); ++i) {
      spinners_.emplace_back([this] {
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
    }
  }
  ~BusyCores() {
    stop_ = true;
    for (std::thread& t : spinners_) t.join();
  }
  BusyCores(const BusyCores&) = delete;
  BusyCores& operator=(const BusyCores&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

}  // namespace heed::test
