// The parts of a Hugging Face causal language model's config.json that decide how heed runs it:
// GPT2LMHeadModel (model_type "gpt2") and LlamaForCausalLM (model_type "llama"), read into one
// struct. Settings that would change the computation in ways heed does not implement
// (rope_scaling, cross-attention, GPT-2's per-layer attention scaling, an activation heed lacks)
// are refused here with a one-line error naming the field.
#pragma once

#include <cstdint>
#include <string>

#include "heed/status.h"
#include "heed_generated.h"

namespace heed::convert::hf_causal_lm {

enum class Family { kGpt2, kLlama };

struct CausalLmConfig {
  Family family = Family::kLlama;
  std::string model_type;
  uint32_t vocab_size = 0;
  uint32_t hidden_size = 0;
  uint32_t num_layers = 0;
  uint32_t num_heads = 0;
  uint32_t num_kv_heads = 0;   // = num_heads unless grouped-query attention
  uint32_t head_dim = 0;       // hidden_size / num_heads unless config.json says otherwise
  uint32_t ffn_dim = 0;
  uint32_t max_positions = 0;
  float norm_epsilon = 1e-5f;
  float rope_theta = 10000.0f;  // Llama only
  fb::Activation activation = fb::Activation::GELUTanh;
  std::string activation_name;  // as written in config.json
  bool tie_word_embeddings = false;
  bool attention_bias = false;  // Llama: q/k/v/o projections with biases
  int32_t bos_token_id = -1, eos_token_id = -1;
};

// Reads DIR/config.json; `expected` is the family --from asked for.
Status read_config(const std::string& dir, Family expected, CausalLmConfig* out);

// model_type of DIR/config.json, or "" when there is none (format detection).
std::string model_type_of(const std::string& dir);

}  // namespace heed::convert::hf_causal_lm
