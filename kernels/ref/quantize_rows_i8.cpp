// Symmetric per-row int8 quantization of activations (dynamic: the scale is computed per call).
#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::ref {

void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq,
                      float* scales) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    int8_t* qr = q + r * ldq;
    float max_abs = 0.0f;
    for (size_t c = 0; c < cols; ++c) max_abs = std::fmax(max_abs, std::fabs(xr[c]));
    const float scale = max_abs / 127.0f;
    scales[r] = scale;
    if (scale == 0.0f) {
      for (size_t c = 0; c < cols; ++c) qr[c] = 0;
      continue;
    }
    // Multiplying by the reciprocal (not dividing) is the specification: SIMD variants do the
    // same, so every variant produces identical bytes.
    const float inv = 127.0f / max_abs;
    for (size_t c = 0; c < cols; ++c) {
      float v = std::round(xr[c] * inv);  // round half away from zero
      // x * (127 / max) can exceed 127 by one rounding step; clamp keeps [-127, 127].
      v = std::fmin(127.0f, std::fmax(-127.0f, v));
      qr[c] = static_cast<int8_t>(v);
    }
  }
}

}  // namespace heed::kernels::ref
