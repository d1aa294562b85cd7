// Outlier channels (schema Tensor.outlier_channels, docs/quantization.md): a few input channels of
// a real encoder's linear layers carry activations 10-30x wider than the rest, and in int8 they
// coarsen every value quantized with them. The converter finds them by running the float32 model
// on calibration text and keeps each layer's widest input channels in float32: those weight
// columns move to an F32 tensor NAME.outliers ([channels, N]) and become 0 in the matrix that
// is then quantized; the runtime multiplies those activations in float32 and leaves them out of
// the int8 scales.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert {

// The lines heed calibrates on when no --calibration file is given: varied English sentences,
// short and long (outlier channels are a property of the trained model, not of the text).
const std::vector<std::string>& builtin_calibration_lines();

// Reads calibration text: one sentence per non-empty line (at most 1,000 used).
Status read_calibration_lines(const std::string& path, std::vector<std::string>* lines);

// Moves input channels `channels` (increasing, < K) of the float32 [N, K] linear weight `weight`
// into its F32 tensor `weight`.outliers ([channels, N]) and sets them to 0 in the weight.
Status split_channels(NeutralModel* model, const std::string& weight, std::vector<uint32_t> channels);

// Runs `model` (an encoder-only model, still float) on `lines` and splits the `count` input
// channels of largest |activation| out of every linear weight the encoder multiplies (those with
// at most format::kMaxOutlierInputs inputs and more than `count`). `split` (optional) receives how
// many weights got outlier channels; `embeddings` (optional) the float model's mean-pooled
// embeddings of the lines, for self_check.
Status split_outlier_channels(NeutralModel* model, uint32_t count, const std::vector<std::string>& lines,
                              size_t* split, std::vector<float>* embeddings = nullptr);

// The converted (quantized) encoder `model` embeds `lines` again; `lowest` and `mean` get the
// cosine similarities of its embeddings to `reference` (split_outlier_channels' float ones).
Status self_check(const NeutralModel& model, const std::vector<std::string>& lines, const std::vector<float>& reference,
                  double* lowest, double* mean);

}  // namespace heed::convert
