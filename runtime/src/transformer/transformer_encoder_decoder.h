// The Transformer encoder-decoder (translation models converted from CTranslate2 / OpenNMT and
// the like) as a StepModel: start() encodes a batch of sources once and caches each decoder
// layer's cross-attention keys/values per sentence; step() runs one decoder position for every
// hypothesis row through a per-layer self-attention K/V cache; reorder() permutes that cache for
// beam search. Every buffer lives in one planned arena (heed/arena.h): no allocation after create.
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

namespace heed::transformer {

class TransformerEncoderDecoder final : public StepModel {
 public:
  // With `arena` null only plans (fills `report`); otherwise also allocates/binds, starts the
  // thread pool and sets *out. `threads` as in SessionOptions (0: one per core).
  static Status create(const Model& model, const StepModelLimits& limits, const ArenaOptions* arena,
                       ArenaReport* report, std::unique_ptr<TransformerEncoderDecoder>* out,
                       size_t threads = 1);

  size_t vocab_size() const override { return decoder_.config.vocab_size; }
  int32_t bos_id() const override { return bos_id_; }
  int32_t eos_id() const override { return eos_id_; }
  const StepModelLimits& limits() const override { return limits_; }

  Status start(const TokenBatch* sources, size_t batch, size_t beam) override;
  // Invalid calls (not started, rows above the started batch * beam, step beyond the limit or not
  // following the previous one, an id outside the vocabulary) cannot return a Status: they leave
  // the caches untouched and fill log_probs with NaN (when rows is within the limits).
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override;
  // parents[r] must be a row of the same sentence (r / beam); invalid parents leave the caches as
  // they are.
  void reorder(const int32_t* parents, size_t rows) override;

  // With limits.capture_attention: every decoder layer's cross-attention probabilities per head,
  // copied out of the attention scratch during step() (panel = layer * num_heads + head).
  size_t attention_panels() const override;
  size_t attention_heads() const override { return decoder_.config.num_heads; }
  const float* last_attention() const override;

  const ArenaReport& arena_report() const { return report_; }

 private:
  TransformerEncoderDecoder() = default;
  Status load(const Model& model, const StepModelLimits& limits);
  void plan(ArenaPlanner* planner);
  void bind(const ArenaPlanner& planner);

  void encode(const TokenBatch& sources);
  void project_cross_keys_values(size_t tokens);
  // Residual sub-layer helpers on rows of width d_model.
  const float* sublayer_input(const layers::Norm& norm, bool pre_norm, float* x, float* h, size_t rows) const;
  void sublayer_output(const layers::Norm& norm, bool pre_norm, float* x, float* h, size_t rows, size_t d) const;
  void feed_forward(const StackConfig& c, const LayerWeights& l, float* x, float* h, float* inner,
                    float* gate, size_t rows, const layers::QuantScratch& q) const;
  void fill_nan(float* log_probs, size_t rows) const;
  void encoder_self_attention(const float* qkv, float* ctx, size_t tokens) const;

  const kernels::KernelTable* k_ = nullptr;
  size_t threads_ = 1;                         // resolved thread count (sizes per-task scratch)
  std::unique_ptr<threading::ThreadPool> pool_;
  StepModelLimits limits_;
  StackWeights encoder_, decoder_;
  layers::Linear output_;
  int32_t bos_id_ = -1, eos_id_ = -1;
  size_t enc_rows_ = 0;  // max_batch * max_source_len: packed source tokens
  size_t dec_rows_ = 0;  // max_batch * max_beam: hypotheses
  size_t xnnpack_min_rows_ = 0;  // f32 layers go to XNNPACK from this many rows (0: never)

  Arena arena_;
  ArenaReport report_;

  // Buffer ids (planner) and their addresses (arena).
  struct Buf { size_t id = 0; void* ptr = nullptr; };
  Buf source_offsets_, enc_positions_, dec_positions_;
  Buf enc_x_, enc_h_, enc_qkv_, enc_ctx_, enc_ffn_, enc_gate_, enc_q_, enc_qscales_, enc_scores_;
  Buf dec_x_, dec_h_, dec_qkv_, dec_ctx_, dec_ffn_, dec_gate_, dec_q_, dec_qscales_, dec_scores_;
  Buf reorder_scratch_;
  Buf enc_staging_, dec_staging_;  // XNNPACK output before the residual add (empty without it)
  Buf cross_attention_;  // [R, layers * heads, S] when capturing attention, else empty
  std::vector<Buf> cross_kv_, self_k_, self_v_;  // one per decoder layer

  // Batch state set by start().
  bool started_ = false;
  size_t batch_ = 0, beam_ = 0;
  size_t cache_length_ = 0;  // decoder positions held in the self-attention caches
};

}  // namespace heed::transformer
