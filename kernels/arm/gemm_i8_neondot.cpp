// gemm_i8 for aarch64 with the dot-product extension (Cortex-A55/A76+): SDOT adds four signed
// byte products into each int32 lane, 16 bytes per instruction. Signed x signed, so exact for
// every int8 value. The loop is arm/gemm_i8_dot1x4.h's.
#include <arm_neon.h>

#include "arm/gemm_i8_dot1x4.h"
#include "internal/gemm_i8_driver.h"

namespace heed::kernels::neondot {

namespace {

struct SdotDot {
  static int32x4_t dot16(int32x4_t acc, int8x16_t a, int8x16_t b) { return vdotq_s32(acc, a, b); }
  static int32_t hsum(int32x4_t acc) { return vaddvq_s32(acc); }
};

}  // namespace

void gemm_i8(const GemmI8Params& p) { gemm_i8_blocked<1>(p, GemmI8Dot1x4<SdotDot>{}); }

}  // namespace heed::kernels::neondot
