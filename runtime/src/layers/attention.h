// Scaled dot-product attention for one query vector of one head:
//   out = sum_j softmax_j(q . k_j * scale) v_j,   j = 0 .. n-1.
// Keys and values are read with a stride, so the same routine serves encoder self-attention over a
// sentence's packed rows (padding never enters: only the sentence's own rows are passed, which is
// exactly a padding mask), causal decoder self-attention over the K/V cache (positions <= step)
// and cross-attention over the cached encoder keys/values of the row's sentence.
#pragma once

#include <cstddef>

#include "heed/kernels.h"

namespace heed::layers {

struct AttentionInput {
  const float* query = nullptr;   // [head_dim]
  const float* keys = nullptr;    // key j at keys + j * key_stride
  const float* values = nullptr;  // value j at values + j * value_stride
  size_t key_stride = 0;
  size_t value_stride = 0;
  // Non-null: key j at keys + offsets[j], value j at values + offsets[j] (floats), instead of the
  // strides (the decoder's K/V cache after beam reorders: blocks/kv_cache.h).
  const size_t* offsets = nullptr;
  size_t length = 0;              // n; 0 gives a zero output
  size_t head_dim = 0;
  float scale = 1.0f;             // 1 / sqrt(head_dim) for scaled dot-product
};

// scores: room for `length` floats; out: [head_dim].
void attend(const kernels::KernelTable& k, const AttentionInput& in, float* scores, float* out);

// Asks the CPU to start loading the keys and values `in` reads (head_dim floats of each of its
// `length` rows). The decoder calls it for its next (row, head) while attending the current one:
// the K/V caches are rows a few KiB apart, scattered by beam reorders, which the hardware
// prefetchers do not follow, and they are out of the L2 cache after a step's weights went through.
void prefetch_keys_values(const AttentionInput& in);

}  // namespace heed::layers
