// gemm_f16 for aarch64 NEON: half-precision weights widened with FCVTL (vcvt_f32_f16, exact),
// then one row of A against four rows of B with 4-wide FMA, as gemm_f32; scalar K tail.
#include <arm_neon.h>

#include "internal/gemm_epilogue.h"

namespace heed::kernels::neon {

namespace {
inline float32x4_t load_f16(const uint16_t* p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
}  // namespace

void gemm_f16(const GemmF16Params& p) {
  for (size_t m = 0; m < p.m; ++m) {
    const float* a = p.a + m * p.lda;
    for (size_t n0 = 0; n0 < p.n; n0 += 4) {
      const size_t nb = p.n - n0 < 4 ? p.n - n0 : 4;
      const uint16_t* b[4];
      for (size_t j = 0; j < 4; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
      float32x4_t acc[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
      size_t k = 0;
      for (; k + 4 <= p.k; k += 4) {
        const float32x4_t va = vld1q_f32(a + k);
        for (int j = 0; j < 4; ++j) acc[j] = vfmaq_f32(acc[j], va, load_f16(b[j] + k));
      }
      float sum[4];
      for (int j = 0; j < 4; ++j) {
        sum[j] = vaddvq_f32(acc[j]);
        for (size_t t = k; t < p.k; ++t) sum[j] += a[t] * ref::f16_bits_to_f32(b[j][t]);
      }
      for (size_t j = 0; j < nb; ++j)
        gemm_store(sum[j], p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n0 + j, n0 + j);
    }
  }
}

}  // namespace heed::kernels::neon
