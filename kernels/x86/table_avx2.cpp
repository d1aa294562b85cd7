// The AVX2 variant's slots of the kernel table (x86/slots_avx2.inc; the rest stay the reference's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_avx2(KernelTable& t) {
#define HEED_SLOT(name) t.name = avx2::name;
#include "x86/slots_avx2.inc"
#undef HEED_SLOT
}

}  // namespace heed::kernels
