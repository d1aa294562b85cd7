// Fused attention for aarch64 NEON: the shared loop (internal/attention_impl.h) over the NEON dot,
// axpy and softmax.
#include "internal/attention_impl.h"
#include "internal/variants.h"

namespace heed::kernels::neon {

namespace {
struct NeonOps {
  float dot(const float* a, const float* b, size_t n) const { return dot_f32(a, b, n); }
  void axpy(float alpha, const float* x, float* y, size_t n) const { axpy_f32(alpha, x, y, n); }
  void softmax(float* x, size_t n) const { neon::softmax(x, n); }
};
}  // namespace

void attention(const AttentionParams& p) { attention_impl(p, NeonOps{}); }

}  // namespace heed::kernels::neon
