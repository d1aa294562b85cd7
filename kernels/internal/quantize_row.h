// The scalar parts of quantize_rows_i8 that every variant shares with the reference: the row's
// scale and the quantization of single values. Static (see internal/gemm_epilogue.h).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace heed::kernels {

// scale = max|x| / 127 (computed in scalar code, so a variant whose vector unit flushes subnormals
// still gets the reference's scale) and inv = 127 / max|x|. An all-zero row gets scale 0, zeros in
// qr and false. quantize_scale_from_max: the same from a max |x| found elsewhere (in vectors).
static inline bool quantize_scale_from_max(float max_abs, size_t cols, int8_t* qr, float* scale, float* inv) {
  *scale = max_abs / 127.0f;
  if (*scale == 0.0f) {
    for (size_t c = 0; c < cols; ++c) qr[c] = 0;
    return false;
  }
  // Multiplying by the reciprocal (not dividing) is the specification: SIMD variants do the
  // same, so every variant produces identical bytes.
  *inv = 127.0f / max_abs;
  return true;
}

static inline bool quantize_row_scale(const float* xr, size_t cols, int8_t* qr, float* scale, float* inv) {
  float max_abs = 0.0f;
  for (size_t c = 0; c < cols; ++c) max_abs = std::fmax(max_abs, std::fabs(xr[c]));
  return quantize_scale_from_max(max_abs, cols, qr, scale, inv);
}

// qr[c] for c in [from, cols): round half away from zero, clamped to [-127, 127] (x * (127 / max)
// can exceed 127 by one rounding step).
static inline void quantize_row_values(const float* xr, size_t from, size_t cols, float inv, int8_t* qr) {
  for (size_t c = from; c < cols; ++c) {
    const float v = std::fmin(127.0f, std::fmax(-127.0f, std::round(xr[c] * inv)));
    qr[c] = static_cast<int8_t>(v);
  }
}

}  // namespace heed::kernels
