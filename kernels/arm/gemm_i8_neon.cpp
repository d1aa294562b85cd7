// gemm_i8 for NEON without SDOT (aarch64 Cortex-A53/A72, and 32-bit ARM: a Raspberry Pi on a 32-bit
// OS): SMULL/SMULL2 (VMULL.S8) form exact int16 products of 8 byte pairs, SADALP (VPADAL.S16) adds
// neighbouring products into int32 lanes. Each product goes to SADALP on its own (never two summed
// in int16), so even -128 * -128 inputs stay exact. The loop is arm/gemm_i8_dot1x4.h's.
#include "arm/neon_shim.h"

#include "arm/gemm_i8_dot1x4.h"
#include "internal/gemm_i8_driver.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {

struct PairwiseDot {
  static int32x4_t dot16(int32x4_t acc, int8x16_t a, int8x16_t b) {
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
    return vpadalq_s16(acc, mull_high_s8(a, b));
  }
  static int32_t hsum(int32x4_t acc) { return hsum_s32x4(acc); }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) { gemm_i8_blocked<1>(p, GemmI8Dot1x4<PairwiseDot>{}); }

}  // namespace heed::kernels::HEED_NEON_VARIANT
