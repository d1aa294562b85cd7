// The encoder-only Transformer (BERT family) session: encode() runs a batch of token-id sentences
// through the stack (word + learned position + token type 0 embeddings, embedding norm, post- or
// pre-norm layers) and keeps the last hidden states of the packed rows; pool() reduces each
// sentence to one vector. Every buffer lives in one arena planned at creation for max_batch x
// max_length tokens: no allocation after create().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "arena/arena.h"
#include "heed/embedder.h"
#include "heed/kernels.h"
#include "heed/model.h"
#include "heed/step_model.h"
#include "models/step_model_factory.h"
#include "layers/embeddings.h"
#include "threading/thread_pool.h"
#include "transformer/stack.h"

namespace heed::encoder_only {

class TransformerEncoderOnly {
 public:
  // With `arena` null only plans (fills `report`); otherwise also allocates and sets *out.
  // max_length 0: the model's learned position table.
  static Status create(const Model& model, size_t max_batch, size_t max_length, const ArenaOptions* arena,
                       ArenaReport* report, std::unique_ptr<TransformerEncoderOnly>* out, size_t threads);

  size_t dimension() const { return stack_.config.d_model; }
  size_t vocab_size() const { return stack_.config.vocab_size; }
  size_t max_batch() const { return max_batch_; }
  size_t max_length() const { return max_length_; }
  const ArenaReport& arena_report() const { return report_; }

  // Checks the batch against the limits and the vocabulary, then runs the encoder.
  Status encode(const TokenBatch& batch);
  // out[s] = pooled (and optionally L2-normalized) hidden states of sentence s of the last encode().
  void pool(Pooling pooling, bool normalize, float* out) const;
  const float* hidden_states(size_t sentence, size_t* length) const;

 private:
  TransformerEncoderOnly() = default;
  Status load(const Model& model, size_t max_batch, size_t max_length);
  void plan(ArenaPlanner* planner);
  void bind(const ArenaPlanner& planner);
  void run(const TokenBatch& batch);
  void self_attention(const float* qkv, float* ctx, size_t tokens) const;
  void residual_norm(const layers::Norm& norm, float* x, float* h, size_t rows) const;

  const kernels::KernelTable* k_ = nullptr;
  size_t threads_ = 1;
  std::unique_ptr<threading::ThreadPool> pool_;
  transformer::StackWeights stack_;
  bool has_token_types_ = false;
  layers::Embeddings token_types_;
  size_t max_batch_ = 0, max_length_ = 0, rows_ = 0;

  Arena arena_;
  ArenaReport report_;
  struct Buf { size_t id = 0; void* ptr = nullptr; };
  Buf offsets_, x_, h_, qkv_, ctx_, ffn_, gate_, q_, qscales_, scores_;
  size_t batch_ = 0;  // sentences of the last encode()
};

}  // namespace heed::encoder_only
