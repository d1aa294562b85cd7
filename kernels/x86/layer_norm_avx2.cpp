// layer_norm for AVX2: the reference's two passes (mean, then centred variance) with 8 lanes and
// four accumulators.
#include "x86/avx2_math.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::avx2 {

void layer_norm(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                float eps, float* y) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    const __m256i tmask = tail_mask(n % 8);
    const size_t body = n - n % 8, body4 = n - n % 32;
    // Four accumulators: one add (or FMA) chain per vector made each row wait on its latency.
    __m256 vs[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t i = 0; i < body4; i += 32) {
      HEED_EACH(j, 4) vs[j] = _mm256_add_ps(vs[j], _mm256_loadu_ps(xr + i + 8 * j));
    }
    for (size_t i = body4; i < body; i += 8) vs[0] = _mm256_add_ps(vs[0], _mm256_loadu_ps(xr + i));
    if (body < n) vs[0] = _mm256_add_ps(vs[0], _mm256_maskload_ps(xr + body, tmask));
    const float mean = hsum_ps(_mm256_add_ps(_mm256_add_ps(vs[0], vs[1]), _mm256_add_ps(vs[2], vs[3]))) /
                       static_cast<float>(n);
    const __m256 vmean = _mm256_set1_ps(mean);
    __m256 vq[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t i = 0; i < body4; i += 32) {
      HEED_EACH(j, 4) {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(xr + i + 8 * j), vmean);
        vq[j] = _mm256_fmadd_ps(d, d, vq[j]);
      }
    }
    for (size_t i = body4; i < body; i += 8) {
      const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(xr + i), vmean);
      vq[0] = _mm256_fmadd_ps(d, d, vq[0]);
    }
    if (body < n) {
      const __m256 d = _mm256_and_ps(_mm256_sub_ps(_mm256_maskload_ps(xr + body, tmask), vmean),
                                     _mm256_castsi256_ps(tmask));
      vq[0] = _mm256_fmadd_ps(d, d, vq[0]);
    }
    const float sq = hsum_ps(_mm256_add_ps(_mm256_add_ps(vq[0], vq[1]), _mm256_add_ps(vq[2], vq[3])));
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    const __m256 vr = _mm256_set1_ps(rstd);
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    for (size_t i = 0; i < n; i += 8) {
      __m256 v = _mm256_mul_ps(_mm256_sub_ps(load_part(xr + i, n - i), vmean), vr);
      v = _mm256_mul_ps(v, gamma ? load_part(gamma + i, n - i) : one);
      v = _mm256_add_ps(v, beta ? load_part(beta + i, n - i) : zero);
      store_part(yr + i, v, n - i);
    }
  }
}

}  // namespace heed::kernels::avx2
