// The decoder-only Transformer (GPT-style language models converted from CTranslate2, llama2.c
// checkpoints) as a StepModel: no sources; start() only resets the per-layer self-attention K/V
// caches; step() runs one position for every hypothesis row; a prompt is fed through step() one
// position at a time (the decoding engine's forced prefix). Positions: learned table,
// sinusoidal, or RoPE (queries and keys rotated before they enter the cache). Every buffer lives
// in one planned arena: no allocation after create().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "arena/arena.h"
#include "heed/kernels.h"
#include "heed/model.h"
#include "heed/step_model.h"
#include "models/step_model_factory.h"
#include "layers/linear.h"
#include "threading/thread_pool.h"
#include "transformer/stack.h"

namespace heed::decoder_only {

class TransformerDecoderOnly final : public StepModel {
 public:
  // With `arena` null only plans (fills `report`); otherwise also allocates/binds and sets *out.
  // limits.max_source_len is ignored; max_target_len bounds the positions (prompt + generated),
  // and may not exceed a learned position table or a RoPE model's trained context
  // (max_positions, when the file gives one).
  static Status create(const Model& model, const StepModelLimits& limits, const ArenaOptions* arena,
                       ArenaReport* report, std::unique_ptr<TransformerDecoderOnly>* out,
                       size_t threads = 1);  // 0: one per core

  size_t vocab_size() const override { return stack_.config.vocab_size; }
  // -1 for language models trained without a start token (OpenNMT-py's transformer_lm): their
  // first input is the prompt's first token, which heed::Generator arranges.
  int32_t bos_id() const override { return bos_id_; }
  int32_t eos_id() const override { return eos_id_; }
  const StepModelLimits& limits() const override { return limits_; }

  // `sources` must be null or empty: a decoder-only model has no source.
  Status start(const TokenBatch* sources, size_t batch, size_t beam) override;
  // Invalid calls (not started, rows above batch * beam, a step beyond the limit or skipping
  // positions, an id outside the vocabulary) leave the caches untouched and fill log_probs with
  // NaN (when rows is within the limits).
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override;
  // parents[r] must be a row of the same sentence (r / beam); invalid parents change nothing.
  void reorder(const int32_t* parents, size_t rows) override;

  const ArenaReport& arena_report() const { return report_; }
  const transformer::StackConfig& config() const { return stack_.config; }

 private:
  TransformerDecoderOnly() = default;
  Status load(const Model& model, const StepModelLimits& limits);
  void plan(ArenaPlanner* planner);
  void bind(const ArenaPlanner& planner);
  void fill_nan(float* log_probs, size_t rows) const;
  // Pre-norm: the norm of x into h (returned); post-norm: x itself.
  const float* sublayer_input(const layers::Norm& norm, float* x, float* h, size_t rows) const;
  // Post-norm: x = norm(x) (x already holds x + F(x)); pre-norm: nothing.
  void sublayer_output(const layers::Norm& norm, float* x, float* h, size_t rows) const;

  const kernels::KernelTable* k_ = nullptr;
  size_t threads_ = 1;                         // resolved thread count (sizes per-task scratch)
  std::unique_ptr<threading::ThreadPool> pool_;
  StepModelLimits limits_;
  transformer::StackWeights stack_;
  layers::Linear output_;
  int32_t bos_id_ = -1, eos_id_ = -1;
  size_t rows_ = 0;  // max_batch * max_beam
  size_t xnnpack_min_rows_ = 0;  // f32 layers go to XNNPACK from this many rows (0: never)

  Arena arena_;
  ArenaReport report_;

  struct Buf { size_t id = 0; void* ptr = nullptr; };
  Buf positions_;  // sinusoidal [T, d] or RoPE [T, head_dim] table
  Buf x_, h_, qkv_, ctx_, ffn_, gate_, q_, qscales_, scores_, reorder_scratch_;
  Buf staging_;  // XNNPACK output before the residual add (empty without it)
  std::vector<Buf> k_cache_, v_cache_;  // one per layer: [rows, T, kv_dim]

  bool started_ = false;
  size_t batch_ = 0, beam_ = 0;
  size_t cache_length_ = 0;  // positions held in the caches
};

}  // namespace heed::decoder_only
