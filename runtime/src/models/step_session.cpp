#include "models/step_session.h"

#include <limits>

#include "models/token_batch_check.h"

namespace heed::models {

Status StepSession::set_limits(const StepModelLimits& limits, bool needs_source) {
  if (limits.max_batch == 0 || limits.max_beam == 0 || limits.max_target_len == 0 ||
      (needs_source && limits.max_source_len == 0)) {
    return invalid_argument(needs_source ? "session limits must all be at least 1 (max_batch, max_beam, "
                                           "max_source_len, max_target_len)"
                                         : "session limits must be at least 1 (max_batch, max_beam, max_target_len)");
  }
  limits_ = limits;
  if (!needs_source) limits_.max_source_len = 0;
  max_rows_ = saturating_mul(limits.max_batch, limits.max_beam);
  if (max_rows_ == static_cast<size_t>(-1)) return invalid_argument("session limits are too large: the arena size overflows");
  return Status::success();
}

Status StepSession::begin(size_t batch, size_t beam) {
  started_ = false;
  cache_length_ = 0;
  HEED_RETURN_IF_ERROR(check_range("batch", batch, limits_.max_batch));
  HEED_RETURN_IF_ERROR(check_range("beam", beam, limits_.max_beam));
  batch_ = batch;
  beam_ = beam;
  return Status::success();
}

bool StepSession::check_step(const int32_t* ids, size_t rows, size_t step, float* log_probs, size_t vocab,
                             bool in_order) const {
  bool valid = started_ && ids != nullptr && log_probs != nullptr && rows > 0 && rows <= batch_ * beam_ &&
               step < limits_.max_target_len && (!in_order || step <= cache_length_);
  for (size_t r = 0; valid && r < rows; ++r) valid = ids[r] >= 0 && static_cast<size_t>(ids[r]) < vocab;
  if (!valid && log_probs != nullptr && rows <= max_rows_) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i < rows * vocab; ++i) log_probs[i] = nan;
  }
  return valid;
}

bool StepSession::can_compact(const int32_t* keep, size_t count) const {
  if (!started_ || keep == nullptr || count == 0 || count > batch_ * beam_ || count % beam_ != 0) return false;
  for (size_t k = 0; k < count; ++k) {
    const size_t from = static_cast<size_t>(keep[k]);
    if (keep[k] < static_cast<int32_t>(k) || from >= batch_ * beam_ || (k > 0 && keep[k] <= keep[k - 1])) return false;
    // Row j of a kept sentence stays row j of its beam.
    if (from % beam_ != k % beam_ || (k % beam_ != 0 && keep[k] != keep[k - 1] + 1)) return false;
  }
  return true;
}

void StepSession::parallel_for(size_t count, void (*fn)(void*, size_t, size_t), void* context) const {
  threading::parallel_ranges(pool_.get(), count, 1, [&](size_t, size_t begin, size_t end) { fn(context, begin, end); });
}

void StepSession::log_softmax_rows(float* scores, size_t rows) const {
  const size_t vocab = vocab_size();
  // Rows split between the threads (each row's result is the same on any thread): one beam-4
  // batch of 16 has 64 rows of a 32,000-entry vocabulary per step, ~4 % of its one-thread time.
  threading::parallel_ranges(pool_.get(), rows, threading::min_items_for(4 * vocab), [&](size_t, size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) k_->log_softmax(scores + r * vocab, vocab);
  });
}

bool StepSession::log_softmax_shift(const float* scores, float* shift) const {
  const float value = k_->log_sum_exp(scores, vocab_size());  // what the kernel's log_softmax subtracts
  *shift = value == -std::numeric_limits<float>::infinity() ? 0.0f : value;  // such a row stays as it is
  return true;
}

}  // namespace heed::models
