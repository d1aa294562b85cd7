// Symmetric per-row int8 quantization of activations (dynamic: the scale is computed per call).
#include <cmath>

#include "internal/quantize_row.h"
#include "internal/variants.h"

namespace heed::kernels::ref {

void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq,
                      float* scales) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    int8_t* qr = q + r * ldq;
    float inv = 0.0f;
    if (quantize_row_scale(xr, cols, qr, &scales[r], &inv)) quantize_row_values(xr, 0, cols, inv, qr);
  }
}

}  // namespace heed::kernels::ref
