// The small vector kernels for AVX2 (the RNN attentions' scores and contexts; residual adds).
#include "x86/avx2_math.h"

#include "internal/variants.h"

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

// y stays in registers over the rows: 8 outputs at a time, one fused multiply-add per row.
void axpy_rows_f32(const float* alphas, size_t count, const float* x, size_t ldx, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    __m256 acc = load_part(y + i, n - i);
    for (size_t j = 0; j < count; ++j) {
      acc = _mm256_fmadd_ps(_mm256_broadcast_ss(alphas + j), load_part(x + j * ldx + i, n - i), acc);
    }
    store_part(y + i, acc, n - i);
  }
}

void add(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; i += 8) store_part(y + i, _mm256_add_ps(load_part(y + i, n - i), load_part(x + i, n - i)), n - i);
}

}  // namespace heed::kernels::avx2
