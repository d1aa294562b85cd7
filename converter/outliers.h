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
#include "layers/linear.h"
#include "neutral_model.h"
#include "self_check.h"

namespace heed::convert {

// The lines heed calibrates on when no --calibration file is given: varied English sentences,
// short and long (outlier channels are a property of the trained model, not of the text).
const std::vector<std::string>& builtin_calibration_lines();

// Reads calibration text: one sentence per non-empty line (at most 1,000 used).
Status read_calibration_lines(const std::string& path, std::vector<std::string>* lines);

// Moves input channels `channels` (increasing, < K) of the float32 [N, K] linear weight `weight`
// into its F32 tensor `weight`.outliers ([channels, N]) and sets them to 0 in the weight.
Status split_channels(NeutralModel* model, const std::string& weight, std::vector<uint32_t> channels);

// The models calibration runs: encoder-only ones embed the lines (mean pooling), decoder-only
// LMs score them (teacher forcing from the start token).
bool calibrates_as_encoder(const NeutralModel& model);
bool can_calibrate(const NeutralModel& model);

// Runs `model` (serialized and loaded as a file would be) on `lines`, reporting every linear
// layer's input to `recorder` (optional): *out gets the embeddings or the log-prob of every token
// scored, and for decoders each line's greedy continuation (kSelfCheckTokens, not recorded).
Status run_calibration(const NeutralModel& model, const std::vector<std::string>& lines, layers::InputRecorder* recorder,
                       CalibrationOutput* out);

// Runs `model` (still float; can_calibrate) on `lines` and splits the `count` input
// channels of largest |activation| out of every linear weight the model multiplies (those with
// at most format::kMaxOutlierInputs inputs and more than `count`). `split` (optional) receives how
// many weights got outlier channels; `reference` (optional) the float model's run_calibration
// output, for self_check.
Status split_outlier_channels(NeutralModel* model, uint32_t count, const std::vector<std::string>& lines,
                              size_t* split, CalibrationOutput* reference = nullptr);

// The converted model against the float one on the calibration lines (self_check.h).
Status self_check(const NeutralModel& model, const std::vector<std::string>& lines, const CalibrationOutput& reference,
                  SelfCheck* check);

}  // namespace heed::convert
