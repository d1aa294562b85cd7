#include "models/session.h"

#include "layers/xnnpack_gemm.h"

namespace heed::models {

Status Session::init(threading::PoolOptions threads) {
  k_ = &kernels::best();
  HEED_RETURN_IF_ERROR(threading::check_spin(threads.spin_microseconds));
  spin_microseconds_ = threads.spin_microseconds;
  return threading::resolve_threads(threads.threads, &threads_);
}

Status Session::build(const ArenaOptions* arena, ArenaReport* report, const char* limits_name) {
  ArenaPlanner planner;
  plan(&planner);
  planner.plan();
  if (planner.overflowed()) {
    return invalid_argument(std::string(limits_name) + " limits are too large: the arena size overflows");
  }
  // XNNPACK reads a few bytes past its input rows: readable slack after the last buffer.
  const size_t slack = xnnpack_min_rows_ > 0 ? layers::kXnnpackReadSlack : 0;
  report_.arena_bytes = planner.total_bytes() + slack;
  report_.unshared_bytes = planner.unshared_bytes() + slack;
  report_.buffers = planner.requests().size();
  if (report != nullptr) *report = report_;
  if (arena == nullptr) return Status::success();
  HEED_RETURN_IF_ERROR(Arena::create(report_.arena_bytes, *arena, &arena_));
  HEED_RETURN_IF_ERROR(threading::ThreadPool::create({threads_, spin_microseconds_}, &pool_));
  HEED_RETURN_IF_ERROR(use_xnnpack());
  if (xnnpack_min_rows_ > 0) HEED_RETURN_IF_ERROR(pool_->start_library_pool());
  bind(planner);
  return Status::success();
}

}  // namespace heed::models
