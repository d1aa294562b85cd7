// The aarch64 SMMLA variant's slots of the kernel table (arm/slots_i8mm.inc; the rest stay the reference's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_i8mm(KernelTable& t) {
#define HEED_SLOT(name) t.name = i8mm::name;
#include "arm/slots_i8mm.inc"
#undef HEED_SLOT
}

}  // namespace heed::kernels
