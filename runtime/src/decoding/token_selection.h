// Choosing tokens from one row of log-probabilities: masking, argmax, seeded sampling.
// Pure functions over caller-provided memory (no allocation).
#pragma once

#include <cstddef>
#include <cstdint>

#include "heed/step_model.h"

namespace heed::decoding {

// How a row of scores reads as log-probabilities without rewriting it: entry x is
// (x - shift) - norm in float, in that order, which is bitwise what the row would hold after the
// model's log-softmax (x - shift, StepModel::log_softmax_shift) and renormalize() (- norm). Both
// are 0 for a row that already holds its log-probabilities (x - 0 - 0 is x).
struct LogProbView {
  float shift = 0.0f;
  float norm = 0.0f;
  float at(float x) const { return (x - shift) - norm; }
};

// Removing tokens from a log-softmax row as if their logits had been -inf before the softmax:
// remove_token() sets one to -inf and returns the probability it held (0 when already -inf),
// reading the row's log-prob as x - shift; renormalization() is then what renormalize() subtracts
// from each log-prob to spread the removed mass back over the others (they sum to 1 again), 0
// when nothing was removed or nothing is left (such a row stays -inf). forbid_token() is both,
// for one token of a log-prob row.
double remove_token(float* scores, int32_t token, float shift = 0.0f);
float renormalization(const float* scores, size_t vocab, double removed, float shift = 0.0f);
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
