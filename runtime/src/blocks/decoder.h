// One step of the Transformer decoder for every hypothesis row: input embedding at the step's
// position, then every layer's causal self-attention through the K/V cache (RoPE and grouped-query
// attention where the stack has them), cross-attention over the encoder's memory (encoder-decoder
// models), feed-forward, then the final norm, the output projection and log-softmax. Serves the
// encoder-decoder and the decoder-only families.
#pragma once

#include <cstddef>
#include <cstdint>

#include "blocks/arena_buffer.h"
#include "blocks/compute.h"
#include "blocks/kv_cache.h"
#include "blocks/stack.h"
#include "blocks/stack_scratch.h"
#include "layers/linear.h"

namespace heed::blocks {

// What the cross-attention of an encoder-decoder reads: per decoder layer the projected [K | V]
// rows of the batch's packed source tokens, each sentence's rows (offsets), and which sentence each
// hypothesis row belongs to (row / beam at start(), then wherever compaction moved it).
// Floats per source token in a layer's cross-attention memory: its keys then its values (q_dim
// each), then kAttentionRowPadFloats (blocks/kv_cache.h; unpadded, a 512-wide model's rows were
// 4 KiB and every decoder step re-read a head's keys from L2).
inline size_t cross_memory_row_floats(size_t q_dim) { return 2 * q_dim + kAttentionRowPadFloats; }

struct CrossMemory {
  const ArenaBuffer* kv = nullptr;  // one per decoder layer, [source tokens, cross_memory_row_floats]
  const size_t* offsets = nullptr;
  const uint32_t* row_sentences = nullptr;  // [rows]
  size_t batch = 0;
  // When capturing attention: [rows, layers * heads, max_source_len] probabilities, else null.
  float* captured = nullptr;
  size_t max_source_len = 0;
};

struct DecoderStep {
  const int32_t* ids = nullptr;  // the token fed to each row
  size_t rows = 0;
  size_t step = 0;                  // its position
  const float* positions = nullptr;  // sinusoidal [T, d_model] or RoPE [T, head_dim] table
};

struct Decoder {
  const StackWeights* weights = nullptr;
  const layers::Linear* output = nullptr;  // the vocabulary projection
  const StackScratch* scratch = nullptr;
  const KvCache* cache = nullptr;
  const CrossMemory* cross = nullptr;  // null: no cross-attention (decoder-only)
};

// Writes the logits [rows, vocab] (the family applies the log-softmax: StepSession::finish_step)
// and stores the step's keys and values in the cache.
void decoder_step(const Compute& cx, const Decoder& decoder, const DecoderStep& in, float* logits);

}  // namespace heed::blocks
