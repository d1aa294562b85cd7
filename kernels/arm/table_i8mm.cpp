// The i8mm variant's slots; everything else comes from the dotprod table (gemm_i8_packed too: the
// 16x4 layout is shaped for SDOT; an SMMLA kernel would want its own 8-byte-by-2-row layout).
#include "internal/variants.h"

namespace heed::kernels {

void fill_i8mm(KernelTable& t) { t.gemm_i8 = i8mm::gemm_i8; }

}  // namespace heed::kernels
