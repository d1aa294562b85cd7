// A small but complete encoder-decoder model for the loader tests, built through the converter's
// NeutralModel: f32, f16 and int8 tensors (per-tensor, per-row and per-group scales), odd sizes so
// padding matters, a tokenizer and metadata.
#pragma once

#include <cstdint>
#include <vector>

#include "neutral_model.h"

namespace heed::test {

convert::NeutralModel make_sample_model();
// A valid vocabulary map for it (both vocabularies hold 10 tokens): keys [1] [1 2] [3] (max_ngram
// 2) with candidates {4 5} {6} {7 8}, always {2}.
fb::VocabMapT sample_vocab_map();
// serialize_heed(make_sample_model()); throws std::runtime_error if the writer refuses it.
std::vector<uint8_t> sample_model_bytes();

}  // namespace heed::test
