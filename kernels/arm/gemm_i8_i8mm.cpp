// gemm_i8 for aarch64 with the int8 matrix-multiply extension (Armv8.6: Cortex-A510/A710/X2+):
// SMMLA multiplies a 2x8 block of A by a 2x8 block of B (both row-major, 16 bytes each) into a
// 2x2 int32 block, so the micro-kernel takes two rows of A and four of B: twice the work per
// instruction of SDOT. Signed x signed: exact for every int8 value.
#include <arm_neon.h>

#include <cstring>

#include "internal/gemm_i8_driver.h"

namespace heed::kernels::i8mm {

namespace {

struct Dot2x4 {
  void operator()(const int8_t* const a[2], const int8_t* const b[4], size_t len,
                  int32_t out[2][4]) const {
    // acc01 = [a0.b0, a0.b1, a1.b0, a1.b1], acc23 likewise with b2, b3.
    int32x4_t acc01 = vdupq_n_s32(0), acc23 = acc01;
    size_t k = 0;
    if (len >= 16) {
      // 16 k at a time: one 16-byte load per row, ZIP1 / ZIP2 on 64-bit lanes pair the rows' k
      // 0-7 and k 8-15 into SMMLA operands (no 64-bit loads and inserts). The k 8-15 products go
      // to their own accumulators, so four SMMLA chains run side by side.
      int32x4_t hi01 = vdupq_n_s32(0), hi23 = hi01;
      for (; k + 16 <= len; k += 16) {
        const int64x2_t a0 = vreinterpretq_s64_s8(vld1q_s8(a[0] + k));
        const int64x2_t a1 = vreinterpretq_s64_s8(vld1q_s8(a[1] + k));
        const int64x2_t b0 = vreinterpretq_s64_s8(vld1q_s8(b[0] + k));
        const int64x2_t b1 = vreinterpretq_s64_s8(vld1q_s8(b[1] + k));
        const int64x2_t b2 = vreinterpretq_s64_s8(vld1q_s8(b[2] + k));
        const int64x2_t b3 = vreinterpretq_s64_s8(vld1q_s8(b[3] + k));
        const int8x16_t va_lo = vreinterpretq_s8_s64(vzip1q_s64(a0, a1));
        const int8x16_t va_hi = vreinterpretq_s8_s64(vzip2q_s64(a0, a1));
        acc01 = vmmlaq_s32(acc01, va_lo, vreinterpretq_s8_s64(vzip1q_s64(b0, b1)));
        acc23 = vmmlaq_s32(acc23, va_lo, vreinterpretq_s8_s64(vzip1q_s64(b2, b3)));
        hi01 = vmmlaq_s32(hi01, va_hi, vreinterpretq_s8_s64(vzip2q_s64(b0, b1)));
        hi23 = vmmlaq_s32(hi23, va_hi, vreinterpretq_s8_s64(vzip2q_s64(b2, b3)));
      }
      acc01 = vaddq_s32(acc01, hi01);
      acc23 = vaddq_s32(acc23, hi23);
    }
    if (k + 8 <= len) {  // 8 of the last 15 k
      const int8x16_t va = vcombine_s8(vld1_s8(a[0] + k), vld1_s8(a[1] + k));
      acc01 = vmmlaq_s32(acc01, va, vcombine_s8(vld1_s8(b[0] + k), vld1_s8(b[1] + k)));
      acc23 = vmmlaq_s32(acc23, va, vcombine_s8(vld1_s8(b[2] + k), vld1_s8(b[3] + k)));
      k += 8;
    }
    if (k < len) {  // tail zero-padded to 8 bytes per row
      int8_t ta[2][8] = {}, tb[4][8] = {};
      for (int i = 0; i < 2; ++i) std::memcpy(ta[i], a[i] + k, len - k);
      for (int j = 0; j < 4; ++j) std::memcpy(tb[j], b[j] + k, len - k);
      const int8x16_t va = vcombine_s8(vld1_s8(ta[0]), vld1_s8(ta[1]));
      acc01 = vmmlaq_s32(acc01, va, vcombine_s8(vld1_s8(tb[0]), vld1_s8(tb[1])));
      acc23 = vmmlaq_s32(acc23, va, vcombine_s8(vld1_s8(tb[2]), vld1_s8(tb[3])));
    }
    out[0][0] = vgetq_lane_s32(acc01, 0);
    out[0][1] = vgetq_lane_s32(acc01, 1);
    out[1][0] = vgetq_lane_s32(acc01, 2);
    out[1][1] = vgetq_lane_s32(acc01, 3);
    out[0][2] = vgetq_lane_s32(acc23, 0);
    out[0][3] = vgetq_lane_s32(acc23, 1);
    out[1][2] = vgetq_lane_s32(acc23, 2);
    out[1][3] = vgetq_lane_s32(acc23, 3);
  }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) { gemm_i8_blocked<2>(p, Dot2x4{}); }

}  // namespace heed::kernels::i8mm
