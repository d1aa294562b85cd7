#include "layers/attention.h"

namespace heed::layers {

// The kernels' fused attention slot with one head and the rows kept on its row path, so each
// row's result is that of the row alone (kernels/internal/attention_row_impl.h).
void attend(const kernels::KernelTable& k, const AttentionInput& in, float* scores, size_t scores_floats, float* out,
            size_t out_stride) {
  kernels::AttentionParams p;
  p.q_rows = in.rows;
  p.kv_len = in.length;
  p.num_heads = p.num_kv_heads = 1;
  p.head_dim = in.head_dim;
  p.q = in.query;
  p.q_row_stride = in.query_stride;
  p.k = in.keys;
  p.k_row_stride = in.key_stride;
  p.v = in.values;
  p.v_row_stride = in.value_stride;
  p.kv_offsets = in.offsets;
  p.kv_offsets_row_stride = in.offsets_stride;
  p.out = out;
  p.out_row_stride = out_stride;
  p.scale = in.scale;
  p.scores = scores;
  p.scores_floats = scores_floats;
  p.row_by_row = true;
  k.attention(p);
}

void prefetch_keys_values(const AttentionInput& in) {
  constexpr size_t kLineFloats = 64 / sizeof(float);
  const size_t rows = in.offsets != nullptr ? in.rows : 1;  // without tables the rows share their keys
  for (size_t i = 0; i < rows; ++i) {
    const size_t* offsets = in.offsets != nullptr ? in.offsets + i * in.offsets_stride : nullptr;
    for (size_t j = 0; j < in.length; ++j) {
      const size_t key = offsets != nullptr ? offsets[j] : j * in.key_stride;
      const size_t value = offsets != nullptr ? offsets[j] : j * in.value_stride;
      for (size_t c = 0; c < in.head_dim; c += kLineFloats) {
        __builtin_prefetch(in.keys + key + c);
        __builtin_prefetch(in.values + value + c);
      }
    }
  }
}

}  // namespace heed::layers
