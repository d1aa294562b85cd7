// softmax for AVX2: vector max, vector exp (avx2_math.h), one reciprocal. Same definition as the
// reference, including the all-masked row (all -inf) -> zeros.
#include "x86/avx2_math.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::avx2 {

void softmax(float* x, size_t n) {
  if (n == 0) return;
  __m256 vmax = _mm256_set1_ps(-__builtin_inff());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + i));
  float max = hmax_ps(vmax);
  for (; i < n; ++i) max = std::fmax(max, x[i]);
  if (std::isinf(max) && max < 0.0f) {
    for (i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  const __m256 vm = _mm256_set1_ps(max);
  __m256 vsum = _mm256_setzero_ps();
  i = 0;
  constexpr size_t kVectors = 4;  // stepped together (HEED_EACH); the sum keeps the one-vector order
  for (; i + 8 * kVectors <= n; i += 8 * kVectors) {
    __m256 e[kVectors];
    HEED_EACH(j, kVectors) e[j] = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8 * j), vm);
    exp_n<kVectors>(e);
    HEED_EACH(j, kVectors) {
      _mm256_storeu_ps(x + i + 8 * j, e[j]);
      vsum = _mm256_add_ps(vsum, e[j]);
    }
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
    _mm256_storeu_ps(x + i, e);
    vsum = _mm256_add_ps(vsum, e);
  }
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_maskload_ps(x + i, mask), vm));
    _mm256_maskstore_ps(x + i, mask, e);
    vsum = _mm256_add_ps(vsum, _mm256_and_ps(e, _mm256_castsi256_ps(mask)));
  }
  const __m256 inv = _mm256_set1_ps(1.0f / hsum_ps(vsum));
  for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), inv));
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    _mm256_maskstore_ps(x + i, mask, _mm256_mul_ps(_mm256_maskload_ps(x + i, mask), inv));
  }
}

}  // namespace heed::kernels::avx2
