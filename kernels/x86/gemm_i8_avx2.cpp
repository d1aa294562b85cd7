// gemm_i8 for AVX2: VPMADDUBSW multiplies unsigned by signed bytes, so A is fed as |a| and B takes
// a's sign (VPSIGNB): |a| * (sign(a) * b) = a * b. Both factors are at most 127 in magnitude (the
// API's range), so a pair of products (<= 2 * 127 * 127 = 32258) never saturates the int16 lanes.
// VPMADDWD by ones then widens the pairs into exact int32 sums.
#include <immintrin.h>

#include <cstring>

#include "internal/gemm_i8_driver.h"

namespace heed::kernels::avx2 {

namespace {

inline __m256i dot32(__m256i acc, __m256i abs_a, __m256i a, __m256i b, __m256i ones) {
  const __m256i prod16 = _mm256_maddubs_epi16(abs_a, _mm256_sign_epi8(b, a));
  return _mm256_add_epi32(acc, _mm256_madd_epi16(prod16, ones));
}

inline int32_t hsum(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

struct Dot1x4 {
  void operator()(const int8_t* const a[1], const int8_t* const b[4], size_t len,
                  int32_t out[1][4]) const {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    size_t k = 0;
    for (; k + 32 <= len; k += 32) {
      const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[0] + k));
      const __m256i abs_a = _mm256_abs_epi8(va);
      acc0 = dot32(acc0, abs_a, va, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[0] + k)), ones);
      acc1 = dot32(acc1, abs_a, va, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[1] + k)), ones);
      acc2 = dot32(acc2, abs_a, va, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[2] + k)), ones);
      acc3 = dot32(acc3, abs_a, va, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[3] + k)), ones);
    }
    if (k < len) {  // the tail, zero-padded to a full vector (zeros add nothing)
      alignas(32) int8_t ta[32] = {}, tb[4][32] = {};
      std::memcpy(ta, a[0] + k, len - k);
      for (int j = 0; j < 4; ++j) std::memcpy(tb[j], b[j] + k, len - k);
      const __m256i va = _mm256_load_si256(reinterpret_cast<const __m256i*>(ta));
      const __m256i abs_a = _mm256_abs_epi8(va);
      acc0 = dot32(acc0, abs_a, va, _mm256_load_si256(reinterpret_cast<const __m256i*>(tb[0])), ones);
      acc1 = dot32(acc1, abs_a, va, _mm256_load_si256(reinterpret_cast<const __m256i*>(tb[1])), ones);
      acc2 = dot32(acc2, abs_a, va, _mm256_load_si256(reinterpret_cast<const __m256i*>(tb[2])), ones);
      acc3 = dot32(acc3, abs_a, va, _mm256_load_si256(reinterpret_cast<const __m256i*>(tb[3])), ones);
    }
    out[0][0] = hsum(acc0);
    out[0][1] = hsum(acc1);
    out[0][2] = hsum(acc2);
    out[0][3] = hsum(acc3);
  }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) { gemm_i8_blocked<1>(p, Dot1x4{}); }

}  // namespace heed::kernels::avx2
