// quantize_rows_i8 for AVX-512, bit-identical to the reference: the same max, the same scale and
// reciprocal (IEEE division, vector or scalar, rounds the same), round half away from zero from
// truncation as in the AVX2 variant. It exists for activation blocks, which quantize each block of
// 16-64 values of K as its own row: rows of up to 64 values go 16 at a time, each row's max |x|
// from one to four masked loads, the 16 scales and reciprocals with one vector division each
// (instead of two scalar divisions and a horizontal reduction per block), then each row from
// registers. Longer rows (one scale per row of K) go to the AVX2 variant.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers, as in gemm_i8

#include <immintrin.h>

#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

namespace {

constexpr size_t kMaxCols = 64;

inline __m512 round_away(__m512 v) {
  const __m512 t = _mm512_roundscale_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask16 need = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(v, t)), _mm512_set1_ps(0.5f), _CMP_GE_OQ);
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(INT32_MIN));
  const __m512 one_signed = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(_mm512_set1_ps(1.0f)), sign));
  return _mm512_mask_add_ps(t, need, t, one_signed);
}

inline __mmask16 lanes(size_t n) { return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1); }

// max |x| of one row of `cols` <= 64 values.
inline float row_max(const float* xr, size_t cols) {
  __m512 m = _mm512_setzero_ps();
  for (size_t c = 0; c < cols; c += 16) m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_maskz_loadu_ps(lanes(cols - c), xr + c)));
  return _mm512_reduce_max_ps(m);
}

// One row with reciprocal `inv` (max > 0) into qr.
inline void quantize_row(const float* xr, size_t cols, float inv, int8_t* qr) {
  const __m512 vinv = _mm512_set1_ps(inv), lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
  for (size_t c = 0; c < cols; c += 16) {
    const __mmask16 mask = lanes(cols - c);
    __m512 v = round_away(_mm512_mul_ps(_mm512_maskz_loadu_ps(mask, xr + c), vinv));
    v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
    _mm_mask_storeu_epi8(qr + c, mask, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));  // integral: exact
  }
}

}  // namespace

void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq, float* scales) {
  if (cols > kMaxCols || cols == 0) return avx2::quantize_rows_i8(x, rows, cols, ldx, q, ldq, scales);
  for (size_t r0 = 0; r0 < rows; r0 += 16) {
    const size_t n = rows - r0 < 16 ? rows - r0 : 16;
    alignas(64) float maxes[16] = {};
    alignas(64) float invs[16];
    for (size_t i = 0; i < n; ++i) maxes[i] = row_max(x + (r0 + i) * ldx, cols);
    const __m512 m = _mm512_load_ps(maxes);
    _mm512_mask_storeu_ps(scales + r0, lanes(n), _mm512_div_ps(m, _mm512_set1_ps(127.0f)));
    _mm512_store_ps(invs, _mm512_div_ps(_mm512_set1_ps(127.0f), m));  // inf for zero rows, unused
    for (size_t i = 0; i < n; ++i) {
      int8_t* qr = q + (r0 + i) * ldq;
      if (maxes[i] == 0.0f) {
        for (size_t c = 0; c < cols; c += 16) _mm_mask_storeu_epi8(qr + c, lanes(cols - c), _mm_setzero_si128());
      } else {
        quantize_row(x + (r0 + i) * ldx, cols, invs[i], qr);
      }
    }
  }
}

}  // namespace heed::kernels::avx512vnni
