// Float GEMM against row-major [N, K] weights: the specification of gemm_f32.
#include "internal/gemm_epilogue.h"

namespace heed::kernels::ref {

void gemm_f32(const GemmF32Params& p) {
  for (size_t m = 0; m < p.m; ++m) {
    const float* a = p.a + m * p.lda;
    for (size_t n = 0; n < p.n; ++n) {
      const float* b = p.b + n * p.ldb;
      float v = 0.0f;
      for (size_t i = 0; i < p.k; ++i) v += a[i] * b[i];
      gemm_store(v, p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n, n);
    }
  }
}

}  // namespace heed::kernels::ref
