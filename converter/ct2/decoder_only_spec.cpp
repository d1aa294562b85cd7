#include "ct2/decoder_only_spec.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "heed/kernels.h"
#include "heed_format/tensor_names.h"

namespace heed::convert::ct2 {
namespace {

std::string number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// A scalar attribute's value: int8 flags, int16/int32 counts, float32 (or float16) values.
Status scalar_value(const SpecSource& src, const Variable& v, double* value) {
  if (v.num_elements() != 1) return invalid_file(src.where + ": attribute '" + v.name + "' is not a scalar");
  const uint8_t* p = src.bin.data(v);
  switch (v.dtype) {
    case DType::I8: { int8_t x; std::memcpy(&x, p, 1); *value = x; return Status::success(); }
    case DType::I16: { int16_t x; std::memcpy(&x, p, 2); *value = x; return Status::success(); }
    case DType::I32: { int32_t x; std::memcpy(&x, p, 4); *value = x; return Status::success(); }
    case DType::F32: { float x; std::memcpy(&x, p, 4); *value = x; return Status::success(); }
    case DType::F16: { uint16_t h; std::memcpy(&h, p, 2); *value = kernels::f16_to_f32_value(h); return Status::success(); }
    default:
      return invalid_file(src.where + ": attribute '" + v.name + "' is " + dtype_name(v.dtype) + ", expected a number");
  }
}

// `name`'s value, `*value` left as it is (the default) when the file stores none.
Status optional_attribute(const SpecSource& src, const std::string& name, double* value) {
  const Variable* v = src.find(name);
  return v ? scalar_value(src, *v, value) : Status::success();
}

// One layer's self-attention attributes, each at CTranslate2's default when absent.
struct LayerAttributes {
  double num_heads_kv = 0, multi_query = 0, head_dim = 0, rotary_dim = -1, rotary_interleave = 1,
         rotary_base = 10000, rotary_scaling_type = -1, queries_scale = 0, sliding_window = 0;
};

struct Field {
  const char* name;
  double LayerAttributes::*member;
};

constexpr Field kFields[] = {
    {"num_heads_kv", &LayerAttributes::num_heads_kv},
    {"multi_query", &LayerAttributes::multi_query},
    {"head_dim", &LayerAttributes::head_dim},
    {"rotary_dim", &LayerAttributes::rotary_dim},
    {"rotary_interleave", &LayerAttributes::rotary_interleave},
    {"rotary_base", &LayerAttributes::rotary_base},
    {"rotary_scaling_type", &LayerAttributes::rotary_scaling_type},
    {"queries_scale", &LayerAttributes::queries_scale},
    {"sliding_window", &LayerAttributes::sliding_window},
};

Status read_layer_attributes(const SpecSource& src, const std::string& at, LayerAttributes* a) {
  for (const Field& f : kFields) HEED_RETURN_IF_ERROR(optional_attribute(src, at + "/" + f.name, &(a->*f.member)));
  // Parameters of the scaled RoPE variants (rotary_scaling_type, refused below) that CTranslate2
  // ignores when no scaling type is set.
  for (const char* name : {"rotary_scaling_factor", "rotary_low_freq_factor", "rotary_high_freq_factor",
                           "original_max_position_embeddings", "max_position_embeddings"}) {
    src.find(at + "/" + name);
  }
  return Status::success();
}

// heed runs one value of each attribute for the whole stack (Gemma 3's local/global layers differ).
Status check_same_as_layer0(const SpecSource& src, const std::string& scope, uint32_t i, const LayerAttributes& first,
                            const LayerAttributes& other) {
  for (const Field& f : kFields) {
    if (first.*f.member == other.*f.member) continue;
    return unsupported_model(src.where + ": '" + scope + "/layer_" + std::to_string(i) + "/self_attention/" + f.name +
                             "' is " + number(other.*f.member) + " but layer 0's is " + number(first.*f.member) +
                             "; heed runs one value for every layer");
  }
  return Status::success();
}

const char* scaling_name(double type) {
  if (type == 0) return "Linear";
  if (type == 1) return "Su (LongRoPE)";
  if (type == 2) return "Llama3";
  return "unknown";
}

Status read_rotary(const SpecSource& src, const std::string& at, const LayerAttributes& a, bool rope_allowed,
                   SelfAttentionSpec* out) {
  out->rotary = a.rotary_dim >= 0;
  if (!out->rotary) return Status::success();
  if (!rope_allowed) return unsupported_model(src.where + ": '" + at + "/rotary_dim' is set; heed runs rotary embeddings in decoder-only models");
  if (a.rotary_dim != 0 && a.rotary_dim != out->head_dim) {
    return unsupported_model(src.where + ": '" + at + "/rotary_dim' is " + number(a.rotary_dim) +
                             " (rotary embeddings on part of each head of " + std::to_string(out->head_dim) +
                             "); heed rotates whole heads (rotary_dim 0)");
  }
  if (out->head_dim % 2 != 0) {
    return invalid_file(src.where + ": '" + at + "' has rotary embeddings on heads of odd width " +
                        std::to_string(out->head_dim));
  }
  if (a.rotary_scaling_type >= 0) {
    return unsupported_model(src.where + ": '" + at + "/rotary_scaling_type' is " + number(a.rotary_scaling_type) +
                             " (" + scaling_name(a.rotary_scaling_type) +
                             " scaling of the rotary frequencies); heed runs unscaled rotary embeddings");
  }
  if (!(a.rotary_base > 0) || !std::isfinite(a.rotary_base)) {
    return invalid_file(src.where + ": '" + at + "/rotary_base' is " + number(a.rotary_base) + ", not a positive number");
  }
  out->rotary_interleave = a.rotary_interleave != 0;
  out->rotary_base = static_cast<float>(a.rotary_base);
  return Status::success();
}

Status read_heads(const SpecSource& src, const std::string& at, const LayerAttributes& a, uint32_t d_model,
                  uint32_t num_heads, SelfAttentionSpec* out) {
  if (a.head_dim != 0 && (!(a.head_dim >= 1) || a.head_dim > 65536 || a.head_dim != std::floor(a.head_dim))) {
    return invalid_file(src.where + ": '" + at + "/head_dim' is " + number(a.head_dim) + ", not a head width");
  }
  out->head_dim = a.head_dim != 0 ? static_cast<uint32_t>(a.head_dim) : d_model / num_heads;
  const double kv = a.multi_query != 0 ? 1 : a.num_heads_kv;
  if (a.multi_query != 0 && a.num_heads_kv != 0 && a.num_heads_kv != 1) {
    return invalid_file(src.where + ": '" + at + "' is multi-query but its num_heads_kv is " + number(a.num_heads_kv));
  }
  if (kv != 0 && (!(kv >= 1) || kv > num_heads || std::fmod(num_heads, kv) != 0)) {
    return invalid_file(src.where + ": '" + at + "/num_heads_kv' is " + number(kv) + ", which does not divide the " +
                        std::to_string(num_heads) + " heads");
  }
  out->num_heads_kv = static_cast<uint32_t>(kv);
  return Status::success();
}

// A stored queries_scale must be the 1/sqrt(head_dim) heed applies.
Status check_queries_scale(const SpecSource& src, const std::string& at, const LayerAttributes& a, uint32_t head_dim) {
  const double standard = 1.0 / std::sqrt(static_cast<double>(head_dim));
  if (a.queries_scale == 0 || std::fabs(a.queries_scale - standard) <= 1e-6 * standard) return Status::success();
  return unsupported_model(src.where + ": '" + at + "/queries_scale' is " + number(a.queries_scale) +
                           "; heed scales queries by 1/sqrt(head_dim) = " + number(standard));
}

// The sliding window of the layers or of the stack, whichever is narrower (0: none).
Status read_sliding_window(const SpecSource& src, const std::string& scope, const LayerAttributes& a,
                           SelfAttentionSpec* out) {
  double stack_window = 0;
  HEED_RETURN_IF_ERROR(optional_attribute(src, scope + "/sliding_window", &stack_window));
  for (double w : {a.sliding_window, stack_window}) {
    if (w < 0 || w > std::numeric_limits<uint32_t>::max() || w != std::floor(w)) {
      return invalid_file(src.where + ": the sliding_window " + number(w) + " of '" + scope + "' is not a length");
    }
    if (w > 0 && (out->sliding_window == 0 || w < out->sliding_window)) out->sliding_window = static_cast<uint32_t>(w);
  }
  return Status::success();
}

// A block or option heed does not run: a sub-layer (name ends with '/': every variable under it)
// or a scalar attribute, accepted at its neutral value (NaN: never).
struct Refused {
  const char* part;
  double neutral;
  const char* what;
};

constexpr double kNever = std::numeric_limits<double>::quiet_NaN();
constexpr Refused kRefused[] = {
    {"shared_layer_norm/", kNever, "parallel attention and feed-forward blocks sharing one norm (GPT-J)"},
    {"input_layer_norm/", kNever, "norms around the blocks (GPT-NeoX's parallel residual or Gemma's pre/post norms)"},
    {"post_attention_layer_norm/", kNever, "norms around the blocks (GPT-NeoX's parallel residual or Gemma's pre/post norms)"},
    {"pre_feedforward_layer_norm/", kNever, "pre and post feed-forward norms (Gemma 2 and 3)"},
    {"post_feedforward_layer_norm/", kNever, "pre and post feed-forward norms (Gemma 2 and 3)"},
    {"self_attention/q_norm/", kNever, "query and key norms (qk_norm)"},
    {"self_attention/k_norm/", kNever, "query and key norms (qk_norm)"},
    {"self_attention/v_norm/", kNever, "a value norm (v_norm)"},
    {"project_in/", kNever, "projections after the embeddings and before the output (project_in_out)"},
    {"project_out/", kNever, "projections after the embeddings and before the output (project_in_out)"},
    {"layer_scalar", 1, "a per-layer output scale"},
    {"layer_norm_use_residual", 0, "norms that scale by 1 + gamma (Gemma)"},
    {"final_logit_softcapping", 0, "soft-capped logits"},
    {"scale_outputs", 1, "a scale on the decoder outputs"},
};

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// `name` without "scope/" and a following "layer_N/".
std::string within_layer(const std::string& name, const std::string& scope) {
  std::string rest = name.substr(scope.size() + 1);
  if (!starts_with(rest, "layer_") || rest.size() < 7 || rest[6] < '0' || rest[6] > '9') return rest;
  const size_t slash = rest.find('/');
  return slash == std::string::npos ? rest : rest.substr(slash + 1);
}

Status check_refused(const SpecSource& src, const Variable& v, const std::string& rest, const Refused& r) {
  const std::string part = r.part;
  const bool block = part.back() == '/';
  const size_t last = rest.rfind('/');
  const bool matches = block ? starts_with(rest, part) : rest.substr(last == std::string::npos ? 0 : last + 1) == part;
  if (!matches) return Status::success();
  if (block) return unsupported_model(src.where + ": '" + v.name + "' shows " + r.what + ", which heed does not run");
  double value = 0;
  HEED_RETURN_IF_ERROR(scalar_value(src, v, &value));
  if (value != r.neutral) {
    return unsupported_model(src.where + ": '" + v.name + "' is " + number(value) + " (" + r.what +
                             "), which heed does not run");
  }
  src.find(v.name);
  return Status::success();
}

// Row order turning each head's "halves" rotary rows (j, j + hd/2) into pairs (2j, 2j+1): new row
// r is old row order[r]. Rows from `first` on, `heads` heads of `hd`.
void add_pair_order(uint32_t first, uint32_t heads, uint32_t hd, std::vector<uint32_t>* order) {
  const uint32_t half = hd / 2;
  for (uint32_t h = 0; h < heads; ++h) {
    for (uint32_t j = 0; j < half; ++j) {
      (*order)[first + h * hd + 2 * j] = first + h * hd + j;
      (*order)[first + h * hd + 2 * j + 1] = first + h * hd + half + j;
    }
  }
}

Status permute_rows(NeutralTensor* t, const std::vector<uint32_t>& order, const std::string& where) {
  if (t->shape.empty() || t->shape[0] != order.size() || t->bytes.size() % order.size() != 0) {
    return invalid_file(where + ": '" + t->name + "' does not have the " + std::to_string(order.size()) +
                        " rows of a fused query/key/value projection");
  }
  const size_t row = t->bytes.size() / order.size();
  std::vector<uint8_t> out(t->bytes.size());
  for (size_t r = 0; r < order.size(); ++r) std::memcpy(out.data() + r * row, t->bytes.data() + order[r] * row, row);
  t->bytes = std::move(out);
  return Status::success();
}

// The weight, its per-row scales (int8 kept from CTranslate2) and the bias of one qkv projection.
Status reorder_rotary_rows(NeutralModel* model, const std::string& qkv, const std::vector<uint32_t>& order,
                           const std::string& where) {
  NeutralTensor* weight = model->find(qkv + ".weight");
  if (!weight) return invalid_file(where + ": no '" + qkv + ".weight' to reorder for rotary embeddings");
  HEED_RETURN_IF_ERROR(permute_rows(weight, order, where));
  NeutralTensor* scales = weight->scales.empty() ? nullptr : model->find(weight->scales);
  if (scales && weight->quantization == fb::Quantization::PerRow) HEED_RETURN_IF_ERROR(permute_rows(scales, order, where));
  if (NeutralTensor* bias = model->find(qkv + ".bias")) HEED_RETURN_IF_ERROR(permute_rows(bias, order, where));
  return Status::success();
}

}  // namespace

Status check_decoder_spec_revision(const ModelBin& bin, const std::string& where) {
  if (bin.spec_revision() <= kMaxDecoderSpecRevision) return Status::success();
  return unsupported_model(where + ": TransformerDecoderSpec revision " + std::to_string(bin.spec_revision()) +
                           " is newer than the revisions heed reads (up to " +
                           std::to_string(kMaxDecoderSpecRevision) + ")");
}

Status read_self_attention_spec(const SpecSource& src, const std::string& scope, uint32_t layers, uint32_t d_model,
                                uint32_t num_heads, bool rope_allowed, SelfAttentionSpec* out) {
  *out = SelfAttentionSpec();
  const std::string at = scope + "/layer_0/self_attention";
  LayerAttributes first;
  HEED_RETURN_IF_ERROR(read_layer_attributes(src, at, &first));
  for (uint32_t i = 1; i < layers; ++i) {
    LayerAttributes other;
    HEED_RETURN_IF_ERROR(read_layer_attributes(src, scope + "/layer_" + std::to_string(i) + "/self_attention", &other));
    HEED_RETURN_IF_ERROR(check_same_as_layer0(src, scope, i, first, other));
  }
  HEED_RETURN_IF_ERROR(read_heads(src, at, first, d_model, num_heads, out));
  HEED_RETURN_IF_ERROR(check_queries_scale(src, at, first, out->head_dim));
  HEED_RETURN_IF_ERROR(read_rotary(src, at, first, rope_allowed, out));
  return read_sliding_window(src, scope, first, out);
}

Status check_layer_blocks(const SpecSource& src, const std::string& scope) {
  for (const Variable& v : src.bin.variables()) {
    if (!starts_with(v.name, scope + "/")) continue;
    const std::string rest = within_layer(v.name, scope);
    for (const Refused& r : kRefused) HEED_RETURN_IF_ERROR(check_refused(src, v, rest, r));
  }
  return Status::success();
}

Status apply_self_attention_spec(const SelfAttentionSpec& spec, const std::string& scope, const std::string& where,
                                 fb::TransformerStackT* stack, NeutralModel* model) {
  const uint32_t heads = stack->num_heads, kv = stack->num_kv_heads ? stack->num_kv_heads : heads, hd = spec.head_dim;
  if (spec.num_heads_kv != 0 && spec.num_heads_kv != kv) {
    return invalid_file(where + ": '" + scope + "' stores num_heads_kv " + std::to_string(spec.num_heads_kv) +
                        " but its fused query/key/value projections hold " + std::to_string(kv) + " key/value heads");
  }
  if (hd != stack->d_model / heads) stack->head_dim = hd;
  if (!spec.rotary) {
    if (spec.sliding_window == 0) return Status::success();
    return unsupported_model(where + ": '" + scope + "' has a sliding_window of " + std::to_string(spec.sliding_window) +
                             " without rotary embeddings; heed bounds a window only on rotary models");
  }
  if (stack->position_encoding == fb::PositionEncoding::Learned) {
    return invalid_file(where + ": '" + scope + "' has both a position table and rotary embeddings");
  }
  stack->position_encoding = fb::PositionEncoding::RoPE;
  stack->rope_theta = spec.rotary_base;
  // Within the window CTranslate2 attends to every earlier position, as heed does; beyond it the two
  // differ, so the window bounds the sequence length.
  stack->max_positions = spec.sliding_window;
  if (spec.rotary_interleave) return Status::success();
  std::vector<uint32_t> order((heads + 2 * kv) * hd);
  for (uint32_t r = 0; r < order.size(); ++r) order[r] = r;  // the value rows stay
  add_pair_order(0, heads, hd, &order);
  add_pair_order(heads * hd, kv, hd, &order);
  for (uint32_t i = 0; i < stack->num_layers; ++i) {
    HEED_RETURN_IF_ERROR(reorder_rotary_rows(model, names::layer(scope, static_cast<int>(i)) + ".self_attn.qkv", order, where));
  }
  return Status::success();
}

}  // namespace heed::convert::ct2
