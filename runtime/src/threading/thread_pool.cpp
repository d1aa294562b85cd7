#include "threading/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <pthreadpool.h>

#include "heed/kernels.h"

namespace heed::threading {

namespace {

std::atomic<size_t> g_min_task_work{kMinTaskWork};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Tells the core this thread is spinning (frees pipeline resources, saves power).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// The caller spins this long waiting for a worker's last chunk before it yields its core (the
// worker may be waiting for that very core).
constexpr int64_t kCallerSpinNs = 50'000;
// A wait for workers counts as a stall above this many times the caller's own time per chunk,
// plus this slack: a healthy worker finishes at most about one chunk after the caller.
constexpr int64_t kStallChunks = 4;
constexpr int64_t kStallSlackNs = 100'000;
constexpr size_t kWindowJobs = 32;
// After a stall the jobs run on the caller alone for this long, doubled while stalls keep coming
// back (up to kSoloMaxNs), reset once the workers keep up again.
constexpr int64_t kSoloBaseNs = 10'000'000;
constexpr int64_t kSoloMaxNs = 1'000'000'000;

}  // namespace

// The job shared by the caller and the workers, as a sequence lock: `generation` is odd while the
// caller writes a job and even once it is published (job id = generation / 2). A worker reads the
// job's fields, then checks the generation did not move; it takes chunks only through `claim`,
// which holds the job id next to the next chunk, so a worker that read an old job can never run
// a chunk of a newer one. The caller never waits for a late worker to leave a finished job: a job
// ends when every chunk is done, and a chunk is only run by whoever claimed it.
struct ThreadPool::Workers {
  using ChunkFn = void (*)(void*, size_t, size_t);
  struct Job {
    ChunkFn fn;
    void* context;
    size_t chunks;
  };

  int64_t spin_ns = 0;
  std::vector<std::thread> threads;

  std::atomic<ChunkFn> fn{nullptr};
  std::atomic<void*> context{nullptr};
  std::atomic<size_t> chunks{0};
  alignas(64) std::atomic<uint64_t> generation{0};
  alignas(64) std::atomic<uint64_t> claim{0};  // (job id & 0xffffffff) << 32 | next chunk
  alignas(64) std::atomic<size_t> done{0};
  std::atomic<size_t> sleepers{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable wake;

  // The caller's view of contention (only the calling thread touches these).
  int64_t solo_until_ns = 0;
  int64_t solo_length_ns = kSoloBaseNs;
  int64_t last_stall_ns = 0;
  int64_t window_wait_ns = 0, window_work_ns = 0;  // over the jobs since the window began
  size_t window_jobs = 0;
  std::atomic<uint64_t> solo_jobs{0};

  static bool published(uint64_t g, uint64_t seen) { return g != seen && (g & 1) == 0; }
  static uint64_t claim_tag(uint64_t g) { return ((g / 2) & 0xffffffffu) << 32; }

  // A new published generation (or stop): spins for the budget, then sleeps.
  uint64_t wait_for_job(uint64_t seen) {
    const int64_t deadline = now_ns() + spin_ns;
    for (uint32_t i = 0;; ++i) {
      const uint64_t g = generation.load();
      if (stop.load(std::memory_order_relaxed) || published(g, seen)) return g;
      cpu_relax();
      if ((i & 127) == 127 && now_ns() > deadline) break;
    }
    std::unique_lock<std::mutex> lock(mutex);
    sleepers.fetch_add(1);
    uint64_t g = seen;
    wake.wait(lock, [&] {
      g = generation.load();
      return stop.load() || published(g, seen);
    });
    sleepers.fetch_sub(1);
    return g;
  }

  // The fields of published job g; false when the caller moved on while they were read.
  bool read_job(uint64_t g, Job* job) const {
    job->fn = fn.load(std::memory_order_relaxed);
    job->context = context.load(std::memory_order_relaxed);
    job->chunks = chunks.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    return generation.load(std::memory_order_relaxed) == g;
  }

  // The next chunk of job g into *c; false when it has none left or is no longer the job.
  bool claim_chunk(uint64_t g, size_t job_chunks, size_t* c) {
    const uint64_t tag = claim_tag(g);
    uint64_t cur = claim.load(std::memory_order_relaxed);
    for (;;) {
      if ((cur & ~uint64_t{0xffffffffu}) != tag || (cur & 0xffffffffu) >= job_chunks) return false;
      if (claim.compare_exchange_weak(cur, cur + 1, std::memory_order_relaxed)) break;
    }
    *c = static_cast<size_t>(cur & 0xffffffffu);
    return true;
  }

  // Runs chunks of job g until none is left; returns how many.
  size_t run_chunks(uint64_t g, const Job& job, size_t thread) {
    size_t c, ran = 0;
    while (claim_chunk(g, job.chunks, &c)) {
      job.fn(job.context, thread, c);
      done.fetch_add(1, std::memory_order_release);
      ++ran;
    }
    return ran;
  }

  void worker_main(size_t thread) {
    uint64_t seen = 0;
    for (;;) {
      const uint64_t g = wait_for_job(seen);
      if (stop.load()) return;
      seen = g;
      Job job;
      if (read_job(g, &job)) run_chunks(g, job, thread);
    }
  }

  // Publishes a job; returns its generation.
  uint64_t publish(const Job& job) {
    const uint64_t g = generation.load(std::memory_order_relaxed) + 2;
    generation.store(g - 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    fn.store(job.fn, std::memory_order_relaxed);
    context.store(job.context, std::memory_order_relaxed);
    chunks.store(job.chunks, std::memory_order_relaxed);
    done.store(0, std::memory_order_relaxed);
    claim.store(claim_tag(g), std::memory_order_relaxed);
    generation.store(g);  // sequentially consistent: ordered before the read of sleepers
    if (sleepers.load() > 0) {
      { std::lock_guard<std::mutex> lock(mutex); }
      wake.notify_all();
    }
    return g;
  }

  // Waits for the workers' last chunks; returns how long it waited.
  int64_t wait_done(size_t job_chunks) {
    const int64_t start = now_ns();
    for (uint32_t i = 0; done.load(std::memory_order_acquire) != job_chunks; ++i) {
      cpu_relax();
      if ((i & 127) == 127 && now_ns() - start > kCallerSpinNs) std::this_thread::yield();
    }
    return now_ns() - start;
  }

  // A stall: one long wait (a worker descheduled with a chunk), or waits adding up to more than the
  // caller's own work over the last kWindowJobs jobs (workers that keep waking late on a busy
  // machine: two threads then do no better than the caller alone). Either sends the next jobs to
  // the caller alone.
  void note_wait(int64_t waited, int64_t caller_ns, size_t caller_chunks, int64_t now) {
    const int64_t per_chunk = caller_ns / static_cast<int64_t>(caller_chunks == 0 ? 1 : caller_chunks);
    window_wait_ns += waited;
    window_work_ns += caller_ns;
    bool stalled = waited > kStallChunks * per_chunk + kStallSlackNs;
    if (++window_jobs == kWindowJobs) {
      stalled = stalled || window_wait_ns > window_work_ns;
      window_jobs = 0;
      window_wait_ns = window_work_ns = 0;
    }
    if (!stalled) return;
    // A stall within one solo length after the last solo period ended doubles the next one.
    const bool recurring = now - last_stall_ns < 2 * solo_length_ns;
    solo_length_ns = recurring ? std::min(2 * solo_length_ns, kSoloMaxNs) : kSoloBaseNs;
    last_stall_ns = now;
    solo_until_ns = now + solo_length_ns;
    window_jobs = 0;
    window_wait_ns = window_work_ns = 0;
  }

  void shut_down() {
    stop.store(true);
    generation.fetch_add(2);
    { std::lock_guard<std::mutex> lock(mutex); }
    wake.notify_all();
    for (std::thread& t : threads) t.join();
  }
};

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

Status check_spin(uint32_t spin_microseconds) {
  if (spin_microseconds <= kMaxSpinMicroseconds) return Status::success();
  return invalid_argument("spin budget " + std::to_string(spin_microseconds) + " us is above the limit of " +
                          std::to_string(kMaxSpinMicroseconds) + " us");
}

Status ThreadPool::create(const PoolOptions& options, std::unique_ptr<ThreadPool>* out) {
  HEED_RETURN_IF_ERROR(check_spin(options.spin_microseconds));
  std::unique_ptr<ThreadPool> p(new ThreadPool());
  p->threads_ = options.threads == 0 ? 1 : options.threads;
  if (p->threads_ > 1) {
    p->workers_ = std::make_unique<Workers>();
    Workers* w = p->workers_.get();
    w->spin_ns = int64_t{options.spin_microseconds} * 1000;
    try {
      w->threads.reserve(p->threads_ - 1);
      for (size_t t = 1; t < p->threads_; ++t) w->threads.emplace_back([w, t] { w->worker_main(t); });
    } catch (const std::exception&) {
      w->shut_down();
      return Status(StatusCode::kOutOfMemory, "could not start " + std::to_string(p->threads_) + " threads");
    }
  }
  *out = std::move(p);
  return Status::success();
}

ThreadPool::~ThreadPool() {
  if (workers_ != nullptr) workers_->shut_down();
  if (library_pool_ != nullptr) pthreadpool_destroy(library_pool_);
}

Status ThreadPool::start_library_pool() {
  if (threads_ <= 1 || library_pool_ != nullptr) return Status::success();
  library_pool_ = pthreadpool_create(threads_);
  if (library_pool_ == nullptr) {
    return Status(StatusCode::kOutOfMemory, "could not start " + std::to_string(threads_) + " threads");
  }
  return Status::success();
}

uint64_t ThreadPool::solo_jobs() const { return workers_ == nullptr ? 0 : workers_->solo_jobs.load(); }

void ThreadPool::run_raw(size_t chunks, void (*chunk_fn)(void*, size_t, size_t), void* context) const {
  Workers& w = *workers_;
  const int64_t start = now_ns();
  if (start < w.solo_until_ns) {
    w.solo_jobs.fetch_add(1, std::memory_order_relaxed);
    for (size_t c = 0; c < chunks; ++c) chunk_fn(context, 0, c);
    return;
  }
  const Workers::Job job{chunk_fn, context, chunks};
  const uint64_t g = w.publish(job);
  const size_t mine = w.run_chunks(g, job, 0);
  const int64_t worked = now_ns();
  const int64_t waited = w.wait_done(chunks);
  w.note_wait(waited, worked - start, mine, worked + waited);
}

}  // namespace heed::threading
