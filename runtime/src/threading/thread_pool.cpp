#include "threading/thread_pool.h"

#include <atomic>
#include <string>
#include <thread>

#include <pthreadpool.h>

#include "heed/kernels.h"

// ThreadSanitizer cannot see the synchronization inside libpthreadpool (not instrumented): without
// these annotations it reports the hand-over of every job (the caller writes the task's closure,
// a worker reads it) as a race. The annotations state the real order: everything the caller did
// before parallelize happens before each task, and every task happens before parallelize returns.
#if defined(__SANITIZE_THREAD__)
#define HEED_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HEED_TSAN 1
#endif
#endif
#ifdef HEED_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace heed::threading {

namespace {
std::atomic<size_t> g_min_task_work{kMinTaskWork};
}

size_t min_task_work() { return g_min_task_work.load(std::memory_order_relaxed); }
void set_min_task_work(size_t work) { g_min_task_work.store(work == 0 ? 1 : work, std::memory_order_relaxed); }

Status resolve_threads(size_t requested, size_t* out) {
  if (requested > kMaxThreads) {
    return invalid_argument("threads " + std::to_string(requested) + " is above the limit of " +
                            std::to_string(kMaxThreads));
  }
  if (requested == 0) {
    const size_t cores = kernels::physical_cores();
    requested = cores > kMaxThreads ? kMaxThreads : cores;
  }
  *out = requested;
  return Status::success();
}

Status ThreadPool::create(size_t threads, std::unique_ptr<ThreadPool>* out) {
  std::unique_ptr<ThreadPool> p(new ThreadPool());
  p->threads_ = threads == 0 ? 1 : threads;
  if (p->threads_ > 1) {
    p->pool_ = pthreadpool_create(p->threads_);
    if (p->pool_ == nullptr) {
      return Status(StatusCode::kOutOfMemory, "could not start " + std::to_string(p->threads_) + " threads");
    }
  }
  *out = std::move(p);
  return Status::success();
}

ThreadPool::~ThreadPool() {
  if (pool_ != nullptr) pthreadpool_destroy(pool_);
}

void ThreadPool::run_raw(size_t tasks, void (*task_fn)(void*, size_t), void* context) const {
  // No DISABLE_DENORMALS: the workers keep the default floating-point environment, as on one
  // thread. YIELD_WORKERS: workers sleep right after the job instead of spinning; on a machine
  // whose cores are shared with other processes (a Pi running other things, CI) spinning workers
  // steal the CPU the caller needs, which measured several times slower (docs/benchmarks.md).
#ifdef HEED_TSAN
  struct Job {
    void (*task_fn)(void*, size_t);
    void* context;
  } job{task_fn, context};
  __tsan_release(&job);
  pthreadpool_parallelize_1d(
      pool_,
      [](void* j, size_t task) {
        Job* job = static_cast<Job*>(j);
        __tsan_acquire(job);
        job->task_fn(job->context, task);
        __tsan_release(job);
      },
      &job, tasks, PTHREADPOOL_FLAG_YIELD_WORKERS);
  __tsan_acquire(&job);
#else
  pthreadpool_parallelize_1d(pool_, task_fn, context, tasks, PTHREADPOOL_FLAG_YIELD_WORKERS);
#endif
}

}  // namespace heed::threading
