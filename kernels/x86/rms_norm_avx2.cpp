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
    const __m256i tmask = tail_mask(n % 8);
    __m256 vq = _mm256_setzero_ps();
    for (size_t i = 0; i < n; i += 8) {
      const __m256 v = _mm256_maskload_ps(xr + i, i + 8 <= n ? _mm256_set1_epi32(-1) : tmask);
      vq = _mm256_fmadd_ps(v, v, vq);
    }
    const __m256 vr = _mm256_set1_ps(1.0f / std::sqrt(hsum_ps(vq) / static_cast<float>(n) + eps));
    for (size_t i = 0; i < n; i += 8) {
      const __m256i m = i + 8 <= n ? _mm256_set1_epi32(-1) : tmask;
      __m256 v = _mm256_mul_ps(_mm256_maskload_ps(xr + i, m), vr);
      if (gamma) v = _mm256_mul_ps(v, _mm256_maskload_ps(gamma + i, m));
      _mm256_maskstore_ps(yr + i, m, v);
    }
  }
}

}  // namespace heed::kernels::avx2
