// The AVX-512 BF16 variant's slots of the kernel table (x86/slots_avx512bf16.inc; the rest stay the
// AVX-512 VNNI variant's).
#include "internal/variants.h"

namespace heed::kernels {

void fill_avx512bf16(KernelTable& t) {
#define HEED_SLOT(name) t.name = avx512bf16::name;
#include "x86/slots_avx512bf16.inc"
#undef HEED_SLOT
}

}  // namespace heed::kernels
