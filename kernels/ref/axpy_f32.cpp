// y += alpha * x (attention-weighted sum of the V cache).
#include "internal/variants.h"

namespace heed::kernels::ref {

void axpy_f32(float alpha, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

}  // namespace heed::kernels::ref
