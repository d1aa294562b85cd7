// quantize_rows_i8 for AVX-512, bit-identical to the reference: the same max, the same scale and
// reciprocal (IEEE division, vector or scalar, rounds the same), round half away from zero. It
// exists for activation blocks, which quantize each block of 16-64 values of K as its own row:
// rows of up to 64 values go 16 at a time, each row's max |x| from one to four masked loads, the
// 16 maxima gathered into one vector by a tree of shuffles (instead of a horizontal reduction per
// row), the 16 scales and reciprocals with one vector division each, then each row from
// registers. Rounding: truncate x + 0.49999997 with x's sign, which equals rounding half away
// from zero for every float (checked for all 2^32 bit patterns against the truncate-and-compare
// form it replaced; 0.5 itself would misround 0.49999997). Longer rows (one scale per row of K:
// every decoder and most encoder layers) 16 at a time: each max from four accumulators, the scales
// and reciprocals in scalar code exactly as the reference computes them, then the same rounding.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 avx512 headers, as in gemm_i8

#include <immintrin.h>

#include "internal/quantize_row.h"
#include "internal/variants.h"

namespace heed::kernels::avx512vnni {

namespace {

constexpr size_t kMaxCols = 64;

// v + 0.49999997 with v's sign: truncating it rounds v half away from zero (see above).
inline __m512 plus_half_away(__m512 v) {
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(INT32_MIN));
  const __m512 half = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(_mm512_set1_ps(0.49999997f)), sign));
  return _mm512_add_ps(v, half);
}

inline __mmask16 lanes(size_t n) { return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1); }

// max |x| of one row of `cols` <= 64 values, per lane (the row's max is the max of the lanes).
inline __m512 lane_max(const float* xr, size_t cols) {
  __m512 m = _mm512_setzero_ps();
  for (size_t c = 0; c < cols; c += 16)
    m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_maskz_loadu_ps(lanes(cols - c), xr + c)));
  return m;
}

// out[i] = the max of the lanes of a[i], i < 16: 128-bit lanes, then their halves, then pairs of
// floats are folded across vectors (15 maxima in all); the last fold leaves row 4e + L at lane
// 4L + e of 128-bit lane L, which one permute puts in row order.
inline __m512 lane_maxes(__m512 (&a)[16]) {
  __m512 x[8], y[4];
  for (size_t i = 0; i < 8; ++i)
    x[i] = _mm512_max_ps(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0x44),
                         _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0xEE));
  for (size_t i = 0; i < 4; ++i)  // y[i], 128-bit lane L: 4 floats of row 4i + L
    y[i] = _mm512_max_ps(_mm512_shuffle_f32x4(x[2 * i], x[2 * i + 1], 0x88),
                         _mm512_shuffle_f32x4(x[2 * i], x[2 * i + 1], 0xDD));
  const __m512 z0 = _mm512_max_ps(_mm512_shuffle_ps(y[0], y[1], 0x44), _mm512_shuffle_ps(y[0], y[1], 0xEE));
  const __m512 z1 = _mm512_max_ps(_mm512_shuffle_ps(y[2], y[3], 0x44), _mm512_shuffle_ps(y[2], y[3], 0xEE));
  const __m512 w = _mm512_max_ps(_mm512_shuffle_ps(z0, z1, 0x88), _mm512_shuffle_ps(z0, z1, 0xDD));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_ps(order, w);
}

// max |x| of one row of any length: four accumulators (a max is exact in any order). A NaN in x
// is skipped as std::fmax skips it: VMAXPS returns its second operand when either is NaN.
inline float row_max(const float* xr, size_t cols) {
  __m512 m0 = _mm512_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;
  size_t c = 0;
  for (; c + 64 <= cols; c += 64) {
    m0 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(xr + c)), m0);
    m1 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(xr + c + 16)), m1);
    m2 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(xr + c + 32)), m2);
    m3 = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(xr + c + 48)), m3);
  }
  for (; c < cols; c += 16) m0 = _mm512_max_ps(_mm512_abs_ps(_mm512_maskz_loadu_ps(lanes(cols - c), xr + c)), m0);
  return _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
}

// 16 values of xr times inv, rounded half away from zero and clamped to [-127, 127], as int32.
inline __m512i quantize_16(const float* xr, __mmask16 mask, __m512 vinv) {
  const __m512 v = plus_half_away(_mm512_mul_ps(_mm512_maskz_loadu_ps(mask, xr), vinv));
  // integral bounds: clamping commutes with truncation
  return _mm512_cvttps_epi32(_mm512_min_ps(_mm512_set1_ps(127.0f), _mm512_max_ps(_mm512_set1_ps(-127.0f), v)));
}

// One row with reciprocal `inv` (max > 0) into qr. 64 values at a time are narrowed by two packs
// (exact: every value is within int8) and one permute, and stored as one vector: a masked VPMOVDB
// store per 16 values cost a fifth of the kernel's time.
inline void quantize_row(const float* xr, size_t cols, float inv, int8_t* qr) {
  const __m512 vinv = _mm512_set1_ps(inv);
  // After the packs, 128-bit lane L holds values 4L..4L+3 of each of the four vectors in turn.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  size_t c = 0;
  for (; c + 64 <= cols; c += 64) {
    const __m512i w01 = _mm512_packs_epi32(quantize_16(xr + c, 0xffff, vinv), quantize_16(xr + c + 16, 0xffff, vinv));
    const __m512i w23 = _mm512_packs_epi32(quantize_16(xr + c + 32, 0xffff, vinv), quantize_16(xr + c + 48, 0xffff, vinv));
    _mm512_storeu_si512(qr + c, _mm512_permutexvar_epi32(order, _mm512_packs_epi16(w01, w23)));
  }
  for (; c < cols; c += 16) {
    const __mmask16 mask = lanes(cols - c);
    _mm_mask_storeu_epi8(qr + c, mask, _mm512_cvtepi32_epi8(quantize_16(xr + c, mask, vinv)));
  }
}

// Rows longer than kMaxCols (or empty: scale 0): the reference's scalar scale and reciprocal
// (quantize_scale_from_max) from the vector max. The maxima of up to 16 rows are found first, then
// their scales, then the rows quantized: the rows' reductions and divisions are independent, so
// they overlap instead of each row waiting on its own.
void quantize_long_rows(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq, float* scales) {
  for (size_t r0 = 0; r0 < rows; r0 += 16) {
    const size_t n = rows - r0 < 16 ? rows - r0 : 16;
    float maxes[16], invs[16];
    bool nonzero[16];
    for (size_t i = 0; i < n; ++i) maxes[i] = row_max(x + (r0 + i) * ldx, cols);
    for (size_t i = 0; i < n; ++i)
      nonzero[i] = quantize_scale_from_max(maxes[i], cols, q + (r0 + i) * ldq, &scales[r0 + i], &invs[i]);
    for (size_t i = 0; i < n; ++i)
      if (nonzero[i]) quantize_row(x + (r0 + i) * ldx, cols, invs[i], q + (r0 + i) * ldq);
  }
}

}  // namespace

void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq, float* scales) {
  if (cols > kMaxCols || cols == 0) return quantize_long_rows(x, rows, cols, ldx, q, ldq, scales);
  for (size_t r0 = 0; r0 < rows; r0 += 16) {
    const size_t n = rows - r0 < 16 ? rows - r0 : 16;
    alignas(64) float maxes[16];
    alignas(64) float invs[16];
    __m512 per_lane[16];
    for (size_t i = 0; i < 16; ++i) per_lane[i] = i < n ? lane_max(x + (r0 + i) * ldx, cols) : _mm512_setzero_ps();
    const __m512 m = lane_maxes(per_lane);
    _mm512_store_ps(maxes, m);
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
