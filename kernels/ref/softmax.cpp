// Softmax over one row, in place. The maximum is subtracted first so exp never overflows; a row
// of -inf (fully masked) would give 0/0, so it is defined here as all zeros instead of NaN.
#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::ref {

void softmax(float* x, size_t n) {
  if (n == 0) return;
  float max = x[0];
  for (size_t i = 1; i < n; ++i) max = std::fmax(max, x[i]);
  if (std::isinf(max) && max < 0.0f) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.0f;
    return;
  }
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  const float inv = 1.0f / sum;
  for (size_t i = 0; i < n; ++i) x[i] *= inv;
}

}  // namespace heed::kernels::ref
