// Vector forms of heed's activations for aarch64 NEON, the same algorithms as the AVX2 ones
// (internal/gelu_rational.h has GELU's; x86/simd_math.h explains the cancellation-free
// GELU-tanh), on exp_f32x4 (neon_shim.h). Static (see internal/gemm_epilogue.h).
#pragma once

#include "arm/neon_shim.h"
#include "internal/gelu_rational.h"

namespace heed::kernels::neon {

// GELU: the rational form of internal/gelu_rational.h (no exp).
static inline float32x4_t gelu_f32x4(float32x4_t x) {
  const float32x4_t c = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-kGeluClamp)), vdupq_n_f32(kGeluClamp));
  const float32x4_t s = vmulq_f32(c, c);
  float32x4_t p = vdupq_n_f32(kGeluNumerator[0]), q = vdupq_n_f32(kGeluDenominator[0]);
  for (size_t i = 1; i < sizeof(kGeluNumerator) / sizeof(float); ++i) {
    p = vfmaq_f32(vdupq_n_f32(kGeluNumerator[i]), p, s);
    q = vfmaq_f32(vdupq_n_f32(kGeluDenominator[i]), q, s);
  }
  return vmulq_f32(x, vfmaq_f32(vdupq_n_f32(0.5f), c, vdivq_f32(p, q)));
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
