// RMS normalization (LLaMA-style decoders): no centring, no bias.
#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::ref {

void rms_norm(const float* x, size_t rows, size_t n, const float* gamma, float eps, float* y) {
  if (n == 0) return;
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    float sq = 0.0f;
    for (size_t i = 0; i < n; ++i) sq += xr[i] * xr[i];
    const float rms_inv = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    for (size_t i = 0; i < n; ++i) {
      float v = xr[i] * rms_inv;
      if (gamma != nullptr) v *= gamma[i];
      yr[i] = v;
    }
  }
}

}  // namespace heed::kernels::ref
