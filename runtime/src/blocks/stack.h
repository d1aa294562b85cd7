// The weights and hyperparameters of one Transformer stack (encoder or decoder), loaded and
// validated once at session creation; the forward passes live in the model families.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "heed/kernels.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "heed/status.h"
#include "layers/embeddings.h"
#include "layers/linear.h"
#include "layers/norm.h"

namespace heed::blocks {

struct StackConfig {
  size_t num_layers = 0;
  size_t d_model = 0;
  size_t num_heads = 0;
  size_t num_kv_heads = 0;
  size_t head_dim = 0;
  size_t ffn_dim = 0;
  size_t vocab_size = 0;
  kernels::Activation activation = kernels::Activation::kRelu;
  bool gated_ffn = false;
  bool rms_norm = false;
  float norm_epsilon = 1e-6f;
  bool pre_norm = true;
  bool final_norm = true;
  bool embedding_norm = false;
  fb::PositionEncoding position_encoding = fb::PositionEncoding::Sinusoidal;
  size_t max_positions = 0;
  float embedding_scale = 1.0f;
  float rope_theta = 10000.0f;  // RoPE only

  size_t q_dim() const { return num_heads * head_dim; }
  size_t kv_dim() const { return num_kv_heads * head_dim; }
  size_t qkv_dim() const { return q_dim() + 2 * kv_dim(); }
  // The widest input any of the stack's linear layers reads (sizes the int8 activation scratch).
  size_t max_linear_input() const;
};

// Reads and checks a stack's hyperparameters; `which` ("encoder"/"decoder") names it in errors.
// RoPE positions are refused unless `allow_rope` (the families that rotate queries and keys).
Status read_stack_config(const fb::TransformerStack* stack, const char* which, StackConfig* out,
                         bool allow_rope = false);

struct LayerWeights {
  layers::Norm self_norm;
  layers::Linear self_qkv, self_out;
  bool has_cross = false;
  layers::Norm cross_norm;
  layers::Linear cross_q, cross_kv, cross_out;
  layers::Norm ffn_norm;
  layers::Linear ffn_in, ffn_gate, ffn_out;
};

struct StackWeights {
  StackConfig config;
  layers::Embeddings embeddings;
  layers::Embeddings learned_positions;  // position_encoding == Learned
  bool has_embedding_norm = false;
  layers::Norm embedding_norm;
  std::vector<LayerWeights> layers;
  bool has_final_norm = false;
  layers::Norm final_norm;
  // Self-attention of layers whose Q, K and V come from an int8 projection may multiply in
  // bfloat16 (kernels::AttentionParams::bf16_products). Embedders set it: on real sentence
  // encoders it moves the cosine to float32 less than int8 itself varies (docs/quantization.md).
  // Translation encoders keep float32 products: on aren (sharp attention over a few characters)
  // bfloat16 moved log-probs by up to 0.05 against the reference's int8 path.
  bool bf16_attention = false;

  // Loads `prefix` ("encoder"/"decoder") tensors. `embeddings_name` is the table to use (shared
  // embeddings point both stacks at one tensor). memory_dim > 0 adds cross-attention whose keys
  // and values are projected from vectors of that size.
  Status load(const Model& model, const std::string& prefix, const StackConfig& config,
              const std::string& embeddings_name, size_t memory_dim);
  // Hands every f32 linear layer of the stack to XNNPACK from `min_rows` rows (layers/backend.h).
  Status use_xnnpack(size_t min_rows);
  // Whether any linear layer of the stack runs on XNNPACK; may_use_xnnpack: would, once handed
  // over (float32 layers), so a plan made before the handover can tell.
  bool uses_xnnpack() const;
  bool may_use_xnnpack() const;
};

}  // namespace heed::blocks
