// The encoder-only Transformer (BERT family) session: encode() runs a batch of token-id sentences
// through the encoder stack (word + learned position + token type 0 embeddings, embedding norm,
// post- or pre-norm layers) and keeps the last hidden states of the packed rows; pool() reduces
// each sentence to one vector. Every buffer lives in one arena planned at creation for
// max_batch x max_length tokens: no allocation after create(). float32 layers run on XNNPACK
// where it supports the CPU (Backend::kAuto).
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
#include "models/session.h"

namespace heed::models {

class EncoderOnly final : public Session {
 public:
  // With `arena` null only plans (fills `report`); otherwise also allocates and sets *out.
  // max_length 0: the model's learned position table.
  static Status create(const Model& model, size_t max_batch, size_t max_length, const ArenaOptions* arena,
                       ArenaReport* report, std::unique_ptr<EncoderOnly>* out, size_t threads);

  size_t dimension() const { return stack_.config.d_model; }
  size_t vocab_size() const { return stack_.config.vocab_size; }
  size_t max_batch() const { return max_batch_; }
  size_t max_length() const { return max_length_; }

  // Checks the batch against the limits and the vocabulary, then runs the encoder.
  Status encode(const TokenBatch& batch);
  // out[s] = pooled (and optionally L2-normalized) hidden states of sentence s of the last encode().
  void pool(Pooling pooling, bool normalize, float* out) const;
  const float* hidden_states(size_t sentence, size_t* length) const;

 private:
  friend class Session;
  EncoderOnly() = default;
  Status load(const Model& model, size_t max_batch, size_t max_length);
  Status check_limits(const blocks::StackConfig& c, size_t max_batch, size_t* max_length) const;
  void plan(ArenaPlanner* planner) override;
  void bind(const ArenaPlanner& planner) override;
  Status use_xnnpack() override;

  blocks::StackWeights stack_;
  bool has_token_types_ = false;
  layers::Embeddings token_types_;
  size_t max_batch_ = 0, max_length_ = 0;
  blocks::ArenaBuffer offsets_;
  blocks::StackScratch scratch_;
  size_t batch_ = 0;  // sentences of the last encode()
};

}  // namespace heed::models
