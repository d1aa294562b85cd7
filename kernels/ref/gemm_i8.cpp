// int8 x int8 GEMM with int32 accumulation and a float epilogue: the specification of gemm_i8.
#include "internal/gemm_epilogue.h"

namespace heed::kernels::ref {

namespace {
int32_t dot_i8(const int8_t* a, const int8_t* b, size_t k) {
  int32_t sum = 0;
  for (size_t i = 0; i < k; ++i) sum += int32_t{a[i]} * int32_t{b[i]};
  return sum;
}
}  // namespace

void gemm_i8(const GemmI8Params& p) {
  for (size_t m = 0; m < p.m; ++m) {
    const int8_t* a = p.a + m * p.lda;
    const float a_scale = p.a_scales[m];
    for (size_t n = 0; n < p.n; ++n) {
      const int8_t* b = p.b + n * p.ldb;
      float v;
      if (p.group_size == 0) {
        v = gemm_i8_dequant_row(dot_i8(a, b, p.k), a_scale, p.b_scales[n]);
      } else {
        // Per group: float(sum_g) * b_scale_g accumulated in group order, then times a_scale.
        const size_t groups = gemm_i8_groups(p.k, p.group_size);
        const float* bs = p.b_scales + n * groups;
        float acc = 0.0f;
        for (size_t g = 0; g < groups; ++g) {
          const size_t k0 = g * p.group_size;
          const size_t len = k0 + p.group_size <= p.k ? p.group_size : p.k - k0;
          acc += static_cast<float>(dot_i8(a + k0, b + k0, len)) * bs[g];
        }
        v = acc * a_scale;
      }
      gemm_store(v, p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n, n);
    }
  }
}

}  // namespace heed::kernels::ref
