// softmax, log_softmax and log_sum_exp for 32-bit ARM NEON: vector max, vector exp (neon_shim.h), scalar
// reciprocal / log of the sum. Same definitions as the reference, including a fully masked row
// (all -inf): zeros for softmax, -inf for log_softmax.
#include "arm/neon_shim.h"

#include <cmath>
#include <cstring>

#include "internal/variants.h"

namespace heed::kernels::armv7 {

namespace {
float row_max(const float* x, size_t n) {
  float32x4_t vmax = vdupq_n_f32(-__builtin_inff());
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vmax = vmaxq_f32(vmax, vld1q_f32(x + i));
  float max = hmax_f32x4(vmax);
  for (; i < n; ++i) max = std::fmax(max, x[i]);
  return max;
}

// sum_i exp(x[i] - max); also writes the exponentials to `e` when it is not null.
float sum_exp(const float* x, size_t n, float max, float* e) {
  const float32x4_t vm = vdupq_n_f32(max);
  float32x4_t vsum = vdupq_n_f32(0.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t v = exp_f32x4<true>(vsubq_f32(vld1q_f32(x + i), vm));
    if (e) vst1q_f32(e + i, v);
    vsum = vaddq_f32(vsum, v);
  }
  float sum = hsum_f32x4(vsum);
  if (i < n) {  // the tail through a padded buffer (-inf pads give exp = 0)
    float t[4] = {-__builtin_inff(), -__builtin_inff(), -__builtin_inff(), -__builtin_inff()};
    std::memcpy(t, x + i, (n - i) * sizeof(float));
    const float32x4_t v = exp_f32x4<true>(vsubq_f32(vld1q_f32(t), vm));
    vst1q_f32(t, v);
    for (size_t j = 0; j < n - i; ++j) {
      if (e) e[i + j] = t[j];
      sum += t[j];
    }
  }
  return sum;
}
}  // namespace

void softmax(float* x, size_t n) {
  if (n == 0) return;
  const float max = row_max(x, n);
  if (std::isinf(max) && max < 0.0f) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  const float inv = 1.0f / sum_exp(x, n, max, x);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(x + i, vmulq_n_f32(vld1q_f32(x + i), inv));
  for (; i < n; ++i) x[i] *= inv;
}

float log_sum_exp(const float* x, size_t n) {
  if (n == 0) return -__builtin_inff();
  const float max = row_max(x, n);
  if (std::isinf(max) && max < 0.0f) return max;
  return max + std::log(sum_exp(x, n, max, nullptr));
}

void log_softmax(float* x, size_t n) {
  const float shift = log_sum_exp(x, n);
  if (shift == -__builtin_inff()) return;  // all -inf stays -inf
  const float32x4_t vs = vdupq_n_f32(shift);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(x + i, vsubq_f32(vld1q_f32(x + i), vs));
  for (; i < n; ++i) x[i] -= shift;
}

}  // namespace heed::kernels::armv7
