// The Transformer encoder-decoder (translation models converted from CTranslate2, OPUS-MT/Marian,
// OpenNMT and the like) as a StepModel: start() runs the encoder stack once over the batch's packed
// sources and projects each decoder layer's cross-attention keys/values; step() runs the decoder
// step for every hypothesis row through the self-attention K/V caches; reorder() permutes those
// caches for beam search. Every buffer lives in one planned arena: no allocation after create().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "blocks/arena_buffer.h"
#include "blocks/decoder.h"
#include "blocks/kv_cache.h"
#include "blocks/stack.h"
#include "blocks/stack_scratch.h"
#include "heed/model.h"
#include "models/step_session.h"
#include "models/vocab_shortlist.h"

namespace heed::models {

class EncoderDecoder final : public StepSession {
 public:
  size_t vocab_size() const override { return decoder_.config.vocab_size; }

  Status start(const TokenBatch* sources, size_t batch, size_t beam) override;
  // Invalid calls (not started, rows above the started batch * beam, a step beyond the limit or
  // not following the previous one, an id outside the vocabulary) leave the caches untouched and
  // fill log_probs with NaN (when rows is within the limits).
  void step(const int32_t* input_ids, size_t rows, size_t step, float* log_probs) override;
  // parents[r] must be a row of the same sentence (r / beam); invalid parents change nothing.
  void reorder(const int32_t* parents, size_t rows) override;
  // Finished sentences leave the batch: their rows' caches and sources are no longer read.
  bool compact_rows(const int32_t* keep, size_t count) override;

  bool has_vocab_map() const override { return shortlist_.available(); }
  const int32_t* vocabulary_candidates(size_t* count) const override { return shortlist_.candidates(count); }
  Status restrict_vocabulary(const TokenBatch* sources, const TokenBatch* targets) override;

  // With limits.capture_attention: every decoder layer's cross-attention probabilities per head
  // (panel = layer * num_heads + head).
  size_t attention_panels() const override;
  size_t attention_heads() const override { return decoder_.config.num_heads; }
  const float* last_attention() const override;

 private:
  friend class Session;
  EncoderDecoder() = default;
  Status load(const Model& model, const StepModelLimits& limits);
  Status check_positions(const blocks::StackConfig& ec, const blocks::StackConfig& dc) const;
  void plan(ArenaPlanner* planner) override;
  Status use_xnnpack() override;
  void bind(const ArenaPlanner& planner) override;
  void project_cross_keys_values(size_t tokens);

  blocks::StackWeights encoder_, decoder_;
  layers::Linear output_;
  VocabShortlist shortlist_;  // empty unless the file has a vocabulary map

  blocks::StackScratch encoder_scratch_, decoder_scratch_;
  blocks::KvCache self_cache_;
  blocks::ArenaBuffer source_offsets_, row_sentences_, encoder_positions_, decoder_positions_, cross_attention_;
  std::vector<blocks::ArenaBuffer> cross_kv_;  // one per decoder layer: [source tokens, K | V]
  blocks::CrossMemory memory_;
};

}  // namespace heed::models
