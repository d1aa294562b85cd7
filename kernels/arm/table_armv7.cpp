// The 32-bit ARM NEON variant's slots of the kernel table (arm/slots_armv7.inc; the rest stay the reference's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_armv7(KernelTable& t) {
#define HEED_SLOT(name) t.name = armv7::name;
#include "arm/slots_armv7.inc"
#undef HEED_SLOT
}

}  // namespace heed::kernels
