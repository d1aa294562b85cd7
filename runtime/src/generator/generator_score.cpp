// Generator::score: teacher forcing over whole sequences, through the decoding engine's score()
// with each sequence's first token as the first decoder input (StartTokenModel).
#include <algorithm>
#include <string>

#include "generator/start_token_model.h"
#include "heed/generator.h"

namespace heed {

Status Generator::score(const TokenBatch& sequences, ScoreOutput* out) {
  if (out == nullptr) return invalid_argument("score: no output");
  if (sequences.size > batch_starts_.size()) {
    return Status(StatusCode::kLimitExceeded, std::to_string(sequences.size) + " sequences; this generator takes " +
                                                  std::to_string(batch_starts_.size()) + " at a time (max_batch)");
  }
  if (sequences.size > 0 && (sequences.offsets == nullptr || sequences.ids == nullptr)) {
    return invalid_argument("score: sequence ids or offsets are missing");
  }
  batch_prefix_offsets_[0] = 0;
  for (size_t i = 0; i < sequences.size; ++i) {
    const size_t length = sequences.length(i);
    const int32_t* ids = sequences.sequence(i);
    if (length == 0) return invalid_argument("score: sequence " + std::to_string(i) + " is empty");
    // The rest and the end token take one position each after the first token's.
    if (length > max_context()) {
      return Status(StatusCode::kLimitExceeded, "score: sequence " + std::to_string(i) + " has " +
                                                    std::to_string(length) + " tokens; the context allows at most " +
                                                    std::to_string(max_context()));
    }
    if (ids[0] < 0 || static_cast<size_t>(ids[0]) >= vocab_size()) {
      return invalid_argument("score: sequence " + std::to_string(i) + ": token id " + std::to_string(ids[0]) +
                              " is outside the vocabulary (size " + std::to_string(vocab_size()) + ")");
    }
    batch_starts_[i] = ids[0];
    std::copy(ids + 1, ids + length, batch_prefix_ids_.begin() + static_cast<std::ptrdiff_t>(batch_prefix_offsets_[i]));
    batch_prefix_offsets_[i + 1] = batch_prefix_offsets_[i] + length - 1;
  }
  const TokenBatch targets{batch_prefix_ids_.data(), batch_prefix_offsets_.data(), sequences.size};
  start_model_->set_starts(batch_starts_.data());
  const Status status = engine_->score(nullptr, targets, out);
  start_model_->set_starts(nullptr);
  return status;
}

}  // namespace heed
