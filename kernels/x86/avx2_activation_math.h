// Vector forms of heed's activations for AVX2 + FMA, built on exp_ps (avx2_math.h). Static, like
// every helper included by files with different flags (see internal/gemm_epilogue.h).
//
// erfc: the Chebyshev-fitted form of x86/math_constants.h (fractional error below 1.2e-7 for every
// z >= 0), so GELU keeps its relative accuracy for negative inputs too, where 1 + erf(x) is tiny:
//   GELU(x) = x/2 * erfc(|x|/sqrt2) for x < 0, x/2 * (2 - erfc(x/sqrt2)) for x >= 0.
// GELU tanh form: 1 + tanh(u) = 2 / (1 + e^(-2u)) for u >= 0 and 2 e^(2u) / (1 + e^(2u)) for
// u < 0, which never subtracts nearly equal numbers.
#pragma once

#include "x86/avx2_math.h"

namespace heed::kernels::avx2 {

// Each function works on N vectors in place, stepped together (HEED_EACH in avx2_math.h).

// erfc(z) of z >= 0.
template <size_t N>
__attribute__((always_inline)) static inline void erfc_nonneg_n(__m256* z) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 t[N], p[N];
  HEED_EACH(j, N) t[j] = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), z[j], one));
  HEED_EACH(j, N) p[j] = _mm256_set1_ps(x86::kErfcPoly[0]);
  for (size_t c = 1; c < sizeof(x86::kErfcPoly) / sizeof(float); ++c) {
    HEED_EACH(j, N) p[j] = _mm256_fmadd_ps(p[j], t[j], _mm256_set1_ps(x86::kErfcPoly[c]));
  }
  HEED_EACH(j, N) p[j] = _mm256_fnmadd_ps(z[j], z[j], p[j]);  // at most about 7
  exp_n<N, true>(p);
  HEED_EACH(j, N) z[j] = _mm256_mul_ps(t[j], p[j]);
}

template <size_t N>
__attribute__((always_inline)) static inline void gelu_n(__m256* x) {
  __m256 e[N];
  HEED_EACH(j, N) {
    e[j] = _mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x[j]), _mm256_set1_ps(x86::kSqrtHalf));
  }
  erfc_nonneg_n<N>(e);
  HEED_EACH(j, N) {
    const __m256 half_x = _mm256_mul_ps(_mm256_set1_ps(0.5f), x[j]);
    const __m256 pos = _mm256_mul_ps(half_x, _mm256_sub_ps(_mm256_set1_ps(2.0f), e[j]));
    const __m256 neg = _mm256_mul_ps(half_x, e[j]);
    x[j] = _mm256_blendv_ps(pos, neg, _mm256_cmp_ps(x[j], _mm256_setzero_ps(), _CMP_LT_OQ));
  }
}

template <size_t N>
__attribute__((always_inline)) static inline void gelu_tanh_n(__m256* x) {
  __m256 u[N], t[N];
  HEED_EACH(j, N) {
    const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x[j], x[j]), x[j]);
    u[j] = _mm256_mul_ps(_mm256_set1_ps(x86::kGeluTanhScale), _mm256_fmadd_ps(_mm256_set1_ps(x86::kGeluTanhCubic), x3, x[j]));
  }
  HEED_EACH(j, N) t[j] = _mm256_mul_ps(_mm256_set1_ps(-2.0f), _mm256_andnot_ps(_mm256_set1_ps(-0.0f), u[j]));
  exp_n<N, true>(t);  // in (0, 1]
  HEED_EACH(j, N) {
    const __m256 inv = _mm256_div_ps(x[j], _mm256_add_ps(_mm256_set1_ps(1.0f), t[j]));
    // 0.5 x (1 + tanh u) = x / (1 + t) for u >= 0, x t / (1 + t) for u < 0.
    x[j] = _mm256_blendv_ps(inv, _mm256_mul_ps(inv, t[j]), _mm256_cmp_ps(u[j], _mm256_setzero_ps(), _CMP_LT_OQ));
  }
}

template <size_t N>
__attribute__((always_inline)) static inline void silu_n(__m256* x) {
  // x / (1 + e^-x); e^-x = +inf for x < -88.7 gives -0, as the reference does.
  __m256 e[N];
  HEED_EACH(j, N) e[j] = _mm256_sub_ps(_mm256_setzero_ps(), x[j]);
  exp_n<N>(e);
  HEED_EACH(j, N) x[j] = _mm256_div_ps(x[j], _mm256_add_ps(_mm256_set1_ps(1.0f), e[j]));
}

}  // namespace heed::kernels::avx2
