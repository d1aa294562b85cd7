#include "loader/model_index.h"
#include "encoder_only/transformer_encoder_only.h"

#include <cmath>
#include <cstring>
#include <string>

#include "layers/attention.h"

namespace heed::encoder_only {

namespace {
constexpr uint32_t kEncode = 0;  // the session has one phase: every buffer lives through encode()
}  // namespace

Status TransformerEncoderOnly::create(const Model& model, size_t max_batch, size_t max_length,
                                      const ArenaOptions* arena, ArenaReport* report,
                                      std::unique_ptr<TransformerEncoderOnly>* out, size_t threads) {
  std::unique_ptr<TransformerEncoderOnly> m(new TransformerEncoderOnly());
  HEED_RETURN_IF_ERROR(threading::resolve_threads(threads, &m->threads_));
  HEED_RETURN_IF_ERROR(m->load(model, max_batch, max_length));
  ArenaPlanner planner;
  m->plan(&planner);
  planner.plan();
  if (planner.overflowed()) return invalid_argument("embedder limits are too large: the arena size overflows");
  m->report_.arena_bytes = planner.total_bytes();
  m->report_.unshared_bytes = planner.unshared_bytes();
  m->report_.buffers = planner.requests().size();
  if (report != nullptr) *report = m->report_;
  if (arena == nullptr) return Status::ok();
  HEED_RETURN_IF_ERROR(Arena::create(planner.total_bytes(), *arena, &m->arena_));
  HEED_RETURN_IF_ERROR(threading::ThreadPool::create(m->threads_, &m->pool_));
  m->bind(planner);
  *out = std::move(m);
  return Status::ok();
}

Status TransformerEncoderOnly::load(const Model& model, size_t max_batch, size_t max_length) {
  const fb::TransformerEncoderOnly* cfg = model.index().config_as_TransformerEncoderOnly();
  if (cfg == nullptr) {
    const char* family = fb::EnumNameModelConfig(model_family(model));
    return invalid_argument(std::string("the model is a ") + (family && *family ? family : "unknown family") +
                            ", not an encoder-only Transformer (BERT-style): it cannot make embeddings");
  }
  transformer::StackConfig c;
  HEED_RETURN_IF_ERROR(transformer::read_stack_config(cfg->encoder(), "encoder", &c));
  if (c.position_encoding != fb::PositionEncoding::Learned && c.position_encoding != fb::PositionEncoding::None) {
    return unsupported_model(std::string("encoder-only models with ") +
                             fb::EnumNamePositionEncoding(c.position_encoding) +
                             " positions are not supported (learned positions or none)");
  }
  if (max_length == 0) {
    if (c.position_encoding != fb::PositionEncoding::Learned) {
      return invalid_argument("the model has no position table: give max_length");
    }
    max_length = c.max_positions;
  }
  if (c.position_encoding == fb::PositionEncoding::Learned && max_length > c.max_positions) {
    return invalid_argument("max_length " + std::to_string(max_length) + " exceeds the model's " +
                            std::to_string(c.max_positions) + " learned positions");
  }
  if (max_batch == 0) return invalid_argument("max_batch must be at least 1");
  if (max_batch > (size_t{1} << 20) || max_length > (size_t{1} << 20)) {
    return invalid_argument("embedder limits are too large (max_batch and max_length up to 2^20)");
  }
  max_batch_ = max_batch;
  max_length_ = max_length;
  rows_ = saturating_mul(max_batch, max_length);

  HEED_RETURN_IF_ERROR(stack_.load(model, "encoder", c, "encoder.embeddings", /*memory_dim=*/0));
  has_token_types_ = cfg->type_vocab_size() > 0;
  if (has_token_types_) {
    HEED_RETURN_IF_ERROR(token_types_.load(model, "encoder.token_types", cfg->type_vocab_size(), c.d_model));
  }
  k_ = &kernels::best();
  return Status::ok();
}

void TransformerEncoderOnly::plan(ArenaPlanner* p) {
  const transformer::StackConfig& c = stack_.config;
  const size_t f = sizeof(float), R = rows_;
  const auto m = [](size_t a, size_t b, size_t c2 = 1) { return saturating_mul(saturating_mul(a, b), c2); };
  offsets_.id = p->request("offsets", m(max_batch_ + 1, sizeof(size_t)), kEncode, kEncode);
  x_.id = p->request("encoder.x", m(R, c.d_model, f), kEncode, kEncode);
  h_.id = p->request("encoder.normed", m(R, c.d_model, f), kEncode, kEncode);
  qkv_.id = p->request("encoder.qkv", m(R, c.qkv_dim(), f), kEncode, kEncode);
  ctx_.id = p->request("encoder.context", m(R, c.q_dim(), f), kEncode, kEncode);
  ffn_.id = p->request("encoder.ffn", m(R, c.ffn_dim, f), kEncode, kEncode);
  gate_.id = p->request("encoder.ffn_gate", c.gated_ffn ? m(R, c.ffn_dim, f) : 0, kEncode, kEncode);
  q_.id = p->request("encoder.quantized", m(R, c.max_linear_input()), kEncode, kEncode);
  qscales_.id = p->request("encoder.quantized_scales", m(R, f), kEncode, kEncode);
  scores_.id = p->request("encoder.scores", m(threads_, max_length_, f), kEncode, kEncode);
}

void TransformerEncoderOnly::bind(const ArenaPlanner& p) {
  for (Buf* b : {&offsets_, &x_, &h_, &qkv_, &ctx_, &ffn_, &gate_, &q_, &qscales_, &scores_}) {
    b->ptr = arena_.base() + p.offset(b->id);
  }
}

Status TransformerEncoderOnly::encode(const TokenBatch& batch) {
  batch_ = 0;
  if (batch.size == 0 || batch.size > max_batch_) {
    return Status(StatusCode::kLimitExceeded, "batch " + std::to_string(batch.size) +
                  " is outside the embedder's range 1.." + std::to_string(max_batch_));
  }
  if (batch.ids == nullptr || batch.offsets == nullptr) return invalid_argument("the batch has no ids or offsets");
  const size_t vocab = stack_.config.vocab_size;
  for (size_t s = 0; s < batch.size; ++s) {
    if (batch.offsets[s + 1] < batch.offsets[s]) {
      return invalid_argument("sentence " + std::to_string(s) + " has decreasing offsets");
    }
    const size_t n = batch.length(s);
    if (n == 0) return invalid_argument("sentence " + std::to_string(s) + " is empty (it needs at least [CLS])");
    if (n > max_length_) {
      return Status(StatusCode::kLimitExceeded, "sentence " + std::to_string(s) + " has " + std::to_string(n) +
                    " tokens, the embedder's limit is " + std::to_string(max_length_));
    }
    const int32_t* ids = batch.sequence(s);
    for (size_t t = 0; t < n; ++t) {
      if (ids[t] < 0 || static_cast<size_t>(ids[t]) >= vocab) {
        return invalid_argument("sentence " + std::to_string(s) + " token " + std::to_string(t) + " has id " +
                                std::to_string(ids[t]) + ", outside the vocabulary of " + std::to_string(vocab));
      }
    }
  }
  run(batch);
  batch_ = batch.size;
  return Status::ok();
}

// Post-norm: x = norm(x + F(x)) (the residual was accumulated into x); pre-norm leaves x as is.
void TransformerEncoderOnly::residual_norm(const layers::Norm& norm, float* x, float* h, size_t rows) const {
  if (stack_.config.pre_norm) return;
  norm.apply(*k_, x, rows, h);
  std::memcpy(x, h, rows * stack_.config.d_model * sizeof(float));
}

void TransformerEncoderOnly::run(const TokenBatch& batch) {
  const transformer::StackConfig& c = stack_.config;
  const size_t d = c.d_model;
  size_t* offsets = static_cast<size_t*>(offsets_.ptr);
  offsets[0] = 0;
  for (size_t s = 0; s < batch.size; ++s) offsets[s + 1] = offsets[s] + batch.length(s);
  batch_ = batch.size;
  const size_t tokens = offsets[batch.size];

  float* x = static_cast<float*>(x_.ptr);
  float* h = static_cast<float*>(h_.ptr);
  float* qkv = static_cast<float*>(qkv_.ptr);
  float* ctx = static_cast<float*>(ctx_.ptr);
  float* inner = static_cast<float*>(ffn_.ptr);
  float* gate = static_cast<float*>(gate_.ptr);
  const layers::QuantScratch q{static_cast<int8_t*>(q_.ptr), static_cast<float*>(qscales_.ptr), rows_,
                               c.max_linear_input()};

  // Packed rows, sentence s at rows offsets[s] .. offsets[s+1]: no padding row exists.
  for (size_t s = 0; s < batch.size; ++s) {
    const int32_t* ids = batch.sequence(s);
    for (size_t t = 0; t < batch.length(s); ++t) {
      float* row = x + (offsets[s] + t) * d;
      stack_.embeddings.gather(static_cast<size_t>(ids[t]), c.embedding_scale, false, row);
      if (c.position_encoding == fb::PositionEncoding::Learned) stack_.learned_positions.gather(t, 1.0f, true, row);
      if (has_token_types_) token_types_.gather(0, 1.0f, true, row);  // single sentences: segment 0
    }
  }
  if (stack_.has_embedding_norm) {
    stack_.embedding_norm.apply(*k_, x, tokens, h);
    std::memcpy(x, h, tokens * d * sizeof(float));
  }

  const size_t qd = c.q_dim(), ld = c.qkv_dim();
  for (const transformer::LayerWeights& l : stack_.layers) {
    const float* in = x;
    if (c.pre_norm) {
      l.self_norm.apply(*k_, x, tokens, h);
      in = h;
    }
    l.self_qkv.forward(*k_, in, tokens, d, qkv, ld, kernels::Activation::kNone, false, q, pool_.get());
    self_attention(qkv, ctx, tokens);
    l.self_out.forward(*k_, ctx, tokens, qd, x, d, kernels::Activation::kNone, true, q, pool_.get());
    residual_norm(l.self_norm, x, h, tokens);

    in = x;
    if (c.pre_norm) {
      l.ffn_norm.apply(*k_, x, tokens, h);
      in = h;
    }
    l.ffn_in.forward(*k_, in, tokens, d, inner, c.ffn_dim, c.activation, false, q, pool_.get());
    if (c.gated_ffn) {
      l.ffn_gate.forward(*k_, in, tokens, d, gate, c.ffn_dim, kernels::Activation::kNone, false, q, pool_.get());
      for (size_t i = 0; i < tokens * c.ffn_dim; ++i) inner[i] *= gate[i];
    }
    l.ffn_out.forward(*k_, inner, tokens, c.ffn_dim, x, d, kernels::Activation::kNone, true, q, pool_.get());
    residual_norm(l.ffn_norm, x, h, tokens);
  }
  if (stack_.has_final_norm) {
    stack_.final_norm.apply(*k_, x, tokens, h);
    std::memcpy(x, h, tokens * d * sizeof(float));
  }
}

// Every (token, head) pair attends over its own sentence's rows only (the padding mask), the pairs
// split between the threads, each task with its own scores row.
void TransformerEncoderOnly::self_attention(const float* qkv, float* ctx, size_t tokens) const {
  const transformer::StackConfig& c = stack_.config;
  const size_t hd = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim(), ld = c.qkv_dim(), heads = c.num_heads;
  const size_t group = c.num_heads / c.num_kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const size_t* offsets = static_cast<const size_t*>(offsets_.ptr);
  float* scores_base = static_cast<float*>(scores_.ptr);
  const size_t average_length = (tokens + batch_ - 1) / batch_;
  threading::parallel_ranges(pool_.get(), tokens * heads, threading::min_items_for(2 * average_length * hd),
                             [&](size_t task, size_t begin, size_t end) {
    float* scores = scores_base + task * max_length_;
    size_t s = 0;
    for (size_t item = begin; item < end; ++item) {
      const size_t i = item / heads, head = item % heads, kvh = head / group;
      while (offsets[s + 1] <= i) ++s;
      const size_t first = offsets[s];
      layers::AttentionInput a;
      a.query = qkv + i * ld + head * hd;
      a.keys = qkv + first * ld + qd + kvh * hd;
      a.values = qkv + first * ld + qd + kvd + kvh * hd;
      a.key_stride = a.value_stride = ld;
      a.length = offsets[s + 1] - first;
      a.head_dim = hd;
      a.scale = scale;
      layers::attend(*k_, a, scores, ctx + i * qd + head * hd);
    }
  });
}

void TransformerEncoderOnly::pool(Pooling pooling, bool normalize, float* out) const {
  const size_t d = stack_.config.d_model;
  const size_t* offsets = static_cast<const size_t*>(offsets_.ptr);
  const float* x = static_cast<const float*>(x_.ptr);
  for (size_t s = 0; s < batch_; ++s) {
    float* o = out + s * d;
    const size_t first = offsets[s], n = offsets[s + 1] - offsets[s];
    if (pooling == Pooling::kCls) {
      std::memcpy(o, x + first * d, d * sizeof(float));
    } else {
      // Summed in double so the mean does not depend on the sentence's length in rounding.
      for (size_t j = 0; j < d; ++j) {
        double sum = 0.0;
        for (size_t t = 0; t < n; ++t) sum += x[(first + t) * d + j];
        o[j] = static_cast<float>(sum / static_cast<double>(n));
      }
    }
    if (normalize) {
      double norm = 0.0;
      for (size_t j = 0; j < d; ++j) norm += static_cast<double>(o[j]) * o[j];
      norm = std::sqrt(norm);
      // torch.nn.functional.normalize's rule: divide by max(norm, 1e-12).
      const double divisor = norm > 1e-12 ? norm : 1e-12;
      for (size_t j = 0; j < d; ++j) o[j] = static_cast<float>(o[j] / divisor);
    }
  }
}

const float* TransformerEncoderOnly::hidden_states(size_t sentence, size_t* length) const {
  if (sentence >= batch_) return nullptr;
  const size_t* offsets = static_cast<const size_t*>(offsets_.ptr);
  if (length) *length = offsets[sentence + 1] - offsets[sentence];
  return static_cast<const float*>(x_.ptr) + offsets[sentence] * stack_.config.d_model;
}

}  // namespace heed::encoder_only
