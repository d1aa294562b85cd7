// log_sum_exp and log_softmax for AVX2: max + log(sum exp(x - max)), vector exp for the sum.
#include "x86/avx2_math.h"

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::avx2 {

float log_sum_exp(const float* x, size_t n) {
  if (n == 0) return -__builtin_inff();
  const float max = row_max(x, n);
  if (std::isinf(max) && max < 0.0f) return max;
  return max + std::log(exp_sum<false>(x, n, max));
}

void log_softmax(float* x, size_t n) {
  const float value = log_sum_exp(x, n);
  if (value == -__builtin_inff()) return;
  const __m256 shift = _mm256_set1_ps(value);
  for (size_t i = 0; i < n; i += 8) store_part(x + i, _mm256_sub_ps(load_part(x + i, n - i), shift), n - i);
}

}  // namespace heed::kernels::avx2
