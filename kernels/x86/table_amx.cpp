// The AMX variant's slots of the kernel table (x86/slots_amx.inc; the rest stay the AVX-512 BF16
// variant's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_amx(KernelTable& t) {
#define HEED_SLOT(name) t.name = amx::name;
#include "x86/slots_amx.inc"
#undef HEED_SLOT
  t.gemm_i8_packed_n_step = amx::kGemmI8PackedNStep;
}

}  // namespace heed::kernels
