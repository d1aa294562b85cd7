// quantize_rows_i8 for aarch64 NEON, bit-identical to the reference: FCVTAS converts with
// round-to-nearest, ties away from zero, which is exactly std::round.
#include <arm_neon.h>

#include <cmath>

#include "internal/variants.h"

namespace heed::kernels::neon {

void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq,
                      float* scales) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    int8_t* qr = q + r * ldq;
    float32x4_t vmax = vdupq_n_f32(0.0f);
    size_t c = 0;
    for (; c + 4 <= cols; c += 4) vmax = vmaxq_f32(vmax, vabsq_f32(vld1q_f32(xr + c)));
    float max_abs = vmaxvq_f32(vmax);
    for (; c < cols; ++c) max_abs = std::fmax(max_abs, std::fabs(xr[c]));

    const float scale = max_abs / 127.0f;
    scales[r] = scale;
    if (scale == 0.0f) {
      for (c = 0; c < cols; ++c) qr[c] = 0;
      continue;
    }
    const float inv = 127.0f / max_abs;
    const int32x4_t lo = vdupq_n_s32(-127), hi = vdupq_n_s32(127);
    for (c = 0; c + 8 <= cols; c += 8) {
      int32x4_t i0 = vcvtaq_s32_f32(vmulq_n_f32(vld1q_f32(xr + c), inv));
      int32x4_t i1 = vcvtaq_s32_f32(vmulq_n_f32(vld1q_f32(xr + c + 4), inv));
      i0 = vminq_s32(hi, vmaxq_s32(lo, i0));
      i1 = vminq_s32(hi, vmaxq_s32(lo, i1));
      const int16x8_t i16 = vcombine_s16(vmovn_s32(i0), vmovn_s32(i1));
      vst1_s8(qr + c, vmovn_s16(i16));
    }
    for (; c < cols; ++c) {
      const float v = std::fmin(127.0f, std::fmax(-127.0f, std::round(xr[c] * inv)));
      qr[c] = static_cast<int8_t>(v);
    }
  }
}

}  // namespace heed::kernels::neon
