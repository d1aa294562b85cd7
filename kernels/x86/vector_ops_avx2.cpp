// The small vector kernels for AVX2 (the RNN attentions' scores and contexts; residual adds).
#include "x86/avx2_math.h"

#include "internal/variants.h"
#include "internal/row_tiles.h"

namespace heed::kernels::avx2 {

float dot_f32(const float* a, const float* b, size_t n) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), acc1);
  }
  for (; i < n; i += 8) {
    const __m256i m = tail_mask(n - i < 8 ? n - i : 8);
    acc0 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), acc0);
  }
  return hsum_ps(_mm256_add_ps(acc0, acc1));
}

void axpy_f32(float alpha, const float* x, float* y, size_t n) {
  const __m256 va = _mm256_set1_ps(alpha);
  for (size_t i = 0; i < n; i += 8) {
    store_part(y + i, _mm256_fmadd_ps(va, load_part(x + i, n - i), load_part(y + i, n - i)), n - i);
  }
}

namespace {

// M rows of y (a compile-time count, so the accumulators stay in registers).
template <size_t M>
void axpy_rows_tile(const float* a, size_t lda, size_t count, const float* x, size_t ldx, float* y, size_t ldy,
                    size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    __m256 acc[M];
    for (size_t r = 0; r < M; ++r) acc[r] = load_part(y + r * ldy + i, n - i);
    for (size_t j = 0; j < count; ++j) {
      const __m256 w = load_part(x + j * ldx + i, n - i);
      for (size_t r = 0; r < M; ++r) acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + r * lda + j), w, acc[r]);
    }
    for (size_t r = 0; r < M; ++r) store_part(y + r * ldy + i, acc[r], n - i);
  }
}

}  // namespace

// 8 outputs of 4 rows of y (then the 1-3 left) stay in registers over the rows of x, each loaded
// once for them; one fused multiply-add per row of x and of y.
void axpy_rows_f32(size_t rows, const float* alphas, size_t lda, size_t count, const float* x, size_t ldx, float* y,
                   size_t ldy, size_t n) {
  for_each_row_tile(rows, [&](auto m, size_t r) {
    axpy_rows_tile<decltype(m)::value>(alphas + r * lda, lda, count, x, ldx, y + r * ldy, ldy, n);
  });
}

void add(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; i += 8) store_part(y + i, _mm256_add_ps(load_part(y + i, n - i), load_part(x + i, n - i)), n - i);
}

}  // namespace heed::kernels::avx2
