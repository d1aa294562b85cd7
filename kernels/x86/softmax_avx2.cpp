// softmax for AVX2: vector max, vector exp (avx2_math.h), one reciprocal. Same definition as the
// reference, including the all-masked row (all -inf) -> zeros.
#include "x86/avx2_math.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::avx2 {

void softmax(float* x, size_t n) {
  if (n == 0) return;
  const float max = row_max(x, n);
  if (std::isinf(max) && max < 0.0f) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  const __m256 inv = _mm256_set1_ps(1.0f / exp_sum<true>(x, n, max));
  for (size_t i = 0; i < n; i += 8) store_part(x + i, _mm256_mul_ps(load_part(x + i, n - i), inv), n - i);
}

}  // namespace heed::kernels::avx2
