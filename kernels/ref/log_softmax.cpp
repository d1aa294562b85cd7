// Log-softmax over one row, in place: x - max - log(sum exp(x - max)). Used for beam scores,
// where log(softmax(x)) would lose the small probabilities to underflow.
#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::ref {

float log_sum_exp(const float* x, size_t n) {
  if (n == 0) return -INFINITY;
  float max = x[0];
  for (size_t i = 1; i < n; ++i) max = std::fmax(max, x[i]);
  if (std::isinf(max) && max < 0.0f) return max;  // every entry -inf
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) sum += std::exp(x[i] - max);
  return max + std::log(sum);
}

void log_softmax(float* x, size_t n) {
  const float shift = log_sum_exp(x, n);
  if (shift == -INFINITY) return;  // nothing to normalize: log-probabilities stay -inf
  for (size_t i = 0; i < n; ++i) x[i] -= shift;
}

}  // namespace heed::kernels::ref
