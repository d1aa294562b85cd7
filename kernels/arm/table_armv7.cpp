// The 32-bit ARM NEON variant's slots (the rest stay the reference's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_armv7(KernelTable& t) {
  t.quantize_rows_i8 = armv7::quantize_rows_i8;
  t.gemm_i8 = armv7::gemm_i8;
}

}  // namespace heed::kernels
