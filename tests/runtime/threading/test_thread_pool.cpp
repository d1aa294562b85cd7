// The worker pool itself: every chunk of a job runs exactly once, on a thread index below
// threads(), never two at once on one index; this holds with spinning and with sleeping workers,
// and on a machine whose cores are all busy. A worker that holds a chunk for long (descheduled)
// sends the following jobs to the caller alone: the degradation that keeps a busy machine near
// one thread's speed.
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "busy_cores.h"
#include "threading/thread_pool.h"

namespace heed::test {
namespace {

using threading::ThreadPool;

std::unique_ptr<ThreadPool> make_pool(size_t threads, uint32_t spin) {
  std::unique_ptr<ThreadPool> pool;
  const Status s = ThreadPool::create({threads, spin}, &pool);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return pool;
}

// Runs jobs of 1..max_chunks chunks; every chunk counts itself and checks its thread index is not
// running another chunk at the same time.
void check_jobs(const ThreadPool& pool, size_t max_chunks) {
  std::vector<std::atomic<int>> busy(pool.threads());
  for (size_t chunks = 1; chunks <= max_chunks; ++chunks) {
    std::vector<std::atomic<int>> runs(chunks);
    std::atomic<bool> bad_thread{false}, overlap{false};
    pool.run(chunks, [&](size_t thread, size_t c) {
      if (thread >= pool.threads()) {
        bad_thread = true;
        return;
      }
      if (busy[thread].fetch_add(1) != 0) overlap = true;
      runs[c].fetch_add(1);
      busy[thread].fetch_sub(1);
    });
    INFO("chunks " << chunks);
    CHECK_FALSE(bad_thread.load());
    CHECK_FALSE(overlap.load());
    size_t once = 0;
    for (const auto& r : runs) once += r.load() == 1 ? 1 : 0;
    CHECK(once == chunks);
  }
}

TEST_CASE("thread pool: every chunk runs once, on a valid thread index, one at a time per index") {
  for (size_t threads : {1, 2, 3, 5}) {
    for (uint32_t spin : {0u, 100u, 5000u}) {
      INFO("threads " << threads << ", spin " << spin << " us");
      const auto pool = make_pool(threads, spin);
      CHECK(pool->threads() == threads);
      check_jobs(*pool, 64);
      // Pauses longer than the spin budget: the workers fall asleep and must wake for the next job.
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      check_jobs(*pool, 8);
    }
  }
}

TEST_CASE("thread pool: every core busy with other threads, jobs still complete exactly") {
  const BusyCores busy;
  const auto pool = make_pool(2, threading::kDefaultSpinMicroseconds);
  for (int round = 0; round < 20; ++round) check_jobs(*pool, 16);
}

TEST_CASE("thread pool: after a worker holds a chunk for long, the next jobs run on the caller alone") {
  const auto pool = make_pool(2, threading::kDefaultSpinMicroseconds);
  // Chunks taken by the worker take 30 ms (as if the OS had descheduled it); the caller's 50 us
  // (time for the worker to wake and take one). Repeat until the worker has taken one: the caller
  // then waited far beyond its own time per chunk.
  bool worker_took_one = false;
  for (int attempt = 0; attempt < 200 && !worker_took_one; ++attempt) {
    std::atomic<bool> took{false};
    pool->run(64, [&](size_t thread, size_t) {
      if (thread == 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        return;
      }
      took = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    });
    worker_took_one = took.load();
  }
  REQUIRE(worker_took_one);
  const uint64_t before = pool->solo_jobs();
  std::atomic<size_t> on_workers{0}, ran{0};
  pool->run(64, [&](size_t thread, size_t) {
    ran.fetch_add(1);
    if (thread != 0) on_workers.fetch_add(1);
  });
  CHECK(pool->solo_jobs() == before + 1);
  CHECK(on_workers.load() == 0);
  CHECK(ran.load() == 64);
}

TEST_CASE("thread pool: a spin budget above one second is refused") {
  std::unique_ptr<ThreadPool> pool;
  const Status s = ThreadPool::create({2, threading::kMaxSpinMicroseconds + 1}, &pool);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "spin budget 1000001 us is above the limit of 1000000 us");
}

}  // namespace
}  // namespace heed::test
