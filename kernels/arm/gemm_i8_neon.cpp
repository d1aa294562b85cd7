// gemm_i8 for NEON without SDOT (aarch64 Cortex-A53/A72, and 32-bit ARM: a Raspberry Pi on a 32-bit
// OS): SMULL/SMULL2 (VMULL.S8) form exact int16 products of 8 byte pairs, SADALP (VPADAL.S16) adds
// neighbouring products into int32 lanes. Each product goes to SADALP on its own (never two summed
// in int16), so even -128 * -128 inputs stay exact.
#include "arm/neon_shim.h"

#include <cstring>

#include "internal/gemm_i8_driver.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {

inline int32x4_t dot16(int32x4_t acc, int8x16_t a, int8x16_t b) {
  acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
  return vpadalq_s16(acc, mull_high_s8(a, b));
}

struct Dot1x4 {
  void operator()(const int8_t* const a[1], const int8_t* const b[4], size_t len,
                  int32_t out[1][4]) const {
    int32x4_t acc0 = vdupq_n_s32(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    size_t k = 0;
    for (; k + 16 <= len; k += 16) {
      const int8x16_t va = vld1q_s8(a[0] + k);
      acc0 = dot16(acc0, va, vld1q_s8(b[0] + k));
      acc1 = dot16(acc1, va, vld1q_s8(b[1] + k));
      acc2 = dot16(acc2, va, vld1q_s8(b[2] + k));
      acc3 = dot16(acc3, va, vld1q_s8(b[3] + k));
    }
    if (k < len) {  // tail zero-padded to 16 bytes
      int8_t ta[16] = {}, tb[4][16] = {};
      std::memcpy(ta, a[0] + k, len - k);
      for (int j = 0; j < 4; ++j) std::memcpy(tb[j], b[j] + k, len - k);
      const int8x16_t va = vld1q_s8(ta);
      acc0 = dot16(acc0, va, vld1q_s8(tb[0]));
      acc1 = dot16(acc1, va, vld1q_s8(tb[1]));
      acc2 = dot16(acc2, va, vld1q_s8(tb[2]));
      acc3 = dot16(acc3, va, vld1q_s8(tb[3]));
    }
    out[0][0] = hsum_s32x4(acc0);
    out[0][1] = hsum_s32x4(acc1);
    out[0][2] = hsum_s32x4(acc2);
    out[0][3] = hsum_s32x4(acc3);
  }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) { gemm_i8_blocked<1>(p, Dot1x4{}); }

}  // namespace heed::kernels::HEED_NEON_VARIANT
