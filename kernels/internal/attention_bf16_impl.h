// The bfloat16 block path of the fused attention kernel (heed/kernels.h, AttentionParams::
// bf16_products), shared by the variants with bfloat16 dot products (x86/attention_avx512bf16.cpp,
// arm/attention_neonbf16.cpp), which differ only in the primitives they pass in (Ops), all on the
// layout of internal/attention_bf16_layout.h:
//   static constexpr size_t kTileRows, kTileCols      (kTileCols divides kAttentionBf16Cols)
//   void row_to_pairs(const float* x, size_t count, uint32_t* out, size_t ld) const
//       count floats (even) as count / 2 bfloat16 pairs, zero pairs up to ld
//   void pack_keys(const AttentionParams& p, const float* k, size_t n, const AttentionBf16Layout& l,
//                  uint32_t* keys) const                   the keys region, padding zeroed (the
//       variant's register blocks and/or attention_bf16_keys_by_row below)
//   static constexpr size_t kPairColumns; void interleave(const float* even, size_t even_count,
//       const float* odd, size_t odd_count, uint32_t* out) const
//       out[d] = (even[d], odd[d]) for d < kPairColumns, each 0 past its count
//   void tile(const uint32_t* a, size_t lda, size_t rows, const uint32_t* b, size_t ldb,
//             size_t pairs, const float* scales, float* c, size_t ldc, size_t cols) const
//       c[r][j] = scales[r] * sum_i dot(a[r * lda + i], b[i * ldb + j]), r < rows <= kTileRows,
//       j < cols <= kTileCols (rows of a hold at least `pairs` pairs, zero past them)
//   float exp_to_pairs(const float* s, size_t n, uint32_t* probs, size_t ld) const
//       exp(s[j] - max s) for j < n as bfloat16 pairs, zero pairs up to ld; returns their sum
// Per head: Q.K^T in float32 scores, their exponentials as bfloat16, then P.V with each row
// divided by its sum (the softmax without its own pass). Static templates: each variant
// instantiates its own copy with its own flags.
#pragma once

#include <cstdint>
#include <cstring>

#include "internal/attention_bf16_layout.h"
#include "internal/attention_block_impl.h"

namespace heed::kernels {

// keys[i * ld_keys + j] = pair i of key j for j < n, one key at a time through a row of pairs, except
// pairs [0, from) of keys [0, whole), which the caller wrote; the padding keys [n, ld_keys) zeroed.
template <class Ops>
static void attention_bf16_keys_by_row(const Ops& ops, const AttentionParams& p, const float* k, size_t n,
                                       const AttentionBf16Layout& l, uint32_t* keys, size_t whole, size_t from) {
  alignas(64) uint32_t row[kAttentionBf16Cols * 8];  // head_dim <= 512 (attention_bf16_impl checks)
  for (size_t j = 0; j < n; ++j) {
    const size_t first = j < whole ? from : 0;
    if (first == l.pairs) continue;
    ops.row_to_pairs(k + j * p.k_row_stride, p.head_dim, row, l.ld_queries);
    for (size_t i = first; i < l.pairs; ++i) keys[i * l.ld_keys + j] = row[i];
  }
  for (size_t i = 0; i < l.pairs; ++i) std::memset(keys + i * l.ld_keys + n, 0, (l.ld_keys - n) * sizeof(uint32_t));
}

// values[j * ld_values + d] = (v[2j][d], v[2j + 1][d]); v[n] (n odd) and d >= head_dim are zero.
template <class Ops>
static void attention_bf16_pack_values(const Ops& ops, const AttentionParams& p, const float* v, size_t n,
                                       const AttentionBf16Layout& l, uint32_t* values) {
  for (size_t j = 0; j < l.value_pairs; ++j) {
    const float* even = v + 2 * j * p.v_row_stride;
    const bool has_odd = 2 * j + 1 < n;
    for (size_t d = 0; d < l.ld_values; d += Ops::kPairColumns) {
      const size_t left = d < p.head_dim ? p.head_dim - d : 0;
      ops.interleave(even + d, left, even + p.v_row_stride + d, has_odd ? left : 0, values + j * l.ld_values + d);
    }
  }
}

// C[m, cols] = diag(scales) A.B in the variant's tiles, A [m][pairs] with row stride lda,
// B [pairs][ldb] (ldb a multiple of the tile width); columns from `cols` on are not stored.
template <class Ops>
static void attention_bf16_gemm(const Ops& ops, const uint32_t* a, size_t lda, size_t m, const uint32_t* b, size_t ldb,
                                size_t pairs, const float* scales, float* c, size_t ldc, size_t cols) {
  constexpr size_t R = Ops::kTileRows, C = Ops::kTileCols;
  for (size_t j = 0; j < cols; j += C) {
    for (size_t i = 0; i < m; i += R) {
      ops.tile(a + i * lda, lda, m - i < R ? m - i : R, b + j, ldb, pairs, scales + i, c + i * ldc + j, ldc,
               cols - j < C ? cols - j : C);
    }
  }
}

// Query head h over the packed keys and values 0..n-1, kAttentionBf16BlockRows rows at a time.
template <class Ops>
static void attention_bf16_head(const AttentionParams& p, const Ops& ops, size_t h, size_t n,
                                const AttentionBf16Layout& l, uint32_t* scratch) {
  constexpr size_t kRows = kAttentionBf16BlockRows;
  const uint32_t* keys = scratch;
  const uint32_t* values = scratch + l.values;
  float* s = reinterpret_cast<float*>(scratch + l.scores);
  uint32_t* probs = scratch + l.probs;
  uint32_t* queries = scratch + l.queries;
  float scale[kRows], inverse_sums[kRows];
  for (float& x : scale) x = p.scale;
  for (size_t t0 = 0; t0 < p.q_rows; t0 += kRows) {
    const size_t rows = p.q_rows - t0 < kRows ? p.q_rows - t0 : kRows;
    for (size_t r = 0; r < rows; ++r) {
      const float* q = p.q + (t0 + r) * p.q_row_stride + h * p.q_head_stride;
      ops.row_to_pairs(q, p.head_dim, queries + r * l.ld_queries, l.ld_queries);
    }
    attention_bf16_gemm(ops, queries, l.ld_queries, rows, keys, l.ld_keys, l.pairs, scale, s, l.ld_keys, l.ld_keys);
    for (size_t r = 0; r < rows; ++r) {
      attention_add_relative_bias(p, h, t0 + r, 0, n, s + r * l.ld_keys);
      inverse_sums[r] = 1.0f / ops.exp_to_pairs(s + r * l.ld_keys, n, probs + r * l.ld_keys / 2, l.ld_keys / 2);
    }
    float* out = p.out + t0 * p.out_row_stride + h * p.out_head_stride;
    attention_bf16_gemm(ops, probs, l.ld_keys / 2, rows, values, l.ld_values, l.value_pairs, inverse_sums, out,
                        p.out_row_stride, p.head_dim);
  }
}

// The whole call in bfloat16 when it asks for it and the block path takes it (enough rows, the
// same keys for every row, an even head_dim, room in the scratch); false otherwise, with nothing
// written: the caller runs its float32 attention.
template <class Ops>
static bool attention_bf16_impl(const AttentionParams& p, const Ops& ops) {
  size_t n = 0;
  const bool block_call = p.bf16_products && !p.row_by_row && p.q_rows >= kAttentionBlockMinRows && p.kv_offsets == nullptr &&
                          p.head_dim % 2 == 0 && p.head_dim <= 512 && attention_common_keys(p, &n) && n > 0;
  if (!block_call) return false;
  const AttentionBf16Layout l = attention_bf16_layout(n, p.head_dim);
  if (p.scores_floats < l.floats) return false;
  uint32_t* scratch = reinterpret_cast<uint32_t*>(p.scores);
  size_t packed = static_cast<size_t>(-1);  // no kv head packed yet
  for (size_t h = 0; h < p.num_heads; ++h) {
    const size_t g = attention_kv_head(p, h);
    if (g != packed) {
      ops.pack_keys(p, p.k + g * p.k_head_stride, n, l, scratch);
      attention_bf16_pack_values(ops, p, p.v + g * p.v_head_stride, n, l, scratch + l.values);
    }
    packed = g;
    attention_bf16_head(p, ops, h, n, l, scratch);
  }
  return true;
}

}  // namespace heed::kernels
