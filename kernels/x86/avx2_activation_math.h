// Vector forms of heed's activations for AVX2 + FMA, built on exp_ps (avx2_math.h). Static, like
// every helper included by files with different flags (see internal/gemm_epilogue.h).
//
// erfc: the Chebyshev-fitted form erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z / 2), z >= 0,
// (fractional error below 1.2e-7 for every z >= 0), so GELU keeps its relative accuracy for
// negative inputs too, where 1 + erf(x) is tiny:
//   GELU(x) = x/2 * erfc(|x|/sqrt2) for x < 0, x/2 * (2 - erfc(x/sqrt2)) for x >= 0.
// GELU tanh form: 1 + tanh(u) = 2 / (1 + e^(-2u)) for u >= 0 and 2 e^(2u) / (1 + e^(2u)) for
// u < 0, which never subtracts nearly equal numbers.
#pragma once

#include "x86/avx2_math.h"

namespace heed::kernels::avx2 {

static inline __m256 erfc_nonneg_ps(__m256 z) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), z, one));
  __m256 p = _mm256_set1_ps(0.17087277f);
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.82215223f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.48851587f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.13520398f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.27886807f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.18628806f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.09678418f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.37409196f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.00002368f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.26551223f));
  return _mm256_mul_ps(t, exp_ps(_mm256_fnmadd_ps(z, z, p)));
}

static inline __m256 gelu_ps(__m256 x) {
  const __m256 half_x = _mm256_mul_ps(_mm256_set1_ps(0.5f), x);
  const __m256 abs_x = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 e = erfc_nonneg_ps(_mm256_mul_ps(abs_x, _mm256_set1_ps(0.70710678118654752f)));
  const __m256 pos = _mm256_mul_ps(half_x, _mm256_sub_ps(_mm256_set1_ps(2.0f), e));
  const __m256 neg = _mm256_mul_ps(half_x, e);
  return _mm256_blendv_ps(pos, neg, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
}

static inline __m256 gelu_tanh_ps(__m256 x) {
  const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
  const __m256 u = _mm256_mul_ps(_mm256_set1_ps(0.79788456080286536f),
                                 _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), x3, x));
  const __m256 abs_u = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), u);
  const __m256 t = exp_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), abs_u));  // in (0, 1]
  const __m256 inv = _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), t));
  // 0.5 x (1 + tanh u) = x / (1 + t) for u >= 0, x t / (1 + t) for u < 0.
  return _mm256_blendv_ps(inv, _mm256_mul_ps(inv, t), _mm256_cmp_ps(u, _mm256_setzero_ps(), _CMP_LT_OQ));
}

static inline __m256 silu_ps(__m256 x) {
  // x / (1 + e^-x); e^-x = +inf for x < -88.7 gives -0, as the reference does.
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_ps(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

}  // namespace heed::kernels::avx2
