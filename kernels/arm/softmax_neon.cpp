// softmax for aarch64 NEON: vector max, vector exp (neon_shim.h), one reciprocal; an all -inf row
// gives zeros, as in the reference.
#include "arm/neon_shim.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::neon {

void softmax(float* x, size_t n) {
  if (n == 0) return;
  const size_t body = n - n % 4;
  float32x4_t vmax = vdupq_n_f32(-__builtin_inff());
  for (size_t i = 0; i < body; i += 4) vmax = vmaxq_f32(vmax, vld1q_f32(x + i));
  float max = vmaxvq_f32(vmax);
  for (size_t i = body; i < n; ++i) max = std::fmax(max, x[i]);
  if (std::isinf(max) && max < 0.0f) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  const float32x4_t vm = vdupq_n_f32(max);
  float32x4_t vsum = vdupq_n_f32(0.0f);
  for (size_t i = 0; i < body; i += 4) {
    const float32x4_t e = exp_f32x4<true>(vsubq_f32(vld1q_f32(x + i), vm));
    vst1q_f32(x + i, e);
    vsum = vaddq_f32(vsum, e);
  }
  if (body < n) {  // the tail through one padded vector, so it uses the same exp
    float t[4] = {-__builtin_inff(), -__builtin_inff(), -__builtin_inff(), -__builtin_inff()};
    for (size_t i = body; i < n; ++i) t[i - body] = x[i];
    const float32x4_t e = exp_f32x4<true>(vsubq_f32(vld1q_f32(t), vm));  // padding lanes give 0
    vst1q_f32(t, e);
    for (size_t i = body; i < n; ++i) x[i] = t[i - body];
    vsum = vaddq_f32(vsum, e);
  }
  const float inv = 1.0f / vaddvq_f32(vsum);
  for (size_t i = 0; i < body; i += 4) vst1q_f32(x + i, vmulq_n_f32(vld1q_f32(x + i), inv));
  for (size_t i = body; i < n; ++i) x[i] *= inv;
}

}  // namespace heed::kernels::neon
