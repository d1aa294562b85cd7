// The block path of the fused attention kernel (heed/kernels.h, "Blocks of query rows"), shared by
// the SIMD variants. Per head: the head's visible keys are copied transposed ([head_dim][n], so
// Q.K^T reads them as the rows of a row-major B) and its values row by row into the caller's
// scratch, once; then for each block of up to kAttentionBlockRows query rows, S = scale Q.K^T as
// one GEMM, the softmax of each row of S, and out = S.V as a second GEMM. Both GEMMs are
// C[m, n] = alpha A[m, k] B[k, n] with B row-major, computed in register tiles by the variant's
// Ops, which also gives the row path's primitives (internal/attention_impl.h) and:
//   static constexpr size_t kTileRows, kTileCols     (kTileCols divides kAttentionPad)
//   void tile(const float* a, size_t lda, size_t rows, const float* b, size_t ldb, size_t k,
//             float alpha, float* c, size_t ldc) const
//     c[r * ldc + j] = alpha * sum_i a[r * lda + i] * b[i * ldb + j], r < rows <= kTileRows,
//     j < kTileCols (a tile may read rows of A up to `rows` only).
// Static templates: each variant instantiates its own copy with its own flags.
#pragma once

#include <cstring>
#include <type_traits>

#include "internal/attention_impl.h"

namespace heed::kernels {

// Keys and value columns are padded to a multiple of this in the scratch (whole tiles, no tails).
inline constexpr size_t kAttentionPad = 16;

static inline size_t attention_padded(size_t n) { return (n + kAttentionPad - 1) / kAttentionPad * kAttentionPad; }

// Where the block path keeps its data in the scratch: keys transposed [head_dim][ld_keys], values
// [kv_len][ld_values], then kAttentionBlockRows rows of scores of ld_keys floats.
struct AttentionBlockLayout {
  size_t ld_keys = 0, ld_values = 0;
  size_t values = 0, scores = 0, floats = 0;  // offsets and total, in floats
};

static inline AttentionBlockLayout attention_block_layout(size_t kv_len, size_t head_dim) {
  AttentionBlockLayout l;
  l.ld_keys = attention_padded(kv_len);
  l.ld_values = attention_padded(head_dim);
  l.values = head_dim * l.ld_keys;
  l.scores = l.values + kv_len * l.ld_values;
  l.floats = l.scores + kAttentionBlockRows * l.ld_keys;
  return l;
}

// The keys every query row sees, when they are the same for all rows ([0, *n)); false otherwise.
static inline bool attention_common_keys(const AttentionParams& p, size_t* n) {
  if (p.mask == AttentionMask::kNone) {
    *n = p.kv_len;
  } else if (p.mask == AttentionMask::kKeyPadding) {
    *n = p.key_length < p.kv_len ? p.key_length : p.kv_len;
  } else {
    return false;
  }
  return true;
}

// Whether the variant's Ops transposes keys itself: void transpose_keys(const float* k, size_t
// k_row_stride, size_t n, size_t head_dim, float* kt, size_t ld) const writes kt[d * ld + j] =
// k[j * k_row_stride + d] for j < n, d < head_dim (the generic loop below, in register blocks).
template <class Ops, class = void>
struct TransposesKeys : std::false_type {};
template <class Ops>
struct TransposesKeys<Ops, std::void_t<decltype(&Ops::transpose_keys)>> : std::true_type {};

// Keys 0..n-1 of kv head g transposed, values row by row, the padding zeroed.
template <class Ops>
static void attention_pack_head(const AttentionParams& p, const Ops& ops, size_t g, size_t n,
                                const AttentionBlockLayout& l, float* scratch) {
  const float* k = p.k + g * p.k_head_stride;
  const float* v = p.v + g * p.v_head_stride;
  float* kt = scratch;
  float* vp = scratch + l.values;
  if constexpr (TransposesKeys<Ops>::value) {
    ops.transpose_keys(k, p.k_row_stride, n, p.head_dim, kt, l.ld_keys);
  } else {
    for (size_t d = 0; d < p.head_dim; ++d) {  // rows of kt written in order
      float* row = kt + d * l.ld_keys;
      for (size_t j = 0; j < n; ++j) row[j] = k[j * p.k_row_stride + d];
    }
  }
  for (size_t d = 0; d < p.head_dim; ++d) std::memset(kt + d * l.ld_keys + n, 0, (l.ld_keys - n) * sizeof(float));
  for (size_t j = 0; j < n; ++j) {
    float* vj = vp + j * l.ld_values;
    std::memcpy(vj, v + j * p.v_row_stride, p.head_dim * sizeof(float));
    std::memset(vj + p.head_dim, 0, (l.ld_values - p.head_dim) * sizeof(float));
  }
}

// C[m, n] = alpha A[m, k] B[k, n] in the variant's tiles; a last partial column tile goes through
// a stack tile so C is never written past column n.
template <class Ops>
static void attention_gemm(const Ops& ops, const float* a, size_t lda, size_t m, const float* b, size_t ldb,
                           size_t k, size_t n, float alpha, float* c, size_t ldc) {
  constexpr size_t R = Ops::kTileRows, C = Ops::kTileCols;
  float edge[R * C];
  for (size_t j = 0; j < n; j += C) {
    const size_t cols = n - j < C ? n - j : C;
    for (size_t i = 0; i < m; i += R) {
      const size_t rows = m - i < R ? m - i : R;
      if (cols == C) {
        ops.tile(a + i * lda, lda, rows, b + j, ldb, k, alpha, c + i * ldc + j, ldc);
        continue;
      }
      ops.tile(a + i * lda, lda, rows, b + j, ldb, k, alpha, edge, C);
      for (size_t r = 0; r < rows; ++r) std::memcpy(c + (i + r) * ldc + j, edge + r * C, cols * sizeof(float));
    }
  }
}

// Query head h over the packed keys 0..n-1 (n > 0), kAttentionBlockRows rows at a time.
template <class Ops>
static void attention_block_head(const AttentionParams& p, const Ops& ops, size_t h, size_t n,
                                 const AttentionBlockLayout& l, float* scratch) {
  const float* kt = scratch;
  const float* vp = scratch + l.values;
  float* s = scratch + l.scores;
  for (size_t t0 = 0; t0 < p.q_rows; t0 += kAttentionBlockRows) {
    const size_t rows = p.q_rows - t0 < kAttentionBlockRows ? p.q_rows - t0 : kAttentionBlockRows;
    const float* q = p.q + t0 * p.q_row_stride + h * p.q_head_stride;
    attention_gemm(ops, q, p.q_row_stride, rows, kt, l.ld_keys, p.head_dim, attention_padded(n), p.scale, s, l.ld_keys);
    for (size_t r = 0; r < rows; ++r) {
      attention_add_relative_bias(p, h, t0 + r, 0, n, s + r * l.ld_keys);
      ops.softmax(s + r * l.ld_keys, n);
    }
    float* out = p.out + t0 * p.out_row_stride + h * p.out_head_stride;
    attention_gemm(ops, s, l.ld_keys, rows, vp, l.ld_values, n, p.head_dim, 1.0f, out, p.out_row_stride);
  }
}

// The fused attention slot of a variant with a block path: blocks when the call allows them
// (heed/kernels.h), otherwise the row loop.
template <class Ops>
static void attention_block_impl(const AttentionParams& p, const Ops& ops) {
  size_t n = 0;
  const AttentionBlockLayout l = attention_block_layout(p.kv_len, p.head_dim);
  if (p.q_rows < kAttentionBlockMinRows || p.row_by_row || p.kv_offsets != nullptr || p.scores_floats < l.floats || !attention_common_keys(p, &n) || n == 0) {
    attention_impl(p, ops);
    return;
  }
  size_t packed = static_cast<size_t>(-1);  // no kv head packed yet
  for (size_t h = 0; h < p.num_heads; ++h) {
    const size_t g = attention_kv_head(p, h);
    if (g != packed) attention_pack_head(p, ops, g, n, l, p.scores);
    packed = g;
    attention_block_head(p, ops, h, n, l, p.scores);
  }
}

}  // namespace heed::kernels
