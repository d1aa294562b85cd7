// Float dot product (attention scores against the K cache).
#include "internal/variants.h"

namespace heed::kernels::ref {

float dot_f32(const float* a, const float* b, size_t n) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace heed::kernels::ref
