// The baseline aarch64 NEON variant's slots of the kernel table (arm/slots_neon.inc; the rest stay the reference's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_neon(KernelTable& t) {
#define HEED_SLOT(name) t.name = neon::name;
#include "arm/slots_neon.inc"
#undef HEED_SLOT
}

}  // namespace heed::kernels
