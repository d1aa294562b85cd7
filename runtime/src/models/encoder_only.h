// The encoder-only Transformer (BERT family) session: encode() runs a batch of token-id sentences
// through the encoder stack (word + learned position + token type 0 embeddings, embedding norm,
// post- or pre-norm layers, MPNet's relative position bias in every layer's attention) and keeps the last hidden states of the packed rows; pool() reduces
// each sentence to one vector, classify() and mask_logits() run the model's task head
// (models/encoder_heads.h) when the session was created for it. Every buffer lives in one arena
// planned at creation for max_batch x max_length tokens: no allocation after create(). float32
// layers run on XNNPACK where it supports the CPU (Backend::kAuto).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "blocks/arena_buffer.h"
#include "blocks/stack.h"
#include "blocks/stack_scratch.h"
#include "heed/embedder.h"
#include "heed/model.h"
#include "heed/step_model.h"
#include "layers/embeddings.h"
#include "models/encoder_heads.h"
#include "models/relative_position_bias.h"
#include "models/session.h"

namespace heed::models {

// What a session runs after the encoder: nothing (embeddings), or the model's head.
enum class EncoderTask { kEmbed, kClassify, kFillMask };

class EncoderOnly final : public Session {
 public:
  // With `arena` null only plans (fills `report`); otherwise also allocates and sets *out.
  // max_length 0: the model's learned position table.
  static Status create(const Model& model, size_t max_batch, size_t max_length, const ArenaOptions* arena,
                       ArenaReport* report, std::unique_ptr<EncoderOnly>* out, threading::PoolOptions threads,
                       EncoderTask task = EncoderTask::kEmbed);

  size_t dimension() const { return stack_.config.d_model; }
  size_t vocab_size() const { return stack_.config.vocab_size; }
  size_t max_batch() const { return max_batch_; }
  size_t max_length() const { return max_length_; }

  // Checks the batch against the limits and the vocabulary, then runs the encoder.
  Status encode(const TokenBatch& batch);
  // out[s] = pooled (and optionally L2-normalized) hidden states of sentence s of the last encode().
  void pool(Pooling pooling, bool normalize, float* out) const;
  const float* hidden_states(size_t sentence, size_t* length) const;
  // The sentences of the last encode() and their first packed rows (offsets[batch] = all rows).
  size_t batch() const { return batch_; }
  const size_t* offsets() const { return offsets_.as<const size_t>(); }

  // kClassify sessions: logits[s, classifier().num_labels()] of each sentence of the last encode().
  const ClassificationHead& classifier() const { return classifier_; }
  void classify(float* logits) const;
  // kFillMask sessions: the vocabulary's logits at packed rows rows[0 .. n) of the last encode(),
  // n <= masked_lm().chunk_rows(); [n, vocab_size()] in session memory (writable) until the next call.
  const MaskedLmHead& masked_lm() const { return masked_lm_; }
  float* mask_logits(const size_t* rows, size_t n) const;

 private:
  friend class Session;
  EncoderOnly() = default;
  Status load(const Model& model, size_t max_batch, size_t max_length, EncoderTask task);
  Status load_head(const Model& model, const fb::TransformerEncoderOnly& config);
  Status check_limits(const blocks::StackConfig& c, size_t max_batch, size_t* max_length) const;
  void plan(ArenaPlanner* planner) override;
  void bind(const ArenaPlanner& planner) override;
  Status use_xnnpack() override;

  blocks::StackWeights stack_;
  bool has_token_types_ = false;
  layers::Embeddings token_types_;
  RelativePositionBias relative_bias_;  // MPNet
  size_t max_batch_ = 0, max_length_ = 0;
  blocks::ArenaBuffer offsets_;
  blocks::StackScratch scratch_;
  size_t batch_ = 0;  // sentences of the last encode()
  EncoderTask task_ = EncoderTask::kEmbed;
  ClassificationHead classifier_;
  MaskedLmHead masked_lm_;
};

}  // namespace heed::models
