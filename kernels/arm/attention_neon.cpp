// Fused attention for NEON (armv7 and aarch64): the shared loop (internal/attention_impl.h) over
// the target's own dot, axpy and softmax.
#include "arm/neon_shim.h"
#include "internal/attention_impl.h"
#include "internal/variants.h"

namespace heed::kernels::HEED_NEON_VARIANT {

namespace {
struct NeonOps {
  float dot(const float* a, const float* b, size_t n) const { return dot_f32(a, b, n); }
  void axpy(float alpha, const float* x, float* y, size_t n) const { axpy_f32(alpha, x, y, n); }
  void softmax(float* x, size_t n) const { HEED_NEON_VARIANT::softmax(x, n); }
};
}  // namespace

void attention(const AttentionParams& p) { attention_impl(p, NeonOps{}); }

}  // namespace heed::kernels::HEED_NEON_VARIANT
