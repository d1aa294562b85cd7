#include "blocks/stack.h"

#include "layers/backend.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "heed_format/tensor_names.h"
#include "loader/model_index.h"

namespace heed::blocks {

namespace {

kernels::Activation to_kernel_activation(fb::Activation a) {
  switch (a) {
    case fb::Activation::GELU: return kernels::Activation::kGelu;
    case fb::Activation::GELUTanh: return kernels::Activation::kGeluTanh;
    case fb::Activation::SiLU: return kernels::Activation::kSilu;
    default: return kernels::Activation::kRelu;
  }
}

// Upper bounds that keep every size product far from overflow, even on 32-bit ARM.
constexpr size_t kMaxDim = 1 << 16;
constexpr size_t kMaxLayers = 1024;
constexpr size_t kMaxVocab = 1 << 22;

// The position encoding: a learned table needs its length, RoPE (decoder-only models only) an
// even head_dim and a usable theta.
Status check_position_encoding(const StackConfig& c, const std::string& w, bool allow_rope) {
  switch (c.position_encoding) {
    case fb::PositionEncoding::None:
    case fb::PositionEncoding::Sinusoidal:
      break;
    case fb::PositionEncoding::Learned:
      if (c.max_positions == 0) return invalid_file(w + ": learned positions need max_positions");
      break;
    case fb::PositionEncoding::RoPE:
      if (!allow_rope) {
        return unsupported_model(w + ": position encoding RoPE is not supported in Transformer encoder-decoder models");
      }
      if (c.head_dim % 2 != 0 || !(c.rope_theta > 0.0f) || !std::isfinite(c.rope_theta)) {
        return invalid_file(w + ": RoPE needs an even head_dim and a finite rope_theta > 0");
      }
      break;
    default:
      return unsupported_model(w + ": position encoding " +
                               std::string(fb::EnumNamePositionEncoding(c.position_encoding)) +
                               " is not supported in Transformer encoder-decoder models");
  }
  return Status::success();
}

}  // namespace

size_t StackConfig::max_linear_input() const {
  return std::max({d_model, q_dim(), ffn_dim});
}

Status read_stack_config(const fb::TransformerStack* s, const char* which, StackConfig* out, bool allow_rope) {
  const std::string w = which;
  if (s == nullptr) return invalid_file(w + " hyperparameters are missing");
  StackConfig c;
  c.num_layers = s->num_layers();
  c.d_model = s->d_model();
  c.num_heads = s->num_heads();
  c.num_kv_heads = s->num_kv_heads() == 0 ? c.num_heads : s->num_kv_heads();
  c.head_dim = s->head_dim() != 0 ? s->head_dim() : (c.num_heads > 0 ? c.d_model / c.num_heads : 0);
  c.ffn_dim = s->ffn_dim();
  c.vocab_size = s->vocab_size();
  c.activation = to_kernel_activation(s->activation());
  c.gated_ffn = s->gated_ffn();
  c.rms_norm = s->norm() == fb::NormKind::RMSNorm;
  c.norm_epsilon = s->norm_epsilon();
  c.pre_norm = s->pre_norm();
  c.final_norm = s->final_norm();
  c.embedding_norm = s->embedding_norm();
  c.position_encoding = s->position_encoding();
  c.max_positions = s->max_positions();
  c.embedding_scale = s->embedding_scale();
  c.rope_theta = s->rope_theta();

  if (c.num_layers > kMaxLayers) return invalid_file(w + ": " + std::to_string(c.num_layers) + " layers is too many");
  if (c.d_model == 0 || c.d_model > kMaxDim) return invalid_file(w + ": d_model " + std::to_string(c.d_model) + " out of range");
  if (c.num_heads == 0 || c.num_heads > c.d_model) return invalid_file(w + ": num_heads " + std::to_string(c.num_heads) + " out of range");
  if (c.num_kv_heads > c.num_heads || c.num_heads % c.num_kv_heads != 0) {
    return invalid_file(w + ": num_kv_heads " + std::to_string(c.num_kv_heads) + " must divide num_heads " +
                        std::to_string(c.num_heads));
  }
  if (c.head_dim == 0 || c.head_dim > kMaxDim || c.q_dim() > kMaxDim) {
    return invalid_file(w + ": head_dim " + std::to_string(c.head_dim) + " out of range");
  }
  if (c.num_layers > 0 && (c.ffn_dim == 0 || c.ffn_dim > 16 * kMaxDim)) {
    return invalid_file(w + ": ffn_dim " + std::to_string(c.ffn_dim) + " out of range");
  }
  if (c.vocab_size == 0 || c.vocab_size > kMaxVocab) return invalid_file(w + ": vocab_size " + std::to_string(c.vocab_size) + " out of range");
  if (!(c.norm_epsilon >= 0.0f) || !(c.embedding_scale == c.embedding_scale)) {
    return invalid_file(w + ": norm_epsilon or embedding_scale is not a number");
  }
  HEED_RETURN_IF_ERROR(check_position_encoding(c, w, allow_rope));
  *out = c;
  return Status::success();
}

Status StackWeights::load(const Model& model, const std::string& prefix, const StackConfig& c,
                          const std::string& embeddings_name, size_t memory_dim) {
  config = c;
  const bool rms = c.rms_norm;
  const float eps = c.norm_epsilon;
  HEED_RETURN_IF_ERROR(embeddings.load(model, embeddings_name, c.vocab_size, c.d_model));
  if (c.position_encoding == fb::PositionEncoding::Learned) {
    HEED_RETURN_IF_ERROR(learned_positions.load(model, prefix + ".positions", c.max_positions, c.d_model));
  }
  has_embedding_norm = c.embedding_norm;
  if (has_embedding_norm) {
    HEED_RETURN_IF_ERROR(embedding_norm.load(model, prefix + ".embedding_norm", c.d_model, rms, eps));
  }
  layers.clear();
  layers.resize(c.num_layers);
  for (size_t i = 0; i < c.num_layers; ++i) {
    const std::string p = names::layer(prefix, static_cast<int>(i));
    LayerWeights& l = layers[i];
    HEED_RETURN_IF_ERROR(l.self_norm.load(model, p + ".self_attn.norm", c.d_model, rms, eps));
    HEED_RETURN_IF_ERROR(l.self_qkv.load(model, p + ".self_attn.qkv", c.qkv_dim(), c.d_model));
    HEED_RETURN_IF_ERROR(l.self_out.load(model, p + ".self_attn.out", c.d_model, c.q_dim()));
    l.has_cross = memory_dim > 0;
    if (l.has_cross) {
      HEED_RETURN_IF_ERROR(l.cross_norm.load(model, p + ".cross_attn.norm", c.d_model, rms, eps));
      HEED_RETURN_IF_ERROR(l.cross_q.load(model, p + ".cross_attn.q", c.q_dim(), c.d_model));
      HEED_RETURN_IF_ERROR(l.cross_kv.load(model, p + ".cross_attn.kv", 2 * c.q_dim(), memory_dim));
      HEED_RETURN_IF_ERROR(l.cross_out.load(model, p + ".cross_attn.out", c.d_model, c.q_dim()));
    }
    HEED_RETURN_IF_ERROR(l.ffn_norm.load(model, p + ".ffn.norm", c.d_model, rms, eps));
    HEED_RETURN_IF_ERROR(l.ffn_in.load(model, p + ".ffn.in", c.ffn_dim, c.d_model));
    if (c.gated_ffn) HEED_RETURN_IF_ERROR(l.ffn_gate.load(model, p + ".ffn.gate", c.ffn_dim, c.d_model));
    HEED_RETURN_IF_ERROR(l.ffn_out.load(model, p + ".ffn.out", c.d_model, c.ffn_dim));
  }
  has_final_norm = c.final_norm;
  if (has_final_norm) HEED_RETURN_IF_ERROR(final_norm.load(model, prefix + ".norm", c.d_model, rms, eps));
  return Status::success();
}

namespace {

// Every linear layer of a layer (those a stack does not have are empty).
template <typename Layer>
auto linears(Layer& l) {
  return std::array{&l.self_qkv, &l.self_out, &l.cross_q, &l.cross_kv, &l.cross_out, &l.ffn_in, &l.ffn_gate, &l.ffn_out};
}

template <typename Predicate>
bool any_linear(const std::vector<LayerWeights>& layers, const Predicate& predicate) {
  for (const LayerWeights& l : layers) {
    for (const layers::Linear* x : linears(l)) {
      if (predicate(*x)) return true;
    }
  }
  return false;
}

}  // namespace

bool StackWeights::uses_xnnpack() const {
  return any_linear(layers, [](const layers::Linear& x) { return x.uses_xnnpack(); });
}

bool StackWeights::may_use_xnnpack() const {
  return any_linear(layers, [](const layers::Linear& x) { return x.xnnpack_eligible(); });
}

Status StackWeights::use_xnnpack(size_t min_rows) {
  for (LayerWeights& l : layers) {
    for (layers::Linear* x : linears(l)) HEED_RETURN_IF_ERROR(x->use_xnnpack(min_rows));
  }
  return Status::success();
}

}  // namespace heed::blocks
