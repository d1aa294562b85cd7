// The loop structure of the fused attention kernel, shared by the reference and the SIMD variants,
// which differ only in the primitives they pass in (Ops):
//   void scores(const float* q, KvRows k, size_t n, size_t d, float scale, float* s) const
//                                                          s[j] = scale * q . k_j, j < n
//   void softmax(float* x, size_t n) const
//   void weighted_sum(const float* s, KvRows v, size_t n, size_t d, float* out) const
//                                                          out = sum_j s[j] v_j (written, not added to)
// The reference builds scores and weighted_sum from dot and axpy (attention_scores_by_dot,
// attention_sum_by_axpy below, which define the order of operations); the SIMD variants use the
// register-tiled loops of internal/attention_row_impl.h.
// Static template: each variant's file instantiates its own copy with its own flags (see the note
// in gemm_epilogue.h).
#pragma once

#include <cstddef>
#include <cstring>

#include "heed/kernels.h"

namespace heed::kernels {

// The visible keys of query row t: [*lo, *hi), possibly empty.
static inline void attention_visible_keys(const AttentionParams& p, size_t t, size_t* lo, size_t* hi) {
  const size_t pos = p.position_offset + t;
  *lo = 0;
  *hi = p.kv_len;
  switch (p.mask) {
    case AttentionMask::kNone:
      break;
    case AttentionMask::kCausal:
      if (pos + 1 < *hi) *hi = pos + 1;
      break;
    case AttentionMask::kKeyPadding:
      if (p.key_length < *hi) *hi = p.key_length;
      break;
    case AttentionMask::kLocalWindow:
      *lo = pos > p.window ? pos - p.window : 0;
      if (pos + p.window + 1 < *hi) *hi = pos + p.window + 1;
      break;
  }
  if (*lo > *hi) *lo = *hi;
}

// The kv head query head h reads: h / (num_heads / num_kv_heads). num_heads should be a multiple
// of num_kv_heads; if not, never read past the last kv head.
static inline size_t attention_kv_head(const AttentionParams& p, size_t h) {
  const size_t kv_heads = p.num_kv_heads == 0 ? p.num_heads : p.num_kv_heads;
  const size_t group = kv_heads == 0 ? 1 : (p.num_heads / kv_heads == 0 ? 1 : p.num_heads / kv_heads);
  return h / group < kv_heads ? h / group : kv_heads - 1;
}

// s[i] += the relative position bias (AttentionParams::relative_bias) of query row t and key
// first + i, i < n, for head h; nothing without a bias.
static inline void attention_add_relative_bias(const AttentionParams& p, size_t h, size_t t, size_t first, size_t n,
                                               float* s) {
  if (p.relative_bias == nullptr) return;
  const float* bias = p.relative_bias + h * p.relative_bias_head_stride + (p.kv_len - 1) + first -
                      (p.position_offset + t);
  for (size_t i = 0; i < n; ++i) s[i] += bias[i];
}

// Keys or values of one head: row j at base + offsets[j] floats when offsets is given (a K/V cache
// read by hypothesis: AttentionParams::kv_offsets), else j rows of `stride` on.
struct KvRows {
  const float* base;
  size_t stride;
  const size_t* offsets;
  const float* at(size_t j) const { return base + (offsets != nullptr ? offsets[j] : j * stride); }
  KvRows columns(size_t c) const { return {base + c, stride, offsets}; }  // the same rows from column c
};

// scores by one ops.dot per key, in key order.
template <class Ops>
static void attention_scores_by_dot(const Ops& ops, const float* q, KvRows k, size_t n, size_t d, float scale,
                                    float* s) {
  for (size_t j = 0; j < n; ++j) s[j] = ops.dot(q, k.at(j), d) * scale;
}

// weighted_sum as zeros then one ops.axpy per key, in key order.
template <class Ops>
static void attention_sum_by_axpy(const Ops& ops, const float* s, KvRows v, size_t n, size_t d, float* out) {
  std::memset(out, 0, d * sizeof(float));
  for (size_t j = 0; j < n; ++j) ops.axpy(s[j], v.at(j), out, d);
}

// One head's query rows [t0, t0 + rows) of a row group, each row exactly as it would run alone:
// all rows' scores, then all softmaxes, then all weighted sums, row i's scores at
// scores + i * kv_len. What a group saves is calls: the decoder makes one per sentence and head
// for its beam rows instead of one per row (and one prefetch of the next call's keys and values);
// in bench_kernels 4 rows side by side take 4 times one row.
template <class Ops>
static void attention_row_group(const AttentionParams& p, const Ops& ops, size_t t0, size_t rows, size_t h) {
  const size_t g = attention_kv_head(p, h);
  size_t lo[kAttentionRowGroup], hi[kAttentionRowGroup];
  KvRows k[kAttentionRowGroup], v[kAttentionRowGroup];
  for (size_t i = 0; i < rows; ++i) {
    const size_t t = t0 + i;
    attention_visible_keys(p, t, &lo[i], &hi[i]);
    const size_t* offsets = p.kv_offsets != nullptr ? p.kv_offsets + t * p.kv_offsets_row_stride + lo[i] : nullptr;
    k[i] = {p.k + g * p.k_head_stride + (offsets ? 0 : lo[i] * p.k_row_stride), p.k_row_stride, offsets};
    v[i] = {p.v + g * p.v_head_stride + (offsets ? 0 : lo[i] * p.v_row_stride), p.v_row_stride, offsets};
  }
  auto query = [&](size_t i) { return p.q + (t0 + i) * p.q_row_stride + h * p.q_head_stride; };
  auto out = [&](size_t i) { return p.out + (t0 + i) * p.out_row_stride + h * p.out_head_stride; };
  for (size_t i = 0; i < rows; ++i) {
    if (lo[i] == hi[i]) continue;
    ops.scores(query(i), k[i], hi[i] - lo[i], p.head_dim, p.scale, p.scores + i * p.kv_len);
    attention_add_relative_bias(p, h, t0 + i, lo[i], hi[i] - lo[i], p.scores + i * p.kv_len);
  }
  for (size_t i = 0; i < rows; ++i) {
    if (lo[i] < hi[i]) ops.softmax(p.scores + i * p.kv_len, hi[i] - lo[i]);
  }
  for (size_t i = 0; i < rows; ++i) {
    if (lo[i] == hi[i]) {  // nothing visible: zeros, like a softmax over an all -inf row
      std::memset(out(i), 0, p.head_dim * sizeof(float));
      continue;
    }
    ops.weighted_sum(p.scores + i * p.kv_len, v[i], hi[i] - lo[i], p.head_dim, out(i));
  }
}

// Rows in groups of as many as the scores scratch holds (up to kAttentionRowGroup), each group
// head by head.
template <class Ops>
static void attention_impl(const AttentionParams& p, const Ops& ops) {
  size_t group = p.kv_len == 0 || p.scores_floats < 2 * p.kv_len ? 1 : p.scores_floats / p.kv_len;
  if (group > kAttentionRowGroup) group = kAttentionRowGroup;
  for (size_t t0 = 0; t0 < p.q_rows; t0 += group) {
    const size_t rows = p.q_rows - t0 < group ? p.q_rows - t0 : group;
    for (size_t h = 0; h < p.num_heads; ++h) attention_row_group(p, ops, t0, rows, h);
  }
}

}  // namespace heed::kernels
