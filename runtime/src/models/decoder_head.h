// What a decoder needs besides its stack, read the same way by every Transformer family: the
// vocabulary projection (its own weights, or tied to an embedding table with its own optional
// bias) and the tokenizer's start and end ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "heed/model.h"
#include "heed/status.h"
#include "layers/linear.h"

namespace heed::models {

// Tied: the table `embeddings_name` with "decoder.output.bias"; otherwise "decoder.output".
Status load_output_projection(const Model& model, bool tied, const std::string& embeddings_name, size_t vocab,
                              size_t d_model, layers::Linear* out);

// The first decoder input (the decoder start id, else BOS) and the end id, both inside the
// vocabulary; `start_optional`: a language model trained without a start token has bos -1.
Status read_start_and_end(const Model& model, size_t vocab, bool start_optional, int32_t* bos, int32_t* eos);

}  // namespace heed::models
