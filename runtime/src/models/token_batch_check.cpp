#include "models/token_batch_check.h"

#include <string>

namespace heed::models {

Status check_token_batch(const TokenBatch& batch, const TokenBatchLimits& limits) {
  const std::string item = limits.item;
  for (size_t s = 0; s < batch.size; ++s) {
    if (batch.offsets[s + 1] < batch.offsets[s]) {
      return invalid_argument(item + " " + std::to_string(s) + " has decreasing offsets");
    }
    const size_t n = batch.length(s);
    if (n == 0 && !limits.allow_empty) {
      return invalid_argument(item + " " + std::to_string(s) + " is empty (it needs at least [CLS])");
    }
    if (n > limits.max_length) {
      return Status(StatusCode::kLimitExceeded, item + " " + std::to_string(s) + " has " + std::to_string(n) +
                    " tokens, the " + limits.owner + "'s limit is " + std::to_string(limits.max_length));
    }
    const int32_t* ids = batch.sequence(s);
    for (size_t t = 0; t < n; ++t) {
      if (ids[t] < 0 || static_cast<size_t>(ids[t]) >= limits.vocab) {
        return invalid_argument(item + " " + std::to_string(s) + " token " + std::to_string(t) + " has id " +
                                std::to_string(ids[t]) + ", outside the vocabulary of " +
                                std::to_string(limits.vocab));
      }
    }
  }
  return Status::success();
}

Status check_range(const char* what, size_t count, size_t max, const char* owner) {
  if (count >= 1 && count <= max) return Status::success();
  return Status(StatusCode::kLimitExceeded, std::string(what) + " " + std::to_string(count) + " is outside the " +
                owner + "'s range 1.." + std::to_string(max));
}

}  // namespace heed::models
