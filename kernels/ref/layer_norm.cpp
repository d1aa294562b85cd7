// Layer normalization over each row (two passes: mean, then variance of the centred values,
// which stays accurate when the mean is large compared with the spread).
#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::ref {

void layer_norm(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                float eps, float* y) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) sum += xr[i];
    const float mean = sum / static_cast<float>(n);
    float sq = 0.0f;
    for (size_t i = 0; i < n; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    for (size_t i = 0; i < n; ++i) {
      float v = (xr[i] - mean) * rstd;
      if (gamma != nullptr) v *= gamma[i];
      if (beta != nullptr) v += beta[i];
      yr[i] = v;
    }
  }
}

}  // namespace heed::kernels::ref
