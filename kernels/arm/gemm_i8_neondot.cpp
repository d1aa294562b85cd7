// gemm_i8 for aarch64 with the dot-product extension (Cortex-A55/A76+): SDOT adds four signed
// byte products into each int32 lane, 16 bytes per instruction. Signed x signed, so exact for
// every int8 value.
#include <arm_neon.h>

#include <cstring>

#include "internal/gemm_i8_driver.h"

namespace heed::kernels::neondot {

namespace {

struct Dot1x4 {
  void operator()(const int8_t* const a[1], const int8_t* const b[4], size_t len,
                  int32_t out[1][4]) const {
    int32x4_t acc0 = vdupq_n_s32(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    size_t k = 0;
    for (; k + 16 <= len; k += 16) {
      const int8x16_t va = vld1q_s8(a[0] + k);
      acc0 = vdotq_s32(acc0, va, vld1q_s8(b[0] + k));
      acc1 = vdotq_s32(acc1, va, vld1q_s8(b[1] + k));
      acc2 = vdotq_s32(acc2, va, vld1q_s8(b[2] + k));
      acc3 = vdotq_s32(acc3, va, vld1q_s8(b[3] + k));
    }
    if (k < len) {
      int8_t ta[16] = {}, tb[4][16] = {};
      std::memcpy(ta, a[0] + k, len - k);
      for (int j = 0; j < 4; ++j) std::memcpy(tb[j], b[j] + k, len - k);
      const int8x16_t va = vld1q_s8(ta);
      acc0 = vdotq_s32(acc0, va, vld1q_s8(tb[0]));
      acc1 = vdotq_s32(acc1, va, vld1q_s8(tb[1]));
      acc2 = vdotq_s32(acc2, va, vld1q_s8(tb[2]));
      acc3 = vdotq_s32(acc3, va, vld1q_s8(tb[3]));
    }
    out[0][0] = vaddvq_s32(acc0);
    out[0][1] = vaddvq_s32(acc1);
    out[0][2] = vaddvq_s32(acc2);
    out[0][3] = vaddvq_s32(acc3);
  }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) { gemm_i8_blocked<1>(p, Dot1x4{}); }

}  // namespace heed::kernels::neondot
