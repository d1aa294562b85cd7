// The attention of an RNN decoder over its encoder's states ("memory" [S, H]): every score
// function and alignment of schema/heed.fbs's RnnSeq2Seq, soft or hard.
//
// score(q, h_s): dot q.h_s; scaled dot q.h_s / sqrt(H); general q.(W_a h_s); cosine
// scale * cos(q, h_s); concat / additive v.tanh(W_k h_s + b + W_q q) (concat is additive without
// bias, W_a [q; h_s] split by columns); MLP v.tanh(W_2 tanh(W_k h_s + b + W_q q) + b_2).
// Alignment: global softmax over the source; local-m: softmax over |s - p| <= D with
// p = min(t, S - 1); local-p: p = S sigmoid(v_p.tanh(W_p q)), softmax over |s - p| <= D times
// exp(-(s - p)^2 / (2 sigma^2)), sigma = D / 2. Hard: the argmax of those weights, one-hot.
// Location (Luong 2015's location-based score, global alignment only): a = softmax(W_a q + b) over
// P = max_source_positions fixed positions, whatever the source holds; the positions at or beyond
// the source's length have zero memory (as PyTorch's tutorial pads its encoder outputs with zeros):
// they take weight but add nothing to c_t, so the weights over the source may sum below 1. Hard:
// the one-hot of the argmax over the P positions (c_t = 0 when it lies beyond the source).
// NoAttention loads nothing: the RNN family skips attention altogether.
// The per-source part of each score (W_k h_s, norms) is computed once per sentence by precompute().
#pragma once

#include <cstddef>

#include "heed/kernels.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "heed/status.h"
#include "layers/linear.h"
#include "layers/weights.h"

namespace heed::rnn {

struct AttentionConfig {
  fb::AttentionScore score = fb::AttentionScore::General;
  fb::AttentionAlignment alignment = fb::AttentionAlignment::Global;
  bool hard = false;
  size_t hidden = 0;         // H: query and memory width
  size_t attention_dim = 0;  // A: concat / additive / MLP / local-p hidden size
  size_t window = 0;         // D: local alignments
  size_t positions = 0;      // P: the location score's fixed source positions
};

class RnnAttention {
 public:
  // Requires the tensors this configuration uses (heed_format/rnn_names.h), checking their shapes.
  Status load(const Model& model, const AttentionConfig& config);
  const AttentionConfig& config() const { return config_; }

  // Floats per source position precompute() writes (0: the score reads the memory directly).
  size_t key_dim() const;
  // Floats attend() needs as scratch for a source of up to max_source positions.
  size_t scratch_floats(size_t max_source) const;
  // Rows x columns of int8 activation scratch the linear layers need.
  size_t quant_rows(size_t max_source) const { return max_source > 0 ? max_source : 1; }
  size_t quant_cols() const;

  // keys[S, key_dim()] from memory[S, H] (once per sentence).
  void precompute(const kernels::KernelTable& k, const float* memory, size_t source_len, float* keys,
                  const layers::QuantScratch& q) const;

  // One query q[H] at decoder step `step`: weights[S] (the alignment a_t) and context[H].
  // With source_len 0 the context is zero.
  void attend(const kernels::KernelTable& k, const float* query, const float* memory, const float* keys,
              size_t source_len, size_t step, float* weights, float* context, float* scratch,
              const layers::QuantScratch& q) const;

 private:
  void scores(const kernels::KernelTable& k, const float* query, const float* memory, const float* keys,
              size_t source_len, float* e, float* scratch, const layers::QuantScratch& q) const;
  // The location score's weights and context (its own path: its softmax spans P positions, not S).
  void attend_location(const kernels::KernelTable& k, const float* query, const float* memory, size_t source_len,
                       float* weights, float* context, float* scratch, const layers::QuantScratch& q) const;
  // Writes the alignment weights over e[S] in place.
  void align(const kernels::KernelTable& k, const float* query, size_t source_len, size_t step, float* e,
             float* scratch, const layers::QuantScratch& q) const;

  AttentionConfig config_;
  layers::Linear key_, query_, hidden_, position_, location_;
  layers::F32Vector v_, position_v_, cosine_scale_;
};

}  // namespace heed::rnn
