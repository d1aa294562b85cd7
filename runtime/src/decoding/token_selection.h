// Choosing tokens from one row of log-probabilities: masking, argmax, seeded sampling.
// Pure functions over caller-provided memory (no allocation).
#pragma once

#include <cstddef>
#include <cstdint>

#include "heed/step_model.h"

namespace heed::decoding {

// Removing tokens from a log-softmax row as if their logits had been -inf before the softmax:
// remove_token() sets one to -inf and returns the probability it held (0 when already -inf);
// renormalize() then spreads the removed mass back over the others (they sum to 1 again). A row
// with nothing left stays -inf. forbid_token() is both, for one token.
double remove_token(float* log_probs, int32_t token);
void renormalize(float* log_probs, size_t vocab, double removed);
void forbid_token(float* log_probs, size_t vocab, int32_t token);

// Index of the largest value (the first one on ties).
int32_t argmax(const float* values, size_t n);

// The tokens a row of scores can hold a finite value at: `ids` (`count` of them, increasing) while
// the model restricts its vocabulary (StepModel::vocabulary_candidates), else all `size`.
struct RowTokens {
  size_t size = 0;
  const int32_t* ids = nullptr;
  size_t count = 0;
};
RowTokens row_tokens(const StepModel& model, size_t vocab);
// argmax(values, tokens.size), reading only the tokens' values: the same token.
int32_t argmax(const float* values, const RowTokens& tokens);

// SplitMix64: small, fast, and the same sequence on every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform();  // [0, 1), 53 random bits
 private:
  uint64_t state_;
};

struct SamplingParams {
  size_t top_k;       // 0: whole vocabulary
  float temperature;  // > 0
  float top_p;        // (0, 1]
};

// Draws one token from softmax(log_probs / temperature), restricted to the top_k most likely
// tokens and then to the smallest best-first set reaching probability top_p. `weights` and `ids`
// are scratch of `vocab` entries.
int32_t sample_token(const float* log_probs, size_t vocab, const SamplingParams& params, Rng& rng,
                     float* weights, int32_t* ids);

}  // namespace heed::decoding
