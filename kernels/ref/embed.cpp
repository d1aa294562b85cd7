// Embedding lookup with dequantization: int8 rows with one scale per row, or f16 rows, times an
// optional multiplier (sqrt(d_model) in the original Transformer). Ids outside the table give a
// zero row and are counted, so a bad token id is reported by the caller instead of read out of
// bounds.
#include <cstring>

#include "internal/variants.h"

namespace heed::kernels::ref {

size_t embed_i8(const int8_t* table, size_t rows, size_t ld, const float* row_scales,
                const int32_t* ids, size_t count, size_t dim, float multiplier, float* out,
                size_t ldo) {
  size_t bad = 0;
  for (size_t t = 0; t < count; ++t) {
    float* o = out + t * ldo;
    if (ids[t] < 0 || static_cast<size_t>(ids[t]) >= rows) {
      std::memset(o, 0, dim * sizeof(float));
      ++bad;
      continue;
    }
    const size_t r = static_cast<size_t>(ids[t]);
    const int8_t* q = table + r * ld;
    const float scale = row_scales[r];
    for (size_t i = 0; i < dim; ++i) o[i] = static_cast<float>(q[i]) * scale;
    if (multiplier != 1.0f)
      for (size_t i = 0; i < dim; ++i) o[i] *= multiplier;
  }
  return bad;
}

size_t embed_f16(const uint16_t* table, size_t rows, size_t ld, const int32_t* ids, size_t count,
                 size_t dim, float multiplier, float* out, size_t ldo) {
  size_t bad = 0;
  for (size_t t = 0; t < count; ++t) {
    float* o = out + t * ldo;
    if (ids[t] < 0 || static_cast<size_t>(ids[t]) >= rows) {
      std::memset(o, 0, dim * sizeof(float));
      ++bad;
      continue;
    }
    const uint16_t* h = table + static_cast<size_t>(ids[t]) * ld;
    for (size_t i = 0; i < dim; ++i) o[i] = f16_bits_to_f32(h[i]);
    if (multiplier != 1.0f)
      for (size_t i = 0; i < dim; ++i) o[i] *= multiplier;
  }
  return bad;
}

}  // namespace heed::kernels::ref
