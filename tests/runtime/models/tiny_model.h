// A tiny Transformer encoder-decoder with random weights, built in memory as a NeutralModel and
// serialized with the real .heed writer, for tests that compare the runtime with reference.h.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heed/model.h"
#include "loader/model_index.h"
#include "neutral_model.h"
#include "quantize.h"

namespace heed::test {

struct TinyOptions {
  uint32_t seed = 1;
  uint32_t encoder_layers = 2, decoder_layers = 2;
  uint32_t d_model = 16, num_heads = 4, num_kv_heads = 0, ffn_dim = 32;
  uint32_t source_vocab = 23, target_vocab = 19;
  fb::Activation activation = fb::Activation::ReLU;
  bool gated_ffn = false;
  bool pre_norm = true;
  bool final_norm = true;
  bool embedding_norm = false;
  fb::PositionEncoding positions = fb::PositionEncoding::Sinusoidal;
  uint32_t max_positions = 0;  // learned positions
  float embedding_scale = 4.0f;  // sqrt(d_model)
  float norm_epsilon = 1e-6f;
  bool tied_output = false;
  bool shared_embeddings = false;  // only "decoder.embeddings" is written
  bool quantize = false;           // run the converter's quantizer over the weight matrices
  convert::QuantizeOptions quantize_options;
};

convert::NeutralModel make_tiny_model(const TinyOptions& options);

// Serialized bytes and the Model loaded from them (the bytes outlive the Model).
struct LoadedModel {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> model;
};
// FAILs the current test on any error.
LoadedModel load_model(const convert::NeutralModel& neutral);

}  // namespace heed::test
