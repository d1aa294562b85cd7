#include "blocks/stack_scratch.h"

namespace heed::blocks {

void StackScratch::plan(ArenaPlanner* p, const std::string& prefix, const StackConfig& c,
                        const StackScratchShape& s) {
  shape_ = s;
  d_model_ = c.d_model;
  max_linear_input_ = c.max_linear_input();
  const size_t f = sizeof(float), R = s.rows;
  group_rows_ = s.group_rows == 0 || s.group_rows > R ? R : s.group_rows;  // rows of the per-layer buffers
  const size_t G = group_rows_;
  const std::string n = prefix + ".";
  x_.request(p, n + "x", saturating_product(R, c.d_model, f), s.first, s.output_last);
  h_.request(p, n + "normed", saturating_product(G, c.d_model, f), s.first, s.last);
  qkv_.request(p, n + "qkv", saturating_product(G, c.qkv_dim(), f), s.first, s.last);
  ctx_.request(p, n + "context", saturating_product(G, c.q_dim(), f), s.first, s.last);
  ffn_.request(p, n + "ffn", saturating_product(G, c.ffn_dim, f), s.first, s.last);
  gate_.request(p, n + "ffn_gate", c.gated_ffn ? saturating_product(G, c.ffn_dim, f) : 0, s.first, s.last);
  q_.request(p, n + "quantized", saturating_product(R, max_linear_input_), s.first, s.output_last);
  qscales_.request(p, n + "quantized_scales", saturating_product(R, layers::quant_scales_per_row(max_linear_input_), f),
                   s.first, s.output_last);
  // Attention is split between the worker tasks: one scores row (or block scratch) each.
  scores_floats_ = s.scores_length;
  if (s.block_attention && s.scores_length > 0 && s.scores_length <= (size_t{1} << 32)) {  // larger: overflows anyway
    const size_t block = kernels::attention_block_scratch_floats(s.scores_length, c.head_dim);
    if (block > scores_floats_) scores_floats_ = block;
  }
  scores_.request(p, n + "scores", saturating_product(s.threads, scores_floats_, f), s.first, s.last);
  staging_.request(p, n + "linear_staging", s.xnnpack ? saturating_product(G, c.d_model, f) : 0, s.first, s.last);
}

void StackScratch::bind(const Arena& arena, const ArenaPlanner& planner) {
  for (ArenaBuffer* b : {&x_, &h_, &qkv_, &ctx_, &ffn_, &gate_, &q_, &qscales_, &scores_, &staging_}) {
    b->bind(arena, planner);
  }
}

layers::QuantScratch StackScratch::quant(bool with_staging) const {
  layers::QuantScratch q{q_.as<int8_t>(), qscales_.as<float>(), shape_.rows, max_linear_input_};
  if (with_staging && shape_.xnnpack) {
    q.staging = staging_.as<float>();
    q.staging_floats = group_rows_ * d_model_;
  }
  return q;
}

}  // namespace heed::blocks
