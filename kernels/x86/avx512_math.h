// exp and the activations for AVX-512 (16 floats per vector), N vectors stepped together
// (HEED_EACH): the same functions and constants as the AVX2 forms (x86/math_constants.h,
// avx2_activation_math.h), with VSCALEFPS building p * 2^n in one instruction and mask registers
// in place of blends. Static, like every helper included by files with different flags.
#pragma once

#include <immintrin.h>

#include "internal/gelu_rational.h"
#include "x86/avx2_math.h"

namespace heed::kernels::avx512 {

// exp(x) of N vectors in place; subnormal results flush to 0, above kExpHi +inf. kFinite: x are
// at most 80 or NaN (avx2::exp_n), the overflow test and clamp left out; the same bits.
template <size_t N, bool kFinite = false>
__attribute__((always_inline)) static inline void exp_n(__m512* x) {
  const __m512 lo = _mm512_set1_ps(x86::kExpLo), hi = _mm512_set1_ps(x86::kExpHi);
  __mmask16 normal[N], overflow[N];
  __m512 n[N], r[N], p[N];
  HEED_EACH(j, N) normal[j] = _mm512_cmp_ps_mask(x[j], lo, _CMP_GE_OQ);
  if constexpr (kFinite) {
    HEED_EACH(j, N) x[j] = _mm512_max_ps(x[j], lo);
  } else {
    HEED_EACH(j, N) overflow[j] = _mm512_cmp_ps_mask(x[j], hi, _CMP_GT_OQ);
    HEED_EACH(j, N) x[j] = _mm512_min_ps(_mm512_max_ps(x[j], lo), hi);
  }
  HEED_EACH(j, N) {
    n[j] = _mm512_roundscale_ps(_mm512_mul_ps(x[j], _mm512_set1_ps(x86::kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  HEED_EACH(j, N) r[j] = _mm512_fnmadd_ps(n[j], _mm512_set1_ps(x86::kLn2Hi), x[j]);
  HEED_EACH(j, N) r[j] = _mm512_fnmadd_ps(n[j], _mm512_set1_ps(x86::kLn2Lo), r[j]);
  HEED_EACH(j, N) p[j] = _mm512_set1_ps(x86::kExpPoly[0]);
  for (size_t c = 1; c < sizeof(x86::kExpPoly) / sizeof(float); ++c) {
    HEED_EACH(j, N) p[j] = _mm512_fmadd_ps(p[j], r[j], _mm512_set1_ps(x86::kExpPoly[c]));
  }
  HEED_EACH(j, N) p[j] = _mm512_fmadd_ps(p[j], _mm512_mul_ps(r[j], r[j]), _mm512_add_ps(r[j], _mm512_set1_ps(1.0f)));
  HEED_EACH(j, N) p[j] = _mm512_maskz_scalef_ps(normal[j], p[j], n[j]);
  if constexpr (kFinite) {
    HEED_EACH(j, N) x[j] = p[j];
  } else {
    HEED_EACH(j, N) x[j] = _mm512_mask_blend_ps(overflow[j], p[j], _mm512_set1_ps(__builtin_inff()));
  }
}

// GELU: the rational form of internal/gelu_rational.h, as avx2::gelu_n.
template <size_t N>
__attribute__((always_inline)) static inline void gelu_n(__m512* x) {
  __m512 c[N], s[N], p[N], q[N];
  HEED_EACH(j, N) {
    c[j] = _mm512_min_ps(_mm512_max_ps(x[j], _mm512_set1_ps(-kGeluClamp)), _mm512_set1_ps(kGeluClamp));
    s[j] = _mm512_mul_ps(c[j], c[j]);
  }
  HEED_EACH(j, N) p[j] = _mm512_set1_ps(kGeluNumerator[0]);
  HEED_EACH(j, N) q[j] = _mm512_set1_ps(kGeluDenominator[0]);
  for (size_t i = 1; i < sizeof(kGeluNumerator) / sizeof(float); ++i) {
    HEED_EACH(j, N) p[j] = _mm512_fmadd_ps(p[j], s[j], _mm512_set1_ps(kGeluNumerator[i]));
    HEED_EACH(j, N) q[j] = _mm512_fmadd_ps(q[j], s[j], _mm512_set1_ps(kGeluDenominator[i]));
  }
  HEED_EACH(j, N) {
    x[j] = _mm512_mul_ps(x[j], _mm512_fmadd_ps(c[j], _mm512_div_ps(p[j], q[j]), _mm512_set1_ps(0.5f)));
  }
}

// 0.5 x (1 + tanh u) = x / (1 + t) for u >= 0, x t / (1 + t) for u < 0, t = e^(-2|u|).
template <size_t N>
__attribute__((always_inline)) static inline void gelu_tanh_n(__m512* x) {
  __m512 u[N], t[N];
  HEED_EACH(j, N) {
    const __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x[j], x[j]), x[j]);
    u[j] = _mm512_mul_ps(_mm512_set1_ps(x86::kGeluTanhScale), _mm512_fmadd_ps(_mm512_set1_ps(x86::kGeluTanhCubic), x3, x[j]));
  }
  HEED_EACH(j, N) t[j] = _mm512_mul_ps(_mm512_set1_ps(-2.0f), _mm512_abs_ps(u[j]));
  exp_n<N, true>(t);  // in (0, 1]
  HEED_EACH(j, N) {
    const __m512 inv = _mm512_div_ps(x[j], _mm512_add_ps(_mm512_set1_ps(1.0f), t[j]));
    const __mmask16 negative = _mm512_cmp_ps_mask(u[j], _mm512_setzero_ps(), _CMP_LT_OQ);
    x[j] = _mm512_mask_mul_ps(inv, negative, inv, t[j]);
  }
}

// x / (1 + e^-x); e^-x = +inf for x < -88.7 gives -0, as the reference does.
template <size_t N>
__attribute__((always_inline)) static inline void silu_n(__m512* x) {
  __m512 e[N];
  HEED_EACH(j, N) e[j] = _mm512_sub_ps(_mm512_setzero_ps(), x[j]);
  exp_n<N>(e);
  HEED_EACH(j, N) x[j] = _mm512_div_ps(x[j], _mm512_add_ps(_mm512_set1_ps(1.0f), e[j]));
}

static inline __mmask16 tail_lanes(size_t n) { return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1); }

}  // namespace heed::kernels::avx512
