#include "loader/model_index.h"
#include "decoder_only/transformer_decoder_only.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "layers/attention.h"
#include "layers/backend.h"
#include "layers/beam_reorder.h"
#include "layers/embeddings.h"
#include "layers/rope.h"

namespace heed::decoder_only {

namespace {

// Lifetime phases: step scratch, and the beam reorder that reuses it.
constexpr uint32_t kStep = 0;
constexpr uint32_t kReorder = 1;

}  // namespace

Status TransformerDecoderOnly::create(const Model& model, const StepModelLimits& limits, const ArenaOptions* arena,
                                      ArenaReport* report, std::unique_ptr<TransformerDecoderOnly>* out,
                                      size_t threads) {
  std::unique_ptr<TransformerDecoderOnly> m(new TransformerDecoderOnly());
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
  HEED_RETURN_IF_ERROR(m->stack_.use_xnnpack(m->xnnpack_min_rows_));
  HEED_RETURN_IF_ERROR(layers::use_xnnpack(m->xnnpack_min_rows_, {&m->output_}));
  m->bind(planner);
  *out = std::move(m);
  return Status::ok();
}

Status TransformerDecoderOnly::load(const Model& model, const StepModelLimits& limits) {
  const fb::TransformerDecoderOnly* cfg = model.index().config_as_TransformerDecoderOnly();
  if (cfg == nullptr) return invalid_file("the model is not a decoder-only Transformer");
  transformer::StackConfig c;
  HEED_RETURN_IF_ERROR(transformer::read_stack_config(cfg->decoder(), "decoder", &c, /*allow_rope=*/true));
  if (limits.max_batch == 0 || limits.max_beam == 0 || limits.max_target_len == 0) {
    return invalid_argument("session limits must be at least 1 (max_batch, max_beam, max_target_len)");
  }
  const bool bounded = c.position_encoding == fb::PositionEncoding::Learned ||
                       (c.position_encoding == fb::PositionEncoding::RoPE && c.max_positions > 0);
  if (bounded && limits.max_target_len > c.max_positions) {
    return invalid_argument("max_target_len " + std::to_string(limits.max_target_len) + " exceeds the model's " +
                            std::to_string(c.max_positions) + " positions");
  }
  limits_ = limits;
  limits_.max_source_len = 0;
  const size_t rows = saturating_mul(limits.max_batch, limits.max_beam);
  if (rows == static_cast<size_t>(-1)) return invalid_argument("session limits are too large: the arena size overflows");
  rows_ = rows;

  HEED_RETURN_IF_ERROR(stack_.load(model, "decoder", c, "decoder.embeddings", /*memory_dim=*/0));
  if (cfg->tied_output()) {
    HEED_RETURN_IF_ERROR(output_.load(model, "decoder.embeddings", "decoder.output.bias", c.vocab_size, c.d_model));
  } else {
    HEED_RETURN_IF_ERROR(output_.load(model, "decoder.output", c.vocab_size, c.d_model));
  }

  const fb::Tokenizer* tok = model.index().tokenizer();
  if (tok == nullptr) return invalid_file("the model has no tokenizer section (bos/eos ids)");
  bos_id_ = tok->decoder_start_id() >= 0 ? tok->decoder_start_id() : tok->bos_id();
  eos_id_ = tok->eos_id();
  const auto in_vocab = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < c.vocab_size; };
  if ((bos_id_ != -1 && !in_vocab(bos_id_)) || !in_vocab(eos_id_)) {
    return invalid_file("start id " + std::to_string(bos_id_) + " or end id " + std::to_string(eos_id_) +
                        " is outside the vocabulary of " + std::to_string(c.vocab_size));
  }
  HEED_RETURN_IF_ERROR(layers::xnnpack_min_rows(limits.backend, &xnnpack_min_rows_));
  k_ = &kernels::best();
  return Status::ok();
}

void TransformerDecoderOnly::plan(ArenaPlanner* p) {
  const transformer::StackConfig& c = stack_.config;
  const size_t f = sizeof(float);
  const size_t R = rows_, T = limits_.max_target_len;
  const auto m = [](size_t a, size_t b, size_t c2 = 1, size_t d = 1) {
    return saturating_mul(saturating_mul(saturating_mul(a, b), c2), d);
  };
  size_t table = 0;
  if (c.position_encoding == fb::PositionEncoding::Sinusoidal) table = m(T, c.d_model, f);
  if (c.position_encoding == fb::PositionEncoding::RoPE) table = m(T, c.head_dim, f);
  positions_.id = p->request("decoder.position_table", table, kStep, kReorder);

  k_cache_.assign(c.num_layers, Buf());
  v_cache_.assign(c.num_layers, Buf());
  for (size_t l = 0; l < c.num_layers; ++l) {
    const std::string n = "decoder.layers." + std::to_string(l);
    k_cache_[l].id = p->request(n + ".self_k_cache", m(R, T, c.kv_dim(), f), kStep, kReorder);
    v_cache_[l].id = p->request(n + ".self_v_cache", m(R, T, c.kv_dim(), f), kStep, kReorder);
  }
  x_.id = p->request("decoder.x", m(R, c.d_model, f), kStep, kStep);
  h_.id = p->request("decoder.normed", m(R, c.d_model, f), kStep, kStep);
  qkv_.id = p->request("decoder.qkv", m(R, c.qkv_dim(), f), kStep, kStep);
  ctx_.id = p->request("decoder.context", m(R, c.q_dim(), f), kStep, kStep);
  ffn_.id = p->request("decoder.ffn", m(R, c.ffn_dim, f), kStep, kStep);
  gate_.id = p->request("decoder.ffn_gate", c.gated_ffn ? m(R, c.ffn_dim, f) : 0, kStep, kStep);
  q_.id = p->request("decoder.quantized", m(R, c.max_linear_input()), kStep, kStep);
  qscales_.id = p->request("decoder.quantized_scales", m(R, f), kStep, kStep);
  scores_.id = p->request("decoder.scores", m(threads_, T, f), kStep, kStep);  // a row per task
  reorder_scratch_.id = p->request("reorder_scratch", m(R, T, c.kv_dim(), f), kReorder, kReorder);
  staging_.id = p->request("decoder.linear_staging", xnnpack_min_rows_ > 0 ? m(R, c.d_model, f) : 0, kStep, kStep);
}

void TransformerDecoderOnly::bind(const ArenaPlanner& p) {
  const auto b = [&](Buf& buf) { buf.ptr = arena_.base() + p.offset(buf.id); };
  for (Buf* buf : {&positions_, &x_, &h_, &qkv_, &ctx_, &ffn_, &gate_, &q_, &qscales_, &scores_, &reorder_scratch_, &staging_}) {
    b(*buf);
  }
  for (auto* v : {&k_cache_, &v_cache_}) {
    for (Buf& buf : *v) b(buf);
  }
  const transformer::StackConfig& c = stack_.config;
  if (c.position_encoding == fb::PositionEncoding::Sinusoidal) {
    layers::sinusoidal_positions(limits_.max_target_len, c.d_model, static_cast<float*>(positions_.ptr));
  }
  if (c.position_encoding == fb::PositionEncoding::RoPE) {
    layers::rope_table(limits_.max_target_len, c.head_dim, c.rope_theta, static_cast<float*>(positions_.ptr));
  }
}

Status TransformerDecoderOnly::start(const TokenBatch* sources, size_t batch, size_t beam) {
  started_ = false;
  cache_length_ = 0;
  if (sources != nullptr && sources->size != 0) {
    return invalid_argument("a decoder-only model takes no sources (got " + std::to_string(sources->size) + ")");
  }
  if (batch == 0 || batch > limits_.max_batch) {
    return Status(StatusCode::kLimitExceeded, "batch " + std::to_string(batch) + " is outside the session's range 1.." +
                                                  std::to_string(limits_.max_batch));
  }
  if (beam == 0 || beam > limits_.max_beam) {
    return Status(StatusCode::kLimitExceeded, "beam " + std::to_string(beam) + " is outside the session's range 1.." +
                                                  std::to_string(limits_.max_beam));
  }
  batch_ = batch;
  beam_ = beam;
  started_ = true;
  return Status::ok();
}

void TransformerDecoderOnly::fill_nan(float* log_probs, size_t rows) const {
  if (log_probs == nullptr || rows > rows_) return;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 0; i < rows * stack_.config.vocab_size; ++i) log_probs[i] = nan;
}

const float* TransformerDecoderOnly::sublayer_input(const layers::Norm& norm, float* x, float* h, size_t rows) const {
  if (!stack_.config.pre_norm) return x;
  norm.apply(*k_, x, rows, h);
  return h;
}

void TransformerDecoderOnly::sublayer_output(const layers::Norm& norm, float* x, float* h, size_t rows) const {
  if (stack_.config.pre_norm) return;
  norm.apply(*k_, x, rows, h);
  std::memcpy(x, h, rows * stack_.config.d_model * sizeof(float));
}

void TransformerDecoderOnly::step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) {
  const transformer::StackConfig& c = stack_.config;
  const size_t d = c.d_model, V = c.vocab_size;
  bool valid = started_ && input_ids != nullptr && log_probs != nullptr && rows > 0 && rows <= batch_ * beam_ &&
               step < limits_.max_target_len && step <= cache_length_;
  for (size_t r = 0; valid && r < rows; ++r) valid = input_ids[r] >= 0 && static_cast<size_t>(input_ids[r]) < V;
  if (!valid) {
    fill_nan(log_probs, rows);
    return;
  }

  float* x = static_cast<float*>(x_.ptr);
  float* h = static_cast<float*>(h_.ptr);
  float* qkv = static_cast<float*>(qkv_.ptr);
  float* ctx = static_cast<float*>(ctx_.ptr);
  float* scores_base = static_cast<float*>(scores_.ptr);
  const layers::QuantScratch q{static_cast<int8_t*>(q_.ptr), static_cast<float*>(qscales_.ptr), rows_,
                               c.max_linear_input(), static_cast<float*>(staging_.ptr),
                               xnnpack_min_rows_ > 0 ? rows_ * c.d_model : 0};
  const float* table = static_cast<const float*>(positions_.ptr);

  for (size_t r = 0; r < rows; ++r) {
    float* row = x + r * d;
    stack_.embeddings.gather(static_cast<size_t>(input_ids[r]), c.embedding_scale, false, row);
    if (c.position_encoding == fb::PositionEncoding::Sinusoidal) k_->add(row, table + step * d, d);
    if (c.position_encoding == fb::PositionEncoding::Learned) stack_.learned_positions.gather(step, 1.0f, true, row);
  }
  if (stack_.has_embedding_norm) {
    stack_.embedding_norm.apply(*k_, x, rows, h);
    std::memcpy(x, h, rows * d * sizeof(float));
  }

  const size_t hd = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim(), ld = c.qkv_dim();
  const size_t T = limits_.max_target_len;
  const size_t group = c.num_heads / c.num_kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const bool rope = c.position_encoding == fb::PositionEncoding::RoPE;
  const float* rope_row = rope ? table + step * hd : nullptr;
  for (size_t li = 0; li < stack_.layers.size(); ++li) {
    const transformer::LayerWeights& l = stack_.layers[li];
    float* kcache = static_cast<float*>(k_cache_[li].ptr);
    float* vcache = static_cast<float*>(v_cache_[li].ptr);

    // Causal self-attention: this position's K/V join the cache; the query sees 0..step.
    const float* in = sublayer_input(l.self_norm, x, h, rows);
    l.self_qkv.forward(*k_, in, rows, d, qkv, ld, kernels::Activation::kNone, false, q, pool_.get());
    for (size_t r = 0; r < rows; ++r) {
      float* query = qkv + r * ld;
      float* key = query + qd;
      if (rope) {
        layers::apply_rope(query, c.num_heads, hd, rope_row);
        layers::apply_rope(key, c.num_kv_heads, hd, rope_row);
      }
      std::memcpy(kcache + r * T * kvd + step * kvd, key, kvd * sizeof(float));
      std::memcpy(vcache + r * T * kvd + step * kvd, key + kvd, kvd * sizeof(float));
    }
    // (row, head) pairs split between the threads, each task with its own scores row.
    const size_t heads = c.num_heads;
    threading::parallel_ranges(pool_.get(), rows * heads, threading::min_items_for(2 * (step + 1) * hd),
                               [&](size_t task, size_t begin, size_t end) {
      float* scores = scores_base + task * T;
      for (size_t item = begin; item < end; ++item) {
        const size_t r = item / heads, head = item % heads;
        const size_t kvh = head / group;  // grouped-query: `group` query heads share one K/V head
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
    sublayer_output(l.self_norm, x, h, rows);

    // Feed-forward: act(in) (* gate), then out, added to the residual.
    in = sublayer_input(l.ffn_norm, x, h, rows);
    float* inner = static_cast<float*>(ffn_.ptr);
    l.ffn_in.forward(*k_, in, rows, d, inner, c.ffn_dim, c.activation, false, q, pool_.get());
    if (c.gated_ffn) {
      float* gate = static_cast<float*>(gate_.ptr);
      l.ffn_gate.forward(*k_, in, rows, d, gate, c.ffn_dim, kernels::Activation::kNone, false, q, pool_.get());
      for (size_t i = 0; i < rows * c.ffn_dim; ++i) inner[i] *= gate[i];
    }
    l.ffn_out.forward(*k_, inner, rows, c.ffn_dim, x, d, kernels::Activation::kNone, true, q, pool_.get());
    sublayer_output(l.ffn_norm, x, h, rows);
  }

  const float* last = x;
  if (stack_.has_final_norm) {
    stack_.final_norm.apply(*k_, x, rows, h);
    last = h;
  }
  output_.forward(*k_, last, rows, d, log_probs, V, kernels::Activation::kNone, false, q, pool_.get());
  for (size_t r = 0; r < rows; ++r) k_->log_softmax(log_probs + r * V, V);
  cache_length_ = step + 1;
}

void TransformerDecoderOnly::reorder(const int32_t* parents, size_t rows) {
  if (!started_ || rows == 0 || rows > batch_ * beam_ || cache_length_ == 0) return;
  if (!layers::beam_reorder_moves(parents, rows, beam_)) return;
  const size_t kvd = stack_.config.kv_dim(), T = limits_.max_target_len;
  float* scratch = static_cast<float*>(reorder_scratch_.ptr);
  for (size_t l = 0; l < stack_.layers.size(); ++l) {
    for (Buf* cache : {&k_cache_[l], &v_cache_[l]}) {
      layers::beam_reorder_rows(static_cast<float*>(cache->ptr), T * kvd, cache_length_ * kvd, parents, rows, scratch);
    }
  }
}

}  // namespace heed::decoder_only
