// The skeleton every model family's session is built on: worker threads, the kernel table, one
// arena planned at creation. A family loads its weights and checks its limits, then build() runs
// the one creation sequence: plan every buffer, report, allocate the arena once (or take the
// caller's buffer), start the threads, hand f32 layers to XNNPACK, bind the buffers. Nothing
// allocates after that.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "arena/arena.h"
#include "blocks/compute.h"
#include "heed/arena.h"
#include "heed/kernels.h"
#include "heed/status.h"
#include "threading/thread_pool.h"

namespace heed::models {

class Session {
 public:
  virtual ~Session() = default;
  const ArenaReport& arena_report() const { return report_; }

 protected:
  // The creation sequence: resolve `threads` (0: one per core) and pick the kernels for this CPU,
  // run `load` (the family reads its weights and checks its limits), then plan; with `arena` null
  // only plans (fills `report`), otherwise allocates and binds too. `limits_name` names the
  // limits in the overflow error ("session", "embedder").
  // The create() of every family S: makes one, runs the sequence below with S::load(args...), and
  // hands it out when an arena was given (S befriends Session for its constructor and load).
  template <typename S, typename... LoadArgs>
  static Status create_family(threading::PoolOptions threads, const ArenaOptions* arena, ArenaReport* report, const char* limits_name,
                              std::unique_ptr<S>* out, const LoadArgs&... args) {
    std::unique_ptr<S> session(new S());
    HEED_RETURN_IF_ERROR(
        session->create_session(threads, arena, report, limits_name, [&] { return session->load(args...); }));
    if (arena != nullptr) *out = std::move(session);
    return Status::success();
  }

  template <typename Load>
  Status create_session(threading::PoolOptions threads, const ArenaOptions* arena, ArenaReport* report, const char* limits_name,
                const Load& load) {
    HEED_RETURN_IF_ERROR(init(threads));
    HEED_RETURN_IF_ERROR(load());
    return build(arena, report, limits_name);
  }

  virtual void plan(ArenaPlanner* planner) = 0;
  // Hands the f32 layers to XNNPACK (xnnpack_min_rows_ > 0); families without any: nothing.
  virtual Status use_xnnpack() { return Status::success(); }
  virtual void bind(const ArenaPlanner& planner) = 0;

  blocks::Compute compute() const { return blocks::Compute{k_, pool_.get()}; }

  const kernels::KernelTable* k_ = nullptr;
  size_t threads_ = 1;           // resolved thread count (sizes per-thread scratch)
  uint32_t spin_microseconds_ = threading::kDefaultSpinMicroseconds;  // workers' spin budget
  size_t xnnpack_min_rows_ = 0;  // f32 layers go to XNNPACK from this many rows (0: never)
  std::unique_ptr<threading::ThreadPool> pool_;
  Arena arena_;
  ArenaReport report_;

 private:
  Status init(threading::PoolOptions threads);
  Status build(const ArenaOptions* arena, ArenaReport* report, const char* limits_name);
};

}  // namespace heed::models
