// The aarch64 SDOT variant's slots of the kernel table (arm/slots_neondot.inc; the rest stay the reference's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_neondot(KernelTable& t) {
#define HEED_SLOT(name) t.name = neondot::name;
#include "arm/slots_neondot.inc"
#undef HEED_SLOT
}

}  // namespace heed::kernels
