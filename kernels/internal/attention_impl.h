// The loop structure of the fused attention kernel, shared by the reference and the SIMD variants,
// which differ only in the vector primitives they pass in (Ops):
//   float dot(const float* a, const float* b, size_t n)
//   void axpy(float alpha, const float* x, float* y, size_t n)     y += alpha x
//   void softmax(float* x, size_t n)
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

// Key or value j of a head whose first one is at `base`: kv_offsets[j] floats on when the caller
// gives them (a K/V cache read by hypothesis), else j rows of `stride`.
static inline const float* attention_kv_row(const AttentionParams& p, const float* base, size_t j, size_t stride) {
  return base + (p.kv_offsets != nullptr ? p.kv_offsets[j] : j * stride);
}

template <class Ops>
static void attention_impl(const AttentionParams& p, const Ops& ops) {
  for (size_t t = 0; t < p.q_rows; ++t) {
    size_t lo, hi;
    attention_visible_keys(p, t, &lo, &hi);
    for (size_t h = 0; h < p.num_heads; ++h) {
      const size_t g = attention_kv_head(p, h);
      const float* q = p.q + t * p.q_row_stride + h * p.q_head_stride;
      float* out = p.out + t * p.out_row_stride + h * p.out_head_stride;
      std::memset(out, 0, p.head_dim * sizeof(float));
      if (lo == hi) continue;  // nothing visible: zeros, like a softmax over an all -inf row
      const float* k = p.k + g * p.k_head_stride;
      const float* v = p.v + g * p.v_head_stride;
      float* s = p.scores;
      for (size_t j = lo; j < hi; ++j) s[j - lo] = ops.dot(q, attention_kv_row(p, k, j, p.k_row_stride), p.head_dim) * p.scale;
      ops.softmax(s, hi - lo);
      for (size_t j = lo; j < hi; ++j) ops.axpy(s[j - lo], attention_kv_row(p, v, j, p.v_row_stride), out, p.head_dim);
    }
  }
}

}  // namespace heed::kernels
