// rms_norm for aarch64 NEON.
#include <arm_neon.h>

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::neon {

void rms_norm(const float* x, size_t rows, size_t n, const float* gamma, float eps, float* y) {
  if (n == 0) return;
  const size_t body = n - n % 4;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float32x4_t vq = vdupq_n_f32(0.0f);
    for (size_t i = 0; i < body; i += 4) {
      const float32x4_t v = vld1q_f32(xr + i);
      vq = vfmaq_f32(vq, v, v);
    }
    float sq = vaddvq_f32(vq);
    for (size_t i = body; i < n; ++i) sq += xr[i] * xr[i];
    const float inv = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    for (size_t i = 0; i < body; i += 4) {
      float32x4_t v = vmulq_n_f32(vld1q_f32(xr + i), inv);
      if (gamma) v = vmulq_f32(v, vld1q_f32(gamma + i));
      vst1q_f32(yr + i, v);
    }
    for (size_t i = body; i < n; ++i) yr[i] = gamma ? xr[i] * inv * gamma[i] : xr[i] * inv;
  }
}

}  // namespace heed::kernels::neon
