// The parts of CTranslate2's TransformerDecoderSpec (revisions up to 8) beyond a stack's weights:
// the attributes each self-attention layer stores (grouped-query and multi-query attention, head
// width, rotary embeddings, sliding window, query scale) and the layer blocks heed does not run.
//
// CTranslate2's Llama, Mistral and similar conversions write, under
// decoder/layer_N/self_attention/: num_heads_kv (int32), rotary_dim (int32, 0 = the whole head),
// rotary_interleave (int8 flag: pairs (x[2j], x[2j+1]) when set, halves (x[j], x[j + d/2]) when
// not, as Hugging Face's Llama), rotary_base (float32) and, for scaled RoPE, rotary_scaling_type
// and its factors. heed runs grouped-query attention, whole-head RoPE on interleaved pairs with any
// base, and a sliding window as a bound on positions; "halves" models get their query and key rows
// reordered into pairs here (q . k is unchanged by a permutation applied to both). Everything else
// (scaled or partial rotary embeddings, parallel residual blocks, pre/post layer norms, query/key
// norms, ...) is refused with the variable and value that show it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ct2/model_bin.h"
#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::ct2 {

inline constexpr uint32_t kMaxDecoderSpecRevision = 8;

// Looks a variable up and records it as understood (the reader refuses variables nobody used).
using FindVariable = std::function<const Variable*(const std::string& name)>;

// What a model.bin's reader gives the functions below.
struct SpecSource {
  const ModelBin& bin;
  FindVariable find;
  std::string where;  // the file, for error messages
};

// The self-attention attributes every layer of a stack shares.
struct SelfAttentionSpec {
  uint32_t head_dim = 0;        // head_dim, else d_model / num_heads
  uint32_t num_heads_kv = 0;    // num_heads_kv (1 for multi_query); 0 when the file stores none
  bool rotary = false;          // rotary_dim present
  bool rotary_interleave = true;
  float rotary_base = 10000.0f;
  uint32_t sliding_window = 0;  // 0: none
};

// Refuses a TransformerDecoderSpec newer than the revisions heed knows.
Status check_decoder_spec_revision(const ModelBin& bin, const std::string& where);

// Reads scope/layer_N/self_attention/* of layers 0..layers-1 (they must agree) and the stack's
// sliding_window. `rope_allowed` is false for encoder-decoder stacks (heed runs RoPE in
// decoder-only models).
Status read_self_attention_spec(const SpecSource& src, const std::string& scope, uint32_t layers, uint32_t d_model,
                                uint32_t num_heads, bool rope_allowed, SelfAttentionSpec* out);

// Refuses the layer blocks and stack options heed does not run, naming the variable that shows
// them (and its value for attributes); marks the neutral values of such attributes as understood.
Status check_layer_blocks(const SpecSource& src, const std::string& scope);

// Sets the stack's head_dim, RoPE and position bound from `spec`, checks num_heads_kv against the
// fused projections' shape (stack->num_kv_heads, 0 = num_heads), and reorders the query and key
// rows of every layer's self_attn.qkv (weight, per-row scales, bias) when rotary_interleave is off.
Status apply_self_attention_spec(const SelfAttentionSpec& spec, const std::string& scope, const std::string& where,
                                 fb::TransformerStackT* stack, NeutralModel* model);

}  // namespace heed::convert::ct2
