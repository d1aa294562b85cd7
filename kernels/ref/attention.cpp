// Fused scaled-dot-product attention, the specification: scores = scale * q . k_j over the visible
// keys, softmax (the reference softmax), out = sum_j p_j v_j, in plain scalar loops, one query row
// at a time (it has no block path: heed/kernels.h).
#include "internal/attention_bf16_layout.h"
#include "internal/attention_block_impl.h"
#include "internal/variants.h"

namespace heed::kernels {

// Room for the float32 block path and the bfloat16 one, whichever variant runs.
size_t attention_block_scratch_floats(size_t kv_len, size_t head_dim) {
  const size_t f32 = attention_block_layout(kv_len, head_dim).floats;
  const size_t bf16 = attention_bf16_layout(kv_len, head_dim).floats;
  return f32 > bf16 ? f32 : bf16;
}

namespace ref {

namespace {
struct ScalarOps {
  float dot(const float* a, const float* b, size_t n) const { return dot_f32(a, b, n); }
  void axpy(float alpha, const float* x, float* y, size_t n) const { axpy_f32(alpha, x, y, n); }
  void softmax(float* x, size_t n) const { ref::softmax(x, n); }
  void scores(const float* q, KvRows k, size_t n, size_t d, float scale, float* s) const {
    attention_scores_by_dot(*this, q, k, n, d, scale, s);
  }
  void weighted_sum(const float* s, KvRows v, size_t n, size_t d, float* out) const {
    attention_sum_by_axpy(*this, s, v, n, d, out);
  }
};
}  // namespace

void attention(const AttentionParams& p) { attention_impl(p, ScalarOps{}); }

}  // namespace ref
}  // namespace heed::kernels
