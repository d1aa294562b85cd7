// RNN cell gate math for NEON (armv7 and aarch64): four hidden units at a time, the tail through a
// zero-padded lane buffer; the loops are internal/rnn_cell_impl.h's over neon_shim.h's exp and
// divide (aarch64: FDIV; armv7, which has no vector divide: VRECPE with two Newton-Raphson steps).
// The saturated ends stay exact: d = +inf gives 0, so sigmoid -> 0 and tanh -> 1; e = 0 gives
// tanh = 1 - 2 = -1.
#include <cstring>

#include "arm/neon_shim.h"
#include "internal/rnn_cell_impl.h"
#include "internal/variants.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {

struct NeonF32x4 {
  using Vec = float32x4_t;
  static constexpr size_t kLanes = 4;

  static Vec zero() { return vdupq_n_f32(0.0f); }
  static Vec set1(float v) { return vdupq_n_f32(v); }
  static Vec add(Vec a, Vec b) { return vaddq_f32(a, b); }
  static Vec sub(Vec a, Vec b) { return vsubq_f32(a, b); }
  static Vec mul(Vec a, Vec b) { return vmulq_f32(a, b); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }  // a b + c
  static Vec exp(Vec x) { return exp_f32x4(x); }
  static Vec divide(float numerator, Vec d) { return divide_f32x4(numerator, d); }

  // Loads min(left, 4) floats, zero-filling the rest; stores the same number back.
  static Vec load_part(const float* p, size_t left) {
    if (left >= 4) return vld1q_f32(p);
    float lane[4] = {0, 0, 0, 0};
    std::memcpy(lane, p, left * sizeof(float));
    return vld1q_f32(lane);
  }
  static void store_part(float* p, Vec v, size_t left) {
    if (left >= 4) {
      vst1q_f32(p, v);
      return;
    }
    float lane[4];
    vst1q_f32(lane, v);
    std::memcpy(p, lane, left * sizeof(float));
  }
};

}  // namespace

void tanh_f32(float* x, size_t n) { rnn_tanh_f32<NeonF32x4>(x, n); }

void lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n) {
  rnn_lstm_cell<NeonF32x4>(gx, gh, c, h, n);
}

void gru_cell(const float* gx, const float* gh, float* h, size_t n) { rnn_gru_cell<NeonF32x4>(gx, gh, h, n); }

}  // namespace heed::kernels::HEED_NEON_VARIANT
