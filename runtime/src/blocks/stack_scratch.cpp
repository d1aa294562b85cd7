#include "blocks/stack_scratch.h"

namespace heed::blocks {

void StackScratch::plan(ArenaPlanner* p, const std::string& prefix, const StackConfig& c,
                        const StackScratchShape& s) {
  shape_ = s;
  d_model_ = c.d_model;
  max_linear_input_ = c.max_linear_input();
  const size_t f = sizeof(float), R = s.rows;
  group_rows_ = s.group_rows == 0 || s.group_rows > R ? R : s.group_rows;  // rows of the per-layer buffers
  const size_t G = group_rows_, slots = s.group_slots == 0 ? 1 : s.group_slots;
  shape_.group_slots = slots;
  const size_t widths[5] = {c.d_model, c.qkv_dim(), c.q_dim(), c.ffn_dim, c.gated_ffn ? c.ffn_dim : 0};
  for (size_t i = 0; i < 5; ++i) slot_floats_[i] = saturating_product(G, widths[i]);
  const std::string n = prefix + ".";
  x_.request(p, n + "x", saturating_product(R, c.d_model, f), s.first, s.output_last);
  h_.request(p, n + "normed", saturating_product(slots, slot_floats_[0], f), s.first, s.last);
  qkv_.request(p, n + "qkv", saturating_product(slots, slot_floats_[1], f), s.first, s.last);
  ctx_.request(p, n + "context", saturating_product(slots, slot_floats_[2], f), s.first, s.last);
  ffn_.request(p, n + "ffn", saturating_product(slots, slot_floats_[3], f), s.first, s.last);
  gate_.request(p, n + "ffn_gate", saturating_product(slots, slot_floats_[4], f), s.first, s.last);
  q_.request(p, n + "quantized", saturating_product(R, max_linear_input_), s.first, s.output_last);
  qscales_.request(p, n + "quantized_scales", saturating_product(R, layers::quant_scales_per_row(max_linear_input_), f),
                   s.first, s.output_last);
  // Attention is split between the worker tasks: each its rows of scores (a row group of the
  // kernel's row path: a sentence's beam rows side by side) or block scratch.
  scores_floats_ = saturating_product(s.scores_length, kernels::kAttentionRowGroup);
  if (s.block_attention && s.scores_length > 0 && s.scores_length <= (size_t{1} << 32)) {  // larger: overflows anyway
    const size_t block = kernels::attention_block_scratch_floats(s.scores_length, c.head_dim);
    if (block > scores_floats_) scores_floats_ = block;
  }
  scores_.request(p, n + "scores", saturating_product(s.threads, scores_floats_, f), s.first, s.last);
  staging_.request(p, n + "linear_staging", s.xnnpack ? saturating_product(slots, G, c.d_model, f) : 0, s.first, s.last);
}

void StackScratch::bind(const Arena& arena, const ArenaPlanner& planner) {
  for (ArenaBuffer* b : {&x_, &h_, &qkv_, &ctx_, &ffn_, &gate_, &q_, &qscales_, &scores_, &staging_}) {
    b->bind(arena, planner);
  }
}

StackScratch StackScratch::group_slot(size_t slot, size_t first_row) const {
  StackScratch g = *this;
  ArenaBuffer* per_layer[5] = {&g.h_, &g.qkv_, &g.ctx_, &g.ffn_, &g.gate_};
  for (size_t i = 0; i < 5; ++i) per_layer[i]->ptr = per_layer[i]->as<float>() + slot * slot_floats_[i];
  g.scores_.ptr = scores(slot);
  if (shape_.xnnpack) g.staging_.ptr = staging_.as<float>() + slot * group_rows_ * d_model_;
  g.q_.ptr = q_.as<int8_t>() + first_row * max_linear_input_;
  g.qscales_.ptr = qscales_.as<float>() + first_row * layers::quant_scales_per_row(max_linear_input_);
  g.shape_.rows = shape_.rows - first_row;
  g.shape_.threads = 1;
  g.shape_.group_slots = 1;
  return g;
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
