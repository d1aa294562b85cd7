#include "layers/embeddings.h"

#include <cmath>

#include "heed_format/quantization.h"
#include "layers/weights.h"
#include "loader/model_index.h"

namespace heed::layers {

Status Embeddings::load(const Model& model, const std::string& name, size_t rows, size_t dim) {
  const TensorView* t = nullptr;
  HEED_RETURN_IF_ERROR(require_shape(model, name,
                                     {static_cast<uint32_t>(rows), static_cast<uint32_t>(dim)}, &t));
  // A table the output projection reuses may be stored in the 16x4 layout of gemm_i8_packed (int8
  // with per-row or per-tensor scales, or per group of its activation block, which the loader has
  // checked): its rows are gathered from there.
  packed_ = t->layout == fb::Layout::Packed16x4;
  k_ = &kernels::best();
  rows_ = rows;
  dim_ = dim;
  dtype_ = t->dtype;
  quantization_ = t->quantization;
  group_size_ = 0;
  data_ = t->data;
  scales_ = t->scales;
  switch (t->dtype) {
    case fb::DType::F32:
    case fb::DType::F16:
      return Status::success();
    case fb::DType::I8: {
      if (quantization_ == fb::Quantization::PerGroup) group_size_ = t->group_size;
      const uint64_t expected = format::scale_count(quantization_, rows, dim, t->group_size);
      if (scales_ == nullptr || expected == 0 || t->num_scales != expected) {
        return invalid_file("tensor '" + name + "' has an unusable int8 quantization (" +
                            std::to_string(t->num_scales) + " scales)");
      }
      return Status::success();
    }
    default:
      return invalid_file("tensor '" + name + "' has dtype " + dtype_name(t->dtype) +
                          ", expected f32, f16 or i8");
  }
}

void Embeddings::gather(size_t id, float scale, bool accumulate, float* out) const {
  const int32_t row = static_cast<int32_t>(id);
  if (dtype_ == fb::DType::I8 && !packed_ && quantization_ == fb::Quantization::PerRow && !accumulate) {
    k_->embed_i8(static_cast<const int8_t*>(data_), rows_, dim_, scales_, &row, 1, dim_, scale, out, dim_);
  } else if (dtype_ == fb::DType::I8) {
    packed_ ? gather_packed_i8(id, scale, accumulate, out) : gather_i8(id, scale, accumulate, out);
  } else if (dtype_ == fb::DType::F16 && !accumulate) {
    k_->embed_f16(static_cast<const uint16_t*>(data_), rows_, dim_, &row, 1, dim_, scale, out, dim_);
  } else if (dtype_ == fb::DType::F16) {
    const uint16_t* h = static_cast<const uint16_t*>(data_) + id * dim_;
    for (size_t j = 0; j < dim_; ++j) out[j] += kernels::f16_to_f32_value(h[j]) * scale;
  } else {
    const float* f = static_cast<const float*>(data_) + id * dim_;
    for (size_t j = 0; j < dim_; ++j) {
      const float v = f[j] * scale;
      out[j] = accumulate ? out[j] + v : v;
    }
  }
}

void Embeddings::gather_i8(size_t id, float scale, bool accumulate, float* out) const {
  const int8_t* q = static_cast<const int8_t*>(data_) + id * dim_;
  const size_t groups = format::groups_per_row(quantization_, dim_, static_cast<uint32_t>(group_size_));
  for (size_t j = 0; j < dim_; ++j) {
    const float s = scales_[format::scale_index(quantization_, id, j, groups, static_cast<uint32_t>(group_size_))];
    const float v = static_cast<float>(q[j]) * s * scale;
    out[j] = accumulate ? out[j] + v : v;
  }
}

void Embeddings::gather_packed_i8(size_t id, float scale, bool accumulate, float* out) const {
  // Row id is lane id % 16 of block id / 16: 4 values per 64-byte unit (kernels.h, "16x4").
  const int8_t* table = static_cast<const int8_t*>(data_);
  const uint32_t group = static_cast<uint32_t>(group_size_);
  const size_t groups = format::groups_per_row(quantization_, dim_, group);
  for (size_t j = 0; j < dim_; ++j) {
    // The row-major loop's order of products, so both layouts give the same bits.
    const float s = scales_[format::scale_index(quantization_, id, j, groups, group)];
    const float v = static_cast<float>(table[kernels::packed_i8_16x4_index(id, j, dim_)]) * s * scale;
    out[j] = accumulate ? out[j] + v : v;
  }
}

void sinusoidal_positions(size_t positions, size_t depth, float* table) {
  const size_t half = depth / 2;
  // h - 1 in the denominator: the last frequency is exactly 1/10000. A depth of 2 has one
  // frequency, 1.
  const float increment = half > 1 ? std::log(10000.0f) / static_cast<float>(half - 1) : 0.0f;
  for (size_t p = 0; p < positions; ++p) {
    float* row = table + p * depth;
    const float position = static_cast<float>(p + 1);
    for (size_t i = 0; i < half; ++i) {
      const float timescale = std::exp(-increment * static_cast<float>(i));
      row[i] = std::sin(position * timescale);
      row[half + i] = std::cos(position * timescale);
    }
    if (depth % 2 == 1) row[depth - 1] = 0.0f;  // odd depths: the last column has no pair
  }
}

}  // namespace heed::layers
