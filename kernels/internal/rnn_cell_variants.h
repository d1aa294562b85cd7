// Internal to heed_kernels: the RNN cell kernels (KernelTable's "RNN cells" slots) of each variant.
// Kept apart from variants.h so the RNN family's kernels can grow without touching the others.
#pragma once

#include <cstddef>

#include "heed/kernels.h"

namespace heed::kernels {

#define HEED_KERNEL_DECLARE_RNN_CELLS                                           \
  void tanh_f32(float* x, size_t n);                                            \
  void lstm_cell(const float* gx, const float* gh, float* c, float* h, size_t n); \
  void gru_cell(const float* gx, const float* gh, float* h, size_t n)

namespace ref {
HEED_KERNEL_DECLARE_RNN_CELLS;
}
namespace avx2 {
HEED_KERNEL_DECLARE_RNN_CELLS;
}
namespace neon {
HEED_KERNEL_DECLARE_RNN_CELLS;
}
namespace armv7 {
HEED_KERNEL_DECLARE_RNN_CELLS;
}

}  // namespace heed::kernels
