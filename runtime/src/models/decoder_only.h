// The decoder-only Transformer (GPT-style language models from CTranslate2, Hugging Face GPT-2
// and Llama, llama2.c checkpoints) as a StepModel: no sources; start() only resets the K/V
// caches; step() runs the decoder step for every hypothesis row; a prompt is fed through step()
// one position at a time (the decoding engine's forced prefix). Positions: learned table,
// sinusoidal, or RoPE (queries and keys rotated before they enter the cache). Every buffer lives
// in one planned arena: no allocation after create().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "blocks/arena_buffer.h"
#include "blocks/kv_cache.h"
#include "blocks/stack.h"
#include "blocks/stack_scratch.h"
#include "heed/model.h"
#include "models/step_session.h"

namespace heed::models {

class DecoderOnly final : public StepSession {
 public:
  size_t vocab_size() const override { return stack_.config.vocab_size; }

  // `sources` must be null or empty: a decoder-only model has no source.
  Status start(const TokenBatch* sources, size_t batch, size_t beam) override;
  // Invalid calls leave the caches untouched and fill log_probs with NaN (as EncoderDecoder).
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override;
  void reorder(const int32_t* parents, size_t rows) override;
  bool compact_rows(const int32_t* keep, size_t count) override;

  const blocks::StackConfig& config() const { return stack_.config; }

 private:
  friend class Session;
  DecoderOnly() = default;
  Status load(const Model& model, const StepModelLimits& limits);
  void plan(ArenaPlanner* planner) override;
  Status use_xnnpack() override;
  void bind(const ArenaPlanner& planner) override;

  blocks::StackWeights stack_;
  layers::Linear output_;
  blocks::StackScratch scratch_;
  blocks::KvCache cache_;
  blocks::ArenaBuffer positions_;  // sinusoidal [T, d] or RoPE [T, head_dim] table
};

}  // namespace heed::models
