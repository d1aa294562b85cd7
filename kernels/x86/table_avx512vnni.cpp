// The AVX-512 VNNI variant's slots of the kernel table (x86/slots_avx512vnni.inc; the rest stay the reference's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_avx512vnni(KernelTable& t) {
#define HEED_SLOT(name) t.name = avx512vnni::name;
#include "x86/slots_avx512vnni.inc"
#undef HEED_SLOT
  t.gemm_i8_packed_n_step = avx512vnni::kGemmI8PackedNStep;
}

}  // namespace heed::kernels
