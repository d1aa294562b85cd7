// layer_norm for NEON (armv7 and aarch64): the reference's two passes (mean, then variance of the
// centred values) with 4 lanes, scalar tails.
#include "arm/neon_shim.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::HEED_NEON_VARIANT {

void layer_norm(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                float eps, float* y) {
  if (n == 0) return;
  const size_t body = n - n % 4;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float32x4_t vs = vdupq_n_f32(0.0f);
    for (size_t i = 0; i < body; i += 4) vs = vaddq_f32(vs, vld1q_f32(xr + i));
    float sum = hsum_f32x4(vs);
    for (size_t i = body; i < n; ++i) sum += xr[i];
    const float mean = sum / static_cast<float>(n);
    const float32x4_t vmean = vdupq_n_f32(mean);
    float32x4_t vq = vdupq_n_f32(0.0f);
    for (size_t i = 0; i < body; i += 4) {
      const float32x4_t d = vsubq_f32(vld1q_f32(xr + i), vmean);
      vq = vfmaq_f32(vq, d, d);
    }
    float sq = hsum_f32x4(vq);
    for (size_t i = body; i < n; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    for (size_t i = 0; i < body; i += 4) {
      float32x4_t v = vmulq_n_f32(vsubq_f32(vld1q_f32(xr + i), vmean), rstd);
      if (gamma) v = vmulq_f32(v, vld1q_f32(gamma + i));
      if (beta) v = vaddq_f32(v, vld1q_f32(beta + i));
      vst1q_f32(yr + i, v);
    }
    for (size_t i = body; i < n; ++i) {
      float v = (xr[i] - mean) * rstd;
      if (gamma) v *= gamma[i];
      if (beta) v += beta[i];
      yr[i] = v;
    }
  }
}

}  // namespace heed::kernels::HEED_NEON_VARIANT
