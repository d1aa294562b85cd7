// The small vector kernels for 32-bit ARM NEON: dot (attention scores), axpy (attention values),
// add (residuals).
#include "arm/armv7_math.h"

#include "internal/variants.h"

namespace heed::kernels::armv7 {

float dot_f32(const float* a, const float* b, size_t n) {
  float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = acc0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    acc0 = vfmaq_f32(acc0, vld1q_f32(a + i), vld1q_f32(b + i));
    acc1 = vfmaq_f32(acc1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
  }
  float sum = hsum_f32x4(vaddq_f32(acc0, acc1));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void axpy_f32(float alpha, const float* x, float* y, size_t n) {
  const float32x4_t va = vdupq_n_f32(alpha);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_f32(vld1q_f32(y + i), vld1q_f32(x + i), va));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

void add(float* y, const float* x, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vaddq_f32(vld1q_f32(y + i), vld1q_f32(x + i)));
  for (; i < n; ++i) y[i] += x[i];
}

}  // namespace heed::kernels::armv7
