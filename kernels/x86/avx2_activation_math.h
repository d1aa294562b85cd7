// Vector forms of heed's activations for AVX2 + FMA, built on exp_ps (avx2_math.h). Static, like
// every helper included by files with different flags (see internal/gemm_epilogue.h).
//
// GELU: one rational function of x^2 (internal/gelu_rational.h), shared by every ISA.
// GELU tanh form: 1 + tanh(u) = 2 / (1 + e^(-2u)) for u >= 0 and 2 e^(2u) / (1 + e^(2u)) for
// u < 0, which never subtracts nearly equal numbers.
#pragma once

#include "internal/gelu_rational.h"
#include "x86/avx2_math.h"

namespace heed::kernels::avx2 {

// Each function works on N vectors in place, stepped together (HEED_EACH in avx2_math.h).

// GELU: the rational form of internal/gelu_rational.h (no exp; 16 operations per vector).
template <size_t N>
__attribute__((always_inline)) static inline void gelu_n(__m256* x) {
  __m256 c[N], s[N], p[N], q[N];
  HEED_EACH(j, N) {
    c[j] = _mm256_min_ps(_mm256_max_ps(x[j], _mm256_set1_ps(-kGeluClamp)), _mm256_set1_ps(kGeluClamp));
    s[j] = _mm256_mul_ps(c[j], c[j]);
  }
  HEED_EACH(j, N) p[j] = _mm256_set1_ps(kGeluNumerator[0]);
  HEED_EACH(j, N) q[j] = _mm256_set1_ps(kGeluDenominator[0]);
  for (size_t i = 1; i < sizeof(kGeluNumerator) / sizeof(float); ++i) {
    HEED_EACH(j, N) p[j] = _mm256_fmadd_ps(p[j], s[j], _mm256_set1_ps(kGeluNumerator[i]));
    HEED_EACH(j, N) q[j] = _mm256_fmadd_ps(q[j], s[j], _mm256_set1_ps(kGeluDenominator[i]));
  }
  HEED_EACH(j, N) {
    x[j] = _mm256_mul_ps(x[j], _mm256_fmadd_ps(c[j], _mm256_div_ps(p[j], q[j]), _mm256_set1_ps(0.5f)));
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
