// How every search begins a batch: StepModel::start(), then the vocabulary shortlist when the
// options ask for one (DecodeOptions::use_vmap), its candidates including the forced prefixes.
#pragma once

#include <cstddef>

#include "heed/decoding.h"
#include "heed/step_model.h"

namespace heed::decoding {

// Whether the caller asked decoding to stop (DecodeOptions::cancel, ::deadline), and the status
// that says which. The messages fit std::string's inline buffer: stopping allocates nothing.
inline bool stop_requested(const DecodeOptions& o) {
  if (o.cancel != nullptr && o.cancel->load(std::memory_order_relaxed)) return true;
  return o.deadline != std::chrono::steady_clock::time_point::max() && std::chrono::steady_clock::now() >= o.deadline;
}
inline Status stop_status(const DecodeOptions& o) {
  if (o.cancel != nullptr && o.cancel->load(std::memory_order_relaxed)) return Status(StatusCode::kCancelled, "cancelled");
  return Status(StatusCode::kDeadlineExceeded, "deadline passed");
}

// Stops before the encoder runs when the caller already asked to.
inline Status start_batch(StepModel& model, const TokenBatch* sources, size_t batch, size_t rows_per_sentence,
                          const DecodeOptions& o, const TokenBatch* prefixes) {
  if (stop_requested(o)) return stop_status(o);
  HEED_RETURN_IF_ERROR(model.start(sources, batch, rows_per_sentence));
  return o.use_vmap ? model.restrict_vocabulary(sources, prefixes) : Status::success();
}

}  // namespace heed::decoding
