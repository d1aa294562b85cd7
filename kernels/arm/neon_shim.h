// One NEON source for both ARM targets: the operations that differ between 32-bit ARM (ARMv7 with
// VFPv4: VFMA, but no VRINTN, no across-vector reductions, no vector divide) and aarch64, behind
// one name each, so a kernel is written once and compiled for each target with that target's own
// instructions (its results are the ones it always had). HEED_NEON_VARIANT is the kernels'
// namespace: neon (aarch64) or armv7. Everything is static (see internal/gemm_epilogue.h).
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#if defined(__aarch64__)
#define HEED_NEON_VARIANT neon
#else
#define HEED_NEON_VARIANT armv7
#endif

namespace heed::kernels::HEED_NEON_VARIANT {

#if defined(__aarch64__)

static inline float hsum_f32x4(float32x4_t v) { return vaddvq_f32(v); }
// The lane sums of a, b, c and d, in that order, in one register.
static inline float32x4_t hsum4_f32x4(float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t d) {
  return vpaddq_f32(vpaddq_f32(a, b), vpaddq_f32(c, d));
}
static inline float hmax_f32x4(float32x4_t v) { return vmaxvq_f32(v); }
static inline int32_t hsum_s32x4(int32x4_t v) { return vaddvq_s32(v); }
static inline float32x4_t round_nearest_f32x4(float32x4_t x) { return vrndnq_f32(x); }
static inline float32x4_t fma_n_f32x4(float32x4_t acc, float32x4_t x, float s) { return vfmaq_n_f32(acc, x, s); }
// numerator / d
static inline float32x4_t divide_f32x4(float numerator, float32x4_t d) { return vdivq_f32(vdupq_n_f32(numerator), d); }
// Products of the high 8 bytes of a and b as 8 exact int16.
static inline int16x8_t mull_high_s8(int8x16_t a, int8x16_t b) { return vmull_high_s8(a, b); }

#else

static inline float hsum_f32x4(float32x4_t v) {
  const float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpadd_f32(s, s), 0);
}
static inline float32x4_t hsum4_f32x4(float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t d) {
  const float32x2_t sa = vadd_f32(vget_low_f32(a), vget_high_f32(a)), sb = vadd_f32(vget_low_f32(b), vget_high_f32(b));
  const float32x2_t sc = vadd_f32(vget_low_f32(c), vget_high_f32(c)), sd = vadd_f32(vget_low_f32(d), vget_high_f32(d));
  return vcombine_f32(vpadd_f32(sa, sb), vpadd_f32(sc, sd));
}
static inline float hmax_f32x4(float32x4_t v) {
  const float32x2_t s = vmax_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpmax_f32(s, s), 0);
}
static inline int32_t hsum_s32x4(int32x4_t v) {
  const int32x2_t s = vadd_s32(vget_low_s32(v), vget_high_s32(v));
  return vget_lane_s32(vpadd_s32(s, s), 0);
}
// The 1.5 * 2^23 trick rounds to nearest even, as VRINTN would, for |x| < 2^22.
static inline float32x4_t round_nearest_f32x4(float32x4_t x) {
  const float32x4_t magic = vdupq_n_f32(12582912.0f);
  return vsubq_f32(vaddq_f32(x, magic), magic);
}
static inline float32x4_t fma_n_f32x4(float32x4_t acc, float32x4_t x, float s) {
  return vfmaq_f32(acc, x, vdupq_n_f32(s));
}
// numerator / d with VRECPE refined by two Newton-Raphson steps (VRECPS), within a couple of ulps.
// d = +inf gives 0 exactly (VRECPS(inf, 0) is defined as 2).
static inline float32x4_t divide_f32x4(float numerator, float32x4_t d) {
  float32x4_t r = vrecpeq_f32(d);
  r = vmulq_f32(r, vrecpsq_f32(d, r));
  r = vmulq_f32(r, vrecpsq_f32(d, r));
  return numerator == 1.0f ? r : vmulq_n_f32(r, numerator);
}
static inline int16x8_t mull_high_s8(int8x16_t a, int8x16_t b) { return vmull_s8(vget_high_s8(a), vget_high_s8(b)); }

#endif

// exp(x), the same algorithm as the AVX2 exp_ps: n = round(x / ln2), r = x - n ln2 (two-part
// ln2), degree-6 polynomial, 2^n in two exponent-field halves. x < -87.3 flushes to 0 (so
// exp(-inf) = 0 exactly), x > 88.7 gives +inf. ARMv7 NEON flushes subnormals to zero, so there
// results below 2^-126 are 0. kFinite: the caller's x are at most 80 (or NaN), as softmax's
// x - max and GELU-tanh's -2|u| are (avx2_math.h's exp_n): no overflow test or clamp, 2^n as one
// factor; the same bits.
template <bool kFinite = false>
static inline float32x4_t exp_f32x4(float32x4_t x) {
  const float32x4_t lo = vdupq_n_f32(-87.33654f), hi = vdupq_n_f32(88.72283f);
  const uint32x4_t underflow = vcltq_f32(x, lo);
  const float32x4_t xc = kFinite ? vmaxq_f32(x, lo) : vminq_f32(vmaxq_f32(x, lo), hi);
  const float32x4_t n = round_nearest_f32x4(vmulq_n_f32(xc, 1.44269504088896341f));
  float32x4_t r = vfmsq_f32(xc, n, vdupq_n_f32(0.693359375f));
  r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
  float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
  p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
  p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
  p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), p, vmulq_f32(r, r));
  const int32x4_t ni = vcvtq_s32_f32(n);  // n is integral: exact
  const int32x4_t half = kFinite ? ni : vshrq_n_s32(ni, 1);
  float32x4_t y = vmulq_f32(p, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(half, vdupq_n_s32(127)), 23)));
  if (!kFinite) y = vmulq_f32(y, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vsubq_s32(ni, half), vdupq_n_s32(127)), 23)));
  y = vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(y), underflow));
  return kFinite ? y : vbslq_f32(vcgtq_f32(x, hi), vdupq_n_f32(__builtin_inff()), y);
}

}  // namespace heed::kernels::HEED_NEON_VARIANT
