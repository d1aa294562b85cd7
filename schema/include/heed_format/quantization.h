// What an int8 tensor's quantization means, decided once for the loader, the layers and the
// converter (as ggml's type_traits do for its types): how many scales a tensor has, how many
// scale groups a row has, and which scale serves element (row, col). Sizes are 64-bit so that
// shapes read from a file cannot wrap on 32-bit devices. (The 16x4 packed layout's addresses are
// the kernels' own: heed/kernels.h.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "heed_generated.h"

namespace heed::format {

// Which int8 quantizations the 16x4 packed layout (gemm_i8_packed) can hold: one scale per row or
// per tensor, or per group when the groups are the weight's activation blocks (the same blocks of K
// the activations are quantized in, Tensor.activation_block).
inline bool packable_quantization(fb::Quantization q, uint32_t group_size, uint32_t activation_block) {
  return q == fb::Quantization::PerRow || q == fb::Quantization::PerTensor ||
         (q == fb::Quantization::PerGroup && activation_block != 0 && group_size == activation_block);
}

// Outlier channels of a packed int8 linear weight (Tensor.outlier_channels): at most this many,
// on weights of at most kMaxOutlierInputs inputs (the runtime quantizes each activation row
// from a copy on the stack with those channels set to 0).
constexpr uint32_t kMaxOutlierChannels = 64;
constexpr uint32_t kMaxOutlierInputs = 8192;

// Scale groups in one row of `row_size` values: 1 per-tensor or per-row, ceil(row_size /
// group_size) per-group; 0 when the parameters make no sense (per-group with group size 0, none).
inline uint64_t groups_per_row(fb::Quantization q, uint64_t row_size, uint32_t group_size) {
  switch (q) {
    case fb::Quantization::PerTensor:
    case fb::Quantization::PerRow:
      return 1;
    case fb::Quantization::PerGroup:
      return group_size == 0 ? 0 : (row_size + group_size - 1) / group_size;
    default:
      return 0;
  }
}

// Scales a tensor of `rows` rows needs: 1 per-tensor, rows per-row, rows x groups per-group; 0 when
// the parameters make no sense.
inline uint64_t scale_count(fb::Quantization q, uint64_t rows, uint64_t row_size, uint32_t group_size) {
  if (q == fb::Quantization::PerTensor) return 1;
  return rows * groups_per_row(q, row_size, group_size);
}

// The scale of element (row, col), `groups` = groups_per_row(...).
inline size_t scale_index(fb::Quantization q, size_t row, size_t col, size_t groups, uint32_t group_size) {
  switch (q) {
    case fb::Quantization::PerRow: return row;
    case fb::Quantization::PerGroup: return row * groups + col / group_size;
    default: return 0;
  }
}

}  // namespace heed::format
