// Rows split into register tiles with a compile-time height, for kernels whose accumulators must
// stay in registers (a runtime row count makes GCC keep them on the stack). Static, like every
// helper included by files with different flags (see internal/gemm_epilogue.h).
#pragma once

#include <cstddef>
#include <type_traits>

namespace heed::kernels {

// Calls tile(std::integral_constant<size_t, M>{}, r) over [0, rows): M = 4 while 4 rows are left,
// then once for the last 1-3.
template <class Tile>
static inline void for_each_row_tile(size_t rows, Tile tile) {
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) tile(std::integral_constant<size_t, 4>{}, r);
  switch (rows - r) {
    case 3: return tile(std::integral_constant<size_t, 3>{}, r);
    case 2: return tile(std::integral_constant<size_t, 2>{}, r);
    case 1: return tile(std::integral_constant<size_t, 1>{}, r);
    default: return;
  }
}

}  // namespace heed::kernels
