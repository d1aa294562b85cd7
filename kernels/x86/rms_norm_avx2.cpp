// rms_norm for AVX2.
#include "x86/avx2_math.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::avx2 {

void rms_norm(const float* x, size_t rows, size_t n, const float* gamma, float eps, float* y) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    __m256 vq = _mm256_setzero_ps();
    for (size_t i = 0; i < n; i += 8) {
      const __m256 v = load_part(xr + i, n - i);
      vq = _mm256_fmadd_ps(v, v, vq);
    }
    const __m256 vr = _mm256_set1_ps(1.0f / std::sqrt(hsum_ps(vq) / static_cast<float>(n) + eps));
    for (size_t i = 0; i < n; i += 8) {
      __m256 v = _mm256_mul_ps(load_part(xr + i, n - i), vr);
      if (gamma) v = _mm256_mul_ps(v, load_part(gamma + i, n - i));
      store_part(yr + i, v, n - i);
    }
  }
}

}  // namespace heed::kernels::avx2
