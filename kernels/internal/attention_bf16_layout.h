// Where the bfloat16 block path of the fused attention kernel (x86/attention_avx512bf16.cpp) keeps
// its data in the caller's scratch, in 4-byte units (one u32 = a pair of bfloat16, the lower index
// in the low half, as VDPBF16PS pairs them), for n visible keys:
//   keys    [head_dim / 2][ld_keys]       pair (k[j][2i], k[j][2i + 1]) at keys[i * ld_keys + j]
//   values  [(n + 1) / 2][ld_values]      pair (v[2j][d], v[2j + 1][d]) at values[j * ld_values + d]
//   scores  [kAttentionBf16BlockRows][ld_keys] float32: a block's scores, then their softmax
//   probs   [kAttentionBf16BlockRows][ld_keys / 2]   the softmax rows as bfloat16 pairs
//   queries [kAttentionBf16BlockRows][ld_queries]    the block's query rows as bfloat16 pairs
// ld_keys and ld_values are multiples of kAttentionBf16Cols (the tile width); keys past n and values
// past head_dim are zero, so every tile is whole. attention_block_scratch_floats covers it.
#pragma once

#include <cstddef>

namespace heed::kernels {

inline constexpr size_t kAttentionBf16Cols = 32, kAttentionBf16BlockRows = 24;

struct AttentionBf16Layout {
  size_t ld_keys = 0, ld_values = 0, ld_queries = 0, pairs = 0, value_pairs = 0;
  size_t values = 0, scores = 0, probs = 0, queries = 0, floats = 0;  // offsets and total
};

static inline size_t attention_round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

static inline AttentionBf16Layout attention_bf16_layout(size_t n, size_t head_dim) {
  AttentionBf16Layout l;
  l.ld_keys = attention_round_up(n, kAttentionBf16Cols);
  l.ld_values = attention_round_up(head_dim, kAttentionBf16Cols);
  l.pairs = head_dim / 2;
  l.ld_queries = attention_round_up(l.pairs, 8);  // rows are written in whole groups of 8 pairs
  l.value_pairs = (n + 1) / 2;
  l.values = l.pairs * l.ld_keys;
  l.scores = l.values + l.value_pairs * l.ld_values;
  l.probs = l.scores + kAttentionBf16BlockRows * l.ld_keys;
  l.queries = l.probs + kAttentionBf16BlockRows * l.ld_keys / 2;
  l.floats = l.queries + kAttentionBf16BlockRows * l.ld_queries;
  return l;
}

}  // namespace heed::kernels
