// Linear::gather_rows: a layer of some of another layer's output rows, in the same format, for
// the vocabulary shortlist (models/vocab_shortlist.h). Its bytes live in caller storage (the
// session arena), so gathering allocates nothing.
#include <cstring>

#include "heed_format/quantization.h"
#include "layers/linear.h"
#include "loader/model_index.h"

namespace heed::layers {

namespace {

size_t align64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// Where each part of a gathered layer of `rows` output rows goes in its storage, and its size.
struct GatheredParts {
  size_t weights = 0, scales = 0, row_sums = 0, bias = 0, outliers = 0, lanes = 0, total = 0;
};

// Scales per output row: per-row/per-tensor 1, per-group (row-major) or per-block (packed) more.
size_t scales_per_row(fb::DType dtype, size_t group_size, size_t in) {
  if (dtype != fb::DType::I8) return 0;
  return group_size == 0 ? 1 : format::groups_per_row(fb::Quantization::PerGroup, in, group_size);
}

GatheredParts gathered_parts(fb::DType dtype, bool packed, size_t group_size, size_t a_block, bool bias,
                             size_t outliers, size_t rows, size_t in) {
  GatheredParts p;
  size_t at = 0;
  const auto take = [&at](size_t bytes) {
    const size_t offset = at;
    at += align64(bytes);
    return offset;
  };
  p.weights = take(packed ? kernels::packed_i8_16x4_bytes(rows, in) : rows * in * dtype_size(dtype));
  p.scales = take(rows * scales_per_row(dtype, group_size, in) * sizeof(float));
  p.row_sums = take(packed ? rows * sizeof(int32_t) : 0);
  p.bias = take(bias ? rows * sizeof(float) : 0);
  p.outliers = take(outliers * rows * sizeof(float));
  p.lanes = take(a_block != 0 ? kernels::block_lanes_count(rows, in, a_block) * sizeof(kernels::BlockLanes) : 0);
  p.total = at;
  return p;
}

// Row n of packed [N, K] weights to row j of packed weights: 4 bytes in each 64-byte unit of K.
void copy_packed_row(const int8_t* from, size_t n, int8_t* to, size_t j, size_t in) {
  const size_t units = (in + 3) / 4;
  const int8_t* src = from + kernels::packed_i8_16x4_block(n, in) + n % 16 * 4;
  int8_t* dst = to + kernels::packed_i8_16x4_block(j, in) + j % 16 * 4;
  for (size_t u = 0; u < units; ++u) std::memcpy(dst + u * 64, src + u * 64, 4);
}

}  // namespace

size_t Linear::gathered_bytes(size_t capacity) const {
  return gathered_parts(dtype_, row_sums_ != nullptr, group_size_, a_block_, bias_.data() != nullptr, num_outliers_,
                        capacity, in_)
      .total;
}

void Linear::gather_rows(const int32_t* rows, size_t count, void* storage, Linear* out) const {
  const bool packed = row_sums_ != nullptr;
  const GatheredParts p =
      gathered_parts(dtype_, packed, group_size_, a_block_, bias_.data() != nullptr, num_outliers_, count, in_);
  uint8_t* base = static_cast<uint8_t*>(storage);
  *out = Linear();
  out->out_ = count;
  out->in_ = in_;
  out->dtype_ = dtype_;
  out->weight_ = base + p.weights;
  out->group_size_ = group_size_;
  out->a_block_ = a_block_;
  out->outlier_channels_ = outlier_channels_;
  out->num_outliers_ = num_outliers_;
  if (packed) {
    int8_t* w = reinterpret_cast<int8_t*>(base + p.weights);
    // The last block's rows beyond `count` are zero padding, as in a packed file.
    std::memset(w + kernels::packed_i8_16x4_block(count / 16 * 16, in_), 0,
                kernels::packed_i8_16x4_bytes(count, in_) - kernels::packed_i8_16x4_block(count / 16 * 16, in_));
    int32_t* sums = reinterpret_cast<int32_t*>(base + p.row_sums);
    for (size_t j = 0; j < count; ++j) {
      copy_packed_row(static_cast<const int8_t*>(weight_), static_cast<size_t>(rows[j]), w, j, in_);
      sums[j] = row_sums_[rows[j]];
    }
    out->row_sums_ = sums;
  } else {
    const size_t bytes = in_ * dtype_size(dtype_);
    for (size_t j = 0; j < count; ++j) {
      std::memcpy(base + p.weights + j * bytes, static_cast<const uint8_t*>(weight_) + rows[j] * bytes, bytes);
    }
  }
  const size_t per_row = scales_per_row(dtype_, group_size_, in_);
  if (per_row > 0) {
    float* scales = reinterpret_cast<float*>(base + p.scales);
    for (size_t j = 0; j < count; ++j) std::memcpy(scales + j * per_row, scales_ + rows[j] * per_row, per_row * 4);
    out->scales_ = scales;
  }
  if (bias_.data() != nullptr) {
    float* bias = reinterpret_cast<float*>(base + p.bias);
    for (size_t j = 0; j < count; ++j) bias[j] = bias_.data()[rows[j]];
    out->bias_.view(bias);
  }
  if (num_outliers_ > 0) {
    // [channels, out]: column j of the gathered layer is column rows[j] here.
    float* weights = reinterpret_cast<float*>(base + p.outliers);
    for (size_t c = 0; c < num_outliers_; ++c) {
      for (size_t j = 0; j < count; ++j) weights[c * count + j] = outlier_weights_[c * out_ + rows[j]];
    }
    out->outlier_weights_ = weights;
  }
  if (a_block_ != 0) {
    auto* lanes = reinterpret_cast<kernels::BlockLanes*>(base + p.lanes);
    kernels::pack_block_lanes(static_cast<const int8_t*>(out->weight_), count, in_, a_block_, out->scales_,
                              group_size_ != 0, lanes);
    out->gathered_lanes_ = lanes;
  }
}

}  // namespace heed::layers
