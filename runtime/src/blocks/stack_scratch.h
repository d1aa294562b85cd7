// The working buffers of one Transformer stack (encoder or decoder) for `rows` rows at a time:
// the residual stream, its normed copy, Q/K/V, attention context, FFN inner and gate, the int8
// activations and their scales, attention scores rows per worker task (a row group of the
// attention kernel's row path; room for blocks of query rows in an encoder), and XNNPACK's staging rows. An encoder runs its layers over groups
// of sentences: the per-layer buffers (normed, Q/K/V, context, FFN, staging) hold one group's
// rows, the residual stream and the int8 activations all rows; with group_slots, one set of
// per-layer buffers per thread, so that threads can take whole groups (blocks/encoder.cpp).
// Every family plans this one set for each of its stacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "arena/arena.h"
#include "blocks/arena_buffer.h"
#include "blocks/stack.h"
#include "layers/linear.h"

namespace heed::blocks {

struct StackScratchShape {
  size_t rows = 0;           // rows processed at once (packed tokens, or hypotheses)
  size_t scores_length = 0;  // longest key sequence one query attends to
  size_t threads = 1;        // worker tasks (scores rows each)
  bool xnnpack = false;      // f32 layers may run on XNNPACK: plan its staging rows
  uint32_t first = 0;        // lifetime phases of the scratch
  uint32_t last = 0;
  uint32_t output_last = 0;  // the residual stream and int8 activations may be read until this phase
  bool block_attention = false;  // encoder: each task's scores row holds the attention block scratch
  size_t group_rows = 0;  // encoder: rows of one pass of the layers (blocks/encoder.h); 0 = rows
  size_t group_slots = 1;  // encoder: groups run at once, one per thread (each its per-layer buffers)
};

class StackScratch {
 public:
  // Requests every buffer, named "<prefix>.x", "<prefix>.qkv", ...
  void plan(ArenaPlanner* planner, const std::string& prefix, const StackConfig& config,
            const StackScratchShape& shape);
  void bind(const Arena& arena, const ArenaPlanner& planner);

  float* x() const { return x_.as<float>(); }
  float* normed() const { return h_.as<float>(); }
  float* qkv() const { return qkv_.as<float>(); }
  float* context() const { return ctx_.as<float>(); }
  float* ffn() const { return ffn_.as<float>(); }
  float* ffn_gate() const { return gate_.as<float>(); }
  // The scores rows of worker task `task`.
  float* scores(size_t task) const { return scores_.as<float>() + task * scores_floats_; }
  // Floats of each task's scores rows: kernels::kAttentionRowGroup rows of scores_length, or the
  // attention kernel's block scratch (kernels::attention_block_scratch_floats) for block_attention
  // when larger.
  size_t scores_floats() const { return scores_floats_; }
  // The int8 activation scratch the stack's linear layers share, with XNNPACK's staging rows
  // unless `with_staging` is false (after the scratch's last phase: only the residual stream and
  // the int8 activations live until output_last).
  layers::QuantScratch quant(bool with_staging = true) const;

  // Per-layer buffer sets planned (shape.group_slots), and the scratch one group task works in:
  // slot `slot`'s per-layer buffers and scores row, and the int8 activations from row `first_row`
  // of the whole batch on (each task's groups are rows of its own). x stays the shared one.
  size_t group_slots() const { return shape_.group_slots; }
  StackScratch group_slot(size_t slot, size_t first_row) const;

 private:
  StackScratchShape shape_;
  size_t d_model_ = 0, max_linear_input_ = 0, scores_floats_ = 0, group_rows_ = 0;
  size_t slot_floats_[5] = {};  // one slot's floats of normed, qkv, context, ffn and ffn_gate
  ArenaBuffer x_, h_, qkv_, ctx_, ffn_, gate_, q_, qscales_, scores_, staging_;
};

}  // namespace heed::blocks
