#include "ct2/reader.h"

#include "tensor_mapper.h"

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "ct2/decoder_only_spec.h"
#include "ct2/model_bin.h"
#include "ct2/vocabulary.h"
#include "heed/kernels.h"
#include "heed_format/tensor_names.h"
#include "quantize.h"
#include "sentencepiece_model.h"
#include "source_files.h"
#include "tensor_mapper.h"
#include "loader/model_index.h"

#ifndef HEED_VERSION
#define HEED_VERSION "unknown"
#endif

namespace heed::convert::ct2 {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

void replace_first(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
}

// Revision 1 of the Transformer specs kept OpenNMT-tf's variable names; this is the renaming
// CTranslate2 applies to them when it loads such a file.
std::string revision1_name(std::string name) {
  replace_first(name, "transformer/", "");
  replace_first(name, ":0", "");
  replace_first(name, "w_embs", "embeddings/weight");
  replace_first(name, "kernel", "weight");
  replace_first(name, "LayerNorm", "layer_norm");
  replace_first(name, "dense", "projection");
  replace_first(name, "conv1d_", "linear_");
  replace_first(name, "conv1d", "linear_0");
  if (name.find("encoder") != std::string::npos) {
    replace_first(name, "multi_head", "self_attention");
  } else {
    replace_first(name, "masked_multi_head", "self_attention");
    replace_first(name, "multi_head", "attention");
  }
  return name;
}

std::string shape_string(const std::vector<uint32_t>& shape) {
  return convert::shape_string(std::vector<uint64_t>(shape.begin(), shape.end()));
}

enum class Family { kEncoderDecoder, kDecoderOnly };

// Everything one stack (encoder or decoder) needs, gathered from the file.
struct StackInfo {
  std::unique_ptr<fb::TransformerStackT> config;
  bool tied_output = false;
  std::string embeddings_variable;  // the model.bin variable behind the embeddings, aliases resolved
};

// Maps one parsed model.bin onto heed's tensor names, remembering which variables it used so that
// anything it does not understand is reported instead of silently dropped.
class Mapper {
 public:
  Mapper(const ModelBin& bin, const Config& config, const std::string& where, NeutralModel* out)
      : bin_(bin), config_(config), where_(where), out_(out) {}

  const Variable* find(const std::string& name) {
    const Variable* v = bin_.find(name);
    if (v) {
      used_.insert(name);
      used_.insert(v->name);
    }
    return v;
  }

  Status error(const std::string& message) const { return unsupported_model(where_ + ": " + message); }
  Status corrupt(const std::string& message) const { return invalid_file(where_ + ": " + message); }

  // A scalar integer attribute (bools are int8, counts int16 in CTranslate2's files).
  Status attr_int(const std::string& name, int64_t* value, bool* present) {
    *present = false;
    const Variable* v = find(name);
    if (!v) return Status::success();
    if (v->num_elements() != 1) return corrupt("attribute '" + name + "' is not a scalar");
    const uint8_t* p = bin_.data(*v);
    switch (v->dtype) {
      case DType::I8: { int8_t x; std::memcpy(&x, p, 1); *value = x; break; }
      case DType::I16: { int16_t x; std::memcpy(&x, p, 2); *value = x; break; }
      case DType::I32: { int32_t x; std::memcpy(&x, p, 4); *value = x; break; }
      default: return corrupt("attribute '" + name + "' is " + dtype_name(v->dtype) + ", expected an integer");
    }
    *present = true;
    return Status::success();
  }

  // Scoped attribute first (scope/name), then the model-wide one older revisions stored.
  Status attr_int_scoped(const std::string& scope, const std::string& name, int64_t fallback, int64_t* value) {
    bool present = false;
    HEED_RETURN_IF_ERROR(attr_int(scope + "/" + name, value, &present));
    if (!present) HEED_RETURN_IF_ERROR(attr_int(name, value, &present));
    if (!present) *value = fallback;
    return Status::success();
  }

  // Values of a float variable as f32 (f32, f16, bf16 stored; int16 dequantized with its scale).
  Status values_f32(const Variable& v, std::vector<float>* out) {
    const size_t n = v.num_elements();
    out->resize(n);
    const uint8_t* p = bin_.data(v);
    switch (v.dtype) {
      case DType::F32:
        std::memcpy(out->data(), p, n * 4);
        return Status::success();
      case DType::F16:
      case DType::BF16:
        for (size_t i = 0; i < n; ++i) {
          uint16_t h;
          std::memcpy(&h, p + 2 * i, 2);
          (*out)[i] = v.dtype == DType::F16 ? kernels::f16_to_f32_value(h) : bf16_to_f32(h);
        }
        return Status::success();
      case DType::I16: {
        // CTranslate2's int16: real = q / scale, one scale per tensor (1000 when none was saved).
        float scale = 1000.0f;
        if (const Variable* s = find(v.name + "_scale")) {
          std::vector<float> sv;
          if (s->dtype == DType::I16 || s->num_elements() != 1) return corrupt("bad scale '" + s->name + "'");
          HEED_RETURN_IF_ERROR(values_f32(*s, &sv));
          scale = sv[0];
        }
        if (!(scale > 0) || !std::isfinite(scale)) return corrupt("'" + v.name + "_scale' is not a positive number");
        for (size_t i = 0; i < n; ++i) {
          int16_t q;
          std::memcpy(&q, p + 2 * i, 2);
          (*out)[i] = static_cast<float>(q) / scale;
        }
        return Status::success();
      }
      default:
        return error("variable '" + v.name + "' is " + dtype_name(v.dtype) + ", which heed cannot read as real values");
    }
  }

  // heed's scales (1 / CTranslate2's) of int8 variable `src` with `rows` rows, from SRC_scale: one
  // per row, or one for the whole tensor (*per_tensor).
  Status int8_scales(const std::string& src, size_t rows, std::vector<float>* scales, bool* per_tensor) {
    const Variable* s = find(src + "_scale");
    if (!s) return corrupt("int8 variable '" + src + "' has no '" + src + "_scale'");
    std::vector<float> ct2_scales;
    HEED_RETURN_IF_ERROR(values_f32(*s, &ct2_scales));
    *per_tensor = ct2_scales.size() == 1 && s->shape.empty();
    if (!*per_tensor && ct2_scales.size() != rows) {
      return corrupt("'" + s->name + "' has " + std::to_string(ct2_scales.size()) + " scales for " +
                     std::to_string(rows) + " rows");
    }
    scales->resize(ct2_scales.size());
    for (size_t i = 0; i < scales->size(); ++i) {
      const float c = ct2_scales[i];
      // An all-zero row got an infinite scale in older CTranslate2 versions: its values are 0.
      if (std::isinf(c) && c > 0) {
        (*scales)[i] = 0.0f;
      } else if (!(c > 0) || !std::isfinite(c)) {
        return corrupt("'" + s->name + "' has an invalid scale " + std::to_string(c) + " at row " + std::to_string(i));
      } else {
        (*scales)[i] = 1.0f / c;
      }
    }
    return Status::success();
  }

  // Copies variable `src` into tensor `dst`. `shape` (when not empty) is the required shape.
  // int8 sources stay int8 when `quantizable` (with NAME.scales = 1 / CTranslate2's scale).
  Status take(const std::string& src, const std::string& dst, bool quantizable, bool required,
              const std::vector<uint32_t>& shape, bool* found = nullptr) {
    if (found) *found = false;
    const Variable* v = find(src);
    if (!v) {
      if (required) return corrupt("missing variable '" + src + "'");
      return Status::success();
    }
    if (found) *found = true;
    if (!shape.empty() && v->shape != shape) {
      return corrupt("variable '" + src + "' has shape " + shape_string(v->shape) + ", expected " + shape_string(shape));
    }
    NeutralTensor t;
    t.name = dst;
    t.shape = v->shape;
    t.quantizable = quantizable;
    if (v->dtype == DType::I8) {
      const size_t rows = v->shape.empty() ? 1 : v->shape[0];
      std::vector<float> scales;
      bool per_tensor = false;
      HEED_RETURN_IF_ERROR(int8_scales(src, rows, &scales, &per_tensor));
      if (quantizable && t.shape.size() == 2) {
        t.dtype = fb::DType::I8;
        t.quantization = per_tensor ? fb::Quantization::PerTensor : fb::Quantization::PerRow;
        t.scales = names::scales(dst);
        t.bytes.assign(bin_.data(*v), bin_.data(*v) + v->size);
        out_->tensors.push_back(std::move(t));
        NeutralTensor st;
        st.name = names::scales(dst);
        st.shape = per_tensor ? std::vector<uint32_t>{1} : std::vector<uint32_t>{static_cast<uint32_t>(rows)};
        st.bytes.resize(scales.size() * sizeof(float));
        std::memcpy(st.bytes.data(), scales.data(), st.bytes.size());
        out_->tensors.push_back(std::move(st));
        return Status::success();
      }
      // Not a matrix heed keeps in int8: store the real values.
      std::vector<float> real(v->num_elements());
      const int8_t* q = reinterpret_cast<const int8_t*>(bin_.data(*v));
      const size_t cols = rows == 0 ? 0 : real.size() / rows;
      for (size_t i = 0; i < real.size(); ++i) real[i] = q[i] * scales[per_tensor ? 0 : i / cols];
      t.bytes.resize(real.size() * 4);
      std::memcpy(t.bytes.data(), real.data(), t.bytes.size());
      out_->tensors.push_back(std::move(t));
      return Status::success();
    }
    std::vector<float> values;
    HEED_RETURN_IF_ERROR(values_f32(*v, &values));
    t.bytes.resize(values.size() * 4);
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    out_->tensors.push_back(std::move(t));
    return Status::success();
  }

  // A norm: gamma required, beta absent for RMSNorm. Returns whether beta was present.
  Status take_norm(const std::string& src, const std::string& dst, uint32_t d, bool* has_beta) {
    HEED_RETURN_IF_ERROR(take(src + "/gamma", dst + ".gamma", false, true, {d}));
    return take(src + "/beta", dst + ".beta", false, false, {d}, has_beta);
  }

  // A linear layer: weight [rows, cols] required, bias [rows] optional.
  Status take_linear(const std::string& src, const std::string& dst, uint32_t rows, uint32_t cols) {
    HEED_RETURN_IF_ERROR(take(src + "/weight", dst + ".weight", true, true, {rows, cols}));
    return take(src + "/bias", dst + ".bias", false, false, {rows});
  }

  // Indices N of "scope/layer_N/..." variables; they must be 0..count-1.
  Status count_layers(const std::string& scope, uint32_t* count) {
    std::set<uint32_t> seen;
    const std::string prefix = scope + "/layer_";
    auto visit = [&](const std::string& name) {
      if (!starts_with(name, prefix)) return;
      size_t i = prefix.size();
      uint64_t n = 0;
      size_t digits = 0;
      while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 9) n = n * 10 + (name[i++] - '0'), ++digits;
      if (digits > 0 && i < name.size() && name[i] == '/') seen.insert(static_cast<uint32_t>(n));
    };
    for (const auto& v : bin_.variables()) visit(v.name);
    for (const auto& a : bin_.aliases()) visit(a.first);
    if (seen.empty()) return corrupt("no layers under '" + scope + "/'");
    if (*seen.rbegin() + 1 != seen.size()) return corrupt("the layers of '" + scope + "' are not numbered 0.." + std::to_string(seen.size() - 1));
    *count = static_cast<uint32_t>(seen.size());
    return Status::success();
  }

  Status read_stack(const std::string& scope, bool cross_attention, int64_t default_heads, StackInfo* info);

 private:
  // The parts of a stack read_stack reads, in file order.
  struct LayerShape {
    uint32_t d = 0, heads = 0, head_dim = 0;
    uint32_t kv_heads = 0, ffn = 0;  // from layer 0; later layers must agree
    bool has_beta = true, gated = false;
  };
  Status read_embeddings(const std::string& scope, fb::TransformerStackT* stack, StackInfo* info,
                         std::string* embeddings);
  Status read_attributes(const std::string& scope, int64_t default_heads, fb::TransformerStackT* stack);
  Status read_embedding_scale(const std::string& scope, fb::TransformerStackT* stack);
  Status read_positions_and_norms(const std::string& scope, fb::TransformerStackT* stack);
  Status read_layer(const std::string& scope, uint32_t i, bool cross_attention, LayerShape* shape);
  Status read_output(const std::string& embeddings, const fb::TransformerStackT& stack, StackInfo* info);

 public:

  // Every variable and alias the mapping did not use: heed would drop something the model needs.
  Status check_all_used() const {
    for (const auto& v : bin_.variables()) {
      if (!used_.count(v.name)) {
        return error("unknown variable '" + v.name + "' (" + dtype_name(v.dtype) + " " + shape_string(v.shape) +
                     "): heed does not know how to run it; spec " + bin_.spec_name() + " revision " +
                     std::to_string(bin_.spec_revision()));
      }
    }
    for (const auto& a : bin_.aliases()) {
      if (!used_.count(a.first)) return error("unknown alias '" + a.first + "' -> '" + a.second + "'");
    }
    return Status::success();
  }

  // Marks variables that only steer CTranslate2's own decoding (nothing heed computes with).
  void mark_used_if_present(const std::string& name) { find(name); }

 private:
  const ModelBin& bin_;
  const Config& config_;
  std::string where_;
  NeutralModel* out_;
  std::set<std::string> used_;
};

// Embeddings (several source feature embeddings are not supported); sets vocab_size and d_model.
Status Mapper::read_embeddings(const std::string& scope, fb::TransformerStackT* stack, StackInfo* info,
                               std::string* embeddings) {
  *embeddings = scope + "/embeddings";
  if (!bin_.find(*embeddings + "/weight") && bin_.find(scope + "/embeddings_0/weight")) {
    if (bin_.find(scope + "/embeddings_1/weight")) {
      return error("'" + scope + "' has several input feature embeddings (embeddings_0, embeddings_1, ...); heed "
                   "supports one");
    }
    *embeddings = scope + "/embeddings_0";
  }
  const Variable* emb = find(*embeddings + "/weight");
  if (!emb) return corrupt("missing variable '" + *embeddings + "/weight'");
  if (emb->shape.size() != 2 || emb->shape[0] == 0 || emb->shape[1] == 0) {
    return corrupt("'" + emb->name + "' has shape " + shape_string(emb->shape) + ", expected [vocabulary, d_model]");
  }
  const uint32_t vocab = emb->shape[0], d = emb->shape[1];
  stack->vocab_size = vocab;
  stack->d_model = d;
  HEED_RETURN_IF_ERROR(take(*embeddings + "/weight", scope + ".embeddings", true, true, {vocab, d}));
  mark_used_if_present(scope + "/embeddings_merge");
  const std::string alias_target = bin_.alias_target(*embeddings + "/weight");
  info->embeddings_variable = alias_target.empty() ? *embeddings + "/weight" : alias_target;
  return Status::success();
}

Status Mapper::read_attributes(const std::string& scope, int64_t default_heads, fb::TransformerStackT* stack) {
  const uint32_t d = stack->d_model;
  int64_t heads = 0, pre_norm = 1, activation = 0;
  HEED_RETURN_IF_ERROR(attr_int_scoped(scope, "num_heads", default_heads, &heads));
  HEED_RETURN_IF_ERROR(attr_int_scoped(scope, "pre_norm", 1, &pre_norm));
  HEED_RETURN_IF_ERROR(attr_int_scoped(scope, "activation", 0, &activation));
  if (heads <= 0 || d % heads != 0) {
    return corrupt("'" + scope + "' has " + std::to_string(heads) + " heads, which do not divide d_model " + std::to_string(d));
  }
  stack->num_heads = static_cast<uint32_t>(heads);
  stack->pre_norm = pre_norm != 0;
  switch (activation) {  // CTranslate2's ActivationType ids
    case 0: stack->activation = fb::Activation::ReLU; break;
    case 1: stack->activation = fb::Activation::GELUTanh; break;
    case 2: stack->activation = fb::Activation::SiLU; break;
    case 3: stack->activation = fb::Activation::GELU; break;
    default:
      return error("'" + scope + "' uses CTranslate2 activation " + std::to_string(activation) +
                   " (GELUSigmoid or Tanh); heed supports ReLU, GELU, GELUTanh and Swish/SiLU");
  }
  return Status::success();
}

// Embedding scale: a flag (sqrt(d) when set) or the scale itself; absent means sqrt(d).
Status Mapper::read_embedding_scale(const std::string& scope, fb::TransformerStackT* stack) {
  const Variable* scale = find(scope + "/scale_embeddings");
  if (!scale) scale = find(scope + "/embeddings/multiply_by_sqrt_depth");
  stack->embedding_scale = std::sqrt(static_cast<float>(stack->d_model));
  if (!scale) return Status::success();
  if (scale->num_elements() != 1) return corrupt("'" + scale->name + "' is not a scalar");
  if (scale->dtype == DType::I8) {
    int8_t flag;
    std::memcpy(&flag, bin_.data(*scale), 1);
    if (!flag) stack->embedding_scale = 1.0f;
    return Status::success();
  }
  std::vector<float> value;
  HEED_RETURN_IF_ERROR(values_f32(*scale, &value));
  if (!std::isfinite(value[0])) {
    return corrupt("'" + scale->name + "' holds the embedding scale " + std::to_string(value[0]) +
                   ", which is not a finite number");
  }
  stack->embedding_scale = value[0];
  return Status::success();
}

// Positions (a stored table is learned; none means CTranslate2's sinusoidal encoding), the
// embedding norm and the final norm.
Status Mapper::read_positions_and_norms(const std::string& scope, fb::TransformerStackT* stack) {
  const uint32_t d = stack->d_model;
  bool learned = false;
  const Variable* positions = bin_.find(scope + "/position_encodings/encodings");
  if (positions && (positions->shape.size() != 2 || positions->shape[1] != d)) {
    return corrupt("'" + positions->name + "' has shape " + shape_string(positions->shape) + ", expected [positions, " +
                   std::to_string(d) + "]");
  }
  HEED_RETURN_IF_ERROR(take(scope + "/position_encodings/encodings", scope + ".positions", false, false, {}, &learned));
  stack->position_encoding = learned ? fb::PositionEncoding::Learned : fb::PositionEncoding::Sinusoidal;
  stack->max_positions = learned ? positions->shape[0] : 0;
  bool found = false;
  HEED_RETURN_IF_ERROR(take(scope + "/layernorm_embedding/gamma", scope + ".embedding_norm.gamma", false, false, {d}, &found));
  if (found) HEED_RETURN_IF_ERROR(take(scope + "/layernorm_embedding/beta", scope + ".embedding_norm.beta", false, false, {d}));
  stack->embedding_norm = found;
  HEED_RETURN_IF_ERROR(take(scope + "/layer_norm/gamma", scope + ".norm.gamma", false, false, {d}, &found));
  if (found) HEED_RETURN_IF_ERROR(take(scope + "/layer_norm/beta", scope + ".norm.beta", false, false, {d}));
  stack->final_norm = found;
  return Status::success();
}

// Layer i: self-attention (fused QKV, possibly grouped-query), cross-attention, FFN (possibly gated).
Status Mapper::read_layer(const std::string& scope, uint32_t i, bool cross_attention, LayerShape* shape) {
  const uint32_t d = shape->d, heads = shape->heads, hd = shape->head_dim;
  const std::string src = scope + "/layer_" + std::to_string(i);
  const std::string out = names::layer(scope, static_cast<int>(i));
  const Variable* qkv = find(src + "/self_attention/linear_0/weight");
  if (!qkv) return corrupt("missing variable '" + src + "/self_attention/linear_0/weight'");
  const uint32_t rows = qkv->shape.size() == 2 ? qkv->shape[0] : 0;
  if (rows < heads * hd + 2 * hd || (rows - heads * hd) % (2 * hd) != 0) {
    return corrupt("'" + qkv->name + "' has shape " + shape_string(qkv->shape) + ", which is not a fused " +
                   "query/key/value projection for " + std::to_string(heads) + " heads of " + std::to_string(hd));
  }
  const uint32_t kvh = (rows - heads * hd) / (2 * hd);
  if (i == 0) shape->kv_heads = kvh;
  if (kvh != shape->kv_heads) return corrupt("'" + qkv->name + "' has a different number of key/value heads than layer 0");
  bool beta = true;
  HEED_RETURN_IF_ERROR(take_norm(src + "/self_attention/layer_norm", out + ".self_attn.norm", d, &beta));
  if (i == 0) shape->has_beta = beta;
  HEED_RETURN_IF_ERROR(take_linear(src + "/self_attention/linear_0", out + ".self_attn.qkv", rows, d));
  HEED_RETURN_IF_ERROR(take_linear(src + "/self_attention/linear_1", out + ".self_attn.out", d, heads * hd));
  if (cross_attention) {
    HEED_RETURN_IF_ERROR(take_norm(src + "/attention/layer_norm", out + ".cross_attn.norm", d, &beta));
    HEED_RETURN_IF_ERROR(take_linear(src + "/attention/linear_0", out + ".cross_attn.q", heads * hd, d));
    HEED_RETURN_IF_ERROR(take_linear(src + "/attention/linear_1", out + ".cross_attn.kv", 2 * heads * hd, d));
    HEED_RETURN_IF_ERROR(take_linear(src + "/attention/linear_2", out + ".cross_attn.out", d, heads * hd));
  }
  const Variable* in = find(src + "/ffn/linear_0/weight");
  if (!in || in->shape.size() != 2 || in->shape[1] != d || in->shape[0] == 0) {
    return corrupt(in ? "'" + in->name + "' has shape " + shape_string(in->shape) + ", expected [ffn, " + std::to_string(d) + "]"
                      : "missing variable '" + src + "/ffn/linear_0/weight'");
  }
  if (i == 0) shape->ffn = in->shape[0];
  const uint32_t ffn = shape->ffn;
  HEED_RETURN_IF_ERROR(take_norm(src + "/ffn/layer_norm", out + ".ffn.norm", d, &beta));
  HEED_RETURN_IF_ERROR(take_linear(src + "/ffn/linear_0", out + ".ffn.in", ffn, d));
  bool gated = false;
  HEED_RETURN_IF_ERROR(take(src + "/ffn/linear_0_noact/weight", out + ".ffn.gate.weight", true, false, {ffn, d}, &gated));
  if (gated) HEED_RETURN_IF_ERROR(take(src + "/ffn/linear_0_noact/bias", out + ".ffn.gate.bias", false, false, {ffn}));
  if (i == 0) shape->gated = gated;
  if (gated != shape->gated) return corrupt("layer " + std::to_string(i) + " of '" + scope + "' differs in its FFN gate");
  return take_linear(src + "/ffn/linear_1", out + ".ffn.out", d, ffn);
}

// The decoder's output projection, tied to its embeddings when the file aliases them, and the
// decoder flags heed refuses.
Status Mapper::read_output(const std::string& embeddings, const fb::TransformerStackT& stack, StackInfo* info) {
  int64_t flag = 0;
  bool present = false;
  for (const char* name : {"alibi", "start_from_zero_embedding"}) {
    HEED_RETURN_IF_ERROR(attr_int(std::string("decoder/") + name, &flag, &present));
    if (present && flag) return error(std::string("'decoder/") + name + "' is set; heed does not support it");
  }
  mark_used_if_present("decoder/alibi_use_positive_positions");
  mark_used_if_present("decoder/scale_alibi");
  const std::string target = bin_.alias_target("decoder/projection/weight");
  if (!target.empty() && target == embeddings + "/weight") {
    info->tied_output = true;
    find("decoder/projection/weight");
    return take("decoder/projection/bias", "decoder.output.bias", false, false, {stack.vocab_size});
  }
  return take_linear("decoder/projection", "decoder.output", stack.vocab_size, stack.d_model);
}

Status Mapper::read_stack(const std::string& scope, bool cross_attention, int64_t default_heads, StackInfo* info) {
  auto stack = std::make_unique<fb::TransformerStackT>();
  std::string embeddings;
  HEED_RETURN_IF_ERROR(read_embeddings(scope, stack.get(), info, &embeddings));
  HEED_RETURN_IF_ERROR(read_attributes(scope, default_heads, stack.get()));
  HEED_RETURN_IF_ERROR(read_embedding_scale(scope, stack.get()));
  HEED_RETURN_IF_ERROR(read_positions_and_norms(scope, stack.get()));
  uint32_t layers = 0;
  HEED_RETURN_IF_ERROR(count_layers(scope, &layers));
  stack->num_layers = layers;
  LayerShape shape;
  shape.d = stack->d_model;
  shape.heads = stack->num_heads;
  const SpecSource spec_source{bin_, [this](const std::string& name) { return find(name); }, where_};
  SelfAttentionSpec attention;
  HEED_RETURN_IF_ERROR(check_layer_blocks(spec_source, scope));
  HEED_RETURN_IF_ERROR(read_self_attention_spec(spec_source, scope, layers, shape.d, shape.heads,
                                                /*rope_allowed=*/scope == "decoder" && !cross_attention, &attention));
  shape.head_dim = attention.head_dim;
  for (uint32_t i = 0; i < layers; ++i) HEED_RETURN_IF_ERROR(read_layer(scope, i, cross_attention, &shape));
  stack->gated_ffn = shape.gated;
  stack->ffn_dim = shape.ffn;
  if (shape.kv_heads != shape.heads) {
    if (cross_attention) return error("'" + scope + "' uses grouped-query self-attention next to cross-attention");
    stack->num_kv_heads = shape.kv_heads;
  }
  HEED_RETURN_IF_ERROR(apply_self_attention_spec(attention, scope, where_, stack.get(), out_));
  mark_used_if_present(scope + "/multi_query_attention");
  stack->norm = shape.has_beta ? fb::NormKind::LayerNorm : fb::NormKind::RMSNorm;
  // CTranslate2's layer norm epsilon: config.json's layer_norm_epsilon, else 1e-5 (LayerNorm) or
  // 1e-6 (RMSNorm).
  stack->norm_epsilon = config_.layer_norm_epsilon ? *config_.layer_norm_epsilon : (shape.has_beta ? 1e-5f : 1e-6f);
  // Attributes that only steer CTranslate2's alignment output.
  mark_used_if_present(scope + "/alignment_layer");
  mark_used_if_present(scope + "/alignment_heads");
  if (scope == "decoder") HEED_RETURN_IF_ERROR(read_output(embeddings, *stack, info));
  info->config = std::move(stack);
  return Status::success();
}

int32_t token_id(const std::vector<std::string>& tokens, const std::string& token) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] == token) return static_cast<int32_t>(i);
  }
  return -1;
}

}  // namespace

bool looks_like_model(const std::string& dir) { return is_file(dir + "/model.bin"); }

namespace {

// The model family of a CTranslate2 spec name, and the head count it implies when a file stores none.
Status family_of(const std::string& spec, const std::string& bin_path, Family* family, int64_t* default_heads) {
  *default_heads = 8;  // CTranslate2's default when a file stores no num_heads
  if (spec.empty() || spec == "TransformerBase" || spec == "TransformerSpec") {
    *family = Family::kEncoderDecoder;
  } else if (spec == "TransformerBig") {
    *family = Family::kEncoderDecoder;
    *default_heads = 16;
  } else if (spec == "TransformerDecoderSpec") {
    *family = Family::kDecoderOnly;
  } else {
    return unsupported_model(bin_path + ": CTranslate2 spec '" + spec +
                             "' is not supported (heed converts TransformerBase, TransformerBig, TransformerSpec "
                             "and TransformerDecoderSpec)");
  }
  return Status::success();
}

// Both stacks of an encoder-decoder; the decoder's vocabulary size into *target_rows.
Status read_encoder_decoder(Mapper& mapper, int64_t default_heads, const Vocabularies& vocab, const std::string& dir,
                            NeutralModel* model, uint32_t* target_rows) {
  StackInfo encoder, decoder;
  HEED_RETURN_IF_ERROR(mapper.read_stack("encoder", false, default_heads, &encoder));
  HEED_RETURN_IF_ERROR(mapper.read_stack("decoder", true, default_heads, &decoder));
  if (encoder.config->vocab_size != vocab.source.size()) {
    return invalid_file(dir + ": the encoder embeddings have " + std::to_string(encoder.config->vocab_size) +
                        " rows but " + vocab.source_file + " has " + std::to_string(vocab.source.size()) + " tokens");
  }
  *target_rows = decoder.config->vocab_size;
  fb::TransformerEncoderDecoderT config_table;
  config_table.encoder = std::move(encoder.config);
  config_table.decoder = std::move(decoder.config);
  config_table.tied_output = decoder.tied_output;
  // Shared embeddings (one stack's variable is an alias of the other's, as CTranslate2 writes
  // OPUS-MT and other shared-vocabulary models) are written once, as the decoder's; the runtime
  // reads the encoder's embeddings from it.
  config_table.shared_embeddings = encoder.embeddings_variable == decoder.embeddings_variable;
  if (config_table.shared_embeddings) model->remove("encoder.embeddings");
  model->config.Set(std::move(config_table));
  return Status::success();
}

Status read_decoder_only(Mapper& mapper, int64_t default_heads, NeutralModel* model, uint32_t* target_rows) {
  StackInfo decoder;
  HEED_RETURN_IF_ERROR(mapper.read_stack("decoder", false, default_heads, &decoder));
  *target_rows = decoder.config->vocab_size;
  fb::TransformerDecoderOnlyT config_table;
  config_table.decoder = std::move(decoder.config);
  config_table.tied_output = decoder.tied_output;
  model->config.Set(std::move(config_table));
  return Status::success();
}

// Tokenizer: whitespace-separated vocabulary entries, special ids of the target side; the source
// side's special ids and conventions go to the metadata.
Status read_tokenizer(const std::string& dir, const Config& config, bool encoder_decoder, Vocabularies* vocab,
                      NeutralModel* model) {
  fb::TokenizerT& tok = model->tokenizer;
  tok.kind = fb::TokenizerKind::Whitespace;
  tok.unk_id = token_id(vocab->target, config.unk_token);
  tok.bos_id = token_id(vocab->target, config.bos_token);
  tok.eos_id = token_id(vocab->target, config.eos_token);
  tok.pad_id = token_id(vocab->target, "<blank>");
  if (tok.eos_id < 0) {
    return invalid_file(dir + ": the end token '" + config.eos_token + "' is not in " + vocab->target_file);
  }
  if (encoder_decoder) {
    if (config.decoder_start_token) {
      tok.decoder_start_id = token_id(vocab->target, *config.decoder_start_token);
      if (tok.decoder_start_id < 0) {
        return invalid_file(dir + ": the decoder start token '" + *config.decoder_start_token + "' is not in " +
                            vocab->target_file);
      }
    }
    tok.source_vocabulary = std::make_unique<fb::VocabularyT>();
    tok.source_vocabulary->tokens = vocab->source;
    tok.shared_vocabulary = vocab->shared;
    // The schema's special ids are the target side's; the source side's go to the metadata
    // (they differ whenever the vocabularies do, e.g. the implied <unk> at the end of each).
    auto& meta = model->metadata;
    meta.emplace_back("source_unk_id", std::to_string(token_id(vocab->source, config.unk_token)));
    meta.emplace_back("source_bos_id", std::to_string(token_id(vocab->source, config.bos_token)));
    meta.emplace_back("source_eos_id", std::to_string(token_id(vocab->source, config.eos_token)));
    meta.emplace_back("source_pad_id", std::to_string(token_id(vocab->source, "<blank>")));
    meta.emplace_back("add_source_bos", config.add_source_bos ? "true" : "false");
    meta.emplace_back("add_source_eos", config.add_source_eos ? "true" : "false");
  }
  tok.target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok.target_vocabulary->tokens = std::move(vocab->target);
  return Status::success();
}

// source.spm and target.spm beside a translation model's files (CTranslate2's OPUS-MT guide keeps
// them there): embedded, so that the file translates plain text. One without the other is refused.
Status read_sentencepiece_beside(const std::string& dir, bool encoder_decoder, NeutralModel* model) {
  const std::string source = dir + "/source.spm", target = dir + "/target.spm";
  const bool has_source = is_file(source), has_target = is_file(target);
  if (!has_source && !has_target) return Status::success();
  if (has_source != has_target) {
    return invalid_file(dir + ": " + (has_source ? "source.spm" : "target.spm") + " is there but " +
                        (has_source ? "target.spm" : "source.spm") + " is not (a translation model needs both)");
  }
  if (!encoder_decoder) return unsupported_model(dir + ": source.spm and target.spm go with translation models");
  return embed_sentencepiece_models(source, target, model);
}

void add_metadata(const std::string& dir, const ModelBin& bin, bool encoder_decoder, NeutralModel* model) {
  const std::string& spec = bin.spec_name();
  model->set_producer("ct2", base_name(dir));
  model->metadata.emplace_back("ct2.binary_version", std::to_string(bin.binary_version()));
  model->metadata.emplace_back("ct2.spec", spec.empty() ? "(unnamed)" : spec);
  model->metadata.emplace_back("ct2.spec_revision", std::to_string(bin.spec_revision()));
  // CTranslate2's sinusoidal table: [sin | cos] halves, timescale ln(10000) / (d/2 - 1), and the
  // first token at position 1 (OpenNMT-tf's convention).
  bool sinusoidal = false;
  if (encoder_decoder) {
    const auto* c = model->config.AsTransformerEncoderDecoder();
    sinusoidal = c->encoder->position_encoding == fb::PositionEncoding::Sinusoidal ||
                 c->decoder->position_encoding == fb::PositionEncoding::Sinusoidal;
  } else {
    sinusoidal = model->config.AsTransformerDecoderOnly()->decoder->position_encoding == fb::PositionEncoding::Sinusoidal;
  }
  if (sinusoidal) model->metadata.emplace_back("ct2.sinusoidal", "sin|cos halves, first position 1");
}

}  // namespace

Status read_model(const std::string& dir, NeutralModel* out) {
  if (!is_directory(dir)) {
    return io_error("'" + dir + "' is not a folder (a CTranslate2 model is a folder with model.bin)");
  }
  const std::string bin_path = dir + "/model.bin";
  if (!is_file(bin_path)) return invalid_argument("'" + dir + "' has no model.bin: not a CTranslate2 model folder");
  ModelBin bin;
  HEED_RETURN_IF_ERROR(ModelBin::read(bin_path, &bin));
  Config config;
  HEED_RETURN_IF_ERROR(read_config(dir, &config));
  Family family = Family::kEncoderDecoder;  // family_of sets it on success
  int64_t default_heads = 8;
  HEED_RETURN_IF_ERROR(family_of(bin.spec_name(), bin_path, &family, &default_heads));
  const bool encoder_decoder = family == Family::kEncoderDecoder;
  if (!encoder_decoder) HEED_RETURN_IF_ERROR(check_decoder_spec_revision(bin, bin_path));
  if (encoder_decoder && bin.spec_revision() == 1) bin.rename(&revision1_name);

  NeutralModel model;
  Mapper mapper(bin, config, bin_path, &model);
  Vocabularies vocab;
  HEED_RETURN_IF_ERROR(read_vocabularies(dir, encoder_decoder, config.unk_token, &vocab));
  uint32_t target_rows = 0;
  HEED_RETURN_IF_ERROR(encoder_decoder ? read_encoder_decoder(mapper, default_heads, vocab, dir, &model, &target_rows)
                                       : read_decoder_only(mapper, default_heads, &model, &target_rows));
  // Model-wide attributes that revisions before 5 stored outside the stacks.
  for (const char* name : {"num_heads", "pre_norm", "activation", "embeddings_merge", "alignment_layer", "alignment_heads"}) {
    mapper.mark_used_if_present(name);
  }
  HEED_RETURN_IF_ERROR(mapper.check_all_used());
  if (target_rows != vocab.target.size()) {
    return invalid_file(dir + ": the decoder embeddings have " + std::to_string(target_rows) + " rows but " +
                        vocab.target_file + " has " + std::to_string(vocab.target.size()) + " tokens");
  }
  HEED_RETURN_IF_ERROR(read_tokenizer(dir, config, encoder_decoder, &vocab, &model));
  HEED_RETURN_IF_ERROR(read_sentencepiece_beside(dir, encoder_decoder, &model));
  add_metadata(dir, bin, encoder_decoder, &model);
  *out = std::move(model);
  return Status::success();
}

}  // namespace heed::convert::ct2
