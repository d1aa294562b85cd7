// A straightforward Transformer encoder-decoder forward pass in plain loops, written from the
// model definition (not from the runtime's code), used as the expected values of the tests.
//
// It reads the NeutralModel the .heed file was written from. Weight matrices stored as int8 are
// dequantized (q * scale); their inputs are quantized per row the documented way (scale =
// max|x| / 127, q = round-half-away(x * 127 / max|x|) clamped to [-127, 127]) and multiplied in
// exact integer arithmetic, as the runtime's int8 path is specified to do. f16 weights are widened.
// The decoder is run over the whole target prefix at once with a causal mask (no cache), so a
// match also shows the runtime's incremental K/V cache equals recomputing the prefix.
#pragma once

#include <cstdint>
#include <vector>

#include "neutral_model.h"

namespace heed::test {

// log-probs [target_in.size(), target vocabulary]: row t is the distribution after feeding
// target_in[0..t] (target_in[0] is the decoder start token) for the given source.
std::vector<float> reference_log_probs(const convert::NeutralModel& model, const std::vector<int32_t>& source,
                                       const std::vector<int32_t>& target_in);

}  // namespace heed::test
