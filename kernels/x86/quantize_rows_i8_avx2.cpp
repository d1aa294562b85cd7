// quantize_rows_i8 for AVX2, bit-identical to the reference: the same max, the same reciprocal,
// and round-half-away-from-zero built from truncation (x - trunc(x) is exact, so comparing it
// with 0.5 decides ties exactly; adding 0.5 first would misround 0.49999997).
#include <immintrin.h>

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::avx2 {

namespace {

inline float round_away_clamped(float v) {
  return std::fmin(127.0f, std::fmax(-127.0f, std::round(v)));
}

inline __m256 round_away(__m256 v) {
  const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 frac = _mm256_andnot_ps(sign_bit, _mm256_sub_ps(v, t));
  const __m256 need = _mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
  const __m256 one_signed = _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(v, sign_bit));
  return _mm256_add_ps(t, _mm256_and_ps(need, one_signed));
}

}  // namespace

void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq,
                      float* scales) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    int8_t* qr = q + r * ldq;
    __m256 vmax = _mm256_setzero_ps();
    size_t c = 0;
    for (; c + 8 <= cols; c += 8) vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_loadu_ps(xr + c), abs_mask));
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
    float max_abs = _mm_cvtss_f32(m4);
    for (; c < cols; ++c) max_abs = std::fmax(max_abs, std::fabs(xr[c]));

    const float scale = max_abs / 127.0f;
    scales[r] = scale;
    if (scale == 0.0f) {
      for (c = 0; c < cols; ++c) qr[c] = 0;
      continue;
    }
    const float inv = 127.0f / max_abs;
    const __m256 vinv = _mm256_set1_ps(inv);
    const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
    for (c = 0; c + 8 <= cols; c += 8) {
      __m256 v = round_away(_mm256_mul_ps(_mm256_loadu_ps(xr + c), vinv));
      v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
      const __m256i i32 = _mm256_cvtps_epi32(v);  // already integral: conversion is exact
      const __m128i i16 = _mm_packs_epi32(_mm256_castsi256_si128(i32), _mm256_extracti128_si256(i32, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(qr + c), _mm_packs_epi16(i16, i16));
    }
    for (; c < cols; ++c) qr[c] = static_cast<int8_t>(round_away_clamped(xr[c] * inv));
  }
}

}  // namespace heed::kernels::avx2
