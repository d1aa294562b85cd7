// Scaled dot-product attention for the query vectors of one head:
//   out = sum_j softmax_j(q . k_j * scale) v_j,   j = 0 .. n-1.
// Keys and values are read with a stride, so the same routine serves encoder self-attention over a
// sentence's packed rows (padding never enters: only the sentence's own rows are passed, which is
// exactly a padding mask), causal decoder self-attention over the K/V cache (positions <= step)
// and cross-attention over the cached encoder keys/values of the row's sentence. Several query
// rows (a sentence's beam rows) run side by side, each exactly as it would alone.
#pragma once

#include <cstddef>

#include "heed/kernels.h"

namespace heed::layers {

struct AttentionInput {
  const float* query = nullptr;   // row 0: [head_dim]; row i at query + i * query_stride
  size_t rows = 1;
  size_t query_stride = 0;
  const float* keys = nullptr;    // key j at keys + j * key_stride
  const float* values = nullptr;  // value j at values + j * value_stride
  size_t key_stride = 0;
  size_t value_stride = 0;
  // Non-null: key j at keys + offsets[j], value j at values + offsets[j] (floats), instead of the
  // strides (the decoder's K/V cache after beam reorders: blocks/kv_cache.h); row i's table at
  // offsets + i * offsets_stride.
  const size_t* offsets = nullptr;
  size_t offsets_stride = 0;
  size_t length = 0;              // n; 0 gives a zero output
  size_t head_dim = 0;
  float scale = 1.0f;             // 1 / sqrt(head_dim) for scaled dot-product
};

// scores: `scores_floats` floats, at least `length` (rows * length lets the rows run side by side,
// and leaves row i's probabilities at scores + i * length); out: row i at out + i * out_stride.
void attend(const kernels::KernelTable& k, const AttentionInput& in, float* scores, size_t scores_floats, float* out,
            size_t out_stride);

// Asks the CPU to start loading the keys and values `in` reads (head_dim floats of each of its
// `length` rows, for each query row). The decoder calls it for its next rows and head while
// attending the current ones: the K/V caches are rows a few KiB apart, scattered by beam reorders,
// which the hardware prefetchers do not follow, and they are out of the L2 cache after a step's
// weights went through.
void prefetch_keys_values(const AttentionInput& in);

}  // namespace heed::layers
