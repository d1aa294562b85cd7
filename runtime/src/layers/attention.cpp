#include "layers/attention.h"

namespace heed::layers {

void attend(const kernels::KernelTable& k, const AttentionInput& in, float* scores, float* out) {
  for (size_t i = 0; i < in.head_dim; ++i) out[i] = 0.0f;
  if (in.length == 0) return;
  for (size_t j = 0; j < in.length; ++j) {
    scores[j] = k.dot_f32(in.query, in.keys + j * in.key_stride, in.head_dim) * in.scale;
  }
  k.softmax(scores, in.length);
  for (size_t j = 0; j < in.length; ++j) {
    k.axpy_f32(scores[j], in.values + j * in.value_stride, out, in.head_dim);
  }
}

}  // namespace heed::layers
