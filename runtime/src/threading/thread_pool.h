// A session's worker threads, started once at session creation, then only asked to run
// already-planned work. A job is a number of chunks; any thread (the caller included) takes the
// next chunk until none is left, so a slow or descheduled worker never holds back chunks the
// caller could run. Splitting never changes what is computed per output (each output is produced
// by exactly one chunk with the same arithmetic as on one thread), so results are bitwise
// identical for any thread count and any scheduling.
//
// Between jobs a worker spins for the spin budget (the next GEMM of a decoder step usually comes
// within microseconds), then sleeps. When the caller finds itself waiting long for a worker's
// chunk (the worker was descheduled: another program holds its core), the pool runs the following
// jobs on the caller alone for a while, so a busy machine costs at most a little over one thread's
// speed (docs/benchmarks.md). Running does not allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "heed/status.h"

struct pthreadpool;

namespace heed::threading {

// Upper bound on a session's threads: keeps per-thread scratch in the arena bounded.
inline constexpr size_t kMaxThreads = 256;
// Default spin budget of an idle worker before it sleeps, in microseconds.
inline constexpr uint32_t kDefaultSpinMicroseconds = 100;
// Upper bound on the spin budget (a second).
inline constexpr uint32_t kMaxSpinMicroseconds = 1000000;

// A session's threads (a bare count converts: the default spin budget) and how long an idle worker
// spins before it sleeps.
struct PoolOptions {
  PoolOptions(size_t thread_count = 1, uint32_t spin = kDefaultSpinMicroseconds)  // NOLINT: a count converts
      : threads(thread_count), spin_microseconds(spin) {}
  size_t threads;  // 0: one per physical core (resolve_threads)
  uint32_t spin_microseconds;
};

// The thread count a session option asks for: 0 -> one per physical core (kernels::physical_cores).
// Above kMaxThreads -> kInvalidArgument; so is a spin budget above kMaxSpinMicroseconds.
Status resolve_threads(size_t requested, size_t* out);
Status check_spin(uint32_t spin_microseconds);

class ThreadPool {
 public:
  // One thread runs everything on the caller: no thread is started.
  static Status create(const PoolOptions& options, std::unique_ptr<ThreadPool>* out);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t threads() const { return threads_; }
  // A pthreadpool with the same thread count for libraries that take one (XNNPACK); started by
  // start_library_pool() at session creation. Null with one thread or when not started.
  pthreadpool* raw() const { return library_pool_; }
  Status start_library_pool();

  // Calls fn(thread, chunk) for every chunk in [0, chunks), and returns when all are done. `thread`
  // is in [0, threads()) (0: the caller) and no two chunks run on one thread at once, so
  // per-thread scratch can be indexed by it.
  template <typename F>
  void run(size_t chunks, const F& fn) const {
    if (chunks <= 1 || workers_ == nullptr) {
      for (size_t c = 0; c < chunks; ++c) fn(size_t{0}, c);
      return;
    }
    run_raw(chunks, [](void* context, size_t thread, size_t c) { (*static_cast<const F*>(context))(thread, c); },
            const_cast<F*>(&fn));
  }

  // Jobs that ran on the caller alone because a worker had been slow (tests and diagnostics).
  uint64_t solo_jobs() const;

  struct Workers;  // the threads and the job they share (thread_pool.cpp)

 private:
  ThreadPool() = default;
  void run_raw(size_t chunks, void (*chunk_fn)(void*, size_t, size_t), void* context) const;

  size_t threads_ = 1;
  std::unique_ptr<Workers> workers_;
  pthreadpool* library_pool_ = nullptr;
};

// Multiply-adds a chunk should at least get before it is split off (~3 us of single-thread
// work, well above the cost of handing a chunk to a spinning worker).
inline constexpr size_t kMinTaskWork = size_t{1} << 14;
// Chunks per thread when a job is big enough: more chunks even out uneven progress (a worker
// that starts late, a core shared with another program) at the cost of one atomic each.
inline constexpr size_t kChunksPerThread = 4;

// The threshold in force (kMinTaskWork unless changed). Tests set 1 so that even tiny models
// split every GEMM and attention loop; not meant to be changed while sessions run.
size_t min_task_work();
void set_min_task_work(size_t work);

// Items per chunk so that each chunk gets at least min_task_work().
inline size_t min_items_for(size_t work_per_item) {
  const size_t min_work = min_task_work();
  if (work_per_item == 0) return min_work;
  return (min_work + work_per_item - 1) / work_per_item;
}

// Splits `items` work items into contiguous ranges (up to kChunksPerThread per thread, never
// fewer than `min_items` items each, so tiny jobs stay on one thread) and calls
// fn(thread, begin, end) for each. pool may be null (one range).
template <typename F>
void parallel_ranges(const ThreadPool* pool, size_t items, size_t min_items, const F& fn) {
  if (items == 0) return;
  size_t chunks = pool == nullptr ? 1 : pool->threads() * kChunksPerThread;
  const size_t by_size = items / (min_items == 0 ? 1 : min_items);
  if (chunks > by_size) chunks = by_size == 0 ? 1 : by_size;
  if (chunks <= 1) {
    fn(size_t{0}, size_t{0}, items);
    return;
  }
  pool->run(chunks, [&](size_t thread, size_t c) { fn(thread, items * c / chunks, items * (c + 1) / chunks); });
}

}  // namespace heed::threading
