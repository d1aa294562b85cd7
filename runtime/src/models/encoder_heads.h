// The task heads of an encoder-only model (TransformerEncoderOnly.head, docs/format.md), run over
// the encoder's last hidden states: BERT's sequence classification head (the [CLS] row through the
// pooler, dense + tanh, then the classifier) and its masked-LM head (rows through the transform,
// dense + the stack's activation + LayerNorm, then the vocabulary projection, tied to the word
// embeddings or its own). Their buffers are planned into the session's arena with the encoder's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "arena/arena.h"
#include "blocks/arena_buffer.h"
#include "blocks/compute.h"
#include "blocks/stack.h"
#include "heed/model.h"
#include "heed/status.h"
#include "layers/linear.h"
#include "layers/norm.h"
#include "loader/model_index.h"

namespace heed::models {

// Masked rows predicted per call of the vocabulary projection: bounds the logits buffer
// (chunk x vocabulary floats) whatever the batch limits.
constexpr size_t kMaskChunk = 8;

class ClassificationHead {
 public:
  Status load(const Model& model, const fb::TransformerEncoderOnly& config, size_t d_model);
  void plan(ArenaPlanner* planner, size_t max_batch, uint32_t phase);
  void bind(const Arena& arena, const ArenaPlanner& planner);

  size_t num_labels() const { return labels_.size(); }
  const std::vector<std::string>& labels() const { return labels_; }
  fb::ClassifierFunction function() const { return function_; }

  // logits[s, num_labels()] from the first row ([CLS]) of each of the `batch` sentences of x, which
  // start at rows offsets[s].
  void run(const blocks::Compute& cx, const float* x, const size_t* offsets, size_t batch,
           const layers::QuantScratch& q, float* logits) const;

 private:
  size_t d_ = 0;
  layers::Linear pooler_, classifier_;
  std::vector<std::string> labels_;
  fb::ClassifierFunction function_ = fb::ClassifierFunction::Softmax;
  blocks::ArenaBuffer cls_, pooled_;
};

class MaskedLmHead {
 public:
  Status load(const Model& model, const blocks::StackConfig& stack);
  // Rows predicted at once: `max_rows` when smaller than the head's chunk.
  void plan(ArenaPlanner* planner, size_t max_rows, uint32_t phase);
  void bind(const Arena& arena, const ArenaPlanner& planner);

  size_t vocab_size() const { return vocab_; }
  size_t chunk_rows() const { return chunk_; }
  // The vocabulary's logits for rows rows[0 .. n) of x (n <= chunk_rows()): [n, vocab_size()] in
  // the session's memory (the caller may change them), valid until the next call.
  float* run(const blocks::Compute& cx, const float* x, const size_t* rows, size_t n,
                   const layers::QuantScratch& q) const;

 private:
  size_t d_ = 0, vocab_ = 0, chunk_ = 0;
  kernels::Activation activation_ = kernels::Activation::kGelu;
  layers::Linear transform_, output_;
  layers::Norm norm_;
  blocks::ArenaBuffer rows_, hidden_, logits_;
};

}  // namespace heed::models
