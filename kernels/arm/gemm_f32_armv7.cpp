// gemm_f32 for 32-bit ARM NEON: one row of A against four rows of B, 4-wide VFMA, scalar K tail.
#include "arm/armv7_math.h"

#include "internal/gemm_epilogue.h"

namespace heed::kernels::armv7 {

void gemm_f32(const GemmF32Params& p) {
  for (size_t m = 0; m < p.m; ++m) {
    const float* a = p.a + m * p.lda;
    for (size_t n0 = 0; n0 < p.n; n0 += 4) {
      const size_t nb = p.n - n0 < 4 ? p.n - n0 : 4;
      const float* b[4];
      for (size_t j = 0; j < 4; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
      float32x4_t acc0 = vdupq_n_f32(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
      size_t k = 0;
      for (; k + 4 <= p.k; k += 4) {
        const float32x4_t va = vld1q_f32(a + k);
        acc0 = vfmaq_f32(acc0, va, vld1q_f32(b[0] + k));
        acc1 = vfmaq_f32(acc1, va, vld1q_f32(b[1] + k));
        acc2 = vfmaq_f32(acc2, va, vld1q_f32(b[2] + k));
        acc3 = vfmaq_f32(acc3, va, vld1q_f32(b[3] + k));
      }
      float sum[4] = {hsum_f32x4(acc0), hsum_f32x4(acc1), hsum_f32x4(acc2), hsum_f32x4(acc3)};
      for (int j = 0; j < 4; ++j)
        for (size_t t = k; t < p.k; ++t) sum[j] += a[t] * b[j][t];
      for (size_t j = 0; j < nb; ++j)
        gemm_store(sum[j], p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n0 + j, n0 + j);
    }
  }
}

}  // namespace heed::kernels::armv7
