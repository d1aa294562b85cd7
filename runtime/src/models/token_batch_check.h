// The checks every session makes of a batch of token sequences before running it (sources of a
// translation, sentences to embed), with the same wording and status codes in every family.
#pragma once

#include <cstddef>

#include "heed/status.h"
#include "heed/step_model.h"

namespace heed::models {

struct TokenBatchLimits {
  size_t max_length = 0;       // tokens per sequence
  size_t vocab = 0;            // ids must be below this
  const char* item = "source";  // names a sequence in messages
  const char* owner = "session";  // names whose limits they are
  bool allow_empty = true;     // false: every sequence needs at least one token
};

// Offsets that never decrease, lengths within max_length (kLimitExceeded), ids inside the
// vocabulary (kInvalidArgument); messages name the sequence and token.
Status check_token_batch(const TokenBatch& batch, const TokenBatchLimits& limits);

// `count` within 1..max (kLimitExceeded otherwise), e.g. "beam 9 is outside the session's range 1..4".
Status check_range(const char* what, size_t count, size_t max, const char* owner = "session");

}  // namespace heed::models
