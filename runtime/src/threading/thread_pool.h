// A session's worker threads: a pthreadpool created once at session creation, then only asked to
// run already-planned work. Splitting never changes what is computed per output (each output is
// produced by exactly one task with the same arithmetic as on one thread), so results are bitwise
// identical for any thread count.
//
// run() hands out task indices 0 .. tasks-1 with tasks <= threads(): a task index is never run by
// two threads at once, so per-task scratch (scores, ...) can be indexed by it. Running does not
// allocate (pthreadpool keeps its per-thread state from creation).
#pragma once

#include <cstddef>
#include <memory>

#include "heed/status.h"

struct pthreadpool;

namespace heed::threading {

// Upper bound on a session's threads: keeps per-task scratch in the arena bounded.
inline constexpr size_t kMaxThreads = 256;

// The thread count a session option asks for: 0 -> one per physical core (kernels::physical_cores). Above kMaxThreads
// -> kInvalidArgument.
Status resolve_threads(size_t requested, size_t* out);

class ThreadPool {
 public:
  // `threads` resolved (>= 1); one thread runs everything on the caller, no pool is created.
  static Status create(size_t threads, std::unique_ptr<ThreadPool>* out);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t threads() const { return threads_; }
  // The pthreadpool itself (null with one thread), for libraries that take one (XNNPACK).
  pthreadpool* raw() const { return pool_; }

  // Calls fn(task) for every task in [0, tasks) (tasks <= threads()), the caller's thread
  // included, and returns when all are done.
  template <typename F>
  void run(size_t tasks, const F& fn) const {
    if (tasks <= 1 || pool_ == nullptr) {
      for (size_t t = 0; t < tasks; ++t) fn(t);
      return;
    }
    run_raw(tasks, [](void* context, size_t task) { (*static_cast<const F*>(context))(task); },
            const_cast<F*>(&fn));
  }

 private:
  ThreadPool() = default;
  void run_raw(size_t tasks, void (*task_fn)(void*, size_t), void* context) const;

  size_t threads_ = 1;
  pthreadpool* pool_ = nullptr;
};

// Multiply-adds a task should at least get before another thread is woken for it (~10 us of
// single-thread work, well above the cost of handing out a pthreadpool job).
inline constexpr size_t kMinTaskWork = size_t{1} << 16;

// The threshold in force (kMinTaskWork unless changed). Tests set 1 so that even tiny models
// split every GEMM and attention loop; not meant to be changed while sessions run.
size_t min_task_work();
void set_min_task_work(size_t work);

// Items per task so that each task gets at least min_task_work().
inline size_t min_items_for(size_t work_per_item) {
  const size_t min_work = min_task_work();
  if (work_per_item == 0) return min_work;
  return (min_work + work_per_item - 1) / work_per_item;
}

// Splits `items` work items into contiguous ranges for at most pool->threads() tasks, never giving
// a task fewer than `min_items` (so tiny jobs stay on one thread), and calls
// fn(task, begin, end) for each. pool may be null (one task).
template <typename F>
void parallel_ranges(const ThreadPool* pool, size_t items, size_t min_items, const F& fn) {
  if (items == 0) return;
  size_t tasks = pool == nullptr ? 1 : pool->threads();
  const size_t by_size = items / (min_items == 0 ? 1 : min_items);
  if (tasks > by_size) tasks = by_size == 0 ? 1 : by_size;
  if (tasks <= 1) {
    fn(size_t{0}, size_t{0}, items);
    return;
  }
  pool->run(tasks, [&](size_t task) { fn(task, items * task / tasks, items * (task + 1) / tasks); });
}

}  // namespace heed::threading
