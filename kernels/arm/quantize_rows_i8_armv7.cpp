// quantize_rows_i8 for 32-bit ARM NEON. ARMv7 NEON has no round-to-nearest conversion, so
// round-half-away-from-zero is built from truncation: x - trunc(x) is exact, and comparing its
// magnitude with 0.5 decides ties exactly. The row maximum is taken in scalar VFP code because
// ARMv7 NEON flushes subnormals to zero and must not change the scale the reference computes.
#include <arm_neon.h>

#include <cmath>

#include "internal/quantize_row.h"
#include "internal/variants.h"

namespace heed::kernels::armv7 {

void quantize_rows_i8(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q, size_t ldq,
                      float* scales) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * ldx;
    int8_t* qr = q + r * ldq;
    float inv = 0.0f;
    if (!quantize_row_scale(xr, cols, qr, &scales[r], &inv)) continue;
    const int32x4_t lo = vdupq_n_s32(-127), hi = vdupq_n_s32(127);
    const float32x4_t half = vdupq_n_f32(0.5f);
    size_t c = 0;
    for (; c + 8 <= cols; c += 8) {
      int32x4_t out[2];
      for (int h = 0; h < 2; ++h) {
        const float32x4_t v = vmulq_n_f32(vld1q_f32(xr + c + 4 * h), inv);
        const int32x4_t t = vcvtq_s32_f32(v);  // truncates toward zero
        const float32x4_t frac = vabsq_f32(vsubq_f32(v, vcvtq_f32_s32(t)));
        // +1 or -1 (the sign of v) where |frac| >= 0.5: mask is all ones (-1) there.
        const int32x4_t need = vreinterpretq_s32_u32(vcgeq_f32(frac, half));
        const int32x4_t neg = vreinterpretq_s32_u32(vcltq_f32(v, vdupq_n_f32(0.0f)));
        const int32x4_t step = vbslq_s32(vreinterpretq_u32_s32(neg), vdupq_n_s32(-1), vdupq_n_s32(1));
        out[h] = vminq_s32(hi, vmaxq_s32(lo, vaddq_s32(t, vandq_s32(need, step))));
      }
      vst1_s8(qr + c, vmovn_s16(vcombine_s16(vmovn_s32(out[0]), vmovn_s32(out[1]))));
    }
    quantize_row_values(xr, c, cols, inv, qr);
  }
}

}  // namespace heed::kernels::armv7
