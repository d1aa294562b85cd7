// Fused attention for AVX2: the block path (internal/attention_block_impl.h) with a 6 x 16 FMA
// register tile (12 accumulators, two loads of B and one broadcast of A per k), and the row loop
// (internal/attention_impl.h) over the AVX2 dot, axpy and softmax for the calls blocks do not take.
#include <immintrin.h>

#include "internal/attention_block_impl.h"
#include "internal/variants.h"

namespace heed::kernels::avx2 {

namespace {
struct Avx2Ops {
  static constexpr size_t kTileRows = 6, kTileCols = 16;

  float dot(const float* a, const float* b, size_t n) const { return dot_f32(a, b, n); }
  void axpy(float alpha, const float* x, float* y, size_t n) const { axpy_f32(alpha, x, y, n); }
  void softmax(float* x, size_t n) const { avx2::softmax(x, n); }

  void tile(const float* a, size_t lda, size_t rows, const float* b, size_t ldb, size_t k, float alpha, float* c,
            size_t ldc) const {
    const float* ar[kTileRows];
    for (size_t r = 0; r < kTileRows; ++r) ar[r] = a + (r < rows ? r : rows - 1) * lda;  // extra rows: repeats
    __m256 acc[kTileRows][2];
    for (size_t r = 0; r < kTileRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (size_t i = 0; i < k; ++i) {
      const __m256 b0 = _mm256_loadu_ps(b + i * ldb), b1 = _mm256_loadu_ps(b + i * ldb + 8);
      for (size_t r = 0; r < kTileRows; ++r) {
        const __m256 x = _mm256_broadcast_ss(ar[r] + i);
        acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
      }
    }
    const __m256 s = _mm256_set1_ps(alpha);
    for (size_t r = 0; r < rows; ++r) {
      _mm256_storeu_ps(c + r * ldc, _mm256_mul_ps(acc[r][0], s));
      _mm256_storeu_ps(c + r * ldc + 8, _mm256_mul_ps(acc[r][1], s));
    }
  }
};
}  // namespace

void attention(const AttentionParams& p) { attention_block_impl(p, Avx2Ops{}); }

}  // namespace heed::kernels::avx2
