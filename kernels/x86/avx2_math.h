// Small AVX2 helpers shared by the AVX2 kernels: horizontal sums, tail masks, exp, and F32x8, the
// 8-float traits of the width-generic templates (x86/simd_math.h).
// Included only by files compiled with -mavx2 -mfma; everything is static (see gemm_epilogue.h).
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "internal/each.h"
#include "x86/math_constants.h"
#include "x86/simd_math.h"

namespace heed::kernels::avx2 {

static inline float hsum_ps(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

static inline float hmax_ps(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

// Lane mask selecting the first `left` (0..8) lanes, for maskload/maskstore tails.
static inline __m256i tail_mask(size_t left) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)), idx);
}

// Lanes [0, min(left, 8)) at p: a whole vector plainly, a tail masked. Masked stores only where
// needed: AMD cores run VMASKMOVPS stores as microcode, and no masked store forwards to a later
// load of the same floats (attention's axpy over the V cache re-reads its output every call: with
// a masked store per 8 floats it took 30 % of a batch-16 beam-4 translation on an AMD EPYC).
static inline __m256 load_part(const float* p, size_t left) {
  return left >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, tail_mask(left));
}
static inline void store_part(float* p, __m256 v, size_t left) {
  if (left >= 8) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, tail_mask(left), v);
  }
}


namespace {
// One inline function per instruction, for the templates of x86/simd_math.h.
struct F32x8 {
  using Vec = __m256;
  static constexpr size_t kLanes = 8;

  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec set1(float v) { return _mm256_set1_ps(v); }
  static Vec load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
  static Vec load_part(const float* p, size_t left) { return avx2::load_part(p, left); }
  static void store_part(float* p, Vec v, size_t left) { avx2::store_part(p, v, left); }
  static Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec div(Vec a, Vec b) { return _mm256_div_ps(a, b); }
  static Vec min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }   // a b + c
  static Vec fnmadd(Vec a, Vec b, Vec c) { return _mm256_fnmadd_ps(a, b, c); }  // c - a b
  static Vec round_nearest(Vec v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static Vec abs(Vec v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
  // a * b in the lanes where `sign` is negative, a elsewhere.
  static Vec mul_where_negative(Vec sign, Vec a, Vec b) {
    return _mm256_blendv_ps(a, _mm256_mul_ps(a, b), _mm256_cmp_ps(sign, _mm256_setzero_ps(), _CMP_LT_OQ));
  }
  template <size_t N, bool kFinite>
  static void exp(Vec* x);  // exp_n, below
};
}  // namespace

// exp(x) to about 2 ulp, of N vectors in place (x86/math_constants.h), 2^n built in the exponent
// field. Results that would be subnormal flush to 0, so exp(-inf) = 0 exactly, as masked attention
// needs. kFinite: the caller's x are at most 80 (or NaN), as softmax's x - max <= 0 and GELU-tanh's
// -2|u| are; the overflow test and clamp are left out and 2^n is one factor (n <= 116), the
// same bits as the general form for those x.
template <size_t N, bool kFinite = false>
__attribute__((always_inline)) static inline void exp_n(__m256* x) {
  const __m256 lo = _mm256_set1_ps(x86::kExpLo), hi = _mm256_set1_ps(x86::kExpHi);
  __m256 underflow[N], overflow[N], n[N], p[N];
  HEED_EACH(j, N) underflow[j] = _mm256_cmp_ps(x[j], lo, _CMP_LT_OQ);
  if constexpr (kFinite) {
    HEED_EACH(j, N) x[j] = _mm256_max_ps(x[j], lo);
  } else {
    HEED_EACH(j, N) overflow[j] = _mm256_cmp_ps(x[j], hi, _CMP_GT_OQ);
    HEED_EACH(j, N) x[j] = _mm256_min_ps(_mm256_max_ps(x[j], lo), hi);
  }
  x86::exp_reduce<F32x8, N>(x, n, p);
  // n is in [-126, 128]; 2^n via the exponent field, split in two halves so n = 128 works (both
  // products are exact while the result is normal, so one factor gives the same bits).
  HEED_EACH(j, N) {
    const __m256i ni = _mm256_cvtps_epi32(n[j]);
    const __m256i half = kFinite ? ni : _mm256_srai_epi32(ni, 1);
    const __m256 pow_a = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, _mm256_set1_epi32(127)), 23));
    p[j] = _mm256_mul_ps(p[j], pow_a);
    if constexpr (!kFinite) {
      const __m256 pow_b = _mm256_castsi256_ps(
          _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, half), _mm256_set1_epi32(127)), 23));
      p[j] = _mm256_mul_ps(p[j], pow_b);
    }
  }
  if constexpr (kFinite) {
    HEED_EACH(j, N) x[j] = _mm256_andnot_ps(underflow[j], p[j]);
  } else {
    HEED_EACH(j, N) {
      x[j] = _mm256_blendv_ps(_mm256_andnot_ps(underflow[j], p[j]), _mm256_set1_ps(__builtin_inff()), overflow[j]);
    }
  }
}

template <size_t N, bool kFinite>
void F32x8::exp(__m256* x) {
  exp_n<N, kFinite>(x);
}

static inline __m256 exp_ps(__m256 x) {
  exp_n<1>(&x);
  return x;
}

// The row passes softmax and log_softmax share. Largest of n values (-inf for none).
static inline float row_max(const float* x, size_t n) {
  __m256 vmax = _mm256_set1_ps(-__builtin_inff());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + i));
  float max = hmax_ps(vmax);
  for (; i < n; ++i) max = std::fmax(max, x[i]);
  return max;
}

// Sum of exp(x[i] - max) over n values, 4 vectors stepped together (the sum in the one-vector
// order); with Store, x[i] becomes exp(x[i] - max).
template <bool Store>
static inline float exp_sum(std::conditional_t<Store, float*, const float*> x, size_t n, float max) {
  constexpr size_t kVectors = 4;
  const __m256 vm = _mm256_set1_ps(max);
  __m256 vsum = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 * kVectors <= n; i += 8 * kVectors) {
    __m256 e[kVectors];
    HEED_EACH(j, kVectors) e[j] = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8 * j), vm);
    exp_n<kVectors, true>(e);
    HEED_EACH(j, kVectors) {
      if constexpr (Store) _mm256_storeu_ps(x + i + 8 * j, e[j]);
      vsum = _mm256_add_ps(vsum, e[j]);
    }
  }
  for (; i < n; i += 8) {
    const __m256i mask = tail_mask(n - i < 8 ? n - i : 8);
    const __m256 e = exp_ps(_mm256_sub_ps(load_part(x + i, n - i), vm));
    if constexpr (Store) store_part(x + i, e, n - i);
    vsum = _mm256_add_ps(vsum, _mm256_and_ps(e, _mm256_castsi256_ps(mask)));
  }
  return hsum_ps(vsum);
}

}  // namespace heed::kernels::avx2
