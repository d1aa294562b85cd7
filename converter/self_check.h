// The converter's self-check (heed convert's last summary line): the converted model against the
// float32 one on the calibration lines. Encoders: the mean-pooled embeddings' cosine similarity.
// Decoder LMs: the lines' negative log-likelihood per token, and how many lines the converted
// model continues greedily exactly as the float one does (the figure a chat user notices first:
// int8 may keep the NLL and still change the answer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/model.h"
#include "heed/status.h"

namespace heed::convert {

// Tokens of the greedy continuation the self-check compares, the end token included.
constexpr size_t kSelfCheckTokens = 16;

// A calibration run's outputs: embeddings ([lines, dimension]) or the log-prob of every token
// scored; decoders also each line's greedy continuation (its ids, then the end token when the
// model produced one).
struct CalibrationOutput {
  std::vector<float> values;
  std::vector<std::vector<int32_t>> continuations;
};

// The greedy continuation of each line (decoder-only `model`), at most `tokens` tokens each.
// Lines that encode to no ids get an empty continuation.
Status greedy_continuations(const Model& model, const std::vector<std::string>& lines, size_t tokens,
                            std::vector<std::vector<int32_t>>* out);

struct SelfCheck {
  size_t lines = 0;  // 0: not run
  bool encoder = true;
  double lowest_cosine = 0, mean_cosine = 0;
  double nll_float = 0, nll_converted = 0;
  size_t same_continuations = 0;  // lines whose kSelfCheckTokens-token greedy continuation is the float model's
  double matched_prefix = 0;      // mean share of the float continuation's leading tokens kept (0..1)
};

// Compares `converted` (the converted model's run) with `reference` (the float one's).
Status compare_calibration(const CalibrationOutput& converted, const CalibrationOutput& reference, bool encoder,
                           size_t lines, SelfCheck* check);

}  // namespace heed::convert
