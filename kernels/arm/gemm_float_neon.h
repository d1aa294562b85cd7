// The loop gemm_f32 and gemm_f16 share on NEON: one row of A against four rows of B, 4-wide FMA,
// scalar K tail. `Weights` reads B: load(p) gives 4 values as floats, one(x) one value.
// Static (see internal/gemm_epilogue.h).
#pragma once

#include "arm/neon_shim.h"
#include "internal/gemm_epilogue.h"

namespace heed::kernels::HEED_NEON_VARIANT {

template <typename Params, typename Weights>
static void gemm_float_rows(const Params& p, const Weights& w) {
  using B = std::remove_const_t<std::remove_pointer_t<decltype(p.b)>>;
  for (size_t m = 0; m < p.m; ++m) {
    const float* a = p.a + m * p.lda;
    for (size_t n0 = 0; n0 < p.n; n0 += 4) {
      const size_t nb = p.n - n0 < 4 ? p.n - n0 : 4;
      const B* b[4];
      for (size_t j = 0; j < 4; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
      float32x4_t acc[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
      size_t k = 0;
      for (; k + 4 <= p.k; k += 4) {
        const float32x4_t va = vld1q_f32(a + k);
        for (int j = 0; j < 4; ++j) acc[j] = vfmaq_f32(acc[j], va, w.load(b[j] + k));
      }
      float sum[4];
      for (int j = 0; j < 4; ++j) {
        sum[j] = hsum_f32x4(acc[j]);
        for (size_t t = k; t < p.k; ++t) sum[j] += a[t] * w.one(b[j][t]);
      }
      for (size_t j = 0; j < nb; ++j)
        gemm_store(sum[j], p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n0 + j, n0 + j);
    }
  }
}

}  // namespace heed::kernels::HEED_NEON_VARIANT
