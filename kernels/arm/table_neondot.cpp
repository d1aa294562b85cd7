// The dotprod variant's slots; everything else comes from the baseline NEON table.
#include "internal/variants.h"

namespace heed::kernels {

void fill_neondot(KernelTable& t) {
  t.gemm_i8 = neondot::gemm_i8;
  t.gemm_i8_packed = neondot::gemm_i8_packed;
}

}  // namespace heed::kernels
