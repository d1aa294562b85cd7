// The loop structure of the RoPE kernel, shared by the reference and the SIMD variants. The
// angles are computed here, in double precision and rounded to float once, so every variant uses
// the very same cos/sin; variants supply only the rotation (Ops):
//   void rotate_split(float* x0, float* x1, const float* c, const float* s, size_t n)
//       (x0[i], x1[i]) <- (x0 c - x1 s, x0 s + x1 c)
//   void rotate_interleaved(float* x, const float* c, const float* s, size_t n)
//       the same on pairs (x[2i], x[2i + 1])
// Static template: each variant's file gets its own copy (see gemm_epilogue.h).
#pragma once

#include <cmath>
#include <cstddef>

#include "heed/kernels.h"

namespace heed::kernels {

template <class Ops>
static void rope_impl(const RopeParams& p, const Ops& ops) {
  constexpr size_t kChunk = 128;  // pairs whose cos/sin are held at once (stack, no allocation)
  const size_t half = p.rot_dim / 2;
  float c[kChunk], s[kChunk];
  for (size_t t = 0; t < p.rows; ++t) {
    const double pos = static_cast<double>(p.position_offset + t);
    for (size_t i0 = 0; i0 < half; i0 += kChunk) {
      const size_t n = half - i0 < kChunk ? half - i0 : kChunk;
      for (size_t i = 0; i < n; ++i) {
        const double inv_freq =
            std::pow(static_cast<double>(p.theta), -2.0 * static_cast<double>(i0 + i) / static_cast<double>(p.rot_dim));
        const double angle = pos * inv_freq;
        c[i] = static_cast<float>(std::cos(angle));
        s[i] = static_cast<float>(std::sin(angle));
      }
      for (size_t h = 0; h < p.heads; ++h) {
        float* x = p.x + t * p.row_stride + h * p.head_stride;
        if (p.style == RopeStyle::kHalfSplit) {
          ops.rotate_split(x + i0, x + half + i0, c, s, n);
        } else {
          ops.rotate_interleaved(x + 2 * i0, c, s, n);
        }
      }
    }
  }
}

}  // namespace heed::kernels
