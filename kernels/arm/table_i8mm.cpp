// The i8mm variant's slots; everything else comes from the dotprod table.
#include "internal/variants.h"

namespace heed::kernels {

void fill_i8mm(KernelTable& t) {
  t.gemm_i8 = i8mm::gemm_i8;
  t.gemm_i8_packed = i8mm::gemm_i8_packed;
}

}  // namespace heed::kernels
