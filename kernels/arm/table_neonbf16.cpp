// The aarch64 BF16 variant's slots of the kernel table (arm/slots_neonbf16.inc; the rest stay the
// i8mm variant's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_neonbf16(KernelTable& t) {
#define HEED_SLOT(name) t.name = neonbf16::name;
#include "arm/slots_neonbf16.inc"
#undef HEED_SLOT
}

}  // namespace heed::kernels
