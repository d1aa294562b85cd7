// Vector forms of heed's activations for aarch64 NEON, the same algorithms as the AVX2 ones
// (x86/avx2_activation_math.h explains the erfc form and the cancellation-free GELU-tanh), on
// exp_f32x4 (neon_shim.h). Static (see internal/gemm_epilogue.h).
#pragma once

#include "arm/neon_shim.h"

namespace heed::kernels::neon {

static inline float32x4_t erfc_nonneg_f32x4(float32x4_t z) {
  const float32x4_t one = vdupq_n_f32(1.0f);
  const float32x4_t t = vdivq_f32(one, vfmaq_n_f32(one, z, 0.5f));
  float32x4_t p = vdupq_n_f32(0.17087277f);
  p = vfmaq_f32(vdupq_n_f32(-0.82215223f), p, t);
  p = vfmaq_f32(vdupq_n_f32(1.48851587f), p, t);
  p = vfmaq_f32(vdupq_n_f32(-1.13520398f), p, t);
  p = vfmaq_f32(vdupq_n_f32(0.27886807f), p, t);
  p = vfmaq_f32(vdupq_n_f32(-0.18628806f), p, t);
  p = vfmaq_f32(vdupq_n_f32(0.09678418f), p, t);
  p = vfmaq_f32(vdupq_n_f32(0.37409196f), p, t);
  p = vfmaq_f32(vdupq_n_f32(1.00002368f), p, t);
  p = vfmaq_f32(vdupq_n_f32(-1.26551223f), p, t);
  return vmulq_f32(t, exp_f32x4<true>(vfmsq_f32(p, z, z)));  // exponent at most about 7
}

static inline float32x4_t gelu_f32x4(float32x4_t x) {
  const float32x4_t half_x = vmulq_n_f32(x, 0.5f);
  const float32x4_t e = erfc_nonneg_f32x4(vmulq_n_f32(vabsq_f32(x), 0.70710678118654752f));
  const float32x4_t pos = vmulq_f32(half_x, vsubq_f32(vdupq_n_f32(2.0f), e));
  const float32x4_t neg = vmulq_f32(half_x, e);
  return vbslq_f32(vcltq_f32(x, vdupq_n_f32(0.0f)), neg, pos);
}

static inline float32x4_t gelu_tanh_f32x4(float32x4_t x) {
  const float32x4_t x3 = vmulq_f32(vmulq_f32(x, x), x);
  const float32x4_t u = vmulq_n_f32(vfmaq_n_f32(x, x3, 0.044715f), 0.79788456080286536f);
  const float32x4_t t = exp_f32x4<true>(vmulq_n_f32(vabsq_f32(u), -2.0f));  // in (0, 1]
  const float32x4_t inv = vdivq_f32(x, vaddq_f32(vdupq_n_f32(1.0f), t));
  return vbslq_f32(vcltq_f32(u, vdupq_n_f32(0.0f)), vmulq_f32(inv, t), inv);
}

static inline float32x4_t silu_f32x4(float32x4_t x) {
  return vdivq_f32(x, vaddq_f32(vdupq_n_f32(1.0f), exp_f32x4(vnegq_f32(x))));
}

}  // namespace heed::kernels::neon
