// log_sum_exp and log_softmax for aarch64 NEON: max + log(sum exp(x - max)), subtracted.
#include "arm/neon_shim.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::neon {

float log_sum_exp(const float* x, size_t n) {
  if (n == 0) return -__builtin_inff();
  const size_t body = n - n % 4;
  float32x4_t vmax = vdupq_n_f32(-__builtin_inff());
  for (size_t i = 0; i < body; i += 4) vmax = vmaxq_f32(vmax, vld1q_f32(x + i));
  float max = vmaxvq_f32(vmax);
  for (size_t i = body; i < n; ++i) max = std::fmax(max, x[i]);
  if (std::isinf(max) && max < 0.0f) return max;
  const float32x4_t vm = vdupq_n_f32(max);
  float32x4_t vsum = vdupq_n_f32(0.0f);
  for (size_t i = 0; i < body; i += 4) vsum = vaddq_f32(vsum, exp_f32x4<true>(vsubq_f32(vld1q_f32(x + i), vm)));
  if (body < n) {
    float t[4] = {-__builtin_inff(), -__builtin_inff(), -__builtin_inff(), -__builtin_inff()};
    for (size_t i = body; i < n; ++i) t[i - body] = x[i];
    vsum = vaddq_f32(vsum, exp_f32x4<true>(vsubq_f32(vld1q_f32(t), vm)));
  }
  return max + std::log(vaddvq_f32(vsum));
}

void log_softmax(float* x, size_t n) {
  const float shift = log_sum_exp(x, n);
  if (shift == -__builtin_inff()) return;
  const size_t body = n - n % 4;
  const float32x4_t vshift = vdupq_n_f32(shift);
  for (size_t i = 0; i < body; i += 4) vst1q_f32(x + i, vsubq_f32(vld1q_f32(x + i), vshift));
  for (size_t i = body; i < n; ++i) x[i] -= shift;
}

}  // namespace heed::kernels::neon
