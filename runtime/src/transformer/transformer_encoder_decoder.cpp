#include "loader/model_index.h"
#include "transformer/transformer_encoder_decoder.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "layers/attention.h"
#include "layers/backend.h"
#include "layers/beam_reorder.h"
#include "layers/embeddings.h"

namespace heed::transformer {

namespace {

// Lifetime phases of the session buffers. Encoder scratch is dead once the cross-attention
// keys/values are projected, so the decoder caches and step scratch reuse its bytes.
constexpr uint32_t kEncode = 0;
constexpr uint32_t kCrossKV = 1;
constexpr uint32_t kStep = 2;
constexpr uint32_t kReorder = 3;

// a * b * c (in elements) times `unit` bytes, or false on overflow.
bool checked_bytes(size_t a, size_t b, size_t c, size_t unit, size_t* out) {
  size_t r = 1;
  for (size_t f : {a, b, c, unit}) {
    if (f != 0 && r > std::numeric_limits<size_t>::max() / f) return false;
    r *= f;
  }
  *out = r;
  return true;
}

std::string embeddings_name(const Model& model, const char* own, const char* other, bool shared) {
  if (shared && model.find(own) == nullptr && model.find(other) != nullptr) return other;
  return own;
}

}  // namespace

Status TransformerEncoderDecoder::create(const Model& model, const StepModelLimits& limits,
                                         const ArenaOptions* arena, ArenaReport* report,
                                         std::unique_ptr<TransformerEncoderDecoder>* out, size_t threads) {
  std::unique_ptr<TransformerEncoderDecoder> m(new TransformerEncoderDecoder());
  HEED_RETURN_IF_ERROR(threading::resolve_threads(threads, &m->threads_));
  HEED_RETURN_IF_ERROR(m->load(model, limits));
  ArenaPlanner planner;
  m->plan(&planner);
  planner.plan();
  if (planner.overflowed()) return invalid_argument("session limits are too large: the arena size overflows");
  // XNNPACK reads a few bytes past its input rows: readable slack after the last buffer.
  const size_t slack = m->xnnpack_min_rows_ > 0 ? layers::kXnnpackReadSlack : 0;
  m->report_.arena_bytes = planner.total_bytes() + slack;
  m->report_.unshared_bytes = planner.unshared_bytes() + slack;
  m->report_.buffers = planner.requests().size();
  if (report != nullptr) *report = m->report_;
  if (arena == nullptr) return Status::ok();
  HEED_RETURN_IF_ERROR(Arena::create(m->report_.arena_bytes, *arena, &m->arena_));
  HEED_RETURN_IF_ERROR(threading::ThreadPool::create(m->threads_, &m->pool_));
  HEED_RETURN_IF_ERROR(m->encoder_.use_xnnpack(m->xnnpack_min_rows_));
  HEED_RETURN_IF_ERROR(m->decoder_.use_xnnpack(m->xnnpack_min_rows_));
  HEED_RETURN_IF_ERROR(layers::use_xnnpack(m->xnnpack_min_rows_, {&m->output_}));
  m->bind(planner);
  *out = std::move(m);
  return Status::ok();
}

Status TransformerEncoderDecoder::load(const Model& model, const StepModelLimits& limits) {
  const fb::TransformerEncoderDecoder* cfg = model.index().config_as_TransformerEncoderDecoder();
  if (cfg == nullptr) return invalid_file("the model is not a Transformer encoder-decoder");
  StackConfig ec, dc;
  HEED_RETURN_IF_ERROR(read_stack_config(cfg->encoder(), "encoder", &ec));
  HEED_RETURN_IF_ERROR(read_stack_config(cfg->decoder(), "decoder", &dc));

  if (limits.max_batch == 0 || limits.max_beam == 0 || limits.max_source_len == 0 ||
      limits.max_target_len == 0) {
    return invalid_argument("session limits must all be at least 1 (max_batch, max_beam, "
                            "max_source_len, max_target_len)");
  }
  if (ec.position_encoding == fb::PositionEncoding::Learned && limits.max_source_len > ec.max_positions) {
    return invalid_argument("max_source_len " + std::to_string(limits.max_source_len) +
                            " exceeds the encoder's " + std::to_string(ec.max_positions) + " learned positions");
  }
  if (dc.position_encoding == fb::PositionEncoding::Learned && limits.max_target_len > dc.max_positions) {
    return invalid_argument("max_target_len " + std::to_string(limits.max_target_len) +
                            " exceeds the decoder's " + std::to_string(dc.max_positions) + " learned positions");
  }
  limits_ = limits;
  size_t enc_rows = 0, dec_rows = 0, cache = 0;
  if (!checked_bytes(limits.max_batch, limits.max_source_len, 1, 1, &enc_rows) ||
      !checked_bytes(limits.max_batch, limits.max_beam, 1, 1, &dec_rows) ||
      !checked_bytes(dec_rows, limits.max_target_len, dc.kv_dim() * dc.num_layers * 2, sizeof(float), &cache) ||
      !checked_bytes(enc_rows, ec.max_linear_input() + dc.num_layers * 2 * dc.q_dim() + ec.qkv_dim() + ec.ffn_dim * 2, 1, sizeof(float), &cache) ||
      !checked_bytes(dec_rows, dc.vocab_size + dc.qkv_dim() + dc.ffn_dim * 2, 1, sizeof(float), &cache)) {
    return invalid_argument("session limits are too large: the arena size overflows");
  }
  enc_rows_ = enc_rows;
  dec_rows_ = dec_rows;

  const bool shared = cfg->shared_embeddings();
  HEED_RETURN_IF_ERROR(encoder_.load(model, "encoder", ec,
                                     embeddings_name(model, "encoder.embeddings", "decoder.embeddings", shared),
                                     /*memory_dim=*/0));
  const std::string dec_emb = embeddings_name(model, "decoder.embeddings", "encoder.embeddings", shared);
  HEED_RETURN_IF_ERROR(decoder_.load(model, "decoder", dc, dec_emb, /*memory_dim=*/ec.d_model));
  if (cfg->tied_output()) {
    // Tied weights, own (optional) bias: CTranslate2 and Marian models keep a projection bias.
    HEED_RETURN_IF_ERROR(output_.load(model, dec_emb, "decoder.output.bias", dc.vocab_size, dc.d_model));
  } else {
    HEED_RETURN_IF_ERROR(output_.load(model, "decoder.output", dc.vocab_size, dc.d_model));
  }

  const fb::Tokenizer* tok = model.index().tokenizer();
  if (tok == nullptr) return invalid_file("the model has no tokenizer section (bos/eos ids)");
  bos_id_ = tok->decoder_start_id() >= 0 ? tok->decoder_start_id() : tok->bos_id();
  eos_id_ = tok->eos_id();
  const auto in_vocab = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < dc.vocab_size; };
  if (!in_vocab(bos_id_) || !in_vocab(eos_id_)) {
    return invalid_file("decoder start id " + std::to_string(bos_id_) + " or eos id " +
                        std::to_string(eos_id_) + " is outside the target vocabulary of " +
                        std::to_string(dc.vocab_size));
  }
  HEED_RETURN_IF_ERROR(layers::xnnpack_min_rows(limits.backend, &xnnpack_min_rows_));
  k_ = &kernels::best();
  return Status::ok();
}

void TransformerEncoderDecoder::plan(ArenaPlanner* p) {
  const StackConfig& ec = encoder_.config;
  const StackConfig& dc = decoder_.config;
  const size_t f = sizeof(float);
  const uint32_t kAll = kReorder;  // persistent: first phase to last
  const size_t E = enc_rows_, R = dec_rows_, T = limits_.max_target_len, S = limits_.max_source_len;
  // Sizes saturate instead of wrapping (32-bit targets): the planner then reports overflowed().
  const auto m = [](size_t a, size_t b, size_t c = 1, size_t d = 1, size_t e = 1) {
    return saturating_mul(saturating_mul(saturating_mul(saturating_mul(a, b), c), d), e);
  };

  source_offsets_.id = p->request("source_offsets", m(limits_.max_batch + 1, sizeof(size_t)), kEncode, kAll);
  enc_positions_.id = p->request("encoder.sinusoidal_positions",
      ec.position_encoding == fb::PositionEncoding::Sinusoidal ? m(S, ec.d_model, f) : 0, kEncode, kAll);
  dec_positions_.id = p->request("decoder.sinusoidal_positions",
      dc.position_encoding == fb::PositionEncoding::Sinusoidal ? m(T, dc.d_model, f) : 0, kEncode, kAll);

  // Encoder scratch. enc_x holds the encoder output until the cross K/V are projected from it.
  enc_x_.id = p->request("encoder.x", m(E, ec.d_model, f), kEncode, kCrossKV);
  enc_h_.id = p->request("encoder.normed", m(E, ec.d_model, f), kEncode, kEncode);
  enc_qkv_.id = p->request("encoder.qkv", m(E, ec.qkv_dim(), f), kEncode, kEncode);
  enc_ctx_.id = p->request("encoder.context", m(E, ec.q_dim(), f), kEncode, kEncode);
  enc_ffn_.id = p->request("encoder.ffn", m(E, ec.ffn_dim, f), kEncode, kEncode);
  enc_gate_.id = p->request("encoder.ffn_gate", ec.gated_ffn ? m(E, ec.ffn_dim, f) : 0, kEncode, kEncode);
  enc_q_.id = p->request("encoder.quantized", m(E, ec.max_linear_input()), kEncode, kCrossKV);
  enc_qscales_.id = p->request("encoder.quantized_scales", m(E, f), kEncode, kCrossKV);
  // Attention scores: one row per task (attention is split across threads).
  enc_scores_.id = p->request("encoder.scores", m(threads_, S, f), kEncode, kEncode);
  const bool xnn = xnnpack_min_rows_ > 0;
  enc_staging_.id = p->request("encoder.linear_staging", xnn ? m(E, ec.d_model, f) : 0, kEncode, kEncode);

  // Per decoder layer: cross-attention K/V of the batch's sentences (rows = packed source
  // tokens, [K | V] per row), self-attention K and V caches [R, T, kv_dim].
  cross_kv_.assign(dc.num_layers, Buf());
  self_k_.assign(dc.num_layers, Buf());
  self_v_.assign(dc.num_layers, Buf());
  for (size_t l = 0; l < dc.num_layers; ++l) {
    const std::string n = "decoder.layers." + std::to_string(l);
    cross_kv_[l].id = p->request(n + ".cross_kv", m(E, 2, dc.q_dim(), f), kCrossKV, kAll);
    self_k_[l].id = p->request(n + ".self_k_cache", m(R, T, dc.kv_dim(), f), kStep, kAll);
    self_v_[l].id = p->request(n + ".self_v_cache", m(R, T, dc.kv_dim(), f), kStep, kAll);
  }

  // Decoder step scratch.
  dec_x_.id = p->request("decoder.x", m(R, dc.d_model, f), kStep, kStep);
  dec_h_.id = p->request("decoder.normed", m(R, dc.d_model, f), kStep, kStep);
  dec_qkv_.id = p->request("decoder.qkv", m(R, dc.qkv_dim(), f), kStep, kStep);
  dec_ctx_.id = p->request("decoder.context", m(R, dc.q_dim(), f), kStep, kStep);
  dec_ffn_.id = p->request("decoder.ffn", m(R, dc.ffn_dim, f), kStep, kStep);
  dec_gate_.id = p->request("decoder.ffn_gate", dc.gated_ffn ? m(R, dc.ffn_dim, f) : 0, kStep, kStep);
  dec_q_.id = p->request("decoder.quantized", m(R, dc.max_linear_input()), kStep, kStep);
  dec_qscales_.id = p->request("decoder.quantized_scales", m(R, f), kStep, kStep);
  dec_scores_.id = p->request("decoder.scores", m(threads_, (T > S ? T : S), f), kStep, kStep);
  dec_staging_.id = p->request("decoder.linear_staging", xnn ? m(R, dc.d_model, f) : 0, kStep, kStep);

  // Attention capture: written by step(), read by the decoding engine before reorder().
  cross_attention_.id = p->request("decoder.cross_attention",
      limits_.capture_attention ? m(R, dc.num_layers, dc.num_heads, S, f) : 0, kStep, kAll);

  // Beam reorder: one layer's K (or V) cache at a time is gathered here, then copied back.
  reorder_scratch_.id = p->request("reorder_scratch", m(R, T, dc.kv_dim(), f), kReorder, kReorder);
}

void TransformerEncoderDecoder::bind(const ArenaPlanner& p) {
  const auto b = [&](Buf& buf) { buf.ptr = arena_.base() + p.offset(buf.id); };
  for (Buf* buf : {&source_offsets_, &enc_positions_, &dec_positions_, &enc_x_, &enc_h_, &enc_qkv_,
                   &enc_ctx_, &enc_ffn_, &enc_gate_, &enc_q_, &enc_qscales_, &enc_scores_, &dec_x_,
                   &dec_h_, &dec_qkv_, &dec_ctx_, &dec_ffn_, &dec_gate_, &dec_q_, &dec_qscales_,
                   &dec_scores_, &reorder_scratch_, &cross_attention_, &enc_staging_, &dec_staging_}) {
    b(*buf);
  }
  for (auto* v : {&cross_kv_, &self_k_, &self_v_}) {
    for (Buf& buf : *v) b(buf);
  }
  if (encoder_.config.position_encoding == fb::PositionEncoding::Sinusoidal) {
    layers::sinusoidal_positions(limits_.max_source_len, encoder_.config.d_model,
                                 static_cast<float*>(enc_positions_.ptr));
  }
  if (decoder_.config.position_encoding == fb::PositionEncoding::Sinusoidal) {
    layers::sinusoidal_positions(limits_.max_target_len, decoder_.config.d_model,
                                 static_cast<float*>(dec_positions_.ptr));
  }
}

const float* TransformerEncoderDecoder::sublayer_input(const layers::Norm& norm, bool pre_norm,
                                                       float* x, float* h, size_t rows) const {
  if (!pre_norm) return x;
  norm.apply(*k_, x, rows, h);
  return h;
}

void TransformerEncoderDecoder::sublayer_output(const layers::Norm& norm, bool pre_norm, float* x,
                                                float* h, size_t rows, size_t d) const {
  if (pre_norm) return;  // the residual was accumulated into x: x + F(norm(x))
  norm.apply(*k_, x, rows, h);  // post-norm: x = norm(x + F(x))
  std::memcpy(x, h, rows * d * sizeof(float));
}

void TransformerEncoderDecoder::feed_forward(const StackConfig& c, const LayerWeights& l, float* x,
                                             float* h, float* inner, float* gate, size_t rows,
                                             const layers::QuantScratch& q) const {
  const float* in = sublayer_input(l.ffn_norm, c.pre_norm, x, h, rows);
  l.ffn_in.forward(*k_, in, rows, c.d_model, inner, c.ffn_dim, c.activation, false, q, pool_.get());
  if (c.gated_ffn) {
    l.ffn_gate.forward(*k_, in, rows, c.d_model, gate, c.ffn_dim, kernels::Activation::kNone, false, q,
                       pool_.get());
    for (size_t i = 0; i < rows * c.ffn_dim; ++i) inner[i] *= gate[i];
  }
  l.ffn_out.forward(*k_, inner, rows, c.ffn_dim, x, c.d_model, kernels::Activation::kNone, true, q, pool_.get());
  sublayer_output(l.ffn_norm, c.pre_norm, x, h, rows, c.d_model);
}

Status TransformerEncoderDecoder::start(const TokenBatch* sources, size_t batch, size_t beam) {
  started_ = false;
  cache_length_ = 0;
  if (sources == nullptr || (batch > 0 && (sources->offsets == nullptr || sources->ids == nullptr))) {
    return invalid_argument("a Transformer encoder-decoder needs a batch of sources");
  }
  if (sources->size != batch) {
    return invalid_argument("the source batch holds " + std::to_string(sources->size) +
                            " sequences, but batch is " + std::to_string(batch));
  }
  if (batch == 0 || batch > limits_.max_batch) {
    return Status(StatusCode::kLimitExceeded, "batch " + std::to_string(batch) +
                  " is outside the session's range 1.." + std::to_string(limits_.max_batch));
  }
  if (beam == 0 || beam > limits_.max_beam) {
    return Status(StatusCode::kLimitExceeded, "beam " + std::to_string(beam) +
                  " is outside the session's range 1.." + std::to_string(limits_.max_beam));
  }
  const size_t vocab = encoder_.config.vocab_size;
  for (size_t s = 0; s < batch; ++s) {
    if (sources->offsets[s + 1] < sources->offsets[s]) {
      return invalid_argument("source " + std::to_string(s) + " has decreasing offsets");
    }
    const size_t n = sources->length(s);
    if (n > limits_.max_source_len) {
      return Status(StatusCode::kLimitExceeded, "source " + std::to_string(s) + " has " +
                    std::to_string(n) + " tokens, the session's limit is " +
                    std::to_string(limits_.max_source_len));
    }
    const int32_t* ids = sources->sequence(s);
    for (size_t t = 0; t < n; ++t) {
      if (ids[t] < 0 || static_cast<size_t>(ids[t]) >= vocab) {
        return invalid_argument("source " + std::to_string(s) + " token " + std::to_string(t) +
                                " has id " + std::to_string(ids[t]) + ", outside the source vocabulary of " +
                                std::to_string(vocab));
      }
    }
  }
  batch_ = batch;
  beam_ = beam;
  encode(*sources);
  started_ = true;
  return Status::ok();
}

void TransformerEncoderDecoder::encode(const TokenBatch& sources) {
  const StackConfig& c = encoder_.config;
  const size_t d = c.d_model;
  size_t* offsets = static_cast<size_t*>(source_offsets_.ptr);
  offsets[0] = 0;
  for (size_t s = 0; s < batch_; ++s) offsets[s + 1] = offsets[s] + sources.length(s);
  const size_t tokens = offsets[batch_];

  float* x = static_cast<float*>(enc_x_.ptr);
  float* h = static_cast<float*>(enc_h_.ptr);
  float* qkv = static_cast<float*>(enc_qkv_.ptr);
  float* ctx = static_cast<float*>(enc_ctx_.ptr);
  const layers::QuantScratch q{static_cast<int8_t*>(enc_q_.ptr), static_cast<float*>(enc_qscales_.ptr),
                               enc_rows_, c.max_linear_input(), static_cast<float*>(enc_staging_.ptr),
                               xnnpack_min_rows_ > 0 ? enc_rows_ * c.d_model : 0};

  // Packed rows: sentence s occupies rows offsets[s] .. offsets[s+1]; no padding rows exist, so
  // padding can never leak into any sentence's result.
  const float* positions = static_cast<const float*>(enc_positions_.ptr);
  for (size_t s = 0; s < batch_; ++s) {
    const int32_t* ids = sources.sequence(s);
    for (size_t t = 0; t < sources.length(s); ++t) {
      float* row = x + (offsets[s] + t) * d;
      encoder_.embeddings.gather(static_cast<size_t>(ids[t]), c.embedding_scale, false, row);
      if (c.position_encoding == fb::PositionEncoding::Sinusoidal) k_->add(row, positions + t * d, d);
      if (c.position_encoding == fb::PositionEncoding::Learned) encoder_.learned_positions.gather(t, 1.0f, true, row);
    }
  }
  if (encoder_.has_embedding_norm) {
    encoder_.embedding_norm.apply(*k_, x, tokens, h);
    std::memcpy(x, h, tokens * d * sizeof(float));
  }

  const size_t qd = c.q_dim(), ld = c.qkv_dim();
  for (const LayerWeights& l : encoder_.layers) {
    const float* in = sublayer_input(l.self_norm, c.pre_norm, x, h, tokens);
    l.self_qkv.forward(*k_, in, tokens, d, qkv, ld, kernels::Activation::kNone, false, q, pool_.get());
    encoder_self_attention(qkv, ctx, tokens);
    l.self_out.forward(*k_, ctx, tokens, qd, x, d, kernels::Activation::kNone, true, q, pool_.get());
    sublayer_output(l.self_norm, c.pre_norm, x, h, tokens, d);
    feed_forward(c, l, x, h, static_cast<float*>(enc_ffn_.ptr), static_cast<float*>(enc_gate_.ptr), tokens, q);
  }
  if (encoder_.has_final_norm) {
    encoder_.final_norm.apply(*k_, x, tokens, h);
    std::memcpy(x, h, tokens * d * sizeof(float));
  }
  project_cross_keys_values(tokens);
}

// Every (token, head) pair attends over its own sentence's rows; the pairs are split between the
// threads, each task with its own scores row.
void TransformerEncoderDecoder::encoder_self_attention(const float* qkv, float* ctx, size_t tokens) const {
  const StackConfig& c = encoder_.config;
  const size_t hd = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim(), ld = c.qkv_dim(), heads = c.num_heads;
  const size_t group = c.num_heads / c.num_kv_heads, S = limits_.max_source_len;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const size_t* offsets = static_cast<const size_t*>(source_offsets_.ptr);
  float* scores_base = static_cast<float*>(enc_scores_.ptr);
  const size_t average_length = (tokens + batch_ - 1) / batch_;
  threading::parallel_ranges(pool_.get(), tokens * heads, threading::min_items_for(2 * average_length * hd),
                             [&](size_t task, size_t begin, size_t end) {
    float* scores = scores_base + task * S;
    size_t s = 0;
    for (size_t item = begin; item < end; ++item) {
      const size_t i = item / heads, head = item % heads, kvh = head / group;
      while (offsets[s + 1] <= i) ++s;  // the token's sentence (tokens ascend within a task)
      const size_t first = offsets[s], n = offsets[s + 1] - offsets[s];
      layers::AttentionInput a;
      a.query = qkv + i * ld + head * hd;
      a.keys = qkv + first * ld + qd + kvh * hd;
      a.values = qkv + first * ld + qd + kvd + kvh * hd;
      a.key_stride = a.value_stride = ld;
      a.length = n;
      a.head_dim = hd;
      a.scale = scale;
      layers::attend(*k_, a, scores, ctx + i * qd + head * hd);
    }
  });
}

void TransformerEncoderDecoder::project_cross_keys_values(size_t tokens) {
  const float* memory = static_cast<const float*>(enc_x_.ptr);
  const layers::QuantScratch q{static_cast<int8_t*>(enc_q_.ptr), static_cast<float*>(enc_qscales_.ptr),
                               enc_rows_, encoder_.config.max_linear_input()};
  const size_t ld = 2 * decoder_.config.q_dim();
  for (size_t l = 0; l < decoder_.layers.size(); ++l) {
    decoder_.layers[l].cross_kv.forward(*k_, memory, tokens, encoder_.config.d_model,
                                        static_cast<float*>(cross_kv_[l].ptr), ld,
                                        kernels::Activation::kNone, false, q, pool_.get());
  }
}

void TransformerEncoderDecoder::fill_nan(float* log_probs, size_t rows) const {
  if (log_probs == nullptr || rows > dec_rows_) return;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 0; i < rows * decoder_.config.vocab_size; ++i) log_probs[i] = nan;
}

void TransformerEncoderDecoder::step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) {
  const StackConfig& c = decoder_.config;
  const size_t d = c.d_model, V = c.vocab_size;
  bool valid = started_ && input_ids != nullptr && log_probs != nullptr && rows > 0 &&
               rows <= batch_ * beam_ && step < limits_.max_target_len && step <= cache_length_;
  for (size_t r = 0; valid && r < rows; ++r) {
    valid = input_ids[r] >= 0 && static_cast<size_t>(input_ids[r]) < V;
  }
  if (!valid) {
    fill_nan(log_probs, rows);
    return;
  }

  float* x = static_cast<float*>(dec_x_.ptr);
  float* h = static_cast<float*>(dec_h_.ptr);
  float* qkv = static_cast<float*>(dec_qkv_.ptr);
  float* ctx = static_cast<float*>(dec_ctx_.ptr);
  float* scores_base = static_cast<float*>(dec_scores_.ptr);
  const size_t scores_len = limits_.max_target_len > limits_.max_source_len ? limits_.max_target_len
                                                                            : limits_.max_source_len;
  const size_t heads = c.num_heads;
  float* captured = limits_.capture_attention ? static_cast<float*>(cross_attention_.ptr) : nullptr;
  const size_t S = limits_.max_source_len;
  const size_t* offsets = static_cast<const size_t*>(source_offsets_.ptr);
  const layers::QuantScratch q{static_cast<int8_t*>(dec_q_.ptr), static_cast<float*>(dec_qscales_.ptr),
                               dec_rows_, c.max_linear_input(), static_cast<float*>(dec_staging_.ptr),
                               xnnpack_min_rows_ > 0 ? dec_rows_ * c.d_model : 0};

  const float* positions = static_cast<const float*>(dec_positions_.ptr);
  for (size_t r = 0; r < rows; ++r) {
    float* row = x + r * d;
    decoder_.embeddings.gather(static_cast<size_t>(input_ids[r]), c.embedding_scale, false, row);
    if (c.position_encoding == fb::PositionEncoding::Sinusoidal) k_->add(row, positions + step * d, d);
    if (c.position_encoding == fb::PositionEncoding::Learned) decoder_.learned_positions.gather(step, 1.0f, true, row);
  }
  if (decoder_.has_embedding_norm) {
    decoder_.embedding_norm.apply(*k_, x, rows, h);
    std::memcpy(x, h, rows * d * sizeof(float));
  }

  const size_t hd = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim(), ld = c.qkv_dim();
  const size_t T = limits_.max_target_len;
  const size_t group = c.num_heads / c.num_kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  for (size_t li = 0; li < decoder_.layers.size(); ++li) {
    const LayerWeights& l = decoder_.layers[li];
    float* kcache = static_cast<float*>(self_k_[li].ptr);
    float* vcache = static_cast<float*>(self_v_[li].ptr);

    // Causal self-attention: this position's K/V join the cache, the query sees positions 0..step.
    const float* in = sublayer_input(l.self_norm, c.pre_norm, x, h, rows);
    l.self_qkv.forward(*k_, in, rows, d, qkv, ld, kernels::Activation::kNone, false, q, pool_.get());
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(kcache + r * T * kvd + step * kvd, qkv + r * ld + qd, kvd * sizeof(float));
      std::memcpy(vcache + r * T * kvd + step * kvd, qkv + r * ld + qd + kvd, kvd * sizeof(float));
    }
    // (row, head) pairs split between the threads, each task with its own scores row.
    threading::parallel_ranges(pool_.get(), rows * heads, threading::min_items_for(2 * (step + 1) * hd),
                               [&](size_t task, size_t begin, size_t end) {
      float* scores = scores_base + task * scores_len;
      for (size_t item = begin; item < end; ++item) {
        const size_t r = item / heads, head = item % heads, kvh = head / group;
        layers::AttentionInput a;
        a.query = qkv + r * ld + head * hd;
        a.keys = kcache + r * T * kvd + kvh * hd;
        a.values = vcache + r * T * kvd + kvh * hd;
        a.key_stride = a.value_stride = kvd;
        a.length = step + 1;
        a.head_dim = hd;
        a.scale = scale;
        layers::attend(*k_, a, scores, ctx + r * qd + head * hd);
      }
    });
    l.self_out.forward(*k_, ctx, rows, qd, x, d, kernels::Activation::kNone, true, q, pool_.get());
    sublayer_output(l.self_norm, c.pre_norm, x, h, rows, d);

    // Cross-attention over the row's sentence (r / beam), keys/values cached by start().
    in = sublayer_input(l.cross_norm, c.pre_norm, x, h, rows);
    l.cross_q.forward(*k_, in, rows, d, qkv, qd, kernels::Activation::kNone, false, q, pool_.get());
    const float* kv = static_cast<const float*>(cross_kv_[li].ptr);
    const size_t kv_ld = 2 * qd;
    const size_t average_source = (offsets[batch_] + batch_ - 1) / batch_;
    threading::parallel_ranges(pool_.get(), rows * heads, threading::min_items_for(2 * average_source * hd),
                               [&](size_t task, size_t begin, size_t end) {
      float* scores = scores_base + task * scores_len;
      for (size_t item = begin; item < end; ++item) {
        const size_t r = item / heads, head = item % heads, s = r / beam_;
        const float* mem = kv + offsets[s] * kv_ld;
        layers::AttentionInput a;
        a.query = qkv + r * qd + head * hd;
        a.keys = mem + head * hd;
        a.values = mem + qd + head * hd;
        a.key_stride = a.value_stride = kv_ld;
        a.length = offsets[s + 1] - offsets[s];
        a.head_dim = hd;
        a.scale = scale;
        layers::attend(*k_, a, scores, ctx + r * qd + head * hd);
        if (captured != nullptr) {
          // attend() leaves the softmax probabilities in `scores`.
          float* panel = captured + ((r * decoder_.layers.size() + li) * c.num_heads + head) * S;
          std::memcpy(panel, scores, a.length * sizeof(float));
        }
      }
    });
    l.cross_out.forward(*k_, ctx, rows, qd, x, d, kernels::Activation::kNone, true, q, pool_.get());
    sublayer_output(l.cross_norm, c.pre_norm, x, h, rows, d);

    feed_forward(c, l, x, h, static_cast<float*>(dec_ffn_.ptr), static_cast<float*>(dec_gate_.ptr), rows, q);
  }

  const float* last = x;
  if (decoder_.has_final_norm) {
    decoder_.final_norm.apply(*k_, x, rows, h);
    last = h;
  }
  output_.forward(*k_, last, rows, d, log_probs, V, kernels::Activation::kNone, false, q, pool_.get());
  for (size_t r = 0; r < rows; ++r) k_->log_softmax(log_probs + r * V, V);
  cache_length_ = step + 1;
}

size_t TransformerEncoderDecoder::attention_panels() const {
  return limits_.capture_attention ? decoder_.layers.size() * decoder_.config.num_heads : 0;
}

const float* TransformerEncoderDecoder::last_attention() const {
  return limits_.capture_attention ? static_cast<const float*>(cross_attention_.ptr) : nullptr;
}

void TransformerEncoderDecoder::reorder(const int32_t* parents, size_t rows) {
  if (!started_ || rows == 0 || rows > batch_ * beam_ || cache_length_ == 0) return;
  if (!layers::beam_reorder_moves(parents, rows, beam_)) return;
  const size_t kvd = decoder_.config.kv_dim(), T = limits_.max_target_len;
  float* scratch = static_cast<float*>(reorder_scratch_.ptr);
  for (size_t l = 0; l < decoder_.layers.size(); ++l) {
    for (Buf* cache : {&self_k_[l], &self_v_[l]}) {
      layers::beam_reorder_rows(static_cast<float*>(cache->ptr), T * kvd, cache_length_ * kvd, parents, rows, scratch);
    }
  }
}

}  // namespace heed::transformer
