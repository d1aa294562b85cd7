// Log-softmax over one row, in place: x - max - log(sum exp(x - max)). Used for beam scores,
// where log(softmax(x)) would lose the small probabilities to underflow.
#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::ref {

void log_softmax(float* x, size_t n) {
  if (n == 0) return;
  float max = x[0];
  for (size_t i = 1; i < n; ++i) max = std::fmax(max, x[i]);
  if (std::isinf(max) && max < 0.0f) return;  // every entry -inf: log-probabilities stay -inf
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) sum += std::exp(x[i] - max);
  const float shift = max + std::log(sum);
  for (size_t i = 0; i < n; ++i) x[i] -= shift;
}

}  // namespace heed::kernels::ref
