// exp for AVX-512 (16 floats per vector), N vectors stepped together (HEED_EACH), and F32x16, the
// 16-float traits of the width-generic activations (x86/simd_math.h): the same functions and
// constants as the AVX2 forms, with VSCALEFPS building p * 2^n in one instruction and mask
// registers in place of blends. Static, like every helper included by files with different flags.
#pragma once

#include <immintrin.h>

#include "x86/avx2_math.h"

namespace heed::kernels::avx512 {

static inline __mmask16 tail_lanes(size_t n) { return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1); }

namespace {
// One inline function per instruction, for the templates of x86/simd_math.h (as avx2::F32x8).
struct F32x16 {
  using Vec = __m512;
  static constexpr size_t kLanes = 16;

  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec set1(float v) { return _mm512_set1_ps(v); }
  static Vec load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
  static Vec load_part(const float* p, size_t left) { return _mm512_maskz_loadu_ps(tail_lanes(left), p); }
  static void store_part(float* p, Vec v, size_t left) { _mm512_mask_storeu_ps(p, tail_lanes(left), v); }
  static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  static Vec div(Vec a, Vec b) { return _mm512_div_ps(a, b); }
  static Vec min(Vec a, Vec b) { return _mm512_min_ps(a, b); }
  static Vec max(Vec a, Vec b) { return _mm512_max_ps(a, b); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }   // a b + c
  static Vec fnmadd(Vec a, Vec b, Vec c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a b
  static Vec round_nearest(Vec v) { return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static Vec abs(Vec v) { return _mm512_abs_ps(v); }
  // a * b in the lanes where `sign` is negative, a elsewhere.
  static Vec mul_where_negative(Vec sign, Vec a, Vec b) {
    return _mm512_mask_mul_ps(a, _mm512_cmp_ps_mask(sign, _mm512_setzero_ps(), _CMP_LT_OQ), a, b);
  }
  template <size_t N, bool kFinite>
  static void exp(Vec* x);  // exp_n, below
};
}  // namespace

// exp(x) of N vectors in place; subnormal results flush to 0, above kExpHi +inf. kFinite: x are
// at most 80 or NaN (avx2::exp_n), the overflow test and clamp left out; the same bits.
template <size_t N, bool kFinite = false>
__attribute__((always_inline)) static inline void exp_n(__m512* x) {
  const __m512 lo = _mm512_set1_ps(x86::kExpLo), hi = _mm512_set1_ps(x86::kExpHi);
  __mmask16 normal[N], overflow[N];
  __m512 n[N], p[N];
  HEED_EACH(j, N) normal[j] = _mm512_cmp_ps_mask(x[j], lo, _CMP_GE_OQ);
  if constexpr (kFinite) {
    HEED_EACH(j, N) x[j] = _mm512_max_ps(x[j], lo);
  } else {
    HEED_EACH(j, N) overflow[j] = _mm512_cmp_ps_mask(x[j], hi, _CMP_GT_OQ);
    HEED_EACH(j, N) x[j] = _mm512_min_ps(_mm512_max_ps(x[j], lo), hi);
  }
  x86::exp_reduce<F32x16, N>(x, n, p);
  HEED_EACH(j, N) p[j] = _mm512_maskz_scalef_ps(normal[j], p[j], n[j]);
  if constexpr (kFinite) {
    HEED_EACH(j, N) x[j] = p[j];
  } else {
    HEED_EACH(j, N) x[j] = _mm512_mask_blend_ps(overflow[j], p[j], _mm512_set1_ps(__builtin_inff()));
  }
}

template <size_t N, bool kFinite>
void F32x16::exp(__m512* x) {
  exp_n<N, kFinite>(x);
}

}  // namespace heed::kernels::avx512
