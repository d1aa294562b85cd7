// Internal to heed_kernels: the functions each variant provides, and the helpers they share.
//
// Every variant lives in its own namespace with the exact signatures of the KernelTable slots.
// A variant declares only what it implements; dispatch.cpp fills the rest from the next best
// variant, ending at the scalar reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "heed/kernels.h"

namespace heed::kernels {

// Declares function `name` with the signature of the KernelTable slot of that name.
#define HEED_DECLARE_SLOT(name) std::remove_pointer_t<decltype(KernelTable::name)> name;

// Scalar reference: the specification (kernels/ref/).
namespace ref {
#define HEED_SLOT HEED_DECLARE_SLOT
#include "internal/slots_ref.inc"
#undef HEED_SLOT
// One activation on one value (shared by every variant's GEMM epilogue so they agree exactly).
float activation(float x, Activation act);
// One half-precision bit pattern to float, exactly.
float f16_bits_to_f32(uint16_t h);
}  // namespace ref

// Each variant declares only the slots its list names.
#define HEED_SLOT HEED_DECLARE_SLOT
namespace avx2 {
#include "x86/slots_avx2.inc"
}  // namespace avx2
namespace avx512vnni {
#include "x86/slots_avx512vnni.inc"
inline constexpr size_t kGemmI8PackedNStep = 48;  // KernelTable::gemm_i8_packed_n_step: 3 blocks per tile
}  // namespace avx512vnni
namespace avx512bf16 {
#include "x86/slots_avx512bf16.inc"
}  // namespace avx512bf16
namespace amx {
#include "x86/slots_amx.inc"
inline constexpr size_t kGemmI8PackedNStep = 32;  // KernelTable::gemm_i8_packed_n_step: 2 blocks per tile
}  // namespace amx
namespace neon {
#include "arm/slots_neon.inc"
}  // namespace neon
namespace neondot {
#include "arm/slots_neondot.inc"
}  // namespace neondot
namespace i8mm {
#include "arm/slots_i8mm.inc"
}  // namespace i8mm
namespace neonbf16 {
#include "arm/slots_neonbf16.inc"
}  // namespace neonbf16
namespace armv7 {
#include "arm/slots_armv7.inc"
}  // namespace armv7
#undef HEED_SLOT

// Table fillers, one per variant, defined next to the variant's kernels; each overwrites only the
// slots its variant implements. Which exist depends on the target (see kernels/CMakeLists.txt).
void fill_avx2(KernelTable& t);
void fill_avx512vnni(KernelTable& t);
void fill_avx512bf16(KernelTable& t);
void fill_amx(KernelTable& t);
void fill_neon(KernelTable& t);
void fill_neondot(KernelTable& t);
void fill_i8mm(KernelTable& t);
void fill_neonbf16(KernelTable& t);
void fill_armv7(KernelTable& t);

}  // namespace heed::kernels
