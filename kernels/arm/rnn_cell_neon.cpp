// RNN cell gate math for NEON (armv7 and aarch64): four hidden units at a time, the tail by the
// reference formulas through a zero-padded lane buffer. sigmoid(x) = 1 / (1 + e^-x) and
// tanh(x) = 1 - 2 / (e^2x + 1) over neon_shim.h's exp and divide (aarch64: FDIV; armv7, which has
// no vector divide: VRECPE with two Newton-Raphson steps). The saturated ends stay exact: d = +inf
// gives 0, so sigmoid -> 0 and tanh -> 1; e = 0 gives tanh = 1 - 2 = -1.
#include <cstring>

#include "arm/neon_shim.h"
#include "internal/variants.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {

inline float32x4_t sigmoid_f32x4(float32x4_t x) {
  const float32x4_t one = vdupq_n_f32(1.0f);
  return divide_f32x4(1.0f, vaddq_f32(one, exp_f32x4(vnegq_f32(x))));
}

inline float32x4_t tanh_f32x4(float32x4_t x) {
  const float32x4_t one = vdupq_n_f32(1.0f);
  const float32x4_t e = exp_f32x4(vaddq_f32(x, x));
  return vsubq_f32(one, divide_f32x4(2.0f, vaddq_f32(e, one)));
}

// Loads min(left, 4) floats, zero-filling the rest; stores the same number back.
inline float32x4_t load(const float* p, size_t left) {
  if (left >= 4) return vld1q_f32(p);
  float lane[4] = {0, 0, 0, 0};
  std::memcpy(lane, p, left * sizeof(float));
  return vld1q_f32(lane);
}

inline void store(float* p, float32x4_t v, size_t left) {
  if (left >= 4) {
    vst1q_f32(p, v);
    return;
  }
  float lane[4];
  vst1q_f32(lane, v);
  std::memcpy(p, lane, left * sizeof(float));
}

}  // namespace

void tanh_f32(float* x, size_t n) {
  for (size_t j = 0; j < n; j += 4) store(x + j, tanh_f32x4(load(x + j, n - j)), n - j);
}

void lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n) {
  for (size_t j = 0; j < n; j += 4) {
    const size_t left = n - j;
    const float32x4_t i = sigmoid_f32x4(vaddq_f32(load(gx + j, left), load(gh + j, left)));
    const float32x4_t f = sigmoid_f32x4(vaddq_f32(load(gx + n + j, left), load(gh + n + j, left)));
    const float32x4_t g = tanh_f32x4(vaddq_f32(load(gx + 2 * n + j, left), load(gh + 2 * n + j, left)));
    const float32x4_t o = sigmoid_f32x4(vaddq_f32(load(gx + 3 * n + j, left), load(gh + 3 * n + j, left)));
    const float32x4_t cn = vfmaq_f32(vmulq_f32(i, g), f, load(c + j, left));
    store(c + j, cn, left);
    store(h + j, vmulq_f32(o, tanh_f32x4(cn)), left);
  }
}

void gru_cell(const float* gx, const float* gh, float* h, size_t n) {
  const float32x4_t one = vdupq_n_f32(1.0f);
  for (size_t j = 0; j < n; j += 4) {
    const size_t left = n - j;
    const float32x4_t r = sigmoid_f32x4(vaddq_f32(load(gx + j, left), load(gh + j, left)));
    const float32x4_t z = sigmoid_f32x4(vaddq_f32(load(gx + n + j, left), load(gh + n + j, left)));
    const float32x4_t cand = tanh_f32x4(vfmaq_f32(load(gx + 2 * n + j, left), r, load(gh + 2 * n + j, left)));
    store(h + j, vfmaq_f32(vmulq_f32(vsubq_f32(one, z), cand), z, load(h + j, left)), left);
  }
}

}  // namespace heed::kernels::HEED_NEON_VARIANT
