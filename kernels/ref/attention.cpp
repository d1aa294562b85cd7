// Fused scaled-dot-product attention, the specification: scores = scale * q . k_j over the visible
// keys, softmax (the reference softmax), out = sum_j p_j v_j, in plain scalar loops.
#include "internal/attention_impl.h"
#include "internal/variants.h"

namespace heed::kernels::ref {

namespace {
struct ScalarOps {
  float dot(const float* a, const float* b, size_t n) const { return dot_f32(a, b, n); }
  void axpy(float alpha, const float* x, float* y, size_t n) const { axpy_f32(alpha, x, y, n); }
  void softmax(float* x, size_t n) const { ref::softmax(x, n); }
};
}  // namespace

void attention(const AttentionParams& p) { attention_impl(p, ScalarOps{}); }

}  // namespace heed::kernels::ref
