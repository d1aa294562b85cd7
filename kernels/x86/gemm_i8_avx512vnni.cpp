// gemm_i8 for AVX-512 VNNI: VPDPBUSD adds four u8*s8 products straight into int32 lanes, 64 bytes
// at a time. The sign trick as in the AVX2 variant: |a| as the unsigned operand, b negated where
// a is negative (AVX-512 has no 512-bit VPSIGNB, so a masked subtract does it). Exact for inputs in
// [-127, 127]; the K tail uses masked loads instead of a copy.
// GCC 12's avx512fintrin.h builds many intrinsics (unpack, extract, reduce) on a self-initialized
// _mm512_undefined_* value, which -Wmaybe-uninitialized reports inside the header at every use.
// The diagnostic is about the header, not this code, so it is silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include "internal/gemm_i8_driver.h"

namespace heed::kernels::avx512vnni {

namespace {

inline __m512i dot64(__m512i acc, __m512i abs_a, __mmask64 neg_a, __m512i b) {
  const __m512i signed_b = _mm512_mask_sub_epi8(b, neg_a, _mm512_setzero_si512(), b);
  return _mm512_dpbusd_epi32(acc, abs_a, signed_b);
}

// The four horizontal sums at once: interleave-and-add so each 128-bit lane holds partial sums
// of [acc0, acc1, acc2, acc3], then add the four lanes.
inline void hsum4(__m512i acc0, __m512i acc1, __m512i acc2, __m512i acc3, int32_t out[4]) {
  const __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(acc0, acc1), _mm512_unpackhi_epi32(acc0, acc1));
  const __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(acc2, acc3), _mm512_unpackhi_epi32(acc2, acc3));
  const __m512i t = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, t);
  for (int j = 0; j < 4; ++j) out[j] = lanes[j] + lanes[4 + j] + lanes[8 + j] + lanes[12 + j];
}

struct Dot1x4 {
  void operator()(const int8_t* const a[1], const int8_t* const b[4], size_t len,
                  int32_t out[1][4]) const {
    __m512i acc0 = _mm512_setzero_si512(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    size_t k = 0;
    for (; k + 64 <= len; k += 64) {
      const __m512i va = _mm512_loadu_si512(a[0] + k);
      const __m512i abs_a = _mm512_abs_epi8(va);
      const __mmask64 neg = _mm512_movepi8_mask(va);
      acc0 = dot64(acc0, abs_a, neg, _mm512_loadu_si512(b[0] + k));
      acc1 = dot64(acc1, abs_a, neg, _mm512_loadu_si512(b[1] + k));
      acc2 = dot64(acc2, abs_a, neg, _mm512_loadu_si512(b[2] + k));
      acc3 = dot64(acc3, abs_a, neg, _mm512_loadu_si512(b[3] + k));
    }
    if (k < len) {  // masked loads read only the tail bytes (zeros elsewhere)
      const __mmask64 mask = (__mmask64{1} << (len - k)) - 1;
      const __m512i va = _mm512_maskz_loadu_epi8(mask, a[0] + k);
      const __m512i abs_a = _mm512_abs_epi8(va);
      const __mmask64 neg = _mm512_movepi8_mask(va);
      acc0 = dot64(acc0, abs_a, neg, _mm512_maskz_loadu_epi8(mask, b[0] + k));
      acc1 = dot64(acc1, abs_a, neg, _mm512_maskz_loadu_epi8(mask, b[1] + k));
      acc2 = dot64(acc2, abs_a, neg, _mm512_maskz_loadu_epi8(mask, b[2] + k));
      acc3 = dot64(acc3, abs_a, neg, _mm512_maskz_loadu_epi8(mask, b[3] + k));
    }
    hsum4(acc0, acc1, acc2, acc3, out[0]);
  }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) { gemm_i8_blocked<1>(p, Dot1x4{}); }

}  // namespace heed::kernels::avx512vnni
