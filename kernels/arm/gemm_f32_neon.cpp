// gemm_f32 for NEON (armv7 and aarch64): the shared float loop (arm/gemm_float_neon.h) over float
// weights.
#include "arm/gemm_float_neon.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {
struct FloatWeights {
  float32x4_t load(const float* p) const { return vld1q_f32(p); }
  float one(float x) const { return x; }
};
}  // namespace

void gemm_f32(const GemmF32Params& p) { gemm_float_rows(p, FloatWeights{}); }

}  // namespace heed::kernels::HEED_NEON_VARIANT
