#include "layers/attention.h"

namespace heed::layers {

// One query over one head's keys and values: the kernels' fused attention slot with a single row
// and head (the SIMD variants' register-tiled row path, kernels/internal/attention_row_impl.h).
void attend(const kernels::KernelTable& k, const AttentionInput& in, float* scores, float* out) {
  kernels::AttentionParams p;
  p.q_rows = 1;
  p.kv_len = in.length;
  p.num_heads = p.num_kv_heads = 1;
  p.head_dim = in.head_dim;
  p.q = in.query;
  p.k = in.keys;
  p.k_row_stride = in.key_stride;
  p.v = in.values;
  p.v_row_stride = in.value_stride;
  p.kv_offsets = in.offsets;
  p.out = out;
  p.scale = in.scale;
  p.scores = scores;
  k.attention(p);
}

void prefetch_keys_values(const AttentionInput& in) {
  constexpr size_t kLineFloats = 64 / sizeof(float);
  for (size_t j = 0; j < in.length; ++j) {
    const size_t key = in.offsets != nullptr ? in.offsets[j] : j * in.key_stride;
    const size_t value = in.offsets != nullptr ? in.offsets[j] : j * in.value_stride;
    for (size_t c = 0; c < in.head_dim; c += kLineFloats) {
      __builtin_prefetch(in.keys + key + c);
      __builtin_prefetch(in.values + value + c);
    }
  }
}

}  // namespace heed::layers
