// gemm_f16 for aarch64 NEON: half-precision weights widened with FCVTL (vcvt_f32_f16, exact) in the
// shared float loop (arm/gemm_float_neon.h).
#include "arm/gemm_float_neon.h"

namespace heed::kernels::neon {

namespace {
struct HalfWeights {
  float32x4_t load(const uint16_t* p) const { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
  float one(uint16_t x) const { return ref::f16_bits_to_f32(x); }
};
}  // namespace

void gemm_f16(const GemmF16Params& p) { gemm_float_rows(p, HalfWeights{}); }

}  // namespace heed::kernels::neon
