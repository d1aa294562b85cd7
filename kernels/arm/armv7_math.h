// Helpers for the 32-bit ARM NEON kernels (ARMv7 with VFPv4: VFMA exists, but no VRINTN, no
// across-vector adds and no vector divide, which aarch64 has). Static (see gemm_epilogue.h).
#pragma once

#include <arm_neon.h>

namespace heed::kernels::armv7 {

static inline float hsum_f32x4(float32x4_t v) {
  const float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpadd_f32(s, s), 0);
}

static inline float hmax_f32x4(float32x4_t v) {
  const float32x2_t s = vmax_f32(vget_low_f32(v), vget_high_f32(v));
  return vget_lane_f32(vpmax_f32(s, s), 0);
}

// exp(x), the algorithm of the AVX2 and aarch64 versions: n = round(x / ln2) (here with the
// 1.5 * 2^23 trick, which rounds to nearest even as VRINTN would), r = x - n ln2 in two parts,
// degree-6 polynomial, 2^n in two exponent-field halves; x < -87.3 gives 0, x > 88.7 gives +inf.
// ARMv7 NEON flushes subnormals to zero, so results below 2^-126 are 0 here.
static inline float32x4_t exp_f32x4(float32x4_t x) {
  const float32x4_t lo = vdupq_n_f32(-87.33654f), hi = vdupq_n_f32(88.72283f);
  const uint32x4_t underflow = vcltq_f32(x, lo);
  const uint32x4_t overflow = vcgtq_f32(x, hi);
  const float32x4_t xc = vminq_f32(vmaxq_f32(x, lo), hi);
  const float32x4_t magic = vdupq_n_f32(12582912.0f);
  const float32x4_t n = vsubq_f32(vaddq_f32(vmulq_n_f32(xc, 1.44269504088896341f), magic), magic);
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
  const int32x4_t half = vshrq_n_s32(ni, 1);
  const float32x4_t pow_a = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(half, vdupq_n_s32(127)), 23));
  const float32x4_t pow_b =
      vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vsubq_s32(ni, half), vdupq_n_s32(127)), 23));
  float32x4_t y = vmulq_f32(vmulq_f32(p, pow_a), pow_b);
  y = vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(y), underflow));
  return vbslq_f32(overflow, vdupq_n_f32(__builtin_inff()), y);
}

}  // namespace heed::kernels::armv7
