// Embedding tables [rows, dim] used in place from the mapping (f32, f16 or int8 with per-tensor,
// per-row or per-group scales; int8 per-row/per-tensor also in the 16x4 packed layout, which the
// converter writes for a table tied to the output projection), and the sinusoidal position table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "heed/kernels.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "heed/status.h"

namespace heed::layers {

class Embeddings {
 public:
  Status load(const Model& model, const std::string& name, size_t rows, size_t dim);
  size_t rows() const { return rows_; }
  size_t dim() const { return dim_; }
  // out[0, dim) = table[id] * scale, or += when accumulate. `id` must be < rows().
  // Row-major int8 with per-row scales and f16 tables go through the kernels' embedding lookup
  // (embed_i8 / embed_f16) when not accumulating; the other cases are scaled here, with the same
  // order of products.
  void gather(size_t id, float scale, bool accumulate, float* out) const;

 private:
  void gather_i8(size_t id, float scale, bool accumulate, float* out) const;
  void gather_packed_i8(size_t id, float scale, bool accumulate, float* out) const;

  const kernels::KernelTable* k_ = nullptr;
  size_t rows_ = 0, dim_ = 0;
  fb::DType dtype_ = fb::DType::F32;
  fb::Quantization quantization_ = fb::Quantization::None;
  size_t group_size_ = 0;
  bool packed_ = false;  // int8 in the 16x4 layout (a table tied to the output projection)
  const void* data_ = nullptr;
  const float* scales_ = nullptr;
};

// Fills table[positions, depth] with the sinusoidal encoding heed uses for models converted from
// CTranslate2 / OpenNMT: row p holds [sin((p + 1) * w_0) .. sin((p + 1) * w_{h-1}) |
// cos((p + 1) * w_0) .. cos((p + 1) * w_{h-1})], h = depth / 2, w_i = exp(-i * ln(10000) / (h - 1)).
// (Sines then cosines, concatenated, not interleaved; the first position is 1, not 0.)
void sinusoidal_positions(size_t positions, size_t depth, float* table);

}  // namespace heed::layers
