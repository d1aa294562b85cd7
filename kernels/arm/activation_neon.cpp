// activate for aarch64 NEON: 4 values at a time (neon_activation_math.h); the tail goes through a
// zero-padded 4-value buffer.
#include "arm/neon_activation_math.h"

#include <cstring>

#include "internal/variants.h"

namespace heed::kernels::neon {

namespace {
template <class F>
void apply(float* x, size_t n, F f) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(x + i, f(vld1q_f32(x + i)));
  if (i < n) {
    float t[4] = {};
    std::memcpy(t, x + i, (n - i) * sizeof(float));
    vst1q_f32(t, f(vld1q_f32(t)));
    std::memcpy(x + i, t, (n - i) * sizeof(float));
  }
}
}  // namespace

void activate(float* x, size_t n, Activation act) {
  switch (act) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      return apply(x, n, [](float32x4_t v) { return vmaxq_f32(v, vdupq_n_f32(0.0f)); });
    case Activation::kGelu:
      return apply(x, n, [](float32x4_t v) { return gelu_f32x4(v); });
    case Activation::kGeluTanh:
      return apply(x, n, [](float32x4_t v) { return gelu_tanh_f32x4(v); });
    case Activation::kSilu:
      return apply(x, n, [](float32x4_t v) { return silu_f32x4(v); });
  }
}

}  // namespace heed::kernels::neon
