// The Transformer encoder stack over a batch of sentences packed without padding (sentence s at
// rows offsets[s] .. offsets[s + 1]), so no padding can leak into any sentence's result: input
// embeddings, then every layer's self-attention (each token attends over its own sentence) and
// feed-forward, then the final norm. Serves the encoder-decoder and the encoder-only families.
#pragma once

#include <cstddef>

#include "blocks/compute.h"
#include "blocks/stack.h"
#include "blocks/stack_scratch.h"
#include "heed/step_model.h"

namespace heed::blocks {

// offsets[s] = first row of sentence s; offsets[batch.size] = all rows.
void pack_offsets(const TokenBatch& batch, size_t* offsets);

// A relative position bias by distance (MPNet: models/relative_position_bias.h) for sentences of
// up to `length` tokens: head h's bias for key - query distance k (|k| < length) at
// table[h * (2 length - 1) + length - 1 + k]. table null: none.
struct RelativeBias {
  const float* table = nullptr;
  size_t length = 0;
};

struct EncoderInput {
  const TokenBatch* batch = nullptr;
  const size_t* offsets = nullptr;           // pack_offsets() of the batch
  const float* sinusoidal = nullptr;         // [max length, d_model] when the stack uses them
  const layers::Embeddings* token_types = nullptr;  // BERT: type 0 added to every token
  RelativeBias relative_bias;                // MPNet: added to every layer's attention scores
};

// Rows one pass of the encoder's layers works on: sentences go through every layer in groups of up
// to kEncoderGroupTokens rows (at least one sentence), so the scratch's per-layer buffers (all but
// x and the int8 activations) need this many rows for sentences of up to max_length tokens.
inline constexpr size_t kEncoderGroupTokens = 256;
inline size_t encoder_group_rows(size_t max_length) {
  return max_length > kEncoderGroupTokens ? max_length : kEncoderGroupTokens;
}

// Per-layer buffer sets to plan (StackScratchShape::group_slots): one per thread, so that threads
// can take whole chunks of sentences; one when the layers will run on XNNPACK (`xnnpack`: the
// session hands float32 layers to it), which keeps the products split instead.
inline size_t encoder_group_slots(const StackWeights& w, size_t threads, bool xnnpack) {
  return xnnpack && w.may_use_xnnpack() ? 1 : threads;
}

// Leaves the encoder's output in s.x() (rows as packed). The scratch is planned with group_rows
// = encoder_group_rows(longest sentence) or more.
void encode_stack(const Compute& cx, const StackWeights& w, const StackScratch& s, const EncoderInput& in);

}  // namespace heed::blocks
