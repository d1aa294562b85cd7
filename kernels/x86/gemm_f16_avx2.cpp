// gemm_f16 for AVX2 + F16C: half-precision weights widened with VCVTPH2PS (exact), then as
// gemm_f32. The K tail goes through a zero-padded copy (there is no masked 16-bit load in AVX2).
#include "x86/avx2_math.h"

#include <cstring>

#include "internal/gemm_epilogue.h"

namespace heed::kernels::avx2 {

namespace {
inline __m256 load_f16(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
}  // namespace

void gemm_f16(const GemmF16Params& p) {
  const size_t body = p.k - p.k % 8;
  const __m256i tmask = tail_mask(p.k % 8);
  for (size_t m = 0; m < p.m; ++m) {
    const float* a = p.a + m * p.lda;
    for (size_t n0 = 0; n0 < p.n; n0 += 4) {
      const size_t nb = p.n - n0 < 4 ? p.n - n0 : 4;
      const uint16_t* b[4];
      for (size_t j = 0; j < 4; ++j) b[j] = p.b + (n0 + (j < nb ? j : nb - 1)) * p.ldb;
      __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
      for (size_t k = 0; k < body; k += 8) {
        const __m256 va = _mm256_loadu_ps(a + k);
        for (int j = 0; j < 4; ++j) acc[j] = _mm256_fmadd_ps(va, load_f16(b[j] + k), acc[j]);
      }
      if (body < p.k) {
        const __m256 va = _mm256_maskload_ps(a + body, tmask);  // zero lanes beyond K
        for (int j = 0; j < 4; ++j) {
          uint16_t tail[8] = {};
          std::memcpy(tail, b[j] + body, (p.k - body) * sizeof(uint16_t));
          acc[j] = _mm256_fmadd_ps(va, load_f16(tail), acc[j]);
        }
      }
      for (size_t j = 0; j < nb; ++j)
        gemm_store(hsum_ps(acc[j]), p.bias, p.activation, p.accumulate, p.c + m * p.ldc + n0 + j, n0 + j);
    }
  }
}

}  // namespace heed::kernels::avx2
