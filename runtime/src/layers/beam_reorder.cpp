#include "layers/beam_reorder.h"

#include <cstring>

namespace heed::layers {

bool beam_reorder_moves(const int32_t* parents, size_t rows, size_t beam) {
  if (parents == nullptr || beam == 0) return false;
  bool identity = true;
  for (size_t r = 0; r < rows; ++r) {
    const int32_t p = parents[r];
    if (p < 0 || static_cast<size_t>(p) >= rows || static_cast<size_t>(p) / beam != r / beam) return false;
    identity = identity && static_cast<size_t>(p) == r;
  }
  return !identity;
}

void beam_reorder_rows(float* cache, size_t stride, size_t used, const int32_t* parents, size_t rows,
                       float* scratch) {
  const size_t bytes = used * sizeof(float);
  for (size_t r = 0; r < rows; ++r) {
    const size_t p = static_cast<size_t>(parents[r]);
    if (p != r) std::memcpy(scratch + r * used, cache + p * stride, bytes);
  }
  for (size_t r = 0; r < rows; ++r) {
    if (static_cast<size_t>(parents[r]) != r) std::memcpy(cache + r * stride, scratch + r * used, bytes);
  }
}

}  // namespace heed::layers
