// y += x: residual connections.
#include "internal/variants.h"

namespace heed::kernels::ref {

void add(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace heed::kernels::ref
